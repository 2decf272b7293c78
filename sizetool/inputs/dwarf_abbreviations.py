"""Abbreviation tables for the DWARF scanner (dwarf_paths.py): framed by regular expressions and decoded when the
scan first meets a code.

Each compile unit has its own table (a TFLM build with -g: 27,000 entries in 314 tables), but the scan meets under a
third of the codes, and most entries repeat other units' entries byte for byte under other codes (2,020 distinct
there). Decoding them all one byte at a time took half of the scan. Here one regular expression pass (findall, in C)
cuts the whole section into entries and table ends when every byte belongs to one, the usual case (else a table is
framed on its own); a table is the run of entries at its offset, its codes checked to run 1, 2, ... in one comparison.
An entry is decoded when the scan first meets its code, once per distinct entry.
"""

from __future__ import annotations

import bisect
import re
from itertools import accumulate
from operator import itemgetter

from sizetool.inputs.dwarf_format import (
    ADDRESS_ATTRS, AT_SIBLING, CONSTANT_SIZES, CU_REF_FORMS, F_ADDR, F_IMPLICIT_CONST, F_REF_ADDR, OFFSET_SIZED,
    RECORD_ATTRS, RECORD_TAGS, SIBLING_ONLY, TAG_COMPILE_UNIT, TAG_PARTIAL_UNIT, TAG_SKELETON_UNIT, UNIT_ATTRS, Abbrev,
    CorruptDwarf, Unit, read_sleb, read_uleb,
)

# One abbreviation in its canonical encoding: a non-zero code (group 1), then (group 2) the tag, the children flag, and
# (attribute, form[, implicit constant]) pairs up to the (0, 0) that ends it. Every part's extent is fixed by its bytes
# (a ULEB128 ends at its first byte below 0x80; the terminator starts with 0, an attribute never does), so a match
# frames the entry exactly as decoding it byte by byte would (0x21 as a one-byte form is DW_FORM_implicit_const, which a
# signed constant follows; a longer form is at least 0x80). A table is such entries up to a 0 code; one that is not
# (an over-long ULEB128, a children flag other than 0 or 1) fails to match and is decoded byte by byte.
_ULEB = rb"[\x80-\xff]*+[\x00-\x7f]"  # possessive quantifiers: a part never gives bytes back, and needs no saving
_NONZERO_ULEB = rb"(?:[\x01-\x7f]|[\x80-\xff]++[\x01-\x7f])"
_FORM = rb"(?:\x21" + _ULEB + rb"|[\x80-\xff]++[\x01-\x7f]|[\x00-\x20\x22-\x7f])"  # 0x21: DW_FORM_implicit_const
# An (attribute, form) pair: nearly always two single bytes, tried first as one alternative (a quarter faster)
_PAIR = rb"(?:[\x01-\x7f][\x00-\x20\x22-\x7f]|" + _NONZERO_ULEB + _FORM + rb")"
_ENTRY_BODY = _ULEB + rb"[\x00\x01]" + _PAIR + rb"*+\x00\x00"
# A table framed on its own (a section with bytes outside any entry), and its entries: compiled only then (re's cache;
# a cold report saves their ~0.4 ms)
_ABBREV_ENTRY = _NONZERO_ULEB + _ENTRY_BODY  # code and body, as one string
_ABBREV_TABLE = rb"(?:" + _NONZERO_ULEB + _ENTRY_BODY + rb")*+\x00"
_ENTRY_OR_END = re.compile(_NONZERO_ULEB + _ENTRY_BODY + rb"|\x00")  # the section's pieces: entries and b"\0" ends
_END = b"\0"
# The ULEB128s of codes 1, 2, ...: one byte up to 127; from 128 to 16383 two, the low seven bits (| 0x80) first
_ONE_BYTE_CODES = bytes(range(1, 0x80))
_TWO_BYTE_CODES = bytearray(2 * (0x4000 - 0x80))
_TWO_BYTE_CODES[0::2] = bytes(range(0x80, 0x100)) * 0x7F
_TWO_BYTE_CODES[1::2] = b"".join(bytes((high,)) * 0x80 for high in range(1, 0x80))
_TWO_BYTE_CODES = bytes(_TWO_BYTE_CODES)
_FIRST_BYTE, _FIRST_TWO_BYTES = itemgetter(0), itemgetter(slice(0, 2))
_AFTER_ONE_BYTE, _AFTER_TWO_BYTES = itemgetter(slice(1, None)), itemgetter(slice(2, None))


class AbbreviationTables:
    """The abbreviation tables of one scan, and the entries decoded so far (shared by all its units)."""

    def __init__(self) -> None:
        self.tables: dict[tuple, tuple[dict[int, Abbrev], dict[bytes, bytes]]] = {}  # (offset, sizes, version) ->
        self.entries: dict[tuple, dict[bytes, Abbrev]] = {}  # (sizes, version) -> encoded entry -> abbreviation
        self.form_sizes: dict[tuple, dict[int, int]] = {}  # (sizes, version) -> form -> fixed size or -1
        # The section cut into entries and table ends (None: not read yet; () when some bytes are neither), and
        # where each piece starts
        self.pieces: list[bytes] | tuple | None = None
        self.piece_starts: list[int] = []

    def table(self, data: bytes, offset: int, address_size: int, offset_size: int,
              version: int) -> tuple[dict[int, Abbrev], dict[bytes, bytes]]:
        """The abbreviation table at offset in .debug_abbrev (data): the abbreviations decoded (code -> abbreviation),
        and the encoded entries not decoded yet (code -> the entry's body, as encoded), which abbrev() decodes when the
        scan first meets their code."""
        key = (offset, address_size, offset_size, version)
        table = self.tables.get(key)
        if table is not None:
            return table
        if offset >= len(data):
            raise CorruptDwarf(f"abbreviation table offset {offset:#x} lies outside .debug_abbrev")
        # Each unit has its own table (a TFLM build with -g: 27,000 entries in 314 tables), but the scan meets
        # under a third of the codes, and most entries repeat other units' entries byte for byte (2,020 distinct).
        # Regular expressions frame the table and its entries (in C); an entry is decoded when its code is first
        # met, once per distinct entry (abbrev()).
        entries = self._entries(data, offset)
        if entries is None:
            decoded: dict[int, Abbrev] = {}
            sizes = self.form_sizes.setdefault((address_size, offset_size, version), {})
            self.decode_all(data, offset, address_size, offset_size, version, sizes, decoded)
            table = decoded, {}
        else:
            table = {}, _by_code(entries)
        self.tables[key] = table
        return table

    def _entries(self, data: bytes, offset: int) -> list[bytes] | None:
        """The encoded entries of the table at offset (None: not in the canonical encoding)."""
        if self.pieces is None:
            pieces = _ENTRY_OR_END.findall(data)
            starts = [0, *accumulate(map(len, pieces))]
            self.pieces, self.piece_starts = (pieces, starts) if starts[-1] == len(data) else ((), [])
        first = bisect.bisect_left(self.piece_starts, offset)
        if first < len(self.pieces) and self.piece_starts[first] == offset:
            return self.pieces[first : self.pieces.index(_END, first)]
        whole = re.compile(_ABBREV_TABLE).match(data, offset)  # a section with bytes that are no entry: this table
        return None if whole is None else re.compile(_ABBREV_ENTRY).findall(data, offset, whole.end() - 1)

    def abbrev(self, unit: Unit, code: int) -> Abbrev | None:
        """The unit's abbreviation with this code (None: the table has none)."""
        abbrev = unit.abbrevs.get(code)
        if abbrev is None:
            body = body_of(unit.bodies, code)
            if body is None:
                return None
            key = (unit.address_size, unit.offset_size, unit.version)
            decoded = self.entries.setdefault(key, {})
            abbrev = decoded.get(body)
            if abbrev is None:
                sizes = self.form_sizes.setdefault(key, {})
                abbrev = decoded[body] = self.decode(body, 0, *key, sizes)[0]
            unit.abbrevs[code] = abbrev
        return abbrev

    def decode_all(self, data: bytes, pos: int, address_size: int, offset_size: int, version: int,
                        sizes: dict, table: dict) -> None:
        """Decode abbreviations from pos to the table's end (code 0) into table, one byte at a time."""
        while True:
            code = data[pos]
            if code < 0x80:
                pos += 1
            else:
                code, pos = read_uleb(data, pos)
            if code == 0:
                return
            table[code], pos = self.decode(data, pos, address_size, offset_size, version, sizes)

    @staticmethod
    def decode(data: bytes, pos: int, address_size: int, offset_size: int, version: int,
                       sizes: dict) -> tuple[Abbrev, int]:
        """The abbreviation whose tag starts at pos (after its code), and the position after it."""
        # Tags, attributes and forms are ULEB128s that nearly always fit one byte: read those inline.
        tag = data[pos]
        if tag < 0x80:
            pos += 1
        else:
            tag, pos = read_uleb(data, pos)
        has_children = data[pos] == 1
        pos += 1
        wanted = RECORD_ATTRS if tag in RECORD_TAGS else UNIT_ATTRS if tag in (
            TAG_COMPILE_UNIT, TAG_PARTIAL_UNIT, TAG_SKELETON_UNIT) else SIBLING_ONLY if has_children else ()
        specs, total, wants_any, has_address = [], 0, False, False
        while True:
            attribute = data[pos]
            if attribute < 0x80:
                pos += 1
            else:
                attribute, pos = read_uleb(data, pos)
            form = data[pos]
            if form < 0x80:
                pos += 1
            else:
                form, pos = read_uleb(data, pos)
            if attribute == 0 and form == 0:
                break
            implicit = 0
            if form == F_IMPLICIT_CONST:
                implicit, pos = read_sleb(data, pos)
            size = sizes.get(form)
            if size is None:
                size = sizes[form] = fixed_size(form, address_size, offset_size, version)
            is_wanted = attribute in wanted
            specs.append((attribute, form, implicit, is_wanted, size))
            wants_any = wants_any or is_wanted
            has_address = has_address or attribute in ADDRESS_ATTRS
            total = total + size if total >= 0 and size >= 0 else -1
        abbrev = Abbrev(tag, has_children, tuple(specs), -1 if wants_any else total, wants_any)
        if tag in RECORD_TAGS and not has_address:
            skip = tuple((a, f, i, a in (SIBLING_ONLY if has_children else ()), z) for a, f, i, _, z in specs)
            skip_wants = any(spec[3] for spec in skip)
            abbrev = Abbrev(tag, has_children, skip, -1 if skip_wants else total, skip_wants, on_demand=abbrev)
        wanted_specs = [spec for spec in abbrev.specs if spec[3]] if total >= 0 else ()
        if total >= 0 and len(wanted_specs) == 1 and wanted_specs[0][0] == AT_SIBLING \
                and wanted_specs[0][1] in CU_REF_FORMS:
            offset = 0
            for spec in abbrev.specs:
                if spec[3]:
                    break
                offset += spec[4]
            abbrev.sibling_at, abbrev.sibling_form, abbrev.total_size = offset, wanted_specs[0][1], total
        return abbrev, pos


_SHARED: list[tuple[bytes, AbbreviationTables]] = []  # the last .debug_abbrev read and its tables


def shared_tables(data: bytes) -> AbbreviationTables:
    """The abbreviation tables of this .debug_abbrev, shared by the scans of one ELF in one run (the source paths,
    then the struct facts): the second finds the tables framed and the entries it meets decoded (an entry's decoding
    lists every attribute with its form and size, whichever a scan reads)."""
    if _SHARED and _SHARED[0][0] == data:
        return _SHARED[0][1]
    tables = AbbreviationTables()
    _SHARED[:] = [(data, tables)]
    return tables


def fixed_size(form: int, address_size: int, offset_size: int, version: int) -> int:
    """The size of an attribute value of this form in a unit of these sizes and version; -1 when it varies."""
    if form in CONSTANT_SIZES:
        return CONSTANT_SIZES[form]
    if form == F_ADDR:
        return address_size
    if form in OFFSET_SIZED:
        return offset_size
    if form == F_REF_ADDR:
        return address_size if version == 2 else offset_size
    return -1


def _by_code(entries: list[bytes]) -> list[bytes | None] | dict[int, bytes]:
    """The entries' bodies (the encoding after the code) by code: a list from code 0 (None) when the codes run 1,
    2, ... in order, as compilers number them, which one comparison of their first bytes (in C) confirms, and the
    bodies are cut in C too; otherwise a dict, each code decoded (a later entry of a code given twice wins, as
    decoding the table in order would have it)."""
    head, tail = entries[:0x7F], entries[0x7F:]
    if bytes(map(_FIRST_BYTE, head)) == _ONE_BYTE_CODES[: len(head)] and (
            not tail or b"".join(map(_FIRST_TWO_BYTES, tail)) == _TWO_BYTE_CODES[: 2 * len(tail)]):
        return [None, *map(_AFTER_ONE_BYTE, head), *map(_AFTER_TWO_BYTES, tail)]
    by_code = {}
    for entry in entries:
        code, start = read_uleb(entry, 0)
        by_code[code] = entry[start:]
    return by_code


def body_of(bodies: list[bytes | None] | dict[int, bytes], code: int) -> bytes | None:
    """The encoded body of the entry with this code (None: the table has none), from _by_code's list or dict."""
    if bodies.__class__ is dict:
        return bodies.get(code)
    return bodies[code] if 0 < code < len(bodies) else None


def _integer(data: bytes, pos: int, size: int, endian: str) -> int:
    if pos + size > len(data):
        raise CorruptDwarf(f"a value at offset {pos:#x} runs past the end of its section")
    return int.from_bytes(data[pos : pos + size], endian)


def unit_header(info: bytes, pos: int, endian: str, abbreviations: AbbreviationTables,
                abbrev_data: bytes) -> Unit | None:
    """The unit whose header starts at pos in .debug_info (None: a zero length, the section's padding), with its
    abbreviation table; DWARF 2 to 5, 32- and 64-bit. Its first DIE follows the header (a type unit's too)."""
    length = _integer(info, pos, 4, endian)
    offset_size, header = 4, pos + 4
    if length == 0xFFFFFFFF:
        length, offset_size, header = _integer(info, pos + 4, 8, endian), 8, pos + 12
    elif length >= 0xFFFFFFF0:
        raise CorruptDwarf(f"bad unit length at .debug_info offset {pos:#x}")
    end = header + length
    if length == 0:
        return None
    if end > len(info):
        raise CorruptDwarf(f"unit at .debug_info offset {pos:#x} runs past the end of the section")
    version = _integer(info, header, 2, endian)
    if not 2 <= version <= 5:
        raise CorruptDwarf(f"unsupported DWARF version {version} at .debug_info offset {pos:#x}")
    unit_type = 1
    if version >= 5:
        unit_type, address_size = _integer(info, header + 2, 1, endian), _integer(info, header + 3, 1, endian)
        abbrev_offset = _integer(info, header + 4, offset_size, endian)
        first = header + 4 + offset_size
        if unit_type in (4, 5):  # skeleton / split compile: 8-byte dwo id
            first += 8
        elif unit_type in (2, 6):  # type units: signature and type offset
            first += 8 + offset_size
    else:
        abbrev_offset = _integer(info, header + 2, offset_size, endian)
        address_size = _integer(info, header + 2 + offset_size, 1, endian)
        first = header + 3 + offset_size
    if address_size not in (2, 4, 8):
        raise CorruptDwarf(f"bad address size {address_size} at .debug_info offset {pos:#x}")
    abbrevs, bodies = abbreviations.table(abbrev_data, abbrev_offset, address_size, offset_size, version)
    unit = Unit(pos, end, version, address_size, offset_size, abbrevs, first)
    unit.bodies, unit.unit_type = bodies, unit_type
    return unit
