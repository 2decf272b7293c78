"""Named compile-time constants an ELF's DWARF states (DW_TAG_variable with DW_AT_const_value), such as the
`constexpr int kTensorArenaSize = 164768;` of an Edge Impulse build, whose value no instruction may hold (the
compiler folds it into an allocation call's argument, or the arena is allocated through a function pointer).

Only the variables whose name matches the caller's pattern are read, at a compile unit's top level and in its
namespaces (function bodies and classes are skipped through DW_AT_sibling, as dwarf_structs.py does). The name is
looked for in the DWARF's string bytes first: a build that never names it costs one byte search, not a DWARF walk.
The walk is the project's own decoder's (dwarf_unit_scan.py), pyelftools' where that decoder leaves a construct to it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from sizetool.errors import SizeToolError


@dataclass(frozen=True)
class DwarfConstant:
    unit: str  # the compile unit's DW_AT_name
    name: str  # qualified: "(anonymous)::kTensorArenaSize"
    value: int


def _text(die, attribute: str) -> str | None:
    value = die.attributes.get(attribute)
    if value is None:
        return None
    raw = value.value
    return raw.decode("utf-8", errors="replace") if isinstance(raw, bytes) else str(raw)


def _walk(die, scope: list[str], unit: str, pattern: re.Pattern, out: list[DwarfConstant]) -> None:
    for child in die.iter_children():
        if child.tag == "DW_TAG_namespace":
            _walk(child, scope + [_text(child, "DW_AT_name") or "(anonymous)"], unit, pattern, out)
            continue
        if child.tag != "DW_TAG_variable":
            continue
        name = _text(child, "DW_AT_name")
        value = child.attributes.get("DW_AT_const_value")
        if name is None or value is None or not pattern.search(name) or not isinstance(value.value, int):
            continue
        out.append(DwarfConstant(unit, "::".join(scope + [name]), value.value))


def read_dwarf_constants(path: str | Path, pattern: re.Pattern) -> list[DwarfConstant]:
    """The integer constants named like `pattern` the DWARF states ([] without DWARF or without such a name).

    Read by the project's own decoder (dwarf_unit_scan.py); an ELF with a construct it leaves to pyelftools is read by
    read_dwarf_constants_pyelftools, which gives the same list."""
    from sizetool.inputs.dwarf_format import CorruptDwarf, debug_sections
    from sizetool.inputs.dwarf_type_scan import NotHandled
    from sizetool.inputs.dwarf_unit_scan import UnitScan

    name_bytes = re.compile(pattern.pattern.encode(), pattern.flags & re.IGNORECASE)
    try:
        with open(path, "rb") as handle:
            sections, little_endian = debug_sections(handle)
        if not sections.get(".debug_info"):
            return read_dwarf_constants_pyelftools(path, pattern) if ".debug_info" in sections else []
        if not any(name_bytes.search(sections.get(name, b"")) for name in (".debug_str", ".debug_info")):
            return []
        found = UnitScan(sections, little_endian).constants(pattern)
    except OSError as error:
        raise SizeToolError(f"{path}: cannot read ({error.strerror or error})") from None
    except (NotHandled, CorruptDwarf, IndexError, ValueError, KeyError):
        return read_dwarf_constants_pyelftools(path, pattern)
    return sorted({DwarfConstant(*entry) for entry in found}, key=lambda c: (c.name, c.unit, c.value))


def read_dwarf_constants_pyelftools(path: str | Path, pattern: re.Pattern) -> list[DwarfConstant]:
    """read_dwarf_constants through pyelftools' generic DIE parser: the reference the fast reader is tested against,
    and its fallback."""
    from elftools.elf.elffile import ELFFile

    out: list[DwarfConstant] = []
    name_bytes = re.compile(pattern.pattern.encode(), pattern.flags & re.IGNORECASE)
    try:
        with open(path, "rb") as handle:
            elf = ELFFile(handle)
            strings = [elf.get_section_by_name(n) for n in (".debug_str", ".debug_info")]
            if strings[1] is None or not any(s is not None and name_bytes.search(s.data()) for s in strings):
                return []
            dwarf = elf.get_dwarf_info(relocate_dwarf_sections=False, follow_links=False)
            for unit in dwarf.iter_CUs():
                top = unit.get_top_DIE()
                _walk(top, [], _text(top, "DW_AT_name") or "", pattern, out)
    except OSError as error:
        raise SizeToolError(f"{path}: cannot read ({error.strerror or error})") from None
    except Exception as error:  # a malformed DWARF: pyelftools raises many types; one line, no traceback
        raise SizeToolError(f"{path}: cannot read its DWARF ({type(error).__name__}: {error})") from None
    return sorted(set(out), key=lambda c: (c.name, c.unit, c.value))
