"""The code input sections an ELF alone shows, when there is no linker map: DWARF's address ranges per compile unit;
and the data a linker script puts in a code section (data_in_code), which is not to be decoded.

An object built without `-ffunction-sections` (newlib's and libgcc's archive members, as Debian and Arm ship them)
brings all its functions in one `.text` input section, which `--gc-sections` keeps or drops whole: `strtoll` keeps
`_strtoll_r`, `__math_oflowf` keeps `__math_divzerof`. The map lists those input sections; without it, the compile
unit's `.debug_aranges` entries do the same job: GCC writes one (address, length) pair per code section of the unit,
so a pair covering several functions is one input section. Units built with `-ffunction-sections` have one pair per
function and tie nothing.

Read from `.debug_aranges` alone (a few bytes per unit): no DIE is decoded.
"""

from __future__ import annotations

import bisect
import struct
from dataclasses import dataclass

from sizetool.code_graph.disassembly import CodeRun
from sizetool.inputs.elf_reader import ElfImage, Section

_SHF_COMPRESSED = 0x800
DATA_INPUT_SECTIONS = (".rodata", ".data", ".sdata", ".srodata")  # input sections that hold data, not code
# ... and what picolibc.ld also places in .text: GOT entries and the constructor lists (words holding addresses)
_DATA_IN_CODE_SECTIONS = DATA_INPUT_SECTIONS + (".rdata", ".got", ".preinit_array", ".init_array", ".fini_array",
                                                ".ctors", ".dtors")


@dataclass(frozen=True)
class CodeSection:
    """One code input section as DWARF describes it; named like a map's input section for the graph's ties."""

    name: str
    address: int
    size: int


def dwarf_code_sections(image: ElfImage) -> list[CodeSection]:
    """Every (address, length) pair of `.debug_aranges` inside a code section, as code input sections (sorted).
    Unreadable or absent tables give none: the graph is then built as before, without these ties."""
    section = image.section_by_name(".debug_aranges")
    if section is None or section.size == 0 or section.is_alloc or getattr(section, "flags", 0) & _SHF_COMPRESSED:
        return []
    try:
        data = image.section_data(section)
    except Exception:  # a damaged table only costs precision
        return []
    endian = "<" if image.little_endian else ">"
    pieces: list[CodeSection] = []
    position = 0
    while position + 4 <= len(data):
        length = struct.unpack_from(endian + "I", data, position)[0]
        offset_size, header_end = 4, position + 4
        if length == 0xFFFFFFFF:
            if position + 12 > len(data):
                break
            length = struct.unpack_from(endian + "Q", data, position + 4)[0]
            offset_size, header_end = 8, position + 12
        unit_end = header_end + length
        if length < 4 or unit_end > len(data):
            break
        cursor = header_end + 2 + offset_size  # version, debug_info offset
        if cursor + 2 > unit_end:
            break
        address_size, segment_size = data[cursor], data[cursor + 1]
        cursor += 2
        if address_size not in (4, 8) or segment_size:
            position = unit_end
            continue
        pair = struct.Struct(endian + ("II" if address_size == 4 else "QQ"))
        tuple_size = 2 * address_size
        cursor = position + (cursor - position + tuple_size - 1) // tuple_size * tuple_size  # tuples are aligned
        while cursor + pair.size <= unit_end:
            address, size = pair.unpack_from(data, cursor)
            cursor += pair.size
            if address == 0 and size == 0:
                break
            if size and address:  # a unit's section the linker discarded reads as address 0
                pieces.append(CodeSection(".text", address, size))
        position = unit_end
    code = [(s.address, s.address + s.size) for s in image.sections if s.is_code and s.is_alloc]
    pieces = [p for p in pieces if any(start <= p.address and p.address + p.size <= end for start, end in code)]
    pieces.sort(key=lambda piece: (piece.address, piece.size))
    return pieces


def data_in_code(image: ElfImage, sections: list[Section], runs, input_sections) -> dict[int, list[tuple[int, int]]]:
    """Per code section, the address ranges that hold data, not instructions, on architectures without ARM's mapping
    symbols (Xtensa decodes only functions): a linker script may put read-only data in the executable section
    (picolibc's picolibc.ld places every .rodata, .srodata and .got input section and the constructor lists inside
    .text). Data objects (sized OBJECT symbols) are data, and with the linker map so is every data input section
    (.rodata.str1.4 string literals, switch tables and vtables the compiler left without a symbol). Decoded as
    instructions, their bytes would read as jumps and address pairs to anywhere; read as data words, their pointers
    (vtables, registration structs) keep what they point at, as in a data section.

    Without the map, a code section that holds data objects holds other data too (string literals have no symbol):
    there, bytes no symbol covers are data up to the first label in them (an assembler routine's unsized symbol),
    and code from it on."""
    if image.arch in ("arm", "xtensa"):
        return {}
    found: dict[int, list[tuple[int, int]]] = {}
    for section in sections:
        if not section.is_code or section.is_nobits:
            continue
        low, high = section.address, section.address + section.size
        covered = [(symbol.address, symbol.address + size, symbol.kind) for symbol, _, size in runs.get(section.index, ())
                   if size > 0]
        ranges = [(begin, end) for begin, end, kind in covered if kind == "object"]
        if ranges:
            labels = sorted(symbol.address for symbol in image.symbols
                            if symbol.section_index == section.index and symbol.size == 0 and symbol.kind != "object")
            ranges += _unlabelled_gaps(low, high, covered, labels)
        ranges += [(max(piece.address, low), min(piece.address + piece.size, high)) for piece in input_sections or ()
                   if piece.size and piece.name.startswith(_DATA_IN_CODE_SECTIONS)
                   and low <= piece.address < high]
        if ranges:
            merged: list[tuple[int, int]] = []
            for begin, end in sorted(ranges):
                if merged and begin <= merged[-1][1]:
                    merged[-1] = (merged[-1][0], max(merged[-1][1], end))
                else:
                    merged.append((begin, end))
            found[section.index] = merged
    return found


def _unlabelled_gaps(low: int, high: int, covered: list[tuple[int, int, str]], labels: list[int]) -> list[tuple[int, int]]:
    """The bytes between low and high that no sized symbol covers, each gap up to the first label in it."""
    gaps = []
    cursor = low
    for begin, end, _ in sorted(covered) + [(high, high, "")]:
        if begin > cursor:
            position = bisect.bisect_left(labels, cursor)
            label = labels[position] if position < len(labels) and labels[position] < begin else begin
            if label > cursor:
                gaps.append((cursor, label))
        cursor = max(cursor, end)
    return gaps


def without_data(code: list[CodeRun], data_ranges: list[tuple[int, int]]) -> list[CodeRun]:
    """The code runs with the data ranges cut out of them."""
    if not data_ranges:
        return code
    kept = []
    for run in code:
        cursor = run.start
        for low, high in data_ranges:
            if high <= cursor or low >= run.end:
                continue
            if low > cursor:
                kept.append(CodeRun(run.section_start, run.section_data, cursor, low, run.mode))
            cursor = max(cursor, high)
        if cursor < run.end:
            kept.append(CodeRun(run.section_start, run.section_data, cursor, run.end, run.mode) if cursor != run.start
                        else run)
    return kept


def unaligned_thumb_pointers(image: ElfImage, section: Section, data: bytes, thumb_starts: set[int]) -> list[tuple[int, int]]:
    """(address, value) of the halfword-aligned words in a Thumb code section's data ($d runs) that hold a Thumb
    function's address (low bit set): assembler routines place them there, read through the pc rather than by a
    literal load (pico-sdk's double and float wrappers: `svc; .word dsqrt_shim`, the shim that the wrapper keeps).
    Compiler literal pools are word-aligned and read as data words already; an exact entry point with its Thumb bit
    is what keeps a misaligned read from counting."""
    if image.arch != "arm" or not section.is_code:
        return []
    start, end = section.address, section.address + section.size
    markers = [(address, kind) for address, kind in image.mapping_symbols if start <= address < end]
    found = []
    for (address, kind), (following, _) in zip(markers, markers[1:] + [(end, "")]):
        if kind != "$d":
            continue
        for word in range((address + 1) // 4 * 4 + 2, following - 3, 4):
            value = int.from_bytes(data[word - start: word - start + 4], "little" if image.little_endian else "big")
            if value & 1 and value - 1 in thumb_starts:
                found.append((word, value))
    return found
