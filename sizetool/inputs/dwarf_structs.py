"""The sizes of the named structs, classes, typedefs and enums an ELF's DWARF describes at namespace scope, per
compile unit (DW_AT_byte_size of DW_TAG_structure_type/class_type, of the type a DW_TAG_typedef names, and of
DW_TAG_enumeration_type), and a struct's data member names.

Only the compile unit's top level and the namespaces tflite and anonymous (with those nested in them) are walked:
function bodies, class members and std/flatbuffers are skipped through DW_AT_sibling. Declarations (no size) are left
out. Anonymous namespaces are named "(anonymous)", as demanglers print them.

read_dwarf_types reads them with the project's own decoder (dwarf_type_scan.py: 0.05 s on a 12.5 MB -g all-ops
build); read_dwarf_types_pyelftools is the same walk through pyelftools' generic DIE parser (it parses every DIE at
those levels: seconds on such a build), kept as the reference the fast reader is tested against and as its fallback
for what it leaves to pyelftools.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sizetool.errors import SizeToolError

_RECORDS = ("DW_TAG_structure_type", "DW_TAG_class_type")
# The top-level namespaces walked (TFLM's structs are global C types or in tflite::); others are skipped whole
_TOP_NAMESPACES = ("tflite", "(anonymous)")


@dataclass(frozen=True)
class DwarfType:
    unit: str  # the compile unit's DW_AT_name, as the compiler wrote it
    name: str  # qualified: "tflite::(anonymous)::OpData", "TfLiteTensor"
    kind: str  # "struct", "typedef" or "enum"
    byte_size: int
    members: tuple[str, ...] = ()  # a struct's data members by name, in order (what a revision's kernel keeps)


def _text(die, attribute: str) -> str | None:
    value = die.attributes.get(attribute)
    if value is None:
        return None
    raw = value.value
    return raw.decode("utf-8", errors="replace") if isinstance(raw, bytes) else str(raw)


def _size(die) -> int | None:
    value = die.attributes.get("DW_AT_byte_size")
    return value.value if value is not None and isinstance(value.value, int) else None


def _typedef_size(die) -> int | None:
    for _ in range(8):  # typedef chains (typedef of a typedef of the struct), const/volatile qualifiers
        if "DW_AT_type" not in die.attributes:
            return None
        die = die.get_DIE_from_attribute("DW_AT_type")
        size = _size(die)
        if size is not None and "DW_AT_declaration" not in die.attributes:
            return size
        if die.tag not in ("DW_TAG_typedef", "DW_TAG_const_type", "DW_TAG_volatile_type"):
            return None
    return None


def _walk(die, scope: list[str], unit: str, out: list[DwarfType], members_of: frozenset[str]) -> None:
    for child in die.iter_children():
        tag = child.tag
        if tag == "DW_TAG_namespace":
            name = _text(child, "DW_AT_name") or "(anonymous)"
            if scope or name in _TOP_NAMESPACES:  # not std, flatbuffers, __gnu_cxx: a third of the DIEs
                _walk(child, scope + [name], unit, out, members_of)
            continue
        name = _text(child, "DW_AT_name")
        if name is None or "DW_AT_declaration" in child.attributes:
            continue
        members: tuple[str, ...] = ()
        if tag in _RECORDS:
            size = _size(child)
            kind = "struct"
            if size is not None and name in members_of and child.has_children:
                members = tuple(_text(m, "DW_AT_name") or "" for m in child.iter_children()
                                if m.tag == "DW_TAG_member")
        elif tag == "DW_TAG_typedef":
            size = _typedef_size(child)
            kind = "typedef"
        elif tag == "DW_TAG_enumeration_type":
            size = _size(child)
            kind = "enum"
        else:
            continue
        if size is not None:
            out.append(DwarfType(unit, "::".join(scope + [name]), kind, size, members))


def read_dwarf_types(path: str | Path, members_of: frozenset[str] = frozenset(),
                     names: frozenset[str] | None = None) -> list[DwarfType]:
    """Every named struct, typedef and enum at namespace scope with its size, per compile unit ([] without DWARF);
    the member names of the structs named in members_of (reading every struct's members would triple the time).
    names: only the types whose name's last part is one of them (None: all).

    Read by dwarf_type_scan.py, the project's own decoder; an ELF with a construct it leaves to pyelftools is read
    by read_dwarf_types_pyelftools, which gives the same list."""
    from sizetool.inputs.dwarf_format import CorruptDwarf, debug_sections
    from sizetool.inputs.dwarf_type_scan import NotHandled, TypeScan

    try:
        with open(path, "rb") as handle:
            sections, little_endian = debug_sections(handle)
        if not sections.get(".debug_info"):
            return []
        found = TypeScan(sections, little_endian, names, members_of).scan()
    except OSError as error:
        raise SizeToolError(f"{path}: cannot read ({error.strerror or error})") from None
    except (NotHandled, CorruptDwarf, IndexError, ValueError, KeyError):
        return read_dwarf_types_pyelftools(path, members_of, names)
    return [DwarfType(*entry) for entry in found]


def read_dwarf_types_pyelftools(path: str | Path, members_of: frozenset[str] = frozenset(),
                                names: frozenset[str] | None = None) -> list[DwarfType]:
    """read_dwarf_types through pyelftools' generic DIE parser (about twenty times slower): the reference the fast
    reader is tested against, and its fallback."""
    from elftools.elf.elffile import ELFFile

    out: list[DwarfType] = []
    try:
        with open(path, "rb") as handle:
            elf = ELFFile(handle)
            if elf.get_section_by_name(".debug_info") is None:
                return []
            dwarf = elf.get_dwarf_info(relocate_dwarf_sections=False, follow_links=False)
            for unit in dwarf.iter_CUs():
                top = unit.get_top_DIE()
                _walk(top, [], _text(top, "DW_AT_name") or "", out, members_of)
    except OSError as error:
        raise SizeToolError(f"{path}: cannot read ({error.strerror or error})") from None
    except Exception as error:  # a malformed DWARF: pyelftools raises many types; one line, no traceback
        raise SizeToolError(f"{path}: cannot read its DWARF ({type(error).__name__}: {error})") from None
    return out if names is None else [t for t in out if t.name.rsplit("::", 1)[-1] in names]
