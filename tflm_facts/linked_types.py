"""The tensor types a firmware's own TFLM kernels take, read from the names of the kernel functions it links.

TFLM's kernels call templated or overloaded functions in `tflite::reference_ops` (and, for the quantized int8/int16
paths, `tflite::reference_integer_ops`), one instantiation per element type: TFLM of 2020 linked
`reference_ops::Conv(..., unsigned char const*, ...)` and `reference_ops::Softmax<unsigned char, unsigned char>` for
the uint8 models of the time, which today's kernels (TFLM_REVISION) refuse. A firmware that links such a function
runs that op on those types: the type rules of the TFLM it links win over today's (tflm_model.type_support takes
these as `linked` types).

KERNEL_FUNCTIONS: per builtin op, the base names of the functions its kernel computes with (the names are TFLM's,
stable across its history). C_TYPES: the element types a function's data pointers and template arguments name.
Each function instantiation gives one set of types; a use is taken when one instantiation of its op takes all the
use's non-int32 types (int32 is a bias or shape everywhere), so a float and a uint8 instantiation never add up to a
hybrid kernel that no build has.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

KERNEL_FUNCTIONS: dict[str, tuple[str, ...]] = {
    "ADD": ("Add", "BroadcastAdd4DSlow", "AddElementwise"),
    "AVERAGE_POOL_2D": ("AveragePool",),
    "CONCATENATION": ("Concatenation", "ConcatenationWithScaling"),
    "CONV_2D": ("Conv",),
    "DEPTHWISE_CONV_2D": ("DepthwiseConv",),
    "DEQUANTIZE": ("Dequantize",),
    "FULLY_CONNECTED": ("FullyConnected",),
    "L2_NORMALIZATION": ("L2Normalization",),
    "LOGISTIC": ("Logistic",),
    "MAX_POOL_2D": ("MaxPool",),
    "MAXIMUM": ("MaximumMinimumBroadcastSlow",),
    "MEAN": ("Mean", "MeanOrSum", "QuantizedMeanOrSum"),
    "MINIMUM": ("MaximumMinimumBroadcastSlow",),
    "MUL": ("Mul", "BroadcastMul4DSlow"),
    "PAD": ("Pad", "PadImpl", "PadImageStyle"),
    "PRELU": ("BroadcastPrelu4DSlow",),
    "QUANTIZE": ("AffineQuantize", "Requantize"),
    "RESIZE_NEAREST_NEIGHBOR": ("ResizeNearestNeighbor",),
    "SOFTMAX": ("Softmax",),
    "STRIDED_SLICE": ("StridedSlice",),
    "SUB": ("Sub", "BroadcastSubSlow", "SubElementwise"),
    "TANH": ("Tanh",),
}
C_TYPES: dict[str, str] = {
    "unsigned char": "uint8", "signed char": "int8", "char": "int8", "short": "int16", "unsigned short": "uint16",
    "float": "float32", "int": "int32", "long": "int32", "long long": "int64", "bool": "bool",
}
NAMESPACES = ("tflite::reference_ops::", "tflite::reference_integer_ops::")

_FUNCTIONS = {name: op for op, names in KERNEL_FUNCTIONS.items() for name in names}
_NAME = re.compile(r"^(?:[\w:<>, ]*\s)?(tflite::reference(?:_integer)?_ops::)(\w+)(<.*?>)?\((.*)\)")
_ELEMENT = re.compile(r"(?:^|[<,(]\s*)((?:unsigned |signed )?(?:char|short|int|long long|long|float|bool))"
                      r"(?= const\*| \*|\*|\s*[,>])")


def instantiation_types(function: str) -> tuple[str, frozenset[str]] | None:
    """(op names joined by ",", the tensor types) of a demangled kernel function name, or None when it is no kernel
    function of KERNEL_FUNCTIONS."""
    match = _NAME.match(function)
    if not match or match.group(2) not in _FUNCTIONS:
        return None
    template, parameters = match.group(3) or "", match.group(4)
    names = set(_ELEMENT.findall(template))
    names |= {m for m in re.findall(r"((?:unsigned |signed )?(?:char|short|int|long long|long|float|bool))"
                                    r"(?: const)?\*", parameters)}
    types = frozenset(C_TYPES[name] for name in names if name in C_TYPES)
    return (",".join(op for op, fns in KERNEL_FUNCTIONS.items() if match.group(2) in fns), types) if types else None


def linked_kernel_types(functions: Iterable[str]) -> dict[str, tuple[frozenset[str], ...]]:
    """Per op: the type sets of each kernel function instantiation linked (demangled names in, any order)."""
    found: dict[str, set[frozenset[str]]] = {}
    for function in functions:
        result = instantiation_types(function)
        if result is None:
            continue
        ops, types = result
        for op in ops.split(","):
            found.setdefault(op, set()).add(types)
    return {op: tuple(sorted(sets, key=sorted)) for op, sets in sorted(found.items())}


def takes(linked: dict[str, tuple[frozenset[str], ...]] | None, op: str, types: Iterable[str]) -> bool:
    """Whether one linked instantiation of the op's kernel takes all these types (int32 and omitted inputs aside)."""
    if not linked or op not in linked:
        return False
    wanted = {t for t in types if t not in ("int32", "-")}
    return bool(wanted) and any(wanted <= instantiation for instantiation in linked[op])


def beyond_today(linked: dict[str, tuple[frozenset[str], ...]]) -> dict[str, frozenset[str]]:
    """Per op: the types its linked kernels take that no accepted pattern of today's kernel (TFLM_REVISION) names
    anywhere, e.g. {"CONV_2D": {"uint8"}} for a 2020 TFLM. Empty for a build of today's kernels."""
    from tflm_facts.type_rules import TENSOR_TYPE_CODES, op_types

    out = {}
    for op, instantiations in linked.items():
        patterns = op_types("builtin", op).accepts
        if patterns is None:
            continue
        types = set().union(*instantiations) - {"int32"}
        new = {t for t in types if t in TENSOR_TYPE_CODES and not any(
            p.matches((TENSOR_TYPE_CODES[t],), (TENSOR_TYPE_CODES[t],)) or p.allows(False, 0, TENSOR_TYPE_CODES[t])
            for p in patterns)}
        if new:
            out[op] = frozenset(new)
    return out
