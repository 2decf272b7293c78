"""GCC's `-fstack-usage` files: one `.su` beside each object, one line per function the compiler emitted.

    kernels/add.cc:64:14:tflite::TfLiteStatus tflite::{anonymous}::Eval(tflite::TfLiteContext*, ...)	224	static

Fields: source file, line and column of the function's name, the function as GCC prints it (return type, qualified
name, parameters; `{anonymous}` for anonymous namespaces; `[with T = ...]` for template arguments), the bytes of its
frame, and how that figure holds: `static` (exact), `dynamic` (alloca or a variable-length array: more at run time),
`dynamic,bounded` (dynamic, but the figure is an upper bound). `read_stack_usage_dir` reads every `.su` file under a
directory (the object tree of a build, e.g. TFLM's `gen/.../obj/`).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from sizetool.errors import SizeToolError

_LINE = re.compile(r"^(?P<location>.*?):(?P<line>\d+)(?::(?P<column>\d+))?:(?P<function>.+)$")
QUALIFIERS = frozenset({"static", "dynamic", "bounded"})


@dataclass(frozen=True)
class StackUsageEntry:
    su_file: str  # the .su file, relative to the directory read
    source: str  # the source file as GCC was given it
    line: int
    function: str  # as GCC prints it
    bytes: int
    qualifiers: tuple[str, ...]  # ("static",), ("dynamic",), ("dynamic", "bounded")

    @property
    def is_static(self) -> bool:
        return "static" in self.qualifiers


def read_stack_usage_dir(directory: str) -> list[StackUsageEntry]:
    """Every entry of every .su file under directory (sorted by file and line)."""
    if not os.path.isdir(directory):
        raise SizeToolError(f"{directory}: not a directory of -fstack-usage .su files")
    entries: list[StackUsageEntry] = []
    found = 0
    for root, folders, files in os.walk(directory):
        folders.sort()
        for name in sorted(files):
            if name.endswith(".su"):
                found += 1
                entries.extend(read_stack_usage_file(os.path.join(root, name), directory))
    if not found:
        raise SizeToolError(f"{directory}: no .su files in it (build with -fstack-usage; GCC writes them beside the "
                            "objects)")
    return entries


def read_stack_usage_file(path: str, directory: str = "") -> list[StackUsageEntry]:
    relative = os.path.relpath(path, directory) if directory else path
    try:
        with open(path, "rb") as stream:
            text = stream.read().decode("utf-8")
    except OSError as error:
        raise SizeToolError(f"{path}: cannot read ({error.strerror})") from None
    except UnicodeDecodeError:
        raise SizeToolError(f"{path}: not a .su file (not text)") from None
    entries = []
    for number, raw in enumerate(text.splitlines(), 1):
        if not raw.strip():
            continue
        fields = raw.split("\t")
        match = _LINE.match(fields[0]) if len(fields) == 3 else None
        qualifiers = tuple(q.strip() for q in fields[2].split(",")) if len(fields) == 3 else ()
        if match is None or not fields[1].strip().isdigit() or not qualifiers or not set(qualifiers) <= QUALIFIERS:
            raise SizeToolError(f"{path}:{number}: not a -fstack-usage line (expected "
                                "'file:line:column:function<TAB>bytes<TAB>static|dynamic|dynamic,bounded')")
        entries.append(StackUsageEntry(relative, match.group("location"), int(match.group("line")),
                                       match.group("function"), int(fields[1]), qualifiers))
    return entries
