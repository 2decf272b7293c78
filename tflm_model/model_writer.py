"""A model written again by the toolkit (tflm_model.model_layout.rewrite: names and metadata stripped, unused buffers
emptied) and put where the firmware takes it from: a .tflite file, or a C/C++ source file holding it as an
`alignas(16) const unsigned char NAME[]` array with `NAME_len`, as TFLM's examples and `xxd -i` hold theirs.

This is the one command the advice names for its model changes (sizetool/advice/firmware_advice.py)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from tflm_model.errors import ModelError

C_SUFFIXES = (".c", ".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_C_KEYWORDS = frozenset("""alignas alignof auto bool break case char const constexpr continue default do double else
enum extern false float for goto if inline int long register return short signed sizeof static struct switch true
typedef union unsigned void volatile while class namespace template typename new delete this""".split())
BYTES_PER_LINE = 12


@dataclass(frozen=True)
class WrittenModel:
    """What was written: the output's bytes and the model's size before and after."""

    content: bytes
    size_before: int
    size_after: int
    array: str | None  # the C array's name; None for a .tflite


def is_c_output(path: str) -> bool:
    return path.lower().endswith(C_SUFFIXES)


def check_array_name(name: str) -> str:
    """`name` when it is a C/C++ identifier the array can have; ModelError otherwise."""
    if not _IDENTIFIER.match(name) or name in _C_KEYWORDS:
        raise ModelError(f"{name!r} is not a C identifier an array can be named")
    return name


def array_identifier(text: str) -> str:
    """A C identifier made from a name (a file's stem, a symbol's last part): other characters become _, a leading
    digit or a keyword gets a leading _; g_model when nothing is left."""
    name = re.sub(r"[^A-Za-z0-9_]", "_", text).strip("_") or "g_model"
    return "_" + name if name[0].isdigit() or name in _C_KEYWORDS else name


def c_array_source(data: bytes, name: str, source_label: str) -> str:
    """The model as C/C++ source: a 16-byte aligned const array and its length, compilable as C11 and C++11. Declared
    extern first, so that in C++ the const definitions keep external linkage (the application's other files declare
    and use them)."""
    check_array_name(name)
    lines = [f"// Written by size-report strip-model from {_comment_safe(source_label)}.",
             "// The model as TFLM reads it: keep it 16-byte aligned and const (it stays in flash, not RAM).",
             "#ifndef __cplusplus",
             "#include <stdalign.h>  /* alignas in C11 */",
             "#endif",
             "",
             f"extern const unsigned char {name}[];",
             f"extern const unsigned int {name}_len;",
             f"alignas(16) const unsigned char {name}[] = {{"]
    for start in range(0, len(data), BYTES_PER_LINE):
        lines.append("    " + ", ".join(f"0x{byte:02x}" for byte in data[start:start + BYTES_PER_LINE]) + ",")
    lines += ["};", f"const unsigned int {name}_len = {len(data)}u;", ""]
    return "\n".join(lines)


def _comment_safe(text: str) -> str:
    """A label in a // comment: one line, no character that ends or continues the comment."""
    return "".join(ch if ch.isprintable() and ch != "\\" else "?" for ch in text)


def rewritten_model(argument: str, output_path: str, strip: bool, empty_unused: bool,
                    name: str | None = None) -> WrittenModel:
    """The model `argument` names (a .tflite, a C/C++ file holding one model, FILE:NAME) written again, as
    `output_path`'s suffix asks: C/C++ source (the array named `name`, else as in the source, else g_model) or a
    .tflite. ModelError on a model that cannot be read, or when nothing is asked of it."""
    from tflm_model.model_layout import rewrite
    from tflm_model.model_source import ModelData, source_bytes
    from tflm_model.model_sources import load_models

    if not strip and not empty_unused:
        raise ModelError("nothing to write: ask for --strip, --empty-unused-buffers or both")
    models = load_models(argument)
    if len(models) > 1:
        raise ModelError(f"{argument}: holds {len(models)} models ({', '.join(m.array for m in models)}): name one "
                         "as FILE:NAME")
    # read once (a C array is parsed once), then rewritten from memory
    model = ModelData(argument, models[0].data if models[0].data is not None else source_bytes(argument))
    written = rewrite(model, strip=strip, empty_unused=empty_unused)
    before = len(model.data)
    if not is_c_output(output_path):
        return WrittenModel(written, before, len(written), None)
    array = check_array_name(name or models[0].array or "g_model")
    return WrittenModel(c_array_source(written, array, argument).encode(), before, len(written), array)
