"""What TFLM's interpreter and kernels take from the tensor arena, as data (tflite-micro 90b983c).

- STRUCTS: sizeof/alignof of the runtime structs the allocator places in the arena, per target ABI (ABIS: "ilp32"
  32-bit with int-sized enums, "eabi" Arm bare metal with short enums, "lp64" 64-bit hosts);
- BUILTIN_PARAMS: the TfLiteXxxParams struct each op's builtin-data parser allocates (persistent, at alignof);
- OP_DATA: the struct each kernel's Init() allocates with AllocatePersistentBuffer (16-byte aligned), per kernel set
  (reference, cmsis_nn, esp_nn; CMSIS-NN and esp-tflite-micro builds fall back to the reference kernel for the ops
  they do not optimise);
- prepare_allocations(): what each kernel's Prepare() adds, from the operator's tensors: per-channel quantization
  arrays and lookup tables (persistent) and scratch buffers (planned with the tensors), with CMSIS-NN's
  *_get_buffer_size rules per core feature (CPU_FEATURES: "dsp" for Cortex-M4/M7/M33, M55 without MVE and 32-bit Arm
  Linux; "mve" for a core with Helium, where CMSIS-NN is compiled with ARM_MATH_MVEI: Cortex-M55/M85), as
  tflm_facts.cmsis_nn_scratch holds them (CMSIS-NN 4ab83cc compiled with GCC), and TFLM's default
  KERNELS_OPTIMIZED_FOR_SPEED; esp-tflite-micro's esp_nn kernels as tflm_facts.esp_nn_kernels holds them (esp-nn's
  generic C scratch rules, what ESP-IDF builds for every chip but the ESP32-S3 and P4).

Sizes were read from the checkout by compiling sizeof/alignof probes with arm-linux-gnueabihf-g++ (ilp32),
arm-none-eabi-g++ -mcpu=cortex-m4 (eabi) and g++ on x86-64 (lp64), with TFLM's flags (-DTF_LITE_STATIC_MEMORY);
tests/tflm_facts/test_kernel_memory.py repeats that whenever the checkout and a compiler are present. An op missing here is still estimated, with an upper bound on its
Init/Prepare allocations (UNKNOWN_OP_BOUND) and a note.
"""

from __future__ import annotations

from dataclasses import dataclass

from tflm_facts.cmsis_nn_scratch import CMSIS_NN_SCRATCH_RULES, CPU_FEATURES, cmsis_2021_conv_s8_buffer
from tflm_facts.esp_nn_kernels import ESP_NN_DEFAULT_VARIANT, ESP_NN_SCRATCH_RULES
from tflm_facts.op_view import OpView, TensorView

KERNEL_SETS = ("reference", "cmsis_nn", "esp_nn")
POINTER_SIZES = (4, 8)
# The struct layouts TFLM's arena sees depend on the target ABI, not only on the pointer size:
ABIS = {
    "ilp32": "32-bit pointers, int-sized enums: 32-bit Arm Linux (gnueabihf), RISC-V and Xtensa bare metal",
    "eabi": "32-bit pointers, short enums: Arm bare metal (arm-none-eabi GCC's default: Cortex-M, Zephyr, RTOSes)",
    "lp64": "64-bit pointers: x86-64 and arm64 hosts",
}


def abi_for(pointer_bytes: int, short_enums: bool = False) -> str:
    """The ABI key of the size tables for a pointer size and enum convention."""
    if pointer_bytes == 8:
        return "lp64"
    return "eabi" if short_enums else "ilp32"
ARENA_ALIGNMENT = 16  # MicroArenaBufferAlignment(): kernel persistent buffers, variable tensors, planned buffers
MAX_SCRATCH_BUFFERS_PER_OP = 12  # kMaxScratchBuffersPerOp: the head reserves room for this many new requests
# GreedyMemoryPlanner's working memory per planned buffer: BufferRequirements (4 ints) + sorted size + sorted id +
# ListEntry (3 ints) + offset. All ints, so the same for both pointer sizes.
GREEDY_PLANNER_BYTES_PER_BUFFER = 40
INT16_LUT_BYTES = 2 * 513  # LUTSize<int16_t>() entries of int16

# name -> {ABI: (sizeof, alignof)}
STRUCTS: dict[str, dict[int, tuple[int, int]]] = {
    "SingleArenaBufferAllocator": {"ilp32": (36, 4), "eabi": (36, 4), "lp64": (72, 8)},
    "GreedyMemoryPlanner": {"ilp32": (44, 4), "eabi": (44, 4), "lp64": (72, 8)},
    "MicroAllocator": {"ilp32": (36, 4), "eabi": (36, 4), "lp64": (72, 8)},
    "MicroBuiltinDataAllocator": {"ilp32": (8, 4), "eabi": (8, 4), "lp64": (16, 8)},
    "SubgraphAllocations": {"ilp32": (8, 4), "eabi": (8, 4), "lp64": (16, 8)},
    "TfLiteEvalTensor": {"ilp32": (12, 4), "eabi": (12, 4), "lp64": (24, 8)},
    "NodeAndRegistration": {"ilp32": (32, 4), "eabi": (32, 4), "lp64": (64, 8)},
    "TfLiteTensor": {"ilp32": (40, 4), "eabi": (32, 4), "lp64": (64, 8)},
    "TfLiteAffineQuantization": {"ilp32": (12, 4), "eabi": (12, 4), "lp64": (24, 8)},
    "TfLiteIntArray": {"ilp32": (4, 4), "eabi": (4, 4), "lp64": (4, 4)},
    "ScratchBufferRequest": {"ilp32": (12, 4), "eabi": (12, 4), "lp64": (16, 8)},
    "ScratchBufferHandle": {"ilp32": (4, 4), "eabi": (4, 4), "lp64": (8, 8)},
    "AllocationInfo": {"ilp32": (24, 4), "eabi": (24, 4), "lp64": (32, 8)},
    "size_t": {"ilp32": (4, 4), "eabi": (4, 4), "lp64": (8, 8)},
    "void*": {"ilp32": (4, 4), "eabi": (4, 4), "lp64": (8, 8)},
}

# Builtin op -> the params struct its parser allocates; ops not listed parse without allocating (ParseStub-like).
BUILTIN_PARAMS: dict[str, str] = {
    "ADD": "TfLiteAddParams", "ARG_MAX": "TfLiteArgMaxParams", "ARG_MIN": "TfLiteArgMinParams",
    "BATCH_MATMUL": "TfLiteBatchMatMulParams", "CALL_ONCE": "TfLiteCallOnceParams", "CAST": "TfLiteCastParams",
    "CONCATENATION": "TfLiteConcatenationParams", "CONV_2D": "TfLiteConvParams", "CUMSUM": "TfLiteCumsumParams",
    "DEPTH_TO_SPACE": "TfLiteDepthToSpaceParams", "DEPTHWISE_CONV_2D": "TfLiteDepthwiseConvParams",
    "DIV": "TfLiteDivParams", "FULLY_CONNECTED": "TfLiteFullyConnectedParams", "GATHER": "TfLiteGatherParams",
    "GELU": "TfLiteGeluParams", "IF": "TfLiteIfParams", "L2_NORMALIZATION": "TfLiteL2NormParams",
    "LEAKY_RELU": "TfLiteLeakyReluParams", "LSTM": "TfLiteLSTMParams", "MIRROR_PAD": "TfLiteMirrorPaddingParams",
    "MUL": "TfLiteMulParams", "PACK": "TfLitePackParams", "AVERAGE_POOL_2D": "TfLitePoolParams",
    "MAX_POOL_2D": "TfLitePoolParams", "L2_POOL_2D": "TfLitePoolParams", "MEAN": "TfLiteReducerParams",
    "SUM": "TfLiteReducerParams", "REDUCE_MAX": "TfLiteReducerParams", "REDUCE_MIN": "TfLiteReducerParams",
    "REDUCE_PROD": "TfLiteReducerParams", "REDUCE_ANY": "TfLiteReducerParams", "REDUCE_ALL": "TfLiteReducerParams",
    "RESHAPE": "TfLiteReshapeParams", "RESIZE_BILINEAR": "TfLiteResizeBilinearParams",
    "RESIZE_NEAREST_NEIGHBOR": "TfLiteResizeNearestNeighborParams", "SHAPE": "TfLiteShapeParams",
    "SOFTMAX": "TfLiteSoftmaxParams", "SPACE_TO_DEPTH": "TfLiteSpaceToDepthParams", "SPLIT": "TfLiteSplitParams",
    "SPLIT_V": "TfLiteSplitVParams", "SQUEEZE": "TfLiteSqueezeParams", "STRIDED_SLICE": "TfLiteStridedSliceParams",
    "SUB": "TfLiteSubParams", "SVDF": "TfLiteSVDFParams", "TRANSPOSE_CONV": "TfLiteTransposeConvParams",
    "UNIDIRECTIONAL_SEQUENCE_LSTM": "TfLiteUnidirectionalSequenceLSTMParams", "UNPACK": "TfLiteUnpackParams",
    "VAR_HANDLE": "TfLiteVarHandleParams", "WHILE": "TfLiteWhileParams",
}

PARAM_STRUCTS: dict[str, dict[int, tuple[int, int]]] = {
    "TfLiteAddParams": {"ilp32": (8, 4), "eabi": (2, 1), "lp64": (8, 4)}, "TfLiteArgMaxParams": {"ilp32": (4, 4), "eabi": (1, 1), "lp64": (4, 4)},
    "TfLiteArgMinParams": {"ilp32": (4, 4), "eabi": (1, 1), "lp64": (4, 4)}, "TfLiteBatchMatMulParams": {"ilp32": (3, 1), "eabi": (3, 1), "lp64": (3, 1)},
    "TfLiteCallOnceParams": {"ilp32": (4, 4), "eabi": (4, 4), "lp64": (4, 4)}, "TfLiteCastParams": {"ilp32": (8, 4), "eabi": (2, 1), "lp64": (8, 4)},
    "TfLiteConcatenationParams": {"ilp32": (8, 4), "eabi": (8, 4), "lp64": (8, 4)}, "TfLiteConvParams": {"ilp32": (28, 4), "eabi": (28, 4), "lp64": (28, 4)},
    "TfLiteCumsumParams": {"ilp32": (2, 1), "eabi": (2, 1), "lp64": (2, 1)}, "TfLiteDepthToSpaceParams": {"ilp32": (4, 4), "eabi": (4, 4), "lp64": (4, 4)},
    "TfLiteDepthwiseConvParams": {"ilp32": (28, 4), "eabi": (28, 4), "lp64": (28, 4)}, "TfLiteDivParams": {"ilp32": (4, 4), "eabi": (1, 1), "lp64": (4, 4)},
    "TfLiteFullyConnectedParams": {"ilp32": (16, 4), "eabi": (5, 1), "lp64": (16, 4)}, "TfLiteGatherParams": {"ilp32": (8, 4), "eabi": (8, 4), "lp64": (8, 4)},
    "TfLiteGeluParams": {"ilp32": (1, 1), "eabi": (1, 1), "lp64": (1, 1)}, "TfLiteIfParams": {"ilp32": (8, 4), "eabi": (8, 4), "lp64": (8, 4)},
    "TfLiteL2NormParams": {"ilp32": (4, 4), "eabi": (1, 1), "lp64": (4, 4)}, "TfLiteLeakyReluParams": {"ilp32": (4, 4), "eabi": (4, 4), "lp64": (4, 4)},
    "TfLiteLSTMParams": {"ilp32": (20, 4), "eabi": (16, 4), "lp64": (20, 4)}, "TfLiteMirrorPaddingParams": {"ilp32": (4, 4), "eabi": (1, 1), "lp64": (4, 4)},
    "TfLiteMulParams": {"ilp32": (4, 4), "eabi": (1, 1), "lp64": (4, 4)}, "TfLitePackParams": {"ilp32": (8, 4), "eabi": (8, 4), "lp64": (8, 4)},
    "TfLitePoolParams": {"ilp32": (40, 4), "eabi": (40, 4), "lp64": (40, 4)}, "TfLiteReducerParams": {"ilp32": (1, 1), "eabi": (1, 1), "lp64": (1, 1)},
    "TfLiteReshapeParams": {"ilp32": (36, 4), "eabi": (36, 4), "lp64": (36, 4)}, "TfLiteResizeBilinearParams": {"ilp32": (2, 1), "eabi": (2, 1), "lp64": (2, 1)},
    "TfLiteResizeNearestNeighborParams": {"ilp32": (2, 1), "eabi": (2, 1), "lp64": (2, 1)}, "TfLiteShapeParams": {"ilp32": (4, 4), "eabi": (1, 1), "lp64": (4, 4)},
    "TfLiteSoftmaxParams": {"ilp32": (4, 4), "eabi": (4, 4), "lp64": (4, 4)}, "TfLiteSpaceToDepthParams": {"ilp32": (4, 4), "eabi": (4, 4), "lp64": (4, 4)},
    "TfLiteSplitParams": {"ilp32": (4, 4), "eabi": (4, 4), "lp64": (4, 4)}, "TfLiteSplitVParams": {"ilp32": (4, 4), "eabi": (4, 4), "lp64": (4, 4)},
    "TfLiteSqueezeParams": {"ilp32": (36, 4), "eabi": (36, 4), "lp64": (36, 4)}, "TfLiteStridedSliceParams": {"ilp32": (24, 4), "eabi": (24, 4), "lp64": (24, 4)},
    "TfLiteSubParams": {"ilp32": (8, 4), "eabi": (2, 1), "lp64": (8, 4)}, "TfLiteSVDFParams": {"ilp32": (12, 4), "eabi": (8, 4), "lp64": (12, 4)},
    "TfLiteTransposeConvParams": {"ilp32": (20, 4), "eabi": (16, 4), "lp64": (20, 4)},
    "TfLiteUnidirectionalSequenceLSTMParams": {"ilp32": (16, 4), "eabi": (16, 4), "lp64": (16, 4)},
    "TfLiteUnpackParams": {"ilp32": (8, 4), "eabi": (8, 4), "lp64": (8, 4)}, "TfLiteVarHandleParams": {"ilp32": (8, 4), "eabi": (8, 4), "lp64": (16, 8)},
    "TfLiteWhileParams": {"ilp32": (8, 4), "eabi": (8, 4), "lp64": (8, 4)},
}


@dataclass(frozen=True)
class OpData:
    """The struct a kernel's Init() allocates: where it is defined and its size per pointer size."""

    source: str  # under tensorflow/lite/micro/kernels/
    struct: str  # the C++ name as seen from namespace tflite in that source
    bytes: dict[str, int]  # per ABI


_KERNELS = "tensorflow/lite/micro/kernels/"
# op -> OpData, for reference kernels; None: the kernel has no Init allocation (RESHAPE, CAST, MAXIMUM, ...).
REFERENCE_OP_DATA: dict[str, OpData | None] = {
    "ADD": OpData("add.h", "OpDataAdd", {"ilp32": 60, "eabi": 60, "lp64": 60}),
    "CONV_2D": OpData("conv.h", "OpDataConv", {"ilp32": 56, "eabi": 56, "lp64": 72}),
    "DEPTHWISE_CONV_2D": OpData("conv.h", "OpDataConv", {"ilp32": 56, "eabi": 56, "lp64": 72}),
    "FULLY_CONNECTED": OpData("fully_connected.h", "OpDataFullyConnected", {"ilp32": 48, "eabi": 48, "lp64": 64}),
    "LEAKY_RELU": OpData("leaky_relu.h", "LeakyReluOpData", {"ilp32": 24, "eabi": 24, "lp64": 24}),
    "PAD": OpData("pad.h", "OpData", {"ilp32": 56, "eabi": 56, "lp64": 56}),
    "PADV2": OpData("pad.h", "OpData", {"ilp32": 56, "eabi": 56, "lp64": 56}),
    "STRIDED_SLICE": OpData("strided_slice.h", "StridedSliceParams", {"ilp32": 84, "eabi": 84, "lp64": 84}),
    "QUANTIZE": OpData("quantize.h", "OpDataQuantizeReference", {"ilp32": 32, "eabi": 32, "lp64": 32}),
    "SUB": OpData("sub.h", "OpDataSub", {"ilp32": 52, "eabi": 52, "lp64": 52}),
    "TRANSPOSE_CONV": OpData("transpose_conv.cc", "OpData", {"ilp32": 72, "eabi": 72, "lp64": 80}),
    "SOFTMAX": OpData("softmax.h", "SoftmaxParams", {"ilp32": 56, "eabi": 56, "lp64": 80}),
    "CONCATENATION": OpData("concatenation.cc", "OpData", {"ilp32": 24, "eabi": 24, "lp64": 40}),
    "MUL": OpData("mul.h", "OpDataMul", {"ilp32": 36, "eabi": 36, "lp64": 36}),
    "SVDF": OpData("svdf.h", "OpDataSvdf", {"ilp32": 36, "eabi": 36, "lp64": 36}),
    "LOGISTIC": OpData("logistic.h", "OpDataLogistic", {"ilp32": 16, "eabi": 16, "lp64": 16}),
    "DIV": OpData("div.cc", "OpDataDiv", {"ilp32": 28, "eabi": 28, "lp64": 28}),
    "AVERAGE_POOL_2D": OpData("pooling.h", "OpDataPooling", {"ilp32": 32, "eabi": 32, "lp64": 32}),
    "MAX_POOL_2D": OpData("pooling.h", "OpDataPooling", {"ilp32": 32, "eabi": 32, "lp64": 32}),
    "MEAN": OpData("reduce.h", "OpDataReduce", {"ilp32": 44, "eabi": 44, "lp64": 44}),
    "SUM": OpData("reduce.h", "OpDataReduce", {"ilp32": 44, "eabi": 44, "lp64": 44}),
    "REDUCE_MAX": OpData("reduce.h", "OpDataReduce", {"ilp32": 44, "eabi": 44, "lp64": 44}),
    "DETECTION_POSTPROCESS": OpData("detection_postprocess.cc", "OpData", {"ilp32": 112, "eabi": 112, "lp64": 112}),
    "EQUAL": OpData("comparisons.cc", "OpData", {"ilp32": 32, "eabi": 32, "lp64": 32}),
    "NOT_EQUAL": OpData("comparisons.cc", "OpData", {"ilp32": 32, "eabi": 32, "lp64": 32}),
    "GREATER": OpData("comparisons.cc", "OpData", {"ilp32": 32, "eabi": 32, "lp64": 32}),
    "GREATER_EQUAL": OpData("comparisons.cc", "OpData", {"ilp32": 32, "eabi": 32, "lp64": 32}),
    "LESS": OpData("comparisons.cc", "OpData", {"ilp32": 32, "eabi": 32, "lp64": 32}),
    "LESS_EQUAL": OpData("comparisons.cc", "OpData", {"ilp32": 32, "eabi": 32, "lp64": 32}),
    "WHILE": OpData("while.cc", "OpData", {"ilp32": 8, "eabi": 8, "lp64": 8}),
    "UNIDIRECTIONAL_SEQUENCE_LSTM": OpData("lstm_shared.h", "OpDataLSTM", {"ilp32": 688, "eabi": 688, "lp64": 688}),
    "DEQUANTIZE": OpData("dequantize.h", "DequantizeOpData", {"ilp32": 32, "eabi": 32, "lp64": 32}),
    "TANH": OpData("tanh.cc", "OpData", {"ilp32": 16, "eabi": 16, "lp64": 16}),
    "RELU": OpData("activations.h", "ReluOpData", {"ilp32": 28, "eabi": 28, "lp64": 28}),
    "RELU6": OpData("activations.h", "Relu6OpData", {"ilp32": 8, "eabi": 8, "lp64": 8}),
    "IF": OpData("if.cc", "OpData", {"ilp32": 8, "eabi": 8, "lp64": 8}),
    "CALL_ONCE": OpData("call_once.cc", "OpData", {"ilp32": 8, "eabi": 8, "lp64": 8}),
    "BATCH_MATMUL": OpData("batch_matmul.h", "OpDataBatchMatmul", {"ilp32": 16, "eabi": 16, "lp64": 32}),
    "ABS": OpData("elementwise.cc", "OpDataAbsRsqrt", {"ilp32": 28, "eabi": 28, "lp64": 28}),
    "RSQRT": OpData("elementwise.cc", "OpDataAbsRsqrt", {"ilp32": 28, "eabi": 28, "lp64": 28}),
    "MIRROR_PAD": OpData("mirror_pad.cc", "OpDataMirrorPad", {"ilp32": 20, "eabi": 20, "lp64": 20}),
    "L2_NORMALIZATION": OpData("l2norm.cc", "L2NormalizationParams", {"ilp32": 4, "eabi": 4, "lp64": 4}),
    "ELU": OpData("elu.cc", "OpData", {"ilp32": 256, "eabi": 256, "lp64": 256}),
    "SQUARED_DIFFERENCE": OpData("squared_difference.cc", "OpData", {"ilp32": 112, "eabi": 112, "lp64": 112}),
    "SELECT_V2": OpData("select.cc", "OpData", {"ilp32": 1, "eabi": 1, "lp64": 1}),
    "REDUCE_MIN": OpData("reduce.h", "OpDataReduce", {"ilp32": 44, "eabi": 44, "lp64": 44}),
    "REDUCE_ALL": OpData("reduce.h", "OpDataReduce", {"ilp32": 44, "eabi": 44, "lp64": 44}),
    "REDUCE_ANY": OpData("reduce.h", "OpDataReduce", {"ilp32": 44, "eabi": 44, "lp64": 44}),
    "RESHAPE": None, "CAST": None, "MAXIMUM": None, "MINIMUM": None, "TRANSPOSE": None, "ARG_MAX": None,
    "ARG_MIN": None, "LOG_SOFTMAX": None, "GATHER": None, "GATHER_ND": None, "RESIZE_BILINEAR": None, "SLICE": None, "SPLIT": None,
    "SPLIT_V": None, "PACK": None, "UNPACK": None, "BROADCAST_TO": None, "SPACE_TO_DEPTH": None,
    "DEPTH_TO_SPACE": None, "LOGICAL_OR": None, "LOGICAL_AND": None, "LOGICAL_NOT": None, "CEIL": None,
    "FLOOR": None, "ROUND": None, "SIN": None, "COS": None, "LOG": None, "SQRT": None, "SQUARE": None,
    "RESIZE_NEAREST_NEIGHBOR": None, "ZEROS_LIKE": None, "FILL": None, "NEG": None, "EXP": None,
    "SQUEEZE": None, "EXPAND_DIMS": None, "SHAPE": None,
}
# Structs a kernel allocates in Prepare() rather than Init(), only for some types (LOG_SOFTMAX: int8 only).
PREPARE_OP_DATA: dict[str, OpData] = {
    "LOG_SOFTMAX": OpData("log_softmax.cc", "LogSoftmaxOpData", {"ilp32": 28, "eabi": 28, "lp64": 40}),
}
# CMSIS-NN's own kernels (cmsis_nn/<op>.cc); every other op uses the reference kernel.
CMSIS_NN_OP_DATA: dict[str, OpData | None] = {
    "ADD": OpData("cmsis_nn/add.cc", "OpData", {"ilp32": 60, "eabi": 60, "lp64": 60}),
    "CONV_2D": OpData("cmsis_nn/conv.cc", "OpData", {"ilp32": 60, "eabi": 60, "lp64": 80}),
    "DEPTHWISE_CONV_2D": OpData("cmsis_nn/depthwise_conv.cc", "OpData", {"ilp32": 60, "eabi": 60, "lp64": 80}),
    "FULLY_CONNECTED": OpData("cmsis_nn/fully_connected.cc", "OpData", {"ilp32": 72, "eabi": 72, "lp64": 96}),
    "SOFTMAX": OpData("cmsis_nn/softmax.cc", "CMSISNNSoftmaxParams", {"ilp32": 64, "eabi": 64, "lp64": 88}),
    "AVERAGE_POOL_2D": OpData("cmsis_nn/pooling.cc", "OpData", {"ilp32": 36, "eabi": 36, "lp64": 36}),
    "MAX_POOL_2D": OpData("cmsis_nn/pooling.cc", "OpData", {"ilp32": 36, "eabi": 36, "lp64": 36}),
    "SVDF": OpData("cmsis_nn/svdf.cc", "CmsisNnOpDataSvdf", {"ilp32": 40, "eabi": 40, "lp64": 48}),
    "TRANSPOSE_CONV": OpData("cmsis_nn/transpose_conv.cc", "OpData", {"ilp32": 76, "eabi": 76, "lp64": 88}),
    "UNIDIRECTIONAL_SEQUENCE_LSTM": OpData("cmsis_nn/unidirectional_sequence_lstm.cc", "OpData",
                                           {"ilp32": 912, "eabi": 912, "lp64": 1008}),
    "PAD": OpData("pad.h", "OpData", {"ilp32": 56, "eabi": 56, "lp64": 56}),
    "MUL": OpData("mul.h", "OpDataMul", {"ilp32": 36, "eabi": 36, "lp64": 36}),
    "BATCH_MATMUL": OpData("cmsis_nn/batch_matmul.cc", "OpData", {"ilp32": 36, "eabi": 36, "lp64": 56}),
    "MAXIMUM": None, "MINIMUM": None, "TRANSPOSE": None,
}
# esp-tflite-micro's esp_nn kernels (esp_nn/<op>.cc, tflm_facts.esp_nn_kernels): CONV_2D, DEPTHWISE_CONV_2D and
# SOFTMAX keep a NodeData (the reference OpData and an int; SoftmaxParams holds a double, so 8-aligned), the others the
# reference OpData, read from their own unit; every other op uses the reference kernel. Sizes compiled from
# esp-tflite-micro v1.3.8 with riscv64-unknown-elf-g++ (ilp32), arm-none-eabi-g++ (eabi) and g++ (lp64).
ESP_NN_OP_DATA: dict[str, OpData | None] = {
    "CONV_2D": OpData("esp_nn/conv.cc", "NodeData", {"ilp32": 60, "eabi": 60, "lp64": 80}),
    "DEPTHWISE_CONV_2D": OpData("esp_nn/depthwise_conv.cc", "NodeData", {"ilp32": 60, "eabi": 60, "lp64": 80}),
    "SOFTMAX": OpData("esp_nn/softmax.cc", "NodeData", {"ilp32": 64, "eabi": 64, "lp64": 88}),
    "FULLY_CONNECTED": OpData("esp_nn/fully_connected.cc", "OpDataFullyConnected", {"ilp32": 48, "eabi": 48, "lp64": 64}),
    "ADD": OpData("esp_nn/add.cc", "OpDataAdd", {"ilp32": 60, "eabi": 60, "lp64": 60}),
    "MUL": OpData("esp_nn/mul.cc", "OpDataMul", {"ilp32": 36, "eabi": 36, "lp64": 36}),
    "AVERAGE_POOL_2D": OpData("esp_nn/pooling.cc", "OpDataPooling", {"ilp32": 32, "eabi": 32, "lp64": 32}),
    "MAX_POOL_2D": OpData("esp_nn/pooling.cc", "OpDataPooling", {"ilp32": 32, "eabi": 32, "lp64": 32}),
}
# The optimised kernel sets' own OpData tables (an op not in a set's table uses the reference kernel).
KERNEL_OP_DATA: dict[str, dict[str, OpData | None]] = {"cmsis_nn": CMSIS_NN_OP_DATA, "esp_nn": ESP_NN_OP_DATA}
# Ops whose every allocation is modelled (Init, Prepare, scratch); others get UNKNOWN_OP_BOUND and a note.
MODELLED_PREPARE = {
    "ADD", "SUB", "MUL", "CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED", "TRANSPOSE_CONV", "LEAKY_RELU", "PAD",
    "PADV2", "STRIDED_SLICE", "QUANTIZE", "DEQUANTIZE", "RESHAPE", "SOFTMAX", "CONCATENATION", "CAST", "LOGISTIC",
    "DIV", "MAXIMUM", "MINIMUM", "AVERAGE_POOL_2D", "MAX_POOL_2D", "LESS", "LESS_EQUAL", "GREATER", "GREATER_EQUAL",
    "EQUAL", "NOT_EQUAL", "WHILE", "IF", "CALL_ONCE", "TRANSPOSE", "TANH", "RELU", "RELU6", "SQUEEZE",
    "EXPAND_DIMS", "SHAPE", "ARG_MAX", "ARG_MIN", "MEAN", "SUM", "REDUCE_MAX", "REDUCE_MIN", "SVDF",
    "UNIDIRECTIONAL_SEQUENCE_LSTM", "ABS", "RSQRT", "MIRROR_PAD", "L2_NORMALIZATION", "LOG_SOFTMAX", "ELU",
    "REDUCE_ALL", "REDUCE_ANY",
    "SQUARED_DIFFERENCE", "SELECT_V2", "GATHER", "GATHER_ND", "RESIZE_BILINEAR", "SLICE", "SPLIT", "SPLIT_V", "PACK",
    "UNPACK", "BROADCAST_TO", "SPACE_TO_DEPTH", "DEPTH_TO_SPACE", "LOGICAL_OR", "LOGICAL_AND", "LOGICAL_NOT", "CEIL",
    "FLOOR", "ROUND", "SIN", "COS", "LOG", "SQRT", "SQUARE", "RESIZE_NEAREST_NEIGHBOR", "ZEROS_LIKE", "FILL", "NEG",
    "EXP",
}
ELEMENT_BYTES = {0: 4, 1: 2, 2: 4, 3: 1, 4: 8, 6: 1, 7: 2, "lp64": 8, 9: 1, 10: 8, 11: 16, 12: 8, 13: 4, 15: 4, 16: 2,
                 17: 1, 18: 2}  # TensorType code -> TfLiteTypeSizeOf
# A generous bound for an op this table does not know: UNKNOWN_OP_BOUND persistent bytes plus
# UNKNOWN_OP_BYTES_PER_ELEMENT per element of all its tensors (state buffers, FFT twiddles and lookup tables scale with
# them), and one scratch buffer of 4 bytes per element of its largest tensor.
UNKNOWN_OP_BOUND = 1024
UNKNOWN_OP_BYTES_PER_ELEMENT = 8

_INT8, _INT16, _INT4, _INT64, _FLOAT32 = 9, 7, 17, 4, 0  # TensorType codes
_UINT8_TYPE = 3

# The temporary TfLiteTensors a kernel's Prepare() takes (AllocateTempInput/OutputTensor), in call order, as
# ("i" or "o", index); an omitted optional input takes none. TFLM frees temp memory only after the whole Prepare, so
# they all count. Kernels not listed take each output, then each input, once (checked on real TFLM for ADD, SUB, MUL,
# FULLY_CONNECTED, SOFTMAX, QUANTIZE, DEQUANTIZE, PAD, STRIDED_SLICE, LEAKY_RELU, LOGISTIC, POOL, SVDF, LSTM).
_CONV_TEMPS = (("o", 0), ("i", 0), ("i", 1), ("i", 0), ("i", 1), ("i", 2), ("o", 0))  # Prepare + CalculateOpDataConv
# CMSIS-NN's CONV_2D and DEPTHWISE_CONV_2D Prepare take input, filter and output (its "bias" is
# AllocateTempOutputTensor(node, 2), always nullptr: the node has one output), then CalculateOpData(Depthwise)Conv takes
# input, filter, bias, output. Measured on Cortex-M55 (tests/data/mve_arena_truth.csv), where MVE's small 1xN/1x1
# scratch buffers leave this Prepare peak above the plan.
_CMSIS_CONV_TEMPS = (("i", 0), ("i", 1), ("o", 0), ("i", 0), ("i", 1), ("i", 2), ("o", 0))
_TRANSPOSE_CONV_TEMPS = (("o", 0), ("i", 2), ("i", 1), ("i", 2), ("i", 1), ("i", 3), ("o", 0))
TEMP_TENSORS: dict[tuple[str, str], tuple[tuple[str, int], ...]] = {
    ("reference", "CONV_2D"): _CONV_TEMPS,
    ("reference", "DEPTHWISE_CONV_2D"): _CONV_TEMPS,
    ("reference", "TRANSPOSE_CONV"): _TRANSPOSE_CONV_TEMPS,
    ("reference", "MEAN"): (("i", 0), ("o", 0), ("i", 1), ("i", 0), ("o", 0)),
    ("reference", "SUM"): (("i", 0), ("o", 0), ("i", 1), ("i", 0), ("o", 0)),
    ("reference", "REDUCE_MAX"): (("i", 0), ("o", 0), ("i", 1), ("i", 0), ("o", 0)),
    ("reference", "REDUCE_MIN"): (("i", 0), ("o", 0), ("i", 1), ("i", 0), ("o", 0)),
    ("reference", "REDUCE_ALL"): (("i", 0), ("o", 0), ("i", 1), ("i", 0), ("o", 0)),
    ("reference", "REDUCE_ANY"): (("i", 0), ("o", 0), ("i", 1), ("i", 0), ("o", 0)),
    # CMSIS-NN's own Prepare, then the reference helper it calls
    ("cmsis_nn", "CONV_2D"): _CMSIS_CONV_TEMPS,
    ("cmsis_nn", "DEPTHWISE_CONV_2D"): _CMSIS_CONV_TEMPS,
    ("cmsis_nn", "TRANSPOSE_CONV"): _TRANSPOSE_CONV_TEMPS,  # output, input, filter; then CalculateOpData's four
}


def temp_tensors(view_inputs: int, view_outputs: int, op: str, kernels: str, known: bool) -> list[tuple[str, int]]:
    """The temporary TfLiteTensors of an operator's Prepare(), as (role, index) in call order (omitted inputs are
    dropped by the caller). An op whose kernel is not known is bounded by each input and output twice."""
    listed = TEMP_TENSORS.get((kernels, op))
    if listed is None and kernels != "reference" and (kernels, op) not in TEMP_TENSORS:
        # the esp_nn kernels take the reference lists' tensors (conv: output, input, filter, then the helper's four)
        listed = TEMP_TENSORS.get(("reference", op))
    if op == "CONCATENATION":  # every input and the output, then the output again
        return [("i", i) for i in range(view_inputs)] + [("o", 0)] * 2 if view_outputs else []
    if listed is not None:
        return list(listed)
    generic = [("o", i) for i in range(view_outputs)] + [("i", i) for i in range(view_inputs)]
    return generic if known else generic * 2


def op_data(op: str, kernels: str) -> OpData | None:
    """The Init() allocation of the kernel serving `op` in a kernel set (None: no Init allocation or unknown)."""
    own = KERNEL_OP_DATA.get(kernels, {})
    if op in own:
        return own[op]
    return REFERENCE_OP_DATA.get(op)


# TFLM's signal-processing custom ops (signal/micro/kernels): the params struct each Init() allocates (32-bit
# targets; measured on TFLM), plus what depends on the op's sizes (see _signal_allocations).
SIGNAL_PARAMS_ILP32 = {
    "SignalWindow": 8, "SignalEnergy": 8, "SignalPCAN": 4, "SignalFilterBankLog": 8, "SignalRfft": 32,
    "SignalFilterBank": 36, "SignalFilterBankSpectralSubtraction": 44, "SignalFftAutoScale": 0,
    "SignalFilterBankSquareRoot": 0,
}
MODELLED_PREPARE |= set(SIGNAL_PARAMS_ILP32)

# CMSIS-NN kernels of their own whose allocations are not modelled (the reference facts do not apply to them).
CMSIS_NN_UNMODELLED: set[str] = set()
BATCH_MATMUL_QUANTIZATION_BYTES = 28  # QuantizationOpDataBatchMatmul: 7 int32


def op_data_known(op: str, kernels: str) -> bool:
    if kernels == "cmsis_nn" and op in CMSIS_NN_UNMODELLED:
        return False
    return op in KERNEL_OP_DATA.get(kernels, {}) or op in REFERENCE_OP_DATA or op in MODELLED_PREPARE


@dataclass(frozen=True)
class PrepareAllocations:
    """What one kernel's Prepare() takes: persistent buffers (each via AllocatePersistentBuffer, 16-aligned) and
    scratch buffer requests (bytes, planned with the tensors), in call order; exact=False with a note for a bound."""

    persistent: tuple[int, ...] = ()
    scratch: tuple[int, ...] = ()
    exact: bool = True
    note: str | None = None
    init: tuple[int, ...] = ()  # persistent buffers the kernel's Init() takes besides an OpData (signal ops)
    guessed: bool = False  # the kernel is not modelled at all: its figures are UNKNOWN_OP_BOUND's guess, no rule


def _kissfft_real_state_bytes(fft_length: int, element_type: int, pointer_bytes: int) -> int:
    """kiss_fftr_alloc's memneeded for a real FFT of fft_length (kissfft as TFLM vendors it): the fftr state (3
    pointers), the complex FFT state of fft_length/2 points (nfft, inverse, 64 factors, twiddles) and
    3/2 * fft_length/2 complex values of scratch and super-twiddles."""
    complex_bytes = 4 if element_type == _INT16 else 8  # int16 pairs; int32 or float pairs
    half = fft_length // 2
    fft_state = 4 + 4 + 4 * 64 + complex_bytes * half
    return 3 * pointer_bytes + fft_state + complex_bytes * (half * 3 // 2)


def _signal_allocations(view: OpView, abi: str) -> PrepareAllocations:
    op = view.op
    params = SIGNAL_PARAMS_ILP32[op]
    persistent = [params] if params else []
    scratch: tuple[int, ...] = ()
    if op == "SignalRfft":
        inp, out = view.input(0), view.outputs[0]
        fft_length = (out.elements // 2 - 1) * 2
        persistent.append(_kissfft_real_state_bytes(fft_length, inp.type, 8 if abi == "lp64" else 4))
        scratch = (fft_length * ELEMENT_BYTES.get(inp.type, 4),)
    elif op == "SignalFilterBank":
        persistent.append(8 * (view.outputs[0].elements + 1))  # uint64 work area, one more than the channels
    elif op == "SignalFilterBankSpectralSubtraction":
        persistent.append(4 * view.input(0).elements)  # uint32 noise estimate per channel
    if abi == "lp64":  # the params structs hold pointers: bound them at twice their 32-bit size
        persistent = [2 * persistent[0]] + persistent[1:] if params else persistent
        return PrepareAllocations((), scratch, False,
                                  f"{op} with 64-bit pointers: its params struct is bounded at twice its 32-bit size",
                                  tuple(persistent))
    return PrepareAllocations((), scratch, init=tuple(persistent))  # all taken in Init()


# Revision rules: how another TFLM revision's kernel allocates, named by what tells it (tflm_facts.build_sizes reads
# them from a build's struct members).
# MEAN/SUM request only the int8/int16 accumulator (4 B per output element), not 90b983c's input-iterator and
# resolved-axis buffers: TFLM before its reduce rewrite (pico-tflmicro dfea53b), whose OpDataReduce has temp_buffer_idx.
REDUCE_ACCUMULATOR_ONLY = "reduce_accumulator_only"
# FULLY_CONNECTED quantizes per tensor only: no per-channel multiplier and shift buffers, whatever the filter's scales
# (the 2020-2021 reference kernel; measured on Edge Impulse's SDK of 2022-09, where they were 1,024 B too many).
FULLY_CONNECTED_PER_TENSOR = "fully_connected_per_tensor"
# TRANSPOSE_CONV requests its int32 scratch for int8/uint8 inputs only: none for int16 (no int64 buffers) in the
# 2020-2021 reference kernel (measured on Edge Impulse's SDK of 2022-09: 90b983c's int16 buffers were 16 to 42 KB).
TRANSPOSE_CONV_INT8_SCRATCH_ONLY = "transpose_conv_int8_scratch_only"
# CONCATENATION of int8/uint8 keeps its inputs' scales and zero points in two persistent buffers of 4 B per input
# (the 2020-2021 reference kernel; 90b983c keeps them in its OpData), measured on Edge Impulse's SDK of 2022-09
CONCATENATION_PERSISTENT_SCALES = "concatenation_persistent_scales"
# CMSIS-NN of 2021-2022 (Edge Impulse's SDK of 2022-09, measured on Cortex-M4): the depthwise wrapper asks
# arm_depthwise_conv_s8_opt's buffer (2 B per input channel per filter element) whenever input and output channels
# match, 3x3 or dilated alike; CONV_2D asks 4 B per input channel per filter element unless the 1x1 fast kernel
# runs (input channels a multiple of 4, stride 1, no padding: cmsis_nn_scratch.cmsis_2021_conv_s8_buffer);
# FULLY_CONNECTED asks no buffer (arm_fully_connected_s8_get_buffer_size is 0, no kernel sums); TRANSPOSE_CONV and
# int16 CONV_2D/DEPTHWISE_CONV_2D run the reference kernel
CMSIS_NN_2021 = "cmsis_nn_2021"
# IF keeps two persistent buffers, the bytes of its inputs after the condition and of its outputs, which it takes in
# Prepare (each input and output a temporary tensor first): tflite-micro of 2022-01 to 2022-03 (measured at 05b427e;
# 606b7b2f0 and d6eb8ce have no such buffers)
IF_INTERMEDIATE_BUFFERS = "if_intermediate_buffers"
REVISION_RULES = (REDUCE_ACCUMULATOR_ONLY, FULLY_CONNECTED_PER_TENSOR, TRANSPOSE_CONV_INT8_SCRATCH_ONLY,
                  CONCATENATION_PERSISTENT_SCALES, CMSIS_NN_2021, IF_INTERMEDIATE_BUFFERS)


def _esp_nn_allocations(view: OpView, abi: str, revision_rules: frozenset[str]) -> PrepareAllocations:
    """esp-tflite-micro's esp_nn kernels: the reference kernel's Prepare, then for int8 the esp-nn scratch buffer it
    requests when esp_nn_get_*_scratch_size is above 0 (tflm_facts.esp_nn_kernels)."""
    reference = prepare_allocations(view, "reference", abi, revision_rules=revision_rules)
    rules = ESP_NN_SCRATCH_RULES[ESP_NN_DEFAULT_VARIANT]
    op, inp = view.op, view.input(0)
    size, note = 0, None
    if op in ("CONV_2D", "DEPTHWISE_CONV_2D") and inp is not None and inp.type == _INT8:
        size = rules["conv_s8" if op == "CONV_2D" else "depthwise_s8"](view)
    elif op == "SOFTMAX" and inp is not None and inp.type == _INT8 and view.outputs[0].type == _INT8:
        if len(inp.shape) < 2:  # the kernel reads dims->data[1] past a rank-1 shape: whatever follows it
            size = 4 * inp.elements
            note = "SOFTMAX int8 of rank 1 on esp_nn: the kernel sizes its scratch from a dimension the tensor lacks"
        else:
            size = rules["softmax_s8"](view)
    if size <= 0:
        return reference
    return PrepareAllocations(reference.persistent, reference.scratch + (size,), reference.exact and note is None,
                              reference.note or note, reference.init)


def prepare_allocations(view: OpView, kernels: str, abi: str = "ilp32", cpu_features: str = "dsp",
                        revision_rules: frozenset[str] = frozenset()) -> PrepareAllocations:
    """The persistent buffers and scratch requests of the kernel serving view.op in Prepare(); cpu_features ("dsp" or
    "mve", CPU_FEATURES) picks CMSIS-NN's scratch rules; revision_rules (REVISION_RULES) another revision's kernels."""
    op = view.op
    cmsis = kernels == "cmsis_nn"
    rules = CMSIS_NN_SCRATCH_RULES[cpu_features]
    if kernels == "esp_nn":
        return _esp_nn_allocations(view, abi, revision_rules)
    inp = view.input(0)
    in_type = inp.type if inp else None
    if cmsis and CMSIS_NN_2021 in revision_rules and cpu_features == "dsp":
        if op in ("TRANSPOSE_CONV", "FULLY_CONNECTED") or (op in ("CONV_2D", "DEPTHWISE_CONV_2D")
                                                            and in_type != _INT8):
            return prepare_allocations(view, "reference", abi, cpu_features, revision_rules)
        if op == "CONV_2D":
            channels = view.input(1).dim(0)
            size = cmsis_2021_conv_s8_buffer(view)
            return PrepareAllocations((4 * channels, 4 * channels), (size,) if size > 0 else ())
        if op == "DEPTHWISE_CONV_2D":
            flt, out = view.input(1), view.outputs[0]
            channels = flt.dim(3)
            size = inp.dim(3) * flt.dim(1) * flt.dim(2) * 2 if inp.dim(3) == out.dim(3) else 0
            return PrepareAllocations((4 * channels, 4 * channels), (size,) if size > 0 else ())
    if op == "IF" and IF_INTERMEDIATE_BUFFERS in revision_rules:
        data = [t for t in view.inputs[1:] if t is not None]
        return PrepareAllocations((sum(t.elements * ELEMENT_BYTES[t.type] for t in data),
                                   sum(t.elements * ELEMENT_BYTES[t.type] for t in view.outputs)), ())
    if op == "CONCATENATION" and CONCATENATION_PERSISTENT_SCALES in revision_rules and view.outputs \
            and view.outputs[0].type in (_INT8, _UINT8_TYPE):
        return PrepareAllocations((4 * len(view.inputs), 4 * len(view.inputs)), ())
    if op in ("CONV_2D", "DEPTHWISE_CONV_2D"):
        flt = view.input(1)
        channels = flt.dim(0) if op == "CONV_2D" else flt.dim(3)
        if cmsis and in_type not in (_INT8, _INT16):
            persistent: tuple[int, ...] = ()
        else:
            persistent = (4 * channels, 4 * channels)
        scratch: tuple[int, ...] = ()
        if cmsis and in_type == _INT8:
            bound_note = None
            if op == "CONV_2D":
                size = rules["conv_s8"](view)
            else:
                size, bound_note = rules["depthwise_s8"](view)
            scratch = (size,) if size > 0 else ()
            if flt.type == _INT4:  # the s4 wrappers never ask more than the s8 ones
                return PrepareAllocations(persistent, scratch, False, f"{op} with int4 weights on CMSIS-NN: scratch "
                                          "bounded")
            if bound_note:
                return PrepareAllocations(persistent, scratch, False, bound_note)
        elif cmsis and in_type == _INT16 and op == "CONV_2D":
            bias = view.input(2)
            if bias is None or bias.type == _INT64:  # arm_convolve_wrapper_s16_get_buffer_size
                size = rules["conv_s16"](view)
                scratch = (size,) if size > 0 else ()
        elif cmsis and in_type == _INT16:
            return PrepareAllocations(persistent, (inp.elements * 2,), False,
                                      f"{op} int16 on CMSIS-NN: scratch bounded by the input size")
        elif not cmsis and flt.type == _INT4:
            scratch = (flt.elements,)
        return PrepareAllocations(persistent, scratch)
    if op == "TRANSPOSE_CONV":
        flt, data_in = view.input(1), view.input(2)
        channels = flt.dim(0)
        persistent = (4 * channels, 4 * channels)
        data_type = data_in.type if data_in else None
        out = view.outputs[0]
        bias = view.input(3)
        if data_type == _INT8:
            if cmsis:
                first, second = rules["transpose_conv_s8"](view)
                return PrepareAllocations(persistent, (first, second))
            return PrepareAllocations(persistent, (out.elements * 4,))
        if data_type == _INT16 and TRANSPOSE_CONV_INT8_SCRATCH_ONLY in revision_rules:
            return PrepareAllocations(persistent)
        if data_type == _INT16:
            scratch = (bias.elements * 8,) if bias is not None and bias.type == _INT16 else ()
            return PrepareAllocations(persistent, scratch + (out.elements * 8,))
        return PrepareAllocations(persistent)
    if op == "FULLY_CONNECTED":
        flt = view.input(1)
        persistent = ()
        if flt is not None and flt.scale_count > 1 and FULLY_CONNECTED_PER_TENSOR not in revision_rules:
            persistent = (4 * flt.scale_count, 4 * flt.scale_count)
        if cmsis and in_type == _INT8 and flt is not None and flt.type != _INT4:
            out = view.outputs[0]
            accum_depth = flt.dim(-1)
            if len(out.shape) > 2 and accum_depth % 4 == 0:  # conv 1x1: arm_convolve_1x1_s8_fast buffer 0 (GCC, MVE)
                if flt.scale_count <= 1:
                    return PrepareAllocations(persistent, (out.dim(-1) * 8,))
                return PrepareAllocations(persistent)
            size = rules["fully_connected_s8"](view)
            bias = view.input(2)
            if size > 0 and flt.constant and (bias is None or bias.constant):
                # KERNELS_OPTIMIZED_FOR_SPEED (TFLM's default): the kernel sums are computed once, kept persistent
                return PrepareAllocations(persistent + (size,))
            return PrepareAllocations(persistent, (size,) if size > 0 else ())
        if cmsis and in_type == _INT16:
            return PrepareAllocations(persistent)
        return PrepareAllocations(persistent)
    if op == "SOFTMAX":
        if in_type == _INT16:
            return PrepareAllocations((INT16_LUT_BYTES, INT16_LUT_BYTES))
        return PrepareAllocations()
    if op == "AVERAGE_POOL_2D" and cmsis and in_type in (_INT8, _INT16):
        size = rules["avgpool"](view)  # arm_avgpool_s8/s16_get_buffer_size
        return PrepareAllocations((), (size,) if size > 0 else ())
    if op in ("MEAN", "SUM", "REDUCE_MAX", "REDUCE_MIN", "REDUCE_PROD", "REDUCE_ANY", "REDUCE_ALL"):
        axis = view.input(1)
        rank_bytes, axis_bytes = 4 * len(inp.shape), 4 * (axis.elements if axis else 0)
        if REDUCE_ACCUMULATOR_ONLY in revision_rules and op in ("MEAN", "SUM"):
            return PrepareAllocations((), (4 * view.outputs[0].elements,) if in_type in (_INT8, _INT16) else ())
        if op in ("MEAN", "SUM") and in_type in (_INT8, _INT16):
            return PrepareAllocations((), (4 * view.outputs[0].elements, rank_bytes, axis_bytes))
        return PrepareAllocations((), (rank_bytes, axis_bytes))
    if op == "SVDF":
        weights_feature = view.input(1)
        batch, filters = inp.dim(0), weights_feature.dim(0)
        rank = view.option("rank", 1) or 1
        if in_type == _INT8:
            scratch = (4 * batch * filters, 4 * batch * (filters // rank))
            size = rules["svdf_s8"](view) if cmsis else 0
            # arm_svdf_s8_get_buffer_size > 0: kernel sums kept persistent (KERNELS_OPTIMIZED_FOR_SPEED)
            return PrepareAllocations((size,) if size > 0 else (), scratch)
        return PrepareAllocations((), (4 * batch * filters,))
    if op == "UNIDIRECTIONAL_SEQUENCE_LSTM":
        output_state, cell_state = view.input(18), view.input(19)
        batch = inp.dim(1) if view.option("time_major") else inp.dim(0)
        size = batch * output_state.dim(1) * ELEMENT_BYTES.get(cell_state.type, 4)
        if cmsis and in_type in (_INT8, _INT16) and cell_state.type == _INT16:
            # CMSIS_NN_PortOpData: 8 kernel-sum/bias arrays of int32 (int8 activations) or int64 (int16), 3 buffers
            width = 4 if in_type == _INT8 else 8
            return PrepareAllocations((width * output_state.dim(1),) * 8, (size,) * 3)
        return PrepareAllocations((), (size,) * 4)
    if op in ("GATHER", "GATHER_ND", "SPACE_TO_DEPTH", "DEPTH_TO_SPACE"):
        # micro::CreateWritableTensorDimsWithCopy: a persistent TfLiteIntArray for the output's dims
        return PrepareAllocations((4 + 4 * len(view.outputs[0].shape),))
    if op in SIGNAL_PARAMS_ILP32:
        return _signal_allocations(view, abi)
    if op == "BATCH_MATMUL":
        lhs, rhs, out = view.input(0), view.input(1), view.outputs[0]
        transposes: list[int] = []
        for operand, transposed in ((lhs, view.option("adj_x")), (rhs, not view.option("adj_y"))):
            if transposed:  # AllocInitTransposeTensorFromTfLiteTensor: eval tensor, dims, data
                transposes += [STRUCTS["TfLiteEvalTensor"][abi][0], 4 + 4 * len(operand.shape),
                               operand.elements * ELEMENT_BYTES.get(operand.type, 4)]
        dims = 4 + 4 * len(out.shape)  # ReshapeOutputTensor: output dims copy
        if cmsis:  # transposes, output dims, then quantization data when neither operand is float
            quantized = lhs.type != _FLOAT32 and rhs.type != _FLOAT32
            size = rules["batch_matmul_s8"](view) if quantized and lhs.type == _INT8 else 0
            return PrepareAllocations(tuple(transposes + [dims] + ([BATCH_MATMUL_QUANTIZATION_BYTES] if quantized
                                                                   else [])), (size,) if size > 0 else ())
        quantization = [BATCH_MATMUL_QUANTIZATION_BYTES] if lhs.type in (_INT8, _INT16) else []
        return PrepareAllocations(tuple(quantization + transposes + [dims]))
    if op == "LOG_SOFTMAX":
        return PrepareAllocations((PREPARE_OP_DATA[op].bytes[abi],) if in_type == _INT8 else ())
    if op == "MIRROR_PAD":
        return PrepareAllocations((), (4 * len(inp.shape), 4 * len(inp.shape)))
    if op in MODELLED_PREPARE:
        return PrepareAllocations()
    return unknown_op_allocations(view)


def unknown_op_allocations(view: OpView) -> PrepareAllocations:
    """The guess for a kernel no rule models (a custom op such as NXP's NeutronGraph, at any revision): UNKNOWN_OP_BOUND
    persistent bytes plus UNKNOWN_OP_BYTES_PER_ELEMENT per element of its tensors, and a scratch buffer of 4 B per
    element of its largest tensor; named as a guess."""
    tensors = [t for t in list(view.inputs) + list(view.outputs) if t is not None]
    largest = max((t.elements * 4 for t in tensors), default=0)
    persistent = UNKNOWN_OP_BOUND + UNKNOWN_OP_BYTES_PER_ELEMENT * sum(t.elements for t in tensors)
    return PrepareAllocations((persistent,), (largest,), False,
                              guessed=True, note=f"{view.op}: kernel allocations not modelled (no rule), guessed at {persistent:,} B persistent "
                              f"({UNKNOWN_OP_BOUND} + {UNKNOWN_OP_BYTES_PER_ELEMENT} per tensor element) and a scratch "
                              "buffer of 4 B per element of its largest tensor")
