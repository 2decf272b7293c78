"""What a report reads of GNU ld map names without reading a map: the fill and linker-stub names, which input sections
hold merged strings, which output sections are never loaded, an object's tree path. Apart from map_file.py, whose map
records (five dataclasses, ~2 ms to define) a report of an ELF alone never makes; map_file.py re-exports these.
"""

from __future__ import annotations

import re

FILL = "*fill*"
LINKER_STUBS = "linker stubs"  # veneers and glue the linker writes itself (ARM long-branch stubs)
# ld.lld's `<internal>` merged sections: the string literals and constants of all objects, one run per output section
LINKER_MERGED = "(merged by the linker)"


class LazyPattern:
    """A regular expression compiled when first used: a report without a map reads none of the map patterns (the 13
    of map_file.py and this module were ~4 ms of every cold report of an ELF alone)."""

    def __init__(self, pattern: str, flags: int = 0):
        self._arguments = (pattern, flags)

    def __getattr__(self, name: str):
        compiled = re.compile(*self._arguments)
        for method in ("match", "search", "fullmatch", "findall", "finditer", "sub", "split"):
            setattr(self, method, getattr(compiled, method))  # later calls go straight to the compiled pattern's
        return getattr(compiled, name)


# Output sections that are never loaded, whatever address the map prints for them.
_NOT_ALLOCATED = LazyPattern(
    r"^(\.z?debug|\.comment$|\.ARM\.attributes$|\.riscv\.attributes$|\.gnu\.attributes$|\.stab|\.gnu\.build\.attributes"
    r"|\.gnu_debuglink$|\.gnu_debugaltlink$|\.note\.GNU-stack$|\.GCC\.command\.line$|\.mdebug|\.pdr$|\.xtensa\.info$"
    r"|\.line$|/DISCARD/$|\.symtab$|\.strtab$|\.shstrtab$)"
)
_MERGED_STRINGS = LazyPattern(r"(^|\.)str\d+\.\d+$")  # GCC's SHF_MERGE|SHF_STRINGS sections: .rodata.str1.1, .rodata.f.str1.4


def is_merged_strings(input_section: str) -> bool:
    """An input section of string literals ld merges across objects (`.rodata.str1.1`, `.rodata.<function>.str1.4`):
    GNU ld keeps the merged strings of all objects in the first such section and lists them under its object."""
    # the substring test first: an unanchored search tries every position of the ~2,000 names of a large map (1.4 ms)
    return "str" in input_section and _MERGED_STRINGS.search(input_section) is not None


def is_merged_piece(name: str, object_file: str) -> bool:
    """An input section whose bytes came from several objects, placed by what refers to them: GNU ld's merged string
    sections (listed under the first object that has one) and ld.lld's `<internal>` merged sections."""
    return object_file == LINKER_MERGED or is_merged_strings(name)


def is_allocated_name(output_section: str) -> bool:
    """False for the output sections a linker never loads (debug info, comments, attributes, /DISCARD/)."""
    return not _NOT_ALLOCATED.match(output_section)


def object_path(object_file: str) -> tuple[str, ...]:
    """Tree path of an object: archive members as (archive.a, member.o), plain objects by their path."""
    if object_file == LINKER_STUBS:
        return ("(linker stubs)",)
    if object_file.startswith("(") and object_file.endswith(")"):
        return (object_file,)  # what the linker made itself, e.g. "(linker generated)"
    object_file = object_file.replace("\\", "/")
    if object_file.endswith(")") and "(" in object_file:
        archive, _, member = object_file[:-1].partition("(")
        return ("(archives)", archive.rsplit("/", 1)[-1], member)
    return tuple(part for part in object_file.split("/") if part and part != ".")
