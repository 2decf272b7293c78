"""Symbols laid over a section: which bytes each symbol (with its aliases) covers, and the gaps no symbol covers.

Shared by the byte labelling (report/), the reference graph (code_graph/) and the stack frames (stack/)."""

from __future__ import annotations

import bisect
from collections.abc import Iterable

from sizetool.inputs.elf_reader import Section, Symbol

NO_SYMBOL = "(no symbol)"


def section_gaps(section: Section, runs) -> list[tuple[int, int]]:
    """The [start, end) ranges of a section that no symbol run covers."""
    gaps = []
    cursor = section.address
    for symbol, _, size in runs:
        start = max(symbol.address, cursor)
        if start > cursor:
            gaps.append((cursor, start))
        cursor = start + size
    if cursor < section.address + section.size:
        gaps.append((cursor, section.address + section.size))
    return gaps


def code_piece_ranges(input_sections: Iterable) -> list[tuple[int, int]]:
    """The [start, end) of every non-empty code input section (a map's `.text*`/`.iram1*` pieces, or DWARF's code
    ranges), sorted: what symbol_runs cuts symbols at."""
    return sorted((piece.address, piece.address + piece.size) for piece in input_sections or ()
                  if piece.size and piece.name.startswith((".text", ".iram1")))


def _input_section_end(address: int, end: int, pieces: list[tuple[int, int]], starts: list[int]) -> int:
    """end, cut at the end of the input section holding address: the linker keeps or drops each input section whole,
    so no symbol's bytes run on into the next one, whatever its st_size says (newlib-nano's strcmp, an assembler
    routine starting 8 bytes into its .text, is sized as if it started at the section's start: 8 bytes too long)."""
    position = bisect.bisect_right(starts, address) - 1
    if position >= 0 and pieces[position][0] <= address < pieces[position][1] < end:
        return pieces[position][1]
    return end


def symbol_runs(section: Section, symbols: list[Symbol],
                pieces: list[tuple[int, int]] = ()) -> list[tuple[Symbol, list[Symbol], int]]:
    """(representative symbol, its aliases, bytes counted) in address order, clipped to the section and, given the
    code input sections (`pieces`, from code_piece_ranges), to the input section each symbol starts in."""
    starts = [start for start, _ in pieces]
    groups: dict[tuple[int, int], list[Symbol]] = {}
    for symbol in symbols:
        key = (symbol.address, symbol.size)
        members = groups.get(key)
        if members is None:
            groups[key] = [symbol]
        else:
            members.append(symbol)
    runs = []
    cursor = section.address
    end_of_section = section.address + section.size
    for key in sorted(groups):  # (address, size) pairs are unique: their order alone decides
        address, size = key
        members = groups[key]
        if len(members) > 1:  # most symbols have no alias
            # Global before local, then by name: a stable choice of which alias names the bytes.
            members.sort(key=lambda s: (s.binding != "global", s.binding != "weak", s.mangled))
        start = address if address > cursor else cursor
        end = address + size
        if end > end_of_section:
            end = end_of_section
        if starts:
            end = _input_section_end(address, end, pieces, starts)
        if end <= start:
            continue
        runs.append((members[0], members[1:], end - start))
        cursor = end
    return runs
