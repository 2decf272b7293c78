"""ARM EHABI unwind tables in the reference graph: a function's `.ARM.exidx` entry is its own (it goes when the
function goes), and through it the function refers to its `.ARM.extab` entry and that entry's personality routine."""

from __future__ import annotations

import struct

from sizetool.inputs.elf_reader import Section


def exidx_entries(section: Section, data: bytes, little_endian: bool) -> list[tuple[int, int, int]]:
    """(function address, entry start, entry end) of each `.ARM.exidx` entry: the function owns its entry."""
    word = struct.Struct("<I" if little_endian else ">I")
    pieces = []
    for offset in range(0, len(data) - 7, 8):
        prel31 = word.unpack_from(data, offset)[0] & 0x7FFFFFFF
        if prel31 & 0x40000000:
            prel31 -= 0x80000000
        entry = section.address + offset
        pieces.append(((entry + prel31) & 0xFFFFFFFF, entry, entry + 8))
    return pieces


def exidx_handlers(section: Section, sections: list[Section], contents, little_endian: bool) -> list[tuple[int, int]]:
    """What a function's `.ARM.exidx` entry refers to (from inside the entry, which the function owns): its
    `.ARM.extab` entry, and that entry's personality routine (the generic model's first word, a prel31 offset). C++
    code built with exceptions names `__gxx_personality_v0` there; without this edge the personality routine, and the
    unwinder and exception machinery it calls, would be reached by nothing and stay in every answer."""
    word = struct.Struct("<I" if little_endian else ">I")
    data = contents[section.index]
    tables = [(s.address, s.address + len(contents[s.index]), contents[s.index]) for s in sections
              if s.name.startswith(".ARM.extab") and s.index in contents]
    references = []
    for offset in range(0, len(data) - 7, 8):
        second = word.unpack_from(data, offset + 4)[0]
        if second == 1 or second & 0x80000000:  # EXIDX_CANTUNWIND, or the unwind instructions inline
            continue
        where = section.address + offset + 4
        table = (where + _prel31(second)) & 0xFFFFFFFF
        references.append((where, table))
        for start, end, table_data in tables:
            if start <= table < end - 3:
                first = word.unpack_from(table_data, table - start)[0]
                if not first & 0x80000000:  # generic model: a personality routine, then its data
                    references.append((where, (table + _prel31(first)) & 0xFFFFFFFF))
                break
    return references


def _prel31(value: int) -> int:
    value &= 0x7FFFFFFF
    return value - 0x80000000 if value & 0x40000000 else value
