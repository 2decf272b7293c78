"""How TFLM's runtime calls into kernels: the registration's function pointers and the functions that call them.

A kernel is reached only through its registration: `TFLMRegistration` (micro_common.h) holds `init`, `free`,
`prepare`, `invoke` and `reset` pointers, in that order, and the interpreter graph calls them for every node:
`MicroInterpreterGraph::InitSubgraphs()` calls `init`, `PrepareSubgraphs()` `prepare`, `InvokeSubgraph()` `invoke`,
`FreeSubgraphs()` `free`, `ResetSubgraphs()` `reset` (older TFLM: `MicroGraph`; before that, and in firmware shaped
like it, `MicroInterpreter::Invoke()` and `AllocateTensors()` themselves). A call through such a pointer loads it
from the field's offset in the registration: `field_offset`.

Kernels register as `RegisterOp(Init, Prepare, Eval[, Free, Reset])`; the functions are named after their role
(`AddInit`, `ConvPrepare`, `SoftmaxEval`, `EvalMaximumInt8`), which `kernel_role` reads: what is not an init, prepare,
free or reset function is an invoke function.
"""

from __future__ import annotations

import re

REGISTRATION_FIELDS = ("init", "free", "prepare", "invoke", "reset")

# Qualified function name (no parameters) -> the registration fields it calls.
DISPATCHERS: dict[str, tuple[str, ...]] = {
    **{f"tflite::{graph}::InitSubgraphs": ("init",) for graph in ("MicroInterpreterGraph", "MicroGraph")},
    **{f"tflite::{graph}::PrepareSubgraphs": ("prepare",) for graph in ("MicroInterpreterGraph", "MicroGraph")},
    **{f"tflite::{graph}::InvokeSubgraph": ("invoke",) for graph in ("MicroInterpreterGraph", "MicroGraph")},
    **{f"tflite::{graph}::FreeSubgraphs": ("free",) for graph in ("MicroInterpreterGraph", "MicroGraph")},
    **{f"tflite::{graph}::ResetSubgraphs": ("reset",) for graph in ("MicroInterpreterGraph", "MicroGraph")},
    "tflite::MicroInterpreter::Invoke": ("invoke",),
    "tflite::MicroInterpreter::AllocateTensors": ("init", "prepare"),
}

_ROLE_WORDS = (("prepare", re.compile(r"prepare", re.IGNORECASE)),
               ("init", re.compile(r"(?<![a-z])init|init(?![a-z])", re.IGNORECASE)),
               ("free", re.compile(r"free", re.IGNORECASE)),
               ("reset", re.compile(r"reset", re.IGNORECASE)))


def field_offset(field: str, pointer_size: int) -> int:
    """Byte offset of a registration field (`invoke`: 12 on 32-bit targets, 24 on 64-bit)."""
    return REGISTRATION_FIELDS.index(field) * pointer_size


def field_at(offset: int, pointer_size: int) -> str | None:
    """The registration field at a byte offset, if any."""
    index, remainder = divmod(offset, pointer_size)
    return REGISTRATION_FIELDS[index] if not remainder and 0 <= index < len(REGISTRATION_FIELDS) else None


def kernel_role(function: str) -> str:
    """init, prepare, free, reset or invoke: the role of a kernel function its registration points at, by its name
    (the unqualified name without parameters, so a namespace called `init` does not count)."""
    plain = function.replace("(anonymous namespace)", "").replace("{anonymous}", "").split("(", 1)[0].rsplit("::", 1)[-1]
    for role, pattern in _ROLE_WORDS:
        if pattern.search(plain):
            return role
    return "invoke"
