"""The alignment fill a relink gives back: what `--drop`/`--keep` with a map adds to a saving for the `*fill*` GNU ld
puts in front of aligned input sections.

A relink without some code moves everything after it down by the bytes that went; an input section that must start
at a multiple of its alignment then gets a different fill in front of it. On TFLM builds most of that is one fill:
newlib's hand-written `strlen` and `strcmp` are 64- and 32-byte aligned, and the 52 bytes in front of `strlen` in an
all-ops link became 20, 0 or 36 in the relinks (-24..-38 B of error on 8 of 10 leave-one-out relinks of a -O2 -g
Cortex-M4 build, before this was counted).

The map shows each fill and the address of the section after it, not that section's alignment. The alignment used
is the smallest power of two above the fill that the section's address is a multiple of, and, for a fill of 8 bytes
or more, the largest power of two (up to 64) the address is a multiple of: a fill that large is in front of a
section aligned for speed (newlib's string functions, a 16-byte aligned model array), whose alignment is seldom
smaller than its address allows. The fills are walked in address order: each moves by the bytes that go before it
(code and data that go, AddXxx() calls removed from code that stays) and by what the fills before it gave back, and
gives back `fill - (fill + moved) mod alignment`.

What it cannot see: a section aligned beyond 4 bytes that happens to need no fill in the all-ops link (no `*fill*`
in front of it) gains one in the relink; that is still an error of up to its alignment less 4. And a fill whose
bytes the graph already counts with code that goes is left to the graph.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

# Output sections whose fill takes no flash.
_NOT_STORED = (".bss", ".noinit", ".heap", ".stack", ".stack_dummy", ".tbss")
LARGE_FILL = 8  # a fill at least this large is in front of a section aligned for speed
MAX_ALIGNMENT = 64


@dataclass(frozen=True)
class AlignedFill:
    address: int  # where the fill starts
    size: int
    alignment: int  # of the section after it, as inferred


def aligned_fills(input_sections) -> tuple[AlignedFill, ...]:
    """The map's fills in front of aligned input sections in stored output sections, by address."""
    found = []
    pieces = list(input_sections or ())
    for position, piece in enumerate(pieces):
        if piece.name != "*fill*" or not piece.size or piece.output_section in _NOT_STORED:
            continue
        following = next((p for p in pieces[position + 1:] if p.name != "*fill*" and p.size), None)
        if following is None or following.output_section != piece.output_section:
            continue
        alignment = 1
        while alignment <= piece.size:
            alignment *= 2
        if following.address % alignment:
            continue  # not a fill for alignment (a gap the script made, an ALIGN of the output section)
        if piece.size >= LARGE_FILL:
            while alignment < MAX_ALIGNMENT and following.address % (2 * alignment) == 0:
                alignment *= 2
        found.append(AlignedFill(piece.address, piece.size, alignment))
    return tuple(sorted(found, key=lambda fill: fill.address))


def fill_given_back(fills, removed: list[tuple[int, int]], gone_ranges: list[tuple[int, int]] = ()) -> int:
    """The fill bytes a relink without `removed` (address, bytes) frees (negative: adds). `gone_ranges`: the
    (start, end) of what goes, whose fill the graph counts already."""
    if not fills or not removed:
        return 0
    removed = sorted(removed)
    addresses = [address for address, _ in removed]
    before = [0]
    for _, size in removed:
        before.append(before[-1] + size)
    starts = sorted(gone_ranges)
    given_back = 0
    for fill in fills:
        index = bisect.bisect_right(starts, (fill.address, float("inf"))) - 1
        if index >= 0 and starts[index][0] <= fill.address < starts[index][1]:
            continue
        moved = before[bisect.bisect_left(addresses, fill.address)] + given_back
        given_back += fill.size - (fill.size + moved) % fill.alignment
    return given_back
