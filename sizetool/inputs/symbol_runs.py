"""Symbols laid over a section: which bytes each symbol (with its aliases) covers, and the gaps no symbol covers.

Shared by the byte labelling (report/), the reference graph (code_graph/) and the stack frames (stack/)."""

from __future__ import annotations

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
        if end <= start:
            continue
        runs.append((members[0], members[1:], end - start))
        cursor = end
    return runs
