"""Source paths from DWARF: which file each function or object was declared in, and which unit built it.

For every compile unit we read the DIEs that carry an address (functions with DW_AT_low_pc or DW_AT_ranges, variables
with a DW_OP_addr/DW_OP_addrx location) and the file their declaration names (DW_AT_decl_file, followed through
DW_AT_specification / DW_AT_abstract_origin for out-of-line members, C++ static members and .constprop/.isra/.part
clones). File indices follow the line table's version (0-based from DWARF 5 line tables, 1-based before), which is not
always the unit's version. Relative paths are joined to the unit's DW_AT_comp_dir as plain strings; the analysing
machine's file system is never consulted. Paths written on Windows (`C:\\Users\\...\\build`, `C:/ncs/zephyr/...`)
are read with `/` separators, and a drive letter makes a path absolute.

Speed: pyelftools builds a Python object per DIE and per attribute, which takes tens of seconds on a large C++ ELF.
This module decodes .debug_info and the line-table headers itself (.debug_abbrev: dwarf_abbreviations.py), reads only
the attributes it needs, visits only file, namespace and class scope - only file scope in GCC's units, where every
definition is a child of its unit - (function bodies: parameters, locals, inlined calls, most of the DIEs, are jumped
over with DW_AT_sibling, or skipped with precomputed fixed attribute sizes), and uses pyelftools only to fetch (and
decompress) section contents.
"""

from __future__ import annotations

import bisect
import re
import struct
from collections import Counter
from dataclasses import dataclass, field

from elftools.common.exceptions import ELFError, ELFParseError

from sizetool.errors import SizeToolError
from sizetool.inputs.dwarf_abbreviations import body_of, shared_tables, fixed_size, unit_header
from sizetool.inputs.dwarf_format import (
    CorruptDwarf, debug_sections, Abbrev, ADDRESS_FORMS, ADDRX_FORMS, AT_ABSTRACT_ORIGIN, AT_ADDR_BASE, AT_COMP_DIR,
    AT_DECL_FILE, AT_GNU_ADDR_BASE, AT_HIGH_PC, AT_LOCATION, AT_LOW_PC, AT_NAME, AT_PRODUCER, AT_RANGES,
    AT_RNGLISTS_BASE, AT_SIBLING, AT_SPECIFICATION, AT_STMT_LIST, AT_STR_OFFSETS_BASE, CU_REF_FORMS, DW_OP_ADDR,
    DW_OP_ADDRX, DW_OP_GNU_ADDR_INDEX, F_BLOCK, F_BLOCK1, F_BLOCK2, F_BLOCK4, F_EXPRLOC, F_FLAG_PRESENT,
    F_IMPLICIT_CONST, F_INDIRECT, F_LINE_STRP, F_REF1, F_REF2, F_REF4, F_REF8, F_REF_ADDR, F_RNGLISTX, F_SDATA,
    F_STRING, F_STRP, LEB_FORMS, read_cstring, read_sleb, read_uleb, RECORD_TAGS, STRX_FORMS, TAG_COMPILE_UNIT,
    TAG_MEMBER, TAG_PARTIAL_UNIT, TAG_SKELETON_UNIT, TAG_SUBPROGRAM, TAG_VARIABLE, Unit,
)
# is_absolute: read from here by report/source_roots.py
from sizetool.inputs.dwarf_line_tables import LineTables, is_absolute, join_path as _join  # noqa: F401

MAX_LINK_HOPS = 8
# GCC's C and C++ compilers ("GNU C17 12.2.1 ...", "GNU C++17 ..."; not LTO's "GNU GIMPLE") write every function and
# object with an address as a child of its compile unit: a definition in a namespace or class is a unit-level DIE whose
# DW_AT_specification names the declaration inside. Their units' scan jumps over namespace and class bodies (two thirds
# of the DIEs it would visit in a TFLM build with -g); other producers' are visited.
_REFERENCE_SIZES = {F_REF1: 1, F_REF2: 2, F_REF4: 4, F_REF8: 8}
GCC_PRODUCER = re.compile(r"GNU C(\+\+)?[0-9]")

@dataclass
class SourceIndex:
    """Address -> declaring file and compile unit, as read from DWARF."""

    decl_file: dict[int, str] = field(default_factory=dict)  # start address -> declaring source file
    unit_of: dict[int, str] = field(default_factory=dict)  # start address -> compile unit's primary file
    unit_ranges: list[tuple[int, int, str]] = field(default_factory=list)  # (low, high, unit file), sorted
    # Objects defined out of line whose DIE names no file of its own, only the class member it defines
    # (DW_AT_specification), in a unit not made by GCC: clang writes no DW_AT_decl_file on the definition of a static
    # data member (`unsigned MicroInterpreter::live_instances_ = 0;` in micro_interpreter.cc), so decl_file holds the
    # class's header. GCC names the definition's file where it differs from the declaration's.
    definition_unnamed: set[int] = field(default_factory=set)
    comp_dirs: Counter = field(default_factory=Counter)
    unit_files: list[str] = field(default_factory=list)  # every compile unit's primary file, in DWARF order
    unit_comp_dirs: dict[str, str] = field(default_factory=dict)  # unit's primary file -> its DW_AT_comp_dir
    line_table_versions: Counter = field(default_factory=Counter)
    unit_versions: Counter = field(default_factory=Counter)
    warnings: list[str] = field(default_factory=list)
    _range_starts: list[int] = field(default_factory=list, repr=False)

    def unit_covering(self, address: int) -> str | None:
        if len(self._range_starts) != len(self.unit_ranges):
            self._range_starts = [low for low, _, _ in self.unit_ranges]
        position = bisect.bisect_right(self._range_starts, address) - 1
        # Unit ranges rarely overlap; look back a little for one that contains the address.
        for low, high, name in reversed(self.unit_ranges[max(0, position - 4) : position + 1]):
            if low <= address < high:
                return name
        return None

    def units_over(self, start: int, end: int) -> list[tuple[int, int, str]]:
        """The parts of [start, end) that unit ranges cover, as (low, high, unit), by address; where ranges overlap
        the first unit by address keeps the bytes."""
        if len(self._range_starts) != len(self.unit_ranges):
            self._range_starts = [low for low, _, _ in self.unit_ranges]
        position = max(0, bisect.bisect_right(self._range_starts, start) - 5)
        found: list[tuple[int, int, str]] = []
        cursor = start
        for low, high, name in self.unit_ranges[position:]:
            if low >= end:
                break
            low, high = max(low, cursor), min(high, end)
            if high > low:
                found.append((low, high, name))
                cursor = high
        return found

    def workspace(self) -> str:
        """The default workspace: the compilation directory most units were built in (the first met of those tied:
        what most_common(1) gives, without its heapq import)."""
        return max(self.comp_dirs.items(), key=lambda item: item[1])[0] if self.comp_dirs else ""


def read_source_index(path: str) -> SourceIndex:
    """Read the DWARF of an ELF. Corrupt DWARF gives an index with a warning (the report falls back to symbols)."""
    index = SourceIndex()
    try:
        with open(path, "rb") as stream:
            sections, little_endian = debug_sections(stream)
        if sections.get(".debug_info"):
            _DwarfScanner(sections, little_endian, index).scan()
    except OSError as error:
        raise SizeToolError(f"{path}: cannot read ({error.strerror or error})") from None
    except (ELFError, ELFParseError, IndexError, ValueError, KeyError, struct.error, CorruptDwarf) as error:
        index.warnings.append(f"{path}: DWARF is corrupt or partial ({_describe(error)}); paths may be incomplete")
    except Exception as error:  # noqa: BLE001 - hostile DWARF must never crash the report
        index.warnings.append(f"{path}: DWARF could not be read ({type(error).__name__}); reporting by symbol only")
    index.unit_ranges.sort()
    return index


def _describe(error: Exception) -> str:
    return str(error) if isinstance(error, CorruptDwarf) else type(error).__name__


class _DwarfScanner:
    def __init__(self, sections: dict[str, bytes], little_endian: bool, index: SourceIndex):
        self.info = sections[".debug_info"]
        self.sections = sections
        self.endian = "little" if little_endian else "big"
        # reference size -> struct's unpack_from (twice as fast as int.from_bytes of a slice; the scan jumps 40,000
        # times on the -g all-ops build)
        self.unpackers = {size: struct.Struct(("<" if little_endian else ">") + letter).unpack_from
                          for size, letter in ((1, "B"), (2, "H"), (4, "I"), (8, "Q"))}
        self.index = index
        self.abbreviations = shared_tables(sections.get(".debug_abbrev", b""))
        self.line_tables = LineTables(sections.get(".debug_line", b""), self.endian, index.line_table_versions,
                                      self._string)
        self.fast_paths: dict[tuple, tuple[dict, dict]] = {}  # (abbreviation table, visited scopes) -> _fast_paths
        # (unit sizes and version, visited scopes) -> encoded abbreviation -> its fast path (_file_fast_path), for
        # the entries met so far: most entries repeat other units' under other codes
        self.fast_paths_by_body: dict[tuple, tuple[dict[bytes, int], dict[bytes, tuple]]] = {}
        self.units: list[Unit] = []
        self.unit_starts: list[int] = []  # the units' offsets, listed once for _decl_at after the scan
        # DIE offset -> (declaring file or None, linked DIE offset or None), for the DIEs the scan visits
        self.decls: dict[int, tuple[str | None, int | None]] = {}
        self.pending: list[tuple[int, int, str]] = []  # (address, DIE offset, unit file) waiting for link resolution

    # -- units -------------------------------------------------------------------------------------------------
    def scan(self) -> None:
        info, pos = self.info, 0
        while pos + 11 <= len(info):
            unit = self._unit_header(pos)
            if unit is None:
                break
            self.units.append(unit)
            self._scan_unit(unit)
            pos = unit.end
        self._resolve_pending()

    def _int(self, data: bytes, pos: int, size: int) -> int:
        if pos + size > len(data):
            raise CorruptDwarf(f"a value at offset {pos:#x} runs past the end of its section")
        return int.from_bytes(data[pos : pos + size], self.endian)

    def _unit_header(self, pos: int) -> Unit | None:
        unit = unit_header(self.info, pos, self.endian, self.abbreviations, self.sections.get(".debug_abbrev", b""))
        if unit is not None and unit.unit_type in (2, 6):
            unit.first_die = unit.end  # type units carry no addresses
        return unit

    # -- DIEs --------------------------------------------------------------------------------------------------
    def _attributes(self, unit: Unit, abbrev: Abbrev, pos: int) -> tuple[dict, int]:
        """Decode a DIE's attributes: the wanted ones into (form, value), the others skipped."""
        values = {}
        data, endian = self.info, self.endian
        for attribute, form, implicit, wanted, size in abbrev.specs:
            if size >= 0:  # a fixed size (the abbreviation's, for this unit's sizes): _form_value, inline
                if wanted:
                    if form == F_IMPLICIT_CONST:
                        value = implicit
                    elif form == F_FLAG_PRESENT:
                        value = 1
                    elif pos + size > len(data):
                        raise CorruptDwarf(f"a value at offset {pos:#x} runs past the end of its section")
                    else:
                        value = int.from_bytes(data[pos : pos + size], endian)
                    values[attribute] = (form, value)
                pos += size
                continue
            value, pos = self._form_value(unit, form, implicit, pos)
            if wanted:
                values[attribute] = (form, value)
        if pos > unit.end:
            raise CorruptDwarf(f"a DIE runs past the end of its unit at .debug_info offset {unit.offset:#x}")
        return values, pos

    def _form_value(self, unit: Unit, form: int, implicit: int, pos: int):
        data = self.info
        while form == F_INDIRECT:
            form, pos = read_uleb(data, pos)
        size = fixed_size(form, unit.address_size, unit.offset_size, unit.version)
        if size >= 0:
            if form == F_IMPLICIT_CONST:
                return implicit, pos
            if form == F_FLAG_PRESENT:
                return 1, pos
            return self._int(data, pos, size), pos + size
        if form in LEB_FORMS:
            return (read_sleb if form == F_SDATA else read_uleb)(data, pos)
        if form == F_STRING:
            return read_cstring(data, pos)
        if form in (F_EXPRLOC, F_BLOCK):
            length, pos = read_uleb(data, pos)
        elif form == F_BLOCK1:
            length, pos = data[pos], pos + 1
        elif form == F_BLOCK2:
            length, pos = self._int(data, pos, 2), pos + 2
        elif form == F_BLOCK4:
            length, pos = self._int(data, pos, 4), pos + 4
        else:
            raise CorruptDwarf(f"unknown attribute form {form:#x} in unit at .debug_info offset {unit.offset:#x}")
        return data[pos : pos + length], pos + length

    def _scan_unit(self, unit: Unit) -> None:
        data, pos = self.info, unit.first_die
        if pos >= unit.end:
            return
        code, pos = read_uleb(data, pos)
        abbrev = self.abbreviations.abbrev(unit, code)
        if abbrev is None:
            raise CorruptDwarf(f"unknown abbreviation {code} at .debug_info offset {pos:#x}")
        values, pos = self._attributes(unit, abbrev, pos)
        if abbrev.tag not in (TAG_COMPILE_UNIT, TAG_PARTIAL_UNIT, TAG_SKELETON_UNIT):
            return
        unit_file = self._read_unit_attributes(unit, values)
        if not abbrev.has_children:
            return
        index, decls, abbrevs, end, endian = self.index, self.decls, unit.abbrevs, unit.end, self.endian
        scope_tags, base = unit.scope_tags, unit.offset
        skips, jumps = self._fast_paths(unit)
        depth = 1  # scope nesting: the unit's children are at depth 1
        while pos < end:
            die_offset = pos
            code = data[pos]  # a one-byte ULEB128 (nearly every DIE's) inline
            if code < 0x80:
                pos += 1
            else:
                code, pos = read_uleb(data, pos)
            try:
                size = skips[code]
                if size is not None:  # most DIEs: nothing wanted, a fixed size, no children
                    pos += size
                    continue
                jump = jumps[code]
            except IndexError:  # a code past the unit's table: read below
                jump = None
            if jump is not None:  # a declaration or type with children: straight to its DW_AT_sibling
                sibling_at, unpack, size, total = jump
                at = pos + sibling_at
                try:
                    target = base + unpack(data, at)[0]
                except struct.error:  # past the end of the section: the checks below say so
                    target = -1
                pos += total
                if pos < target <= end:  # (then the sibling and the DIE lie inside the unit)
                    pos = target
                    continue
                if at + size > len(data):
                    raise CorruptDwarf(f"a value at offset {at:#x} runs past the end of its section")
                if pos > end:
                    raise CorruptDwarf(f"a DIE runs past the end of its unit at .debug_info offset {base:#x}")
                pos = self._skip_subtree(unit, pos)
                continue
            if code == 0:
                depth -= 1
                if depth == 0:
                    return
                continue
            abbrev = abbrevs.get(code)
            if abbrev is None:  # a code first met: decode it, file it, and read the DIE again
                abbrev = self.abbreviations.abbrev(unit, code)
                if abbrev is None:
                    raise CorruptDwarf(f"unknown abbreviation {code} at .debug_info offset {die_offset:#x}")
                self._file_fast_path(unit, code, abbrev, skips, jumps)
                pos = die_offset
                continue
            if not abbrev.wants_any:
                if abbrev.fixed_size >= 0:
                    pos += abbrev.fixed_size
                else:
                    pos = self._attributes(unit, abbrev, pos)[1]
                values = None
            elif abbrev.sibling_at >= 0:  # a skipped declaration with children: straight to its sibling
                form = abbrev.sibling_form
                size = 1 if form == F_REF1 else 2 if form == F_REF2 else 4 if form == F_REF4 else 8
                at = pos + abbrev.sibling_at
                if at + size > len(data):  # self._int, inline: most DIEs the scan meets take this path
                    raise CorruptDwarf(f"a value at offset {at:#x} runs past the end of its section")
                values = {AT_SIBLING: (form, int.from_bytes(data[at : at + size], endian))}
                pos += abbrev.total_size
                if pos > end:
                    raise CorruptDwarf(f"a DIE runs past the end of its unit at .debug_info offset {unit.offset:#x}")
            else:
                values, pos = self._attributes(unit, abbrev, pos)
            if values is not None and abbrev.tag in RECORD_TAGS and abbrev.on_demand is None:
                self._record(unit, unit_file, die_offset, abbrev.tag, values, decls, index)
            if abbrev.has_children:
                if abbrev.tag in scope_tags:
                    depth += 1
                else:
                    sibling = values.get(AT_SIBLING) if values else None
                    target = unit.offset + sibling[1] if sibling and sibling[0] in CU_REF_FORMS else -1
                    pos = target if pos < target <= end else self._skip_subtree(unit, pos)

    def _fast_paths(self, unit: Unit) -> tuple[list[int | None], list[tuple | None]]:
        """The unit's abbreviation codes the scan passes over without decoding, listed by code: the size of DIEs with
        nothing wanted, a fixed size and no children; (offset of DW_AT_sibling, its reader, its size, the DIE's size)
        of DIEs with children outside the visited scopes whose only wanted attribute is a fixed-place DW_AT_sibling
        (None: neither, or not known yet). Filled (in C) for the entries another unit's scan has met, the same bytes under
        another code, and as the scan meets the others (_file_fast_path)."""
        key = (id(unit.abbrevs), unit.scope_tags)
        found = self.fast_paths.get(key)
        if found is None:
            skips_by_body, jumps_by_body = self._fast_paths_by_body(unit)
            bodies = unit.bodies
            if bodies.__class__ is list:
                found = [*map(skips_by_body.get, bodies)], [*map(jumps_by_body.get, bodies)]
            else:  # codes out of order (or a table decoded byte by byte): a list up to the largest, within a bound
                # the table's size sets (a larger code takes the slow path), so hostile codes cost no more memory
                entries = len(bodies) + len(unit.abbrevs)
                length = min(max(*bodies, *unit.abbrevs, 0, 0), 2 * entries + 128) + 1
                found = [None] * length, [None] * length
                for code, body in bodies.items():
                    if code < length:
                        found[0][code], found[1][code] = skips_by_body.get(body), jumps_by_body.get(body)
            self.fast_paths[key] = found
            for code, abbrev in unit.abbrevs.items():
                self._file_fast_path(unit, code, abbrev, *found)
        return found

    def _fast_paths_by_body(self, unit: Unit) -> tuple[dict[bytes, int], dict[bytes, tuple]]:
        key = (unit.address_size, unit.offset_size, unit.version, unit.scope_tags)
        found = self.fast_paths_by_body.get(key)
        if found is None:
            found = self.fast_paths_by_body[key] = ({}, {})
        return found

    def _file_fast_path(self, unit: Unit, code: int, abbrev: Abbrev, skips: list, jumps: list) -> None:
        if code >= len(skips):
            return
        body = body_of(unit.bodies, code)
        if not abbrev.wants_any and abbrev.fixed_size >= 0 and not abbrev.has_children:
            skips[code] = abbrev.fixed_size
            if body is not None:
                self._fast_paths_by_body(unit)[0][body] = abbrev.fixed_size
        elif abbrev.sibling_at >= 0 and abbrev.tag not in unit.scope_tags:
            size = _REFERENCE_SIZES[abbrev.sibling_form]
            jumps[code] = jump = (abbrev.sibling_at, self.unpackers[size], size, abbrev.total_size)
            if body is not None:
                self._fast_paths_by_body(unit)[1][body] = jump

    def _skip_subtree(self, unit: Unit, pos: int) -> int:
        """The position after the children of a DIE whose children start at pos (no usable DW_AT_sibling)."""
        data, end, depth = self.info, unit.end, 1
        while pos < end:
            code = data[pos]
            if code < 0x80:
                pos += 1
            else:
                code, pos = read_uleb(data, pos)
            if code == 0:
                depth -= 1
                if depth == 0:
                    return pos
                continue
            abbrev = self.abbreviations.abbrev(unit, code)
            if abbrev is None:
                raise CorruptDwarf(f"unknown abbreviation {code} in unit at .debug_info offset {unit.offset:#x}")
            if abbrev.fixed_size >= 0:
                pos += abbrev.fixed_size
            else:
                if abbrev.sibling_at >= 0:
                    form = abbrev.sibling_form
                    size = 1 if form == F_REF1 else 2 if form == F_REF2 else 4 if form == F_REF4 else 8
                    sibling = (form, self._int(data, pos + abbrev.sibling_at, size))
                    pos += abbrev.total_size
                    if pos > end:
                        raise CorruptDwarf(f"a DIE runs past the end of its unit at .debug_info offset {unit.offset:#x}")
                else:
                    values, pos = self._attributes(unit, abbrev, pos)
                    sibling = values.get(AT_SIBLING)
                if abbrev.has_children and sibling and sibling[0] in CU_REF_FORMS and pos < unit.offset + sibling[1] <= end:
                    pos = unit.offset + sibling[1]
                    continue
            if abbrev.has_children:
                depth += 1
        return pos

    def _read_unit_attributes(self, unit: Unit, values: dict) -> str:
        for attribute, name in ((AT_STR_OFFSETS_BASE, "str_offsets_base"), (AT_ADDR_BASE, "addr_base"),
                                (AT_GNU_ADDR_BASE, "addr_base"), (AT_RNGLISTS_BASE, "rnglists_base")):
            if attribute in values:
                setattr(unit, name, values[attribute][1])
        if GCC_PRODUCER.match(self._string(unit, values.get(AT_PRODUCER))):
            unit.scope_tags = frozenset()
            unit.from_gcc = True
        comp_dir = _join(self._string(unit, values.get(AT_COMP_DIR)), "")
        unit_file = _join(comp_dir, self._string(unit, values.get(AT_NAME)))
        index = self.index
        index.unit_files.append(unit_file)
        index.unit_versions[unit.version] += 1
        if comp_dir:
            index.comp_dirs[comp_dir] += 1
            index.unit_comp_dirs.setdefault(unit_file, comp_dir)
        if AT_LOW_PC in values:
            unit.base_address = self._address(unit, values[AT_LOW_PC])
        if AT_STMT_LIST in values:
            unit.file_names = self.line_tables.files(unit, values[AT_STMT_LIST][1], comp_dir)
        for low, high in self._ranges(unit, values):
            index.unit_ranges.append((low, high, unit_file))
        return unit_file

    def _record(self, unit: Unit, unit_file: str, die_offset: int, tag: int, values: dict, decls, index) -> None:
        decl = None
        if AT_DECL_FILE in values:
            number = values[AT_DECL_FILE][1]
            names = unit.file_names
            if 0 <= number < len(names) and names[number]:
                decl = names[number]
        link = None
        for attribute in (AT_SPECIFICATION, AT_ABSTRACT_ORIGIN):
            if attribute in values:
                form, value = values[attribute]
                link = unit.offset + value if form in CU_REF_FORMS else value if form == F_REF_ADDR else None
                break
        decls[die_offset] = (decl, link)
        if tag == TAG_SUBPROGRAM:
            addresses = [low for low, _ in self._ranges(unit, values)]
        elif tag == TAG_VARIABLE and AT_LOCATION in values:
            address = self._location_address(unit, values[AT_LOCATION])
            addresses = [] if address is None else [address]
            if address is not None and decl is None and AT_SPECIFICATION in values and not unit.from_gcc:
                index.definition_unnamed.add(address)
        else:
            return
        for address in addresses:
            index.unit_of.setdefault(address, unit_file)
            if decl is not None:
                index.decl_file.setdefault(address, decl)
            elif link is not None:
                self.pending.append((address, link, unit_file))

    def _resolve_pending(self) -> None:
        decl_file = self.index.decl_file
        for address, link, _ in self.pending:
            if address in decl_file:
                continue
            hops = 0
            while link is not None and hops < MAX_LINK_HOPS:
                entry = self.decls.get(link)
                if entry is None:
                    entry = self._decl_at(link)
                    self.decls[link] = entry
                decl, link = entry
                if decl is not None:
                    decl_file[address] = decl
                    break
                hops += 1

    def _decl_at(self, offset: int) -> tuple[str | None, int | None]:
        """Decode one DIE the scan did not visit (e.g. a declaration inside a function body)."""
        self.unit_starts = self.unit_starts if len(self.unit_starts) == len(self.units) else [u.offset for u in self.units]
        position = bisect.bisect_right(self.unit_starts, offset) - 1
        if position < 0 or not self.units[position].first_die <= offset < self.units[position].end:
            return None, None
        unit = self.units[position]
        code, pos = read_uleb(self.info, offset)
        abbrev = self.abbreviations.abbrev(unit, code)
        abbrev = abbrev.on_demand or abbrev if abbrev is not None else None
        if abbrev is None or not abbrev.wants_any or abbrev.tag not in RECORD_TAGS:
            return None, None
        values = self._attributes(unit, abbrev, pos)[0]
        scratch: dict = {}
        self._record(unit, "", offset, TAG_MEMBER, values, scratch, self.index)
        return scratch[offset]

    # -- values ------------------------------------------------------------------------------------------------
    def _string(self, unit: Unit, attribute) -> str:
        if attribute is None:
            return ""
        form, value = attribute
        if form == F_STRING:
            raw = value
        elif form in (F_STRP, F_LINE_STRP):
            section = self.sections.get(".debug_line_str" if form == F_LINE_STRP else ".debug_str", b"")
            raw = read_cstring(section, value)[0] if value < len(section) else b""
        elif form in STRX_FORMS:
            offsets = self.sections.get(".debug_str_offsets", b"")
            at = unit.str_offsets_base + value * unit.offset_size
            section = self.sections.get(".debug_str", b"")
            offset = self._int(offsets, at, unit.offset_size)
            raw = read_cstring(section, offset)[0] if offset < len(section) else b""
        else:
            return ""
        return raw.decode("utf-8", "replace")

    def _address(self, unit: Unit, attribute) -> int:
        form, value = attribute
        if form in ADDRX_FORMS:
            return self._indexed_address(unit, value)
        return value

    def _indexed_address(self, unit: Unit, index: int) -> int:
        table = self.sections.get(".debug_addr", b"")
        return self._int(table, unit.addr_base + index * unit.address_size, unit.address_size)

    def _ranges(self, unit: Unit, values: dict) -> list[tuple[int, int]]:
        if AT_LOW_PC in values and (AT_HIGH_PC in values or AT_RANGES not in values):
            low = self._address(unit, values[AT_LOW_PC])
            if AT_HIGH_PC not in values:
                return [(low, low + 1)]
            form, high = values[AT_HIGH_PC]
            high = self._address(unit, (form, high)) if form in ADDRESS_FORMS else low + high
            return [(low, high)] if high > low else []
        if AT_RANGES not in values:
            return []
        form, value = values[AT_RANGES]
        if unit.version >= 5:
            if form == F_RNGLISTX:
                table = self.sections.get(".debug_rnglists", b"")
                value = unit.rnglists_base + self._int(table, unit.rnglists_base + value * unit.offset_size,
                                                       unit.offset_size)
            return self._rnglist(unit, value)
        return self._debug_ranges(unit, value)

    def _debug_ranges(self, unit: Unit, offset: int) -> list[tuple[int, int]]:
        data, size = self.sections.get(".debug_ranges", b""), unit.address_size
        largest, base, out = (1 << (8 * size)) - 1, unit.base_address, []
        while offset + 2 * size <= len(data):
            begin, end = self._int(data, offset, size), self._int(data, offset + size, size)
            offset += 2 * size
            if begin == 0 and end == 0:
                break
            if begin == largest:
                base = end
            elif end > begin:
                out.append((begin + base, end + base))
        return out

    def _rnglist(self, unit: Unit, offset: int) -> list[tuple[int, int]]:
        data, size, base, out = self.sections.get(".debug_rnglists", b""), unit.address_size, unit.base_address, []
        while offset < len(data):
            kind = data[offset]
            offset += 1
            if kind == 0:  # end_of_list
                break
            if kind == 1:  # base_addressx
                index, offset = read_uleb(data, offset)
                base = self._indexed_address(unit, index)
                continue
            if kind == 5:  # base_address
                base, offset = self._int(data, offset, size), offset + size
                continue
            if kind == 2:  # startx_endx
                first, offset = read_uleb(data, offset)
                second, offset = read_uleb(data, offset)
                begin, end = self._indexed_address(unit, first), self._indexed_address(unit, second)
            elif kind == 3:  # startx_length
                first, offset = read_uleb(data, offset)
                length, offset = read_uleb(data, offset)
                begin = self._indexed_address(unit, first)
                end = begin + length
            elif kind == 4:  # offset_pair
                first, offset = read_uleb(data, offset)
                second, offset = read_uleb(data, offset)
                begin, end = base + first, base + second
            elif kind == 6:  # start_end
                begin, end = self._int(data, offset, size), self._int(data, offset + size, size)
                offset += 2 * size
            elif kind == 7:  # start_length
                begin, offset = self._int(data, offset, size), offset + size
                length, offset = read_uleb(data, offset)
                end = begin + length
            else:
                raise CorruptDwarf(f"unknown range list entry kind {kind} in .debug_rnglists")
            if end > begin:
                out.append((begin, end))
        return out

    def _location_address(self, unit: Unit, attribute) -> int | None:
        form, expression = attribute
        if not isinstance(expression, (bytes, bytearray)) or len(expression) < 2:
            return None
        operation = expression[0]
        if operation == DW_OP_ADDR and len(expression) >= 1 + unit.address_size:
            return int.from_bytes(expression[1 : 1 + unit.address_size], self.endian)
        if operation in (DW_OP_ADDRX, DW_OP_GNU_ADDR_INDEX):
            return self._indexed_address(unit, read_uleb(expression, 1)[0])
        return None
