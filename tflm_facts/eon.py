"""Edge Impulse's EON Compiler: a deployment that compiles the model into C++ and links no FlatBuffer.

Its generated code names its entry points after the model (`trained_model_init`, and per learning block
`tflite_learn_<N>_init`), each taking the allocator function (`void* (*)(size_t, size_t)`) the arena is taken with;
TFLM's kernels are linked and registered by that code. Seen on AmbiqAI/edgeimpulse-examples' Apollo4/5 builds and an
STM32 EON build. A firmware with these and no model array has its model as code: the .tflite must be given.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# Demangled (`trained_model_init(void* (*)(unsigned int, unsigned int))`) or mangled (`_Z18trained_model_initPF...`).
_ENTRY = re.compile(r"^(?:_Z\d+)?(trained_model_init|tflite_learn_\d+_init)(?:\(|PF|$)")


def eon_entry(symbol_names: Iterable[str]) -> str | None:
    """The EON entry point among these symbol names (the first found, by its plain name), or None."""
    for name in symbol_names:
        found = _ENTRY.match(name)
        if found:
            return found.group(1)
    return None


def no_model_reason(symbol_names: Iterable[str]) -> str:
    """Why a firmware stores no model, when its symbols say: "" when they do not."""
    entry = eon_entry(symbol_names)
    if entry is None:
        return ""
    return (f"its model is compiled into code by Edge Impulse's EON Compiler ({entry}), so no FlatBuffer is linked; "
            "give the .tflite (Edge Impulse's 'TensorFlow Lite' export of the same impulse)")
