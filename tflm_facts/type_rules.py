"""TFLM's tensor-type facts, as data: which type combinations each kernel accepts, and its type-reduced variants.

Read from tflite-micro's kernel sources (tensorflow/lite/micro/kernels/*.cc, *_common.cc, *.h and signal/micro/kernels,
August 2026) and written here in our own notation; a kernel's checks in Prepare and its type switch in Eval both count,
since either one stops the model (at allocation or at the first invoke).

Notation of a type pattern: the input tokens, then "->" and the output tokens (no arrow: outputs unchecked).
A token is "*" (anything, or an omitted optional input), a type name, several joined by "|" (any of them; "-" stands
for an omitted optional input), or a single capital letter, a type variable: any type, the same wherever the letter
appears. A token ending in "..." stands for itself repeated over the remaining tensors. Tensors past the last token are
not checked. "int8 int8|int4 -> int8" is: input 0 int8, input 1 int8 or int4, output 0 int8.

OP_TYPES: per builtin op with a TFLM kernel, the patterns its reference kernel accepts (None: the kernel checks no
tensor type), which inputs a type signature shows (the ones the kernel dispatches on), and where CMSIS-NN differs.
CUSTOM_OP_TYPES: the same for TFLM's named custom ops whose types matter here (the Signal FFTs).
KERNEL_VARIANTS: TFLM's type-reduced registrations (Register_CONV_2D_INT8() ...): the op they register, the pattern
of what they run, the header that declares them, and the kernel sets that implement them (elsewhere they fall back to
the generic registration, so they are always safe to write).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property

# The schema's TensorType enum (schema.fbs), by code.
TENSOR_TYPE_NAMES: dict[int, str] = {
    0: "float32", 1: "float16", 2: "int32", 3: "uint8", 4: "int64", 5: "string", 6: "bool", 7: "int16",
    8: "complex64", 9: "int8", 10: "float64", 11: "complex128", 12: "uint64", 13: "resource", 14: "variant",
    15: "uint32", 16: "uint16", 17: "int4", 18: "bfloat16", 19: "int2", 20: "uint4", 21: "float8e4m3fn",
    22: "float8e5m2",
}
TENSOR_TYPE_CODES: dict[str, int] = {name: code for code, name in TENSOR_TYPE_NAMES.items()}
ABSENT = -1  # an omitted optional input


def type_name(code: int) -> str:
    """The schema name of a TensorType code ("int8"), "-" for an omitted input, "type N" for an unknown code."""
    if code == ABSENT:
        return "-"
    return TENSOR_TYPE_NAMES.get(code, f"type {code}")


_TOKEN = re.compile(r"^(\*|[A-Z]|(?:[a-z0-9]+|-)(?:\|(?:[a-z0-9]+|-))*)(\.\.\.)?$")


@dataclass(frozen=True)
class _Token:
    anything: bool
    variable: str | None
    allowed: frozenset[int]  # type codes, ABSENT included when "-" is one of the alternatives
    repeats: bool


def _parse_tokens(text: str, pattern: str) -> tuple[_Token, ...]:
    tokens = []
    words = text.split()
    for position, word in enumerate(words):
        match = _TOKEN.match(word)
        if not match:
            raise ValueError(f"type pattern {pattern!r}: bad token {word!r}")
        body, repeats = match.group(1), bool(match.group(2))
        if repeats and position != len(words) - 1:
            raise ValueError(f"type pattern {pattern!r}: only the last token may repeat")
        if body == "*":
            tokens.append(_Token(True, None, frozenset(), repeats))
        elif len(body) == 1 and body.isupper():
            tokens.append(_Token(False, body, frozenset(), repeats))
        else:
            codes = set()
            for name in body.split("|"):
                if name == "-":
                    codes.add(ABSENT)
                elif name in TENSOR_TYPE_CODES:
                    codes.add(TENSOR_TYPE_CODES[name])
                else:
                    raise ValueError(f"type pattern {pattern!r}: unknown type {name!r}")
            tokens.append(_Token(False, None, frozenset(codes), repeats))
    return tuple(tokens)


def _match_side(tokens: tuple[_Token, ...], types: tuple[int, ...], bound: dict[str, int]) -> bool:
    count = max(len(types), len(tokens)) if tokens and tokens[-1].repeats else len(tokens)
    for position in range(count):
        token = tokens[min(position, len(tokens) - 1)]
        actual = types[position] if position < len(types) else ABSENT
        if token.anything:
            continue
        if token.variable is not None:
            if actual == ABSENT:
                return False
            if bound.setdefault(token.variable, actual) != actual:
                return False
        elif actual not in token.allowed:
            return False
    return True


@dataclass(frozen=True)
class TypePattern:
    """One accepted combination of tensor types, in the notation of this module's docstring."""

    text: str

    @cached_property
    def _sides(self) -> tuple[tuple[_Token, ...], tuple[_Token, ...] | None]:
        inputs, arrow, outputs = self.text.partition("->")
        return _parse_tokens(inputs, self.text), (_parse_tokens(outputs, self.text) if arrow else None)

    def matches(self, inputs: tuple[int, ...], outputs: tuple[int, ...]) -> bool:
        input_tokens, output_tokens = self._sides
        bound: dict[str, int] = {}
        if not _match_side(input_tokens, inputs, bound):
            return False
        return output_tokens is None or _match_side(output_tokens, outputs, bound)

    def allows(self, output: bool, position: int, code: int) -> bool:
        """Whether this pattern could take a tensor of type `code` at input (or output) `position`."""
        inputs, outputs = self._sides
        tokens = outputs if output else inputs
        if tokens is None or not tokens or (position >= len(tokens) and not tokens[-1].repeats):
            return True
        token = tokens[min(position, len(tokens) - 1)]
        return token.anything or (token.variable is not None and code != ABSENT) or code in token.allowed

    def display(self, shown_inputs: tuple[int, ...] | None = None) -> str:
        """The pattern as a signature: the inputs (those at shown_inputs, when given) joined by ×, outputs after →;
        "*" reads "any", a repeated token ends in "…"."""
        inputs, arrow, outputs = self.text.partition("->")
        words = inputs.split()
        if shown_inputs is not None:
            last = words[-1] if words and words[-1].endswith("...") else "*"
            words = [words[p] if p < len(words) else last for p in shown_inputs]
        def word(w: str) -> str:
            return ("any" if w.startswith("*") else w.removesuffix("...")) + ("…" if w.endswith("...") else "")
        text = "×".join(word(w) for w in words)
        return f"{text}→{','.join(word(w) for w in outputs.split())}" if arrow else text


@dataclass(frozen=True)
class OpTypes:
    """The tensor types one op's TFLM kernel accepts."""

    accepts: tuple[TypePattern, ...] | None  # None: the kernel checks no tensor type
    shown_inputs: tuple[int, ...] | None = None  # inputs a type signature shows; None: all of them
    cmsis_nn: str = ""  # where the CMSIS-NN kernel differs from the reference kernel


def _op(*patterns: str, shown: tuple[int, ...] | None = None, cmsis_nn: str = "") -> OpTypes:
    return OpTypes(tuple(TypePattern(p) for p in patterns), shown, cmsis_nn)


UNCHECKED = OpTypes(None)


def _lstm(activation: str, weights: str, cell: str) -> str:
    """UNIDIRECTIONAL_SEQUENCE_LSTM's 24 inputs: activation, 8 gate weights (one type), no peephole (9-11), 4 gate
    biases (one type), no projection (16-17), hidden state (the activation type), cell state, no layer norm (20-23)."""
    return (f"{activation} " + f"{weights} " * 8 + "- - - " + "B B B B " + "- - " + f"{activation} {cell} "
            + "- - - - " + f"-> {activation}")


# Types TFLM's allocator has no element size for (memory_helpers.cc): a model with such a tensor fails to allocate
# whatever op uses it ("Failed to populate a temp TfLiteTensor struct from flatbuffer data!").
UNALLOCATABLE_TYPES: frozenset[int] = frozenset(
    TENSOR_TYPE_CODES[name] for name in ("string", "variant", "int2", "uint4", "float8e4m3fn", "float8e5m2"))
_FLOAT_ONLY = _op("float32 -> float32")
_ELEMENTWISE_8_16 = _op("float32 -> float32", "int8 -> int8", "int16 -> int16")
_POOL = _op("float32 -> float32", "int8 -> int8", "int16 -> int16")
_COMPARE = "float32|int32|int64|int8"  # LESS, LESS_EQUAL, GREATER_EQUAL dispatch on input 0 only

OP_TYPES: dict[str, OpTypes] = {
    "ABS": _ELEMENTWISE_8_16,
    "ADD": _op("* * -> float32|int32|int8|int16",
               cmsis_nn="also requires both inputs to have the output's type (other combinations: 'Hybrid models are "
                        "not supported')"),
    "ADD_N": _op("float32... -> float32", "int8... -> int8"),
    "ARG_MAX": _op("float32|int8 int32 -> int32", shown=(0,)),
    "ARG_MIN": _op("float32|int8 int32 -> int32", shown=(0,)),
    "ASSIGN_VARIABLE": _op("resource|int32 *"),
    "AVERAGE_POOL_2D": _POOL,
    "BATCH_MATMUL": _op("float32 float32 -> float32", "int8 int8 -> int8", "int16 int16 -> int16"),
    "BATCH_TO_SPACE_ND": _op("float32 * * -> float32", "int8 * * -> int8", shown=(0,)),
    "BROADCAST_ARGS": _op("int32 int32 -> int32", "int64 int64 -> int64"),
    "BROADCAST_TO": _op("T int32|int64 -> T", shown=(0,)),
    "CALL_ONCE": UNCHECKED,
    "CAST": _op("int8|int16|int32|uint32|float32|bool -> int8|int16|int32|uint32|float32"),
    "CEIL": _FLOAT_ONLY,
    "CONCATENATION": _op("float32... -> float32", "int8... -> int8", "int16... -> int16", "int32... -> int32",
                         "int64... -> int64", "bool... -> bool"),
    "CONV_2D": _op("float32 float32 -> float32", "int8 int8|int4 -> int8", "int16 int8 int32|int64|- -> int16",
                   shown=(0, 1)),
    "COS": _FLOAT_ONLY,
    "CUMSUM": _op("float32 int32 -> float32", "int8 int32 -> int8", shown=(0,)),
    "DEPTHWISE_CONV_2D": _op("float32 float32 -> float32", "int8 int8|int4 -> int8", "int16 int8 -> int16",
                             shown=(0, 1)),
    "DEPTH_TO_SPACE": _op("float32 -> float32", "int8 -> int8"),
    "DEQUANTIZE": _op("int8|int16|uint8 -> float32"),
    "DIV": _op("float32 float32 -> float32", "int32 int32 -> int32", "int8 int8 -> int8"),
    "DYNAMIC_UPDATE_SLICE": _op("float32 float32 int32|int64", "int8 int8 int32|int64", "int16 int16 int32|int64",
                                "int32 int32 int32|int64", shown=(0, 1)),
    "ELU": _op("float32 -> float32", "int8 -> int8"),
    "EMBEDDING_LOOKUP": _op("int32 float32 -> float32", "int32 int8 -> float32|int8", shown=(1,)),
    "EQUAL": _op("bool|float32|int32|int64|int8 * -> *"),
    "EXP": _FLOAT_ONLY,
    "EXPAND_DIMS": _op("float32|int8|int16 int32", shown=(0,)),
    "FILL": _op("int8|int16|int32|int64 float32 -> float32", "int8|int16|int32|int64 int32 -> int32",
                "int8|int16|int32|int64 int8 -> int8", shown=(1,)),
    "FLOOR": _op("float32"),
    "FLOOR_DIV": _op("float32 float32 -> float32"),
    "FLOOR_MOD": _op("float32 float32 -> float32"),
    "FULLY_CONNECTED": _op("float32 float32 -> float32", "int8 int8|int4 -> int8", "int16 int8 -> int16",
                           shown=(0, 1)),
    "GATHER": _op("float32|int8 int32"),
    "GATHER_ND": _op("float32|int8 int32"),
    "GREATER": _op("float32|int32|int64|int8|int16 * -> *"),
    "GREATER_EQUAL": _op(f"{_COMPARE} * -> *"),
    "HARD_SWISH": _op("float32", "int8"),
    "IF": _op("bool", shown=(0,)),
    "L2_NORMALIZATION": _op("float32 -> float32", "int8 -> int8"),
    "L2_POOL_2D": _FLOAT_ONLY,
    "LEAKY_RELU": _ELEMENTWISE_8_16,
    "LESS": _op(f"{_COMPARE} * -> *"),
    "LESS_EQUAL": _op(f"{_COMPARE} * -> *"),
    "LOG": _FLOAT_ONLY,
    "LOGICAL_AND": UNCHECKED,
    "LOGICAL_NOT": _op("bool -> bool"),
    "LOGICAL_OR": UNCHECKED,
    "LOGISTIC": _ELEMENTWISE_8_16,
    "LOG_SOFTMAX": _op("float32 -> float32", "int8 -> int8"),
    "MAXIMUM": _op("* * -> float32|int8|int16|int32|int64"),
    "MAX_POOL_2D": _POOL,
    "MEAN": _op("float32 int32 -> float32", "int8 int32 -> int8", "int16 int32 -> int16", shown=(0,)),
    "MINIMUM": _op("* * -> float32|int8|int16|int32|int64"),
    "MIRROR_PAD": _op("float32 int32|int64 -> float32", "int8 int32|int64 -> int8", shown=(0,)),
    "MUL": _op("float32 float32", "int8 int8", "int16 int16", "int32 int32"),
    "NEG": _op("float32"),
    "NOT_EQUAL": _op("bool|float32|int32|int64|int8 * -> *"),
    "PACK": _op("* -> float32|int8|int16|int32|int64"),
    "PAD": _op("float32 * -> float32", "int8 * -> int8", "int16 * -> int16", "int32 * -> int32", shown=(0,)),
    "PADV2": _op("float32 * float32|- -> float32", "int8 * int8|- -> int8", "int16 * int16|- -> int16",
                 "int32 * int32|- -> int32", shown=(0,)),
    "PRELU": _op("float32 *", "int8 *", "int16 int8", shown=(0, 1)),
    "QUANTIZE": _op("float32 -> int8|int16", "int32 -> int8|int16", "int16 -> int8|int16|int32",
                    "int8 -> int8|uint8|int16|int32", "uint8 -> int8"),
    "READ_VARIABLE": UNCHECKED,
    "REDUCE_ALL": _op("bool int32 -> bool", shown=(0,)),
    "REDUCE_MAX": _op("float32 int32 -> float32", "int8 int32 -> int8", shown=(0,)),
    "REDUCE_MIN": _op("float32 int32 -> float32", "int8 int32 -> int8", shown=(0,)),
    "RELU": _op("float32|int8|int16"),
    "RELU6": _op("float32|int8|int16"),
    "RESHAPE": _op("T * -> T", shown=(0,)),
    "RESIZE_BILINEAR": _op("float32|int8 int32", shown=(0,)),
    "RESIZE_NEAREST_NEIGHBOR": _op("float32|int8|int16 int32", shown=(0,)),
    "REVERSE_V2": _op("float32 int32 -> float32", "int32 int32 -> int32", "int16 int32 -> int16",
                      "int8 int32 -> int8", "int64 int32 -> int64", "bool int32 -> bool", shown=(0,)),
    "ROUND": _FLOAT_ONLY,
    # ABS, RSQRT (and the float-only elementwise ops): the type check in their Prepare never fires (the function
    # it means to call is an unnamed template parameter, so the call is a cast), so the Eval switch decides.
    "RSQRT": _ELEMENTWISE_8_16,
    "SELECT_V2": _op("bool float32 float32", "bool int8 int8", "bool int16 int16"),
    "SHAPE": _op("* -> int32"),
    "SIN": _FLOAT_ONLY,
    "SLICE": _op("float32|int32|int8|int16|bool int32|int64 int32|int64", shown=(0,)),
    "SOFTMAX": _op("float32 -> float32", "int8 -> int8|int16", "int16 -> int16"),
    "SPACE_TO_BATCH_ND": _op("float32 * * -> float32", "int8 * * -> int8", shown=(0,)),
    "SPACE_TO_DEPTH": _op("float32 -> float32", "int8 -> int8"),
    "SPLIT": _op("* float32|int8|int16|int32", shown=(1,)),
    "SPLIT_V": _op("float32|int8|int16|int32", shown=(0,)),
    "SQRT": _FLOAT_ONLY,
    "SQUARE": _FLOAT_ONLY,
    "SQUARED_DIFFERENCE": _op("float32 float32", "int32 int32", "int8 int8", "int16 int16"),
    "SQUEEZE": UNCHECKED,
    "STRIDED_SLICE": _op("* * * * -> float32|int8|int16|int32|bool", shown=(0,)),
    "SUB": _op("* * -> float32|int32|int8|int16"),
    "SUM": _op("float32 int32 -> float32", "int8 int32 -> int8", "int16 int32 -> int16", shown=(0,)),
    "SVDF": _op("float32 float32 float32 float32|- float32 -> float32",
                "int8 int8 int8|int16 int32|- int8|int16 -> int8", shown=(0, 1, 2)),
    "TANH": _ELEMENTWISE_8_16,
    "TRANSPOSE": _op("float32 * -> float32", "int8 * -> int8", "int16 * -> int16", shown=(0,)),
    "TRANSPOSE_CONV": _op("* float32 float32 -> float32", "* int8 int8 -> int8", "* int8 int16 -> int16",
                          shown=(2, 1)),
    "UNIDIRECTIONAL_SEQUENCE_LSTM": _op(_lstm("float32", "float32", "float32"), _lstm("int8", "int8", "int16"),
                                        _lstm("int16", "int8", "int16"), shown=(0, 2)),
    "UNPACK": _op("float32|int32|int16|int8"),
    "VAR_HANDLE": UNCHECKED,
    "WHILE": UNCHECKED,
    "ZEROS_LIKE": _op("int64|int32|int8|float32"),
}

# TFLM's named custom ops, by custom_code, whose types pick a registration.
CUSTOM_OP_TYPES: dict[str, OpTypes] = {
    "SignalRfft": _op("int16 -> int16", "int32 -> int32", "float32 -> float32"),
    "SignalIrfft": _op("int16 -> int16", "int32 -> int32", "float32 -> float32"),
}


@dataclass(frozen=True)
class KernelVariant:
    """A type-reduced TFLM registration: Register_<name>() passed to the op's Add<Op>() method."""

    name: str  # "CONV_2D_INT8": the function is Register_CONV_2D_INT8
    op: str  # the builtin enum name or, for a custom op, its custom_code
    accepts: TypePattern  # what it runs; anything else is not its job
    header: str  # the TFLM header that declares it
    implemented_by: tuple[str, ...]  # kernel sets with their own code for it (elsewhere: the generic registration)
    namespace: str = "tflite"
    kind: str = "builtin"  # the kind of op it registers: "builtin" or "custom"
    pointer: bool = False  # returns TFLMRegistration* (the Signal library), not a TFLMRegistration
    automatic: bool = True  # False: never chosen by --reduce-types

    @property
    def function(self) -> str:
        return f"{self.namespace}::Register_{self.name}"

    @property
    def everywhere(self) -> bool:
        """Implemented in every TFLM build (no fallback), so it saves flash with reference kernels too."""
        return self.implemented_by == ("all",)


def _variant(name: str, accepts: str, header: str, implemented_by: tuple[str, ...], **kw) -> KernelVariant:
    op = kw.pop("op", None) or re.sub(r"(?:_(?:INT\d+REF|INT\d+|FLOAT))+$", "", name)
    return KernelVariant(name, op, TypePattern(accepts), header, implemented_by, **kw)


_K = "tensorflow/lite/micro/kernels/"
_CMSIS = ("cmsis_nn",)
_CMSIS_XTENSA = ("cmsis_nn", "xtensa")
_RFFT = "signal/micro/kernels/rfft.h"
_IRFFT = "signal/micro/kernels/irfft.h"
_SIGNAL = dict(namespace="tflite::tflm_signal", kind="custom", pointer=True)

KERNEL_VARIANTS: tuple[KernelVariant, ...] = (
    _variant("ADD_INT8", "int8 int8 -> int8", _K + "add.h", _CMSIS),
    _variant("ADD_INT16", "int16 int16 -> int16", _K + "add.h", _CMSIS),
    _variant("AVERAGE_POOL_2D_INT8", "int8 -> int8", _K + "pooling.h", _CMSIS_XTENSA),
    _variant("AVERAGE_POOL_2D_INT16", "int16 -> int16", _K + "pooling.h", _CMSIS_XTENSA),
    _variant("BATCH_MATMUL_INT8", "int8 int8 -> int8", _K + "batch_matmul.h", _CMSIS),
    _variant("BATCH_MATMUL_INT16", "int16 int16 -> int16", _K + "batch_matmul.h", _CMSIS),
    _variant("CONV_2D_INT4", "int8 int4 -> int8", _K + "conv.h", _CMSIS),
    _variant("CONV_2D_INT8", "int8 int8 -> int8", _K + "conv.h", _CMSIS_XTENSA),
    _variant("CONV_2D_INT16", "int16 int8 -> int16", _K + "conv.h", _CMSIS_XTENSA),
    # Xtensa's int8 reference path, kept beside its optimized one; never smaller, so never chosen.
    _variant("CONV_2D_INT8REF", "int8 int8 -> int8", _K + "conv.h", ("xtensa",), automatic=False),
    _variant("DEPTHWISE_CONV_2D_INT4", "int8 int4 -> int8", _K + "depthwise_conv.h", _CMSIS),
    _variant("DEPTHWISE_CONV_2D_INT8", "int8 int8 -> int8", _K + "depthwise_conv.h", _CMSIS),
    _variant("DEPTHWISE_CONV_2D_INT16", "int16 int8 -> int16", _K + "depthwise_conv.h", _CMSIS),
    _variant("FULLY_CONNECTED_INT4", "int8 int4 -> int8", _K + "fully_connected.h", _CMSIS),
    _variant("FULLY_CONNECTED_INT8", "int8 int8 -> int8", _K + "fully_connected.h", ("cmsis_nn", "hexagon", "xtensa")),
    _variant("FULLY_CONNECTED_INT16", "int16 int8 -> int16", _K + "fully_connected.h", _CMSIS),
    _variant("MAXIMUM_INT8", "int8 int8 -> int8", _K + "maximum_minimum.h", _CMSIS),
    _variant("MAX_POOL_2D_INT8", "int8 -> int8", _K + "pooling.h", _CMSIS_XTENSA),
    _variant("MAX_POOL_2D_INT16", "int16 -> int16", _K + "pooling.h", _CMSIS_XTENSA),
    _variant("MINIMUM_INT8", "int8 int8 -> int8", _K + "maximum_minimum.h", _CMSIS),
    _variant("MUL_INT8", "int8 int8 -> int8", _K + "mul.h", _CMSIS),
    _variant("PAD_INT8", "int8 * -> int8", _K + "pad.h", _CMSIS),
    _variant("SOFTMAX_INT8", "int8 -> int8", _K + "softmax.h", _CMSIS),
    _variant("SOFTMAX_INT8_INT16", "int8 -> int16", _K + "softmax.h", _CMSIS_XTENSA, op="SOFTMAX"),
    _variant("SOFTMAX_INT16", "int16 -> int16", _K + "softmax.h", _CMSIS),
    _variant("SVDF_INT8", "int8 int8 int8|int16 int32|- int8|int16 -> int8", _K + "svdf.h",
             ("cmsis_nn", "hexagon", "xtensa")),
    _variant("TRANSPOSE_CONV_INT8", "* int8 int8 -> int8", _K + "transpose_conv.h", _CMSIS),
    _variant("TRANSPOSE_INT8", "int8 * -> int8", _K + "transpose.h", _CMSIS),
    _variant("UNIDIRECTIONAL_SEQUENCE_LSTM_INT8", _lstm("int8", "int8", "int16"), _K + "unidirectional_sequence_lstm.h",
             _CMSIS),
    _variant("UNIDIRECTIONAL_SEQUENCE_LSTM_INT16", _lstm("int16", "int8", "int16"),
             _K + "unidirectional_sequence_lstm.h", _CMSIS),
    _variant("RFFT_INT16", "int16 -> int16", _RFFT, ("all",), op="SignalRfft", **_SIGNAL),
    _variant("RFFT_INT32", "int32 -> int32", _RFFT, ("all",), op="SignalRfft", **_SIGNAL),
    _variant("RFFT_FLOAT", "float32 -> float32", _RFFT, ("all",), op="SignalRfft", **_SIGNAL),
    _variant("IRFFT_INT16", "int16 -> int16", _IRFFT, ("all",), op="SignalIrfft", **_SIGNAL),
    _variant("IRFFT_INT32", "int32 -> int32", _IRFFT, ("all",), op="SignalIrfft", **_SIGNAL),
    _variant("IRFFT_FLOAT", "float32 -> float32", _IRFFT, ("all",), op="SignalIrfft", **_SIGNAL),
)

VARIANTS_BY_OP: dict[tuple[str, str], tuple[KernelVariant, ...]] = {}  # (kind, op name) -> its variants
for _v in KERNEL_VARIANTS:
    VARIANTS_BY_OP[(_v.kind, _v.op)] = VARIANTS_BY_OP.get((_v.kind, _v.op), ()) + (_v,)
del _v


def op_types(kind: str, name: str) -> OpTypes:
    """The type rule of a builtin (enum name) or custom op (custom_code); UNCHECKED when TFLM's kernel checks none
    or we hold no rule for it (user custom ops, and TFLM custom ops other than the Signal FFTs)."""
    table = OP_TYPES if kind == "builtin" else CUSTOM_OP_TYPES
    return table.get(name, UNCHECKED)
