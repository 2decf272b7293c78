"""Symbols laid over a section: which bytes each symbol (with its aliases) covers, and the gaps no symbol covers.

Shared by the byte labelling (report/), the reference graph (code_graph/) and the stack frames (stack/)."""

from __future__ import annotations

from collections import defaultdict

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


def symbol_runs(section: Section, symbols: list[Symbol]) -> list[tuple[Symbol, list[Symbol], int]]:
    """(representative symbol, its aliases, bytes counted) in address order, clipped to the section."""
    groups: dict[tuple[int, int], list[Symbol]] = defaultdict(list)
    for symbol in symbols:
        groups[(symbol.address, symbol.size)].append(symbol)
    runs = []
    cursor = section.address
    end_of_section = section.address + section.size
    for (address, size), members in sorted(groups.items()):
        # Global before local, then by name: a stable choice of which alias names the bytes.
        members.sort(key=lambda s: (s.binding != "global", s.binding != "weak", s.mangled))
        start = max(address, cursor)
        end = min(address + size, end_of_section)
        if end <= start:
            continue
        runs.append((members[0], members[1:], end - start))
        cursor = end
    return runs
