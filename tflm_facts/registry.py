"""TFLM registration table (data): TFLite builtin ops and TFLM-known custom ops -> MicroMutableOpResolver method.

BUILTIN_OPS maps every BuiltinOperator enum name to (enum value, TFLM method or None when TFLM has no kernel).
TFLM_CUSTOM_OPS maps the custom op names that TFLM registers by name to their method.
Facts checked against the BuiltinOperator enum of the TFLite schema (schema.fbs, values 0..209) and
tensorflow/lite/micro/micro_mutable_op_resolver.h of tflite-micro (August 2026): every Add* method there that
registers a builtin or a named custom op appears here, and nothing else does.
"""

from __future__ import annotations

from dataclasses import dataclass

# name: (enum value, method or None)
BUILTIN_OPS: dict[str, tuple[int, str | None]] = {
    "ADD": (0, "AddAdd"),
    "AVERAGE_POOL_2D": (1, "AddAveragePool2D"),
    "CONCATENATION": (2, "AddConcatenation"),
    "CONV_2D": (3, "AddConv2D"),
    "DEPTHWISE_CONV_2D": (4, "AddDepthwiseConv2D"),
    "DEPTH_TO_SPACE": (5, "AddDepthToSpace"),
    "DEQUANTIZE": (6, "AddDequantize"),
    "EMBEDDING_LOOKUP": (7, "AddEmbeddingLookup"),
    "FLOOR": (8, "AddFloor"),
    "FULLY_CONNECTED": (9, "AddFullyConnected"),
    "HASHTABLE_LOOKUP": (10, None),
    "L2_NORMALIZATION": (11, "AddL2Normalization"),
    "L2_POOL_2D": (12, "AddL2Pool2D"),
    "LOCAL_RESPONSE_NORMALIZATION": (13, None),
    "LOGISTIC": (14, "AddLogistic"),
    "LSH_PROJECTION": (15, None),
    "LSTM": (16, None),
    "MAX_POOL_2D": (17, "AddMaxPool2D"),
    "MUL": (18, "AddMul"),
    "RELU": (19, "AddRelu"),
    "RELU_N1_TO_1": (20, None),
    "RELU6": (21, "AddRelu6"),
    "RESHAPE": (22, "AddReshape"),
    "RESIZE_BILINEAR": (23, "AddResizeBilinear"),
    "RNN": (24, None),
    "SOFTMAX": (25, "AddSoftmax"),
    "SPACE_TO_DEPTH": (26, "AddSpaceToDepth"),
    "SVDF": (27, "AddSvdf"),
    "TANH": (28, "AddTanh"),
    "CONCAT_EMBEDDINGS": (29, None),
    "SKIP_GRAM": (30, None),
    "CALL": (31, None),
    "CUSTOM": (32, None),
    "EMBEDDING_LOOKUP_SPARSE": (33, None),
    "PAD": (34, "AddPad"),
    "UNIDIRECTIONAL_SEQUENCE_RNN": (35, None),
    "GATHER": (36, "AddGather"),
    "BATCH_TO_SPACE_ND": (37, "AddBatchToSpaceNd"),
    "SPACE_TO_BATCH_ND": (38, "AddSpaceToBatchNd"),
    "TRANSPOSE": (39, "AddTranspose"),
    "MEAN": (40, "AddMean"),
    "SUB": (41, "AddSub"),
    "DIV": (42, "AddDiv"),
    "SQUEEZE": (43, "AddSqueeze"),
    "UNIDIRECTIONAL_SEQUENCE_LSTM": (44, "AddUnidirectionalSequenceLSTM"),
    "STRIDED_SLICE": (45, "AddStridedSlice"),
    "BIDIRECTIONAL_SEQUENCE_RNN": (46, None),
    "EXP": (47, "AddExp"),
    "TOPK_V2": (48, None),
    "SPLIT": (49, "AddSplit"),
    "LOG_SOFTMAX": (50, "AddLogSoftmax"),
    "DELEGATE": (51, None),
    "BIDIRECTIONAL_SEQUENCE_LSTM": (52, None),
    "CAST": (53, "AddCast"),
    "PRELU": (54, "AddPrelu"),
    "MAXIMUM": (55, "AddMaximum"),
    "ARG_MAX": (56, "AddArgMax"),
    "MINIMUM": (57, "AddMinimum"),
    "LESS": (58, "AddLess"),
    "NEG": (59, "AddNeg"),
    "PADV2": (60, "AddPadV2"),
    "GREATER": (61, "AddGreater"),
    "GREATER_EQUAL": (62, "AddGreaterEqual"),
    "LESS_EQUAL": (63, "AddLessEqual"),
    "SELECT": (64, None),
    "SLICE": (65, "AddSlice"),
    "SIN": (66, "AddSin"),
    "TRANSPOSE_CONV": (67, "AddTransposeConv"),
    "SPARSE_TO_DENSE": (68, None),
    "TILE": (69, None),
    "EXPAND_DIMS": (70, "AddExpandDims"),
    "EQUAL": (71, "AddEqual"),
    "NOT_EQUAL": (72, "AddNotEqual"),
    "LOG": (73, "AddLog"),
    "SUM": (74, "AddSum"),
    "SQRT": (75, "AddSqrt"),
    "RSQRT": (76, "AddRsqrt"),
    "SHAPE": (77, "AddShape"),
    "POW": (78, None),
    "ARG_MIN": (79, "AddArgMin"),
    "FAKE_QUANT": (80, None),
    "REDUCE_PROD": (81, None),
    "REDUCE_MAX": (82, "AddReduceMax"),
    "PACK": (83, "AddPack"),
    "LOGICAL_OR": (84, "AddLogicalOr"),
    "ONE_HOT": (85, None),
    "LOGICAL_AND": (86, "AddLogicalAnd"),
    "LOGICAL_NOT": (87, "AddLogicalNot"),
    "UNPACK": (88, "AddUnpack"),
    "REDUCE_MIN": (89, "AddReduceMin"),
    "FLOOR_DIV": (90, "AddFloorDiv"),
    "REDUCE_ANY": (91, None),
    "SQUARE": (92, "AddSquare"),
    "ZEROS_LIKE": (93, "AddZerosLike"),
    "FILL": (94, "AddFill"),
    "FLOOR_MOD": (95, "AddFloorMod"),
    "RANGE": (96, None),
    "RESIZE_NEAREST_NEIGHBOR": (97, "AddResizeNearestNeighbor"),
    "LEAKY_RELU": (98, "AddLeakyRelu"),
    "SQUARED_DIFFERENCE": (99, "AddSquaredDifference"),
    "MIRROR_PAD": (100, "AddMirrorPad"),
    "ABS": (101, "AddAbs"),
    "SPLIT_V": (102, "AddSplitV"),
    "UNIQUE": (103, None),
    "CEIL": (104, "AddCeil"),
    "REVERSE_V2": (105, "AddReverseV2"),
    "ADD_N": (106, "AddAddN"),
    "GATHER_ND": (107, "AddGatherNd"),
    "COS": (108, "AddCos"),
    "WHERE": (109, None),
    "RANK": (110, None),
    "ELU": (111, "AddElu"),
    "REVERSE_SEQUENCE": (112, None),
    "MATRIX_DIAG": (113, None),
    "QUANTIZE": (114, "AddQuantize"),
    "MATRIX_SET_DIAG": (115, None),
    "ROUND": (116, "AddRound"),
    "HARD_SWISH": (117, "AddHardSwish"),
    "IF": (118, "AddIf"),
    "WHILE": (119, "AddWhile"),
    "NON_MAX_SUPPRESSION_V4": (120, None),
    "NON_MAX_SUPPRESSION_V5": (121, None),
    "SCATTER_ND": (122, None),
    "SELECT_V2": (123, "AddSelectV2"),
    "DENSIFY": (124, None),
    "SEGMENT_SUM": (125, None),
    "BATCH_MATMUL": (126, "AddBatchMatMul"),
    "PLACEHOLDER_FOR_GREATER_OP_CODES": (127, None),
    "CUMSUM": (128, "AddCumSum"),
    "CALL_ONCE": (129, "AddCallOnce"),
    "BROADCAST_TO": (130, "AddBroadcastTo"),
    "RFFT2D": (131, None),
    "CONV_3D": (132, None),
    "IMAG": (133, None),
    "REAL": (134, None),
    "COMPLEX_ABS": (135, None),
    "HASHTABLE": (136, None),
    "HASHTABLE_FIND": (137, None),
    "HASHTABLE_IMPORT": (138, None),
    "HASHTABLE_SIZE": (139, None),
    "REDUCE_ALL": (140, "AddReduceAll"),
    "CONV_3D_TRANSPOSE": (141, None),
    "VAR_HANDLE": (142, "AddVarHandle"),
    "READ_VARIABLE": (143, "AddReadVariable"),
    "ASSIGN_VARIABLE": (144, "AddAssignVariable"),
    "BROADCAST_ARGS": (145, "AddBroadcastArgs"),
    "RANDOM_STANDARD_NORMAL": (146, None),
    "BUCKETIZE": (147, None),
    "RANDOM_UNIFORM": (148, None),
    "MULTINOMIAL": (149, None),
    "GELU": (150, None),
    "DYNAMIC_UPDATE_SLICE": (151, "AddDynamicUpdateSlice"),
    "RELU_0_TO_1": (152, None),
    "UNSORTED_SEGMENT_PROD": (153, None),
    "UNSORTED_SEGMENT_MAX": (154, None),
    "UNSORTED_SEGMENT_SUM": (155, None),
    "ATAN2": (156, None),
    "UNSORTED_SEGMENT_MIN": (157, None),
    "SIGN": (158, None),
    "BITCAST": (159, None),
    "BITWISE_XOR": (160, None),
    "RIGHT_SHIFT": (161, None),
    "STABLEHLO_LOGISTIC": (162, None),
    "STABLEHLO_ADD": (163, None),
    "STABLEHLO_DIVIDE": (164, None),
    "STABLEHLO_MULTIPLY": (165, None),
    "STABLEHLO_MAXIMUM": (166, None),
    "STABLEHLO_RESHAPE": (167, None),
    "STABLEHLO_CLAMP": (168, None),
    "STABLEHLO_CONCATENATE": (169, None),
    "STABLEHLO_BROADCAST_IN_DIM": (170, None),
    "STABLEHLO_CONVOLUTION": (171, None),
    "STABLEHLO_SLICE": (172, None),
    "STABLEHLO_CUSTOM_CALL": (173, None),
    "STABLEHLO_REDUCE": (174, None),
    "STABLEHLO_ABS": (175, None),
    "STABLEHLO_AND": (176, None),
    "STABLEHLO_COSINE": (177, None),
    "STABLEHLO_EXPONENTIAL": (178, None),
    "STABLEHLO_FLOOR": (179, None),
    "STABLEHLO_LOG": (180, None),
    "STABLEHLO_MINIMUM": (181, None),
    "STABLEHLO_NEGATE": (182, None),
    "STABLEHLO_OR": (183, None),
    "STABLEHLO_POWER": (184, None),
    "STABLEHLO_REMAINDER": (185, None),
    "STABLEHLO_RSQRT": (186, None),
    "STABLEHLO_SELECT": (187, None),
    "STABLEHLO_SUBTRACT": (188, None),
    "STABLEHLO_TANH": (189, None),
    "STABLEHLO_SCATTER": (190, None),
    "STABLEHLO_COMPARE": (191, None),
    "STABLEHLO_CONVERT": (192, None),
    "STABLEHLO_DYNAMIC_SLICE": (193, None),
    "STABLEHLO_DYNAMIC_UPDATE_SLICE": (194, None),
    "STABLEHLO_PAD": (195, None),
    "STABLEHLO_IOTA": (196, None),
    "STABLEHLO_DOT_GENERAL": (197, None),
    "STABLEHLO_REDUCE_WINDOW": (198, None),
    "STABLEHLO_SORT": (199, None),
    "STABLEHLO_WHILE": (200, None),
    "STABLEHLO_GATHER": (201, None),
    "STABLEHLO_TRANSPOSE": (202, None),
    "DILATE": (203, None),
    "STABLEHLO_RNG_BIT_GENERATOR": (204, None),
    "REDUCE_WINDOW": (205, None),
    "STABLEHLO_COMPOSITE": (206, None),
    "STABLEHLO_SHIFT_LEFT": (207, None),
    "STABLEHLO_CBRT": (208, None),
    "STABLEHLO_CASE": (209, None),
}

# Custom op names that TFLM registers itself, and the method that registers them.
TFLM_CUSTOM_OPS: dict[str, str] = {
    "CIRCULAR_BUFFER": "AddCircularBuffer",
    "TFLM_DECODE": "AddDecode",
    "TFLite_Detection_PostProcess": "AddDetectionPostprocess",
    "ethos-u": "AddEthosU",
    "SignalDelay": "AddDelay",
    "SignalEnergy": "AddEnergy",
    "SignalFftAutoScale": "AddFftAutoScale",
    "SignalFilterBank": "AddFilterBank",
    "SignalFilterBankLog": "AddFilterBankLog",
    "SignalFilterBankSpectralSubtraction": "AddFilterBankSpectralSubtraction",
    "SignalFilterBankSquareRoot": "AddFilterBankSquareRoot",
    "SignalFramer": "AddFramer",
    "SignalIrfft": "AddIrfft",
    "SignalOverlapAdd": "AddOverlapAdd",
    "SignalPCAN": "AddPCAN",
    "SignalRfft": "AddRfft",
    "SignalStacker": "AddStacker",
    "SignalWindow": "AddWindow",
}

CUSTOM_OP_NOTES: dict[str, str] = {
    "ethos-u": "TFLM's Ethos-U stub registers nothing unless TFLM is built for Ethos-U",
}

# Custom ops that TensorFlow Lite (not Micro) registers itself, in namespace tflite::ops::custom; used by --format lite.
TFLITE_CUSTOM_REGISTRATIONS: dict[str, str] = {
    "AudioSpectrogram": "Register_AUDIO_SPECTROGRAM",
    "Mfcc": "Register_MFCC",
    "TFLite_Detection_PostProcess": "Register_DETECTION_POSTPROCESS",
}

CUSTOM_BUILTIN_CODE = BUILTIN_OPS["CUSTOM"][0]

_NAME_BY_CODE = {code: name for name, (code, _method) in BUILTIN_OPS.items()}


def builtin_name(code: int) -> str | None:
    """Enum name of a builtin operator code, or None when the code is not in the table (newer, or corrupt)."""
    return _NAME_BY_CODE.get(code)


@dataclass(frozen=True)
class Registration:
    """How one op gets into a MicroMutableOpResolver."""

    method: str | None  # e.g. "AddConv2D"; None for an unsupported op and for user custom ops
    custom_registration: str | None = None  # e.g. "Register_SINH" for a user custom op: AddCustom(name, fn())
    unsupported_reason: str | None = None
    note: str | None = None

    @property
    def supported(self) -> bool:
        return self.unsupported_reason is None


def registration_function_name(op_name: str) -> str:
    """TFLite/TFLM convention for a custom op's registration function: Register_ + the name in upper snake case.

    Words of a CamelCase name are split as TFLite's gen_op_registration does ("FilterBankLog" -> FILTER_BANK_LOG,
    "Sinh" -> SINH); anything that is not an ASCII letter or digit becomes one underscore, so the result is always a
    valid C++ identifier without the reserved double underscore ("tftext:WhitespaceTokenizer" ->
    Register_TFTEXT_WHITESPACE_TOKENIZER).
    """
    words: list[str] = []
    current = ""
    previous = ""
    for ch in op_name:
        if ch.isascii() and ch.isalnum():
            if ch.isupper() and previous.islower():
                words.append(current)
                current = ""
            current += ch
        else:
            words.append(current)
            current = ""
        previous = ch if ch.isascii() else ""
    words.append(current)
    cleaned = "_".join(word.upper() for word in words if word)
    return "Register_" + (cleaned or "OP")


def registration_for(key_kind: str, name: str, custom_overrides: dict[str, str] | None = None) -> Registration:
    """The TFLM registration of a builtin (kind "builtin", enum name) or custom op (kind "custom", custom_code).

    custom_overrides maps a custom op name to the registration function the user provides (--custom NAME=FN).
    """
    if key_kind == "builtin":
        _code, method = BUILTIN_OPS[name]
        if method is None:
            return Registration(None, unsupported_reason=f"TFLM has no kernel for builtin op {name}")
        return Registration(method)
    if custom_overrides and name in custom_overrides:
        return Registration(None, custom_registration=custom_overrides[name])
    if name in TFLM_CUSTOM_OPS:
        return Registration(TFLM_CUSTOM_OPS[name], note=CUSTOM_OP_NOTES.get(name))
    if name.startswith("Flex"):
        return Registration(None, unsupported_reason=f"{name} is a Select TensorFlow (Flex) op, which TFLM cannot run")
    return Registration(None, custom_registration=registration_function_name(name))
