"""Source paths from DWARF: which file each function or object was declared in, and which unit built it.

For every compile unit we read the DIEs that carry an address (functions with DW_AT_low_pc or DW_AT_ranges, variables
with a DW_OP_addr location) and the file their declaration names (DW_AT_decl_file, followed through
DW_AT_specification / DW_AT_abstract_origin for out-of-line members and .constprop/.isra/.part clones). File indices
follow the line table's version (0-based from DWARF 5 line tables, 1-based before), which is not always the unit's
version. Relative paths are joined to the unit's DW_AT_comp_dir as plain strings; the analysing machine's file
system is never consulted.
"""

from __future__ import annotations

import posixpath
from collections import Counter
from dataclasses import dataclass, field

from elftools.common.exceptions import DWARFError, ELFError, ELFParseError
from elftools.elf.elffile import ELFFile

from sizetool.errors import SizeToolError

ADDRESS_TAGS = {"DW_TAG_subprogram", "DW_TAG_variable"}
# Scopes that hold functions and objects with addresses. Function bodies (parameters, locals, lexical blocks,
# inlined calls: most of the DIEs) are skipped whole; function-local statics are placed by their enclosing function.
SCOPE_TAGS = {
    "DW_TAG_namespace",
    "DW_TAG_class_type",
    "DW_TAG_structure_type",
    "DW_TAG_union_type",
    "DW_TAG_module",
    "DW_TAG_lexical_block",
}
DW_OP_ADDR = 0x03


@dataclass
class SourceIndex:
    """Address -> declaring file and compile unit, as read from DWARF."""

    decl_file: dict[int, str] = field(default_factory=dict)  # start address -> declaring source file
    unit_of: dict[int, str] = field(default_factory=dict)  # start address -> compile unit's primary file
    unit_ranges: list[tuple[int, int, str]] = field(default_factory=list)  # (low, high, unit file), sorted
    comp_dirs: Counter = field(default_factory=Counter)
    warnings: list[str] = field(default_factory=list)

    def unit_covering(self, address: int) -> str | None:
        for low, high, name in self.unit_ranges:
            if low <= address < high:
                return name
        return None

    def workspace(self) -> str:
        """The default workspace: the compilation directory most units were built in."""
        return self.comp_dirs.most_common(1)[0][0] if self.comp_dirs else ""


def read_source_index(path: str) -> SourceIndex:
    """Read the DWARF of an ELF. Corrupt DWARF gives an index with a warning (the report falls back to symbols)."""
    index = SourceIndex()
    try:
        with open(path, "rb") as stream:
            elf = ELFFile(stream)
            if not elf.has_dwarf_info():
                return index
            # A linked executable's DWARF is final; --emit-relocs leaves .rel.debug_* that must not be applied again.
            dwarf = elf.get_dwarf_info(relocate_dwarf_sections=False)
            for unit in dwarf.iter_CUs():
                _read_unit(dwarf, unit, index)
    except (DWARFError, ELFError, ELFParseError, KeyError, IndexError, ValueError, AssertionError, TypeError) as error:
        index.warnings.append(f"{path}: DWARF is corrupt or partial ({type(error).__name__}); paths may be incomplete")
    except OSError as error:
        raise SizeToolError(f"{path}: cannot read ({error.strerror or error})") from None
    except Exception as error:  # noqa: BLE001 - pyelftools raises many kinds of error on hostile DWARF
        index.warnings.append(f"{path}: DWARF could not be read ({type(error).__name__}); reporting by symbol only")
    index.unit_ranges.sort()
    return index


def _attr_text(die, name: str) -> str:
    attribute = die.attributes.get(name)
    if attribute is None:
        return ""
    value = attribute.value
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def _read_unit(dwarf, unit, index: SourceIndex) -> None:
    top = unit.get_top_DIE()
    comp_dir = _attr_text(top, "DW_AT_comp_dir")
    unit_file = _join(comp_dir, _attr_text(top, "DW_AT_name"))
    if comp_dir:
        index.comp_dirs[comp_dir] += 1
    file_names = _line_table_files(dwarf, unit, comp_dir)

    for low, high in _die_ranges(dwarf, unit, top):
        index.unit_ranges.append((low, high, unit_file))

    for die in _scope_DIEs(top):
        address = _die_address(dwarf, unit, die)
        if address is None:
            continue
        index.unit_of.setdefault(address, unit_file)
        file_number = _decl_file_number(die)
        if file_number is not None and 0 <= file_number < len(file_names) and file_names[file_number]:
            index.decl_file.setdefault(address, file_names[file_number])


def _scope_DIEs(top):
    """Functions and variables at file, namespace and class scope, without parsing function bodies."""
    stack = [top]
    while stack:
        scope = stack.pop()
        for child in scope.iter_children():
            if child.tag in ADDRESS_TAGS:
                yield child
            elif child.tag in SCOPE_TAGS and child.has_children:
                stack.append(child)


def _line_table_files(dwarf, unit, comp_dir: str) -> list[str]:
    """File names indexed the way DW_AT_decl_file counts them for this unit's line table."""
    program = dwarf.line_program_for_CU(unit)
    if program is None:
        return []
    header = program.header
    version = header["version"]
    directories = [d.decode("utf-8", "replace") if isinstance(d, bytes) else str(d) for d in header["include_directory"]]
    if version < 5:
        directories = [comp_dir] + directories  # directory 0 is the compilation directory before DWARF 5
    names: list[str] = [] if version >= 5 else [""]  # 1-based before DWARF 5
    for entry in header["file_entry"]:
        name = entry.name.decode("utf-8", "replace") if isinstance(entry.name, bytes) else str(entry.name)
        directory = directories[entry.dir_index] if entry.dir_index < len(directories) else ""
        names.append(_join(_join(comp_dir, directory), name))
    return names


def _decl_file_number(die) -> int | None:
    seen = 0
    while die is not None and seen < 8:
        attribute = die.attributes.get("DW_AT_decl_file")
        if attribute is not None:
            return int(attribute.value)
        for link in ("DW_AT_specification", "DW_AT_abstract_origin"):
            if link in die.attributes:
                die = die.get_DIE_from_attribute(link)
                break
        else:
            return None
        seen += 1
    return None


def _die_address(dwarf, unit, die) -> int | None:
    if die.tag == "DW_TAG_subprogram":
        ranges = _die_ranges(dwarf, unit, die)
        return min(low for low, _ in ranges) if ranges else None
    location = die.attributes.get("DW_AT_location")
    if location is None or not isinstance(location.value, list) or len(location.value) < 2:
        return None
    expression = location.value
    if expression[0] != DW_OP_ADDR:
        return None
    width = unit["address_size"]
    raw = bytes(expression[1 : 1 + width])
    return int.from_bytes(raw, "little" if dwarf.config.little_endian else "big") if len(raw) == width else None


def _die_ranges(dwarf, unit, die) -> list[tuple[int, int]]:
    attributes = die.attributes
    if "DW_AT_low_pc" in attributes:
        low = attributes["DW_AT_low_pc"].value
        high_attribute = attributes.get("DW_AT_high_pc")
        if high_attribute is None:
            return [(low, low + 1)]
        high = high_attribute.value
        if high_attribute.form not in ("DW_FORM_addr", "DW_FORM_addrx"):
            high = low + high  # DWARF 4+: high_pc is an offset from low_pc
        return [(low, high)] if high > low else []
    if "DW_AT_ranges" in attributes:
        range_lists = dwarf.range_lists()
        if range_lists is None:
            return []
        try:
            entries = range_lists.get_range_list_at_offset(attributes["DW_AT_ranges"].value, cu=unit)
        except TypeError:
            entries = range_lists.get_range_list_at_offset(attributes["DW_AT_ranges"].value)
        base = attributes["DW_AT_low_pc"].value if "DW_AT_low_pc" in attributes else 0
        out = []
        for entry in entries:
            begin = getattr(entry, "begin_offset", None)
            end = getattr(entry, "end_offset", None)
            if begin is None or end is None:
                continue
            if not getattr(entry, "is_absolute", False):
                begin, end = begin + base, end + base
            if end > begin:
                out.append((begin, end))
        return out
    return []


def _join(directory: str, name: str) -> str:
    if not name:
        return directory
    if name.startswith("/") or not directory:
        return posixpath.normpath(name)
    return posixpath.normpath(posixpath.join(directory, name))
