"""Label every ROM and RAM byte exactly once, so that a report's entries always add up to its totals.

Which memories a section's bytes count in comes from its placement (sizetool/report/placement.py). Within each
section, symbols are laid out by address: aliases (same address and size) count once, a symbol that overlaps the one
before it counts only its bytes past the overlap, and every byte no symbol covers (padding, alignment fill, literal
pools, vector tables without sized symbols) goes to one catch-all entry per section, `(no symbol) <section>`. That is
bloaty's rule: the most specific label wins and catch-alls come last. In a section without contents (NOBITS: heaps,
stacks, noinit) such bytes are a reservation, named after their input section (with a map) or their section
(`(reserved)/.heap`), except, without a map, a gap too small to be one that ends where an aligned object may start
(`(fill) .bss`, _is_alignment). Gaps between sections that the memory's use counts are `(fill) <region>`, except RAM that nothing
occupies (the gap ld counts up to a stack placed at the top of RAM, placement.py): that is `(free)/(free) <region>`.
"""

from __future__ import annotations

import bisect
from collections import defaultdict
from dataclasses import dataclass
from collections.abc import Callable
from itertools import accumulate
from operator import attrgetter

from sizetool.inputs.elf_reader import ElfImage, Section, Symbol
from sizetool.inputs.map_names import FILL, is_merged_piece
from sizetool.inputs.symbol_runs import NO_SYMBOL, code_piece_ranges, section_gaps, symbol_runs
from sizetool.report.placement import Placement
from sizetool.report.ram_use import FREE, RESERVED
from sizetool.report.report_model import SizeEntry

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:  # the map's records: map_file.py loads only for a map
    from sizetool.inputs.map_file import InputSection

NO_DEBUG_INFO = "(no debug info)"

PathOf = Callable[[Symbol], tuple[str, ...]]
ObjectPathOf = Callable[[str], tuple[str, ...]]
# Without a map: the pieces of a run of symbol-less bytes [start, end) of a section whose source file is known, as
# (start, end, path); what it leaves out stays a catch-all. With a map: the same for merged string sections, whose
# bytes the map lists under the first object that had such a section; what it leaves out stays with that object.
GapPlacer = Callable[[Section, int, int], "list[tuple[int, int, tuple[str, ...]]]"]


@dataclass
class MergedStrings:
    """With a map: the bytes of merged string sections placed by the code that refers to them, and those left under
    the map's object because no code refers to them."""

    by_references: int = 0
    unreferenced: int = 0
    # objects named alike by several archive members (two kernel_util.o in one library, told apart by the DWARF units
    # their code lies in): their symbol-less bytes go by references too, the map's name saying nothing of which
    shared_names: frozenset[str] = frozenset()


def label_bytes(
    image: ElfImage,
    placement: Placement,
    path_of: PathOf,
    mangled_names: bool = False,
    input_sections: list[InputSection] | None = None,
    object_path_of: ObjectPathOf | None = None,
    gap_placer: GapPlacer | None = None,
    strings_placer: GapPlacer | None = None,
    merged_strings: MergedStrings | None = None,
) -> list[SizeEntry]:
    """One entry per symbol (or catch-all run) per memory the section's bytes occupy, plus the fill between sections.

    With the linker map's input sections, bytes no symbol covers are given to the object file that contributed
    them (one entry per object and input section); only what the map does not explain stays a catch-all. Without
    a map, gap_placer may name the source file of such bytes (what it leaves out is a catch-all); with a map,
    strings_placer places the bytes of merged string sections (counted in merged_strings, once per section).
    """
    by_section: dict[int, list[Symbol]] = defaultdict(list)
    for symbol in image.symbols:
        if symbol.size > 0:
            by_section[symbol.section_index].append(symbol)

    pieces = sorted((s for s in input_sections or [] if s.size), key=attrgetter("address", "size"))
    piece_starts = [s.address for s in pieces]
    code_pieces = code_piece_ranges(pieces)  # no symbol's bytes run on past its input section
    entries: list[SizeEntry] = []
    for placed in placement.sections:
        section = placed.section
        memories = [m for m, area in (("rom", placed.rom_area), ("ram", placed.ram_area)) if area is not None]
        if not memories:
            continue
        inside = pieces[bisect.bisect_left(piece_starts, section.address) : bisect.bisect_left(piece_starts, section.end)]
        runs = symbol_runs(section, by_section.get(section.index, []), code_pieces)
        # a symbol's path, name and aliases once, whatever the memories its section's bytes count in
        labelled = [
            (path_of(symbol), symbol.mangled if mangled_names else symbol.name, symbol.address, size, symbol.mangled,
             tuple(sorted(a.mangled if mangled_names else a.name for a in aliases)) if aliases else ())
            for symbol, aliases, size in runs
        ]
        for memory in memories:
            entries.extend(
                SizeEntry(memory, path, name, section.name, address, size, mangled, alias_names)
                for path, name, address, size, mangled, alias_names in labelled
            )
            gaps = section_gaps(section, runs)
            if gap_placer is not None and not inside and not section.is_nobits:
                gaps = _placed_gap_entries(memory, section, gaps, gap_placer, entries)
            strings = strings_placer if inside and not section.is_nobits else None
            counts = merged_strings if memory == memories[0] else None
            shared = merged_strings.shared_names if merged_strings is not None else frozenset()
            entries.extend(_gap_entries(memory, section, gaps, inside, object_path_of, strings, counts, shared))
    entries.extend(fill_entries(placement))
    return entries


def section_entries(image: ElfImage, placement: Placement) -> list[SizeEntry]:
    """The fallback for a stripped ELF: one entry per placed section and memory, plus the fill between sections."""
    entries = []
    for placed in placement.sections:
        section = placed.section
        for memory, area in (("rom", placed.rom_area), ("ram", placed.ram_area)):
            if area is not None:
                entries.append(
                    SizeEntry(memory, ("(sections)",), section.name, section.name, section.address, section.size)
                )
    entries.extend(fill_entries(placement))
    return entries


def fill_entries(placement: Placement) -> list[SizeEntry]:
    """One `(fill) <area>` entry per memory area: the bytes between its sections that its use counts; the free RAM
    among them is one `(free) <area>` entry."""
    by_area: dict[tuple[str, str, bool], list[int]] = {}
    for fill in placement.fills:
        slot = by_area.setdefault((fill.memory, fill.area, fill.free), [fill.address, 0])
        slot[0] = min(slot[0], fill.address)
        slot[1] += fill.size
    return [
        SizeEntry(memory, (FREE,) if free else (NO_SYMBOL,), f"{FREE if free else '(fill)'} {area}", "", address,
                  size)
        for (memory, area, free), (address, size) in sorted(by_area.items())
        if size
    ]


def _placed_gap_entries(memory, section, gaps, gap_placer, entries) -> list[tuple[int, int]]:
    """Adds one entry per source file for the bytes gap_placer places (summed per file, like the map's, with the runs
    that lie apart kept in `pieces`); returns the ranges it left out."""
    placed: dict[tuple[str, ...], list[tuple[int, int]]] = {}  # path -> its runs
    left = []
    for start, end in gaps:
        cursor = start
        for low, high, path in gap_placer(section, start, end):
            low, high = max(low, cursor), min(high, end)  # every byte once, whatever the placer says
            if high <= low:
                continue
            if low > cursor:
                left.append((cursor, low))
            placed.setdefault(path, []).append((low, high - low))
            cursor = high
        if cursor < end:
            left.append((cursor, end))
    # One entry per file, keeping where each run lies when they lie apart: the operator graph and the tree's readers
    # find a byte's file by the entry holding its address, and a file's runs often have other files' bytes between
    # them (an Ambiq build's registration structs of conv.o and pooling.o between two runs of ns_tempco.o's).
    for path, runs in sorted(placed.items()):
        entries.append(_summed_entry(memory, path, f"{NO_SYMBOL} {section.name}", section.name, runs))
    return left


def _gap_entries(memory, section, gaps, inside, object_path_of, strings_placer=None, counts=None,
                 shared_names=frozenset()) -> list[SizeEntry]:
    """Entries for the bytes no symbol covers, from the map's input sections that start inside the section; the
    bytes of merged string sections go where strings_placer says (the code that refers to them), the rest of them
    to the map's object."""
    by_label: dict[tuple[tuple[str, ...], str], list[tuple[int, int]]] = {}  # (path, symbol) -> its runs

    def add(path: tuple[str, ...], symbol: str, address: int, size: int) -> None:
        by_label.setdefault((path, symbol), []).append((address, size))

    # The furthest any piece so far reaches: the first piece that can reach into a gap is found by bisection.
    reach = list(accumulate((piece.address + piece.size for piece in inside), max))
    # Bytes of a section without contents that nothing names are a reservation (a heap, a stack): say which. In a
    # section the script fills with `. = . + SIZE` alone, the map's *fill* is that reservation, not alignment.
    unnamed_path, unnamed = ((RESERVED,), section.name) if section.is_nobits else ((NO_SYMBOL,), f"{NO_SYMBOL} {section.name}")
    reservation_only = section.is_nobits and all(piece.name == FILL for piece in inside)
    count = len(inside)
    for start, end in gaps:
        cursor = start
        # by address; overlaps (merged strings): the first. By index: a slice from here on would copy the rest of
        # the section's pieces for every gap.
        for position in range(bisect.bisect_right(reach, start), count):
            piece = inside[position]
            address = piece.address
            if address >= end:
                break
            piece_start = address if address > cursor else cursor
            piece_end = address + piece.size
            if piece_end > end:
                piece_end = end
            if piece_end <= piece_start:
                continue
            if piece_start > cursor:
                add(unnamed_path, unnamed, cursor, piece_start - cursor)
            if reservation_only:
                add(unnamed_path, unnamed, piece_start, piece_end - piece_start)
            elif piece.name == FILL or object_path_of is None:
                add((NO_SYMBOL,), f"(fill) {section.name}", piece_start, piece_end - piece_start)
            else:
                label = piece.name if section.is_nobits else f"(no symbol) {piece.name}"
                left = [(piece_start, piece_end)]
                strings = is_merged_piece(piece.name, piece.object_file)
                if strings_placer is not None and (strings or piece.object_file in shared_names):
                    left = _place_strings(strings_placer, section, piece_start, piece_end, label, add,
                                          counts if strings else None)
                for low, high in left:
                    add(object_path_of(piece.object_file), label, low, high - low)
                    if counts is not None and strings_placer is not None and strings:
                        counts.unreferenced += high - low
            cursor = piece_end
        if cursor < end:
            if section.is_nobits and not inside and _is_alignment(cursor, end):
                add((NO_SYMBOL,), f"(fill) {section.name}", cursor, end - cursor)
            else:
                add(unnamed_path, unnamed, cursor, end - cursor)
    return [_summed_entry(memory, path, symbol, section.name, runs) for (path, symbol), runs in sorted(by_label.items())]


def _is_alignment(start: int, end: int) -> bool:
    """Without a map, whether a gap between two objects of a section without contents is alignment padding rather
    than a reservation: under 16 bytes, and ending where an object of the smallest alignment that needs the gap may
    start (3 bytes after a 1-byte variable, up to a 4-aligned address). A heap or a stack is larger."""
    size = end - start
    alignment = 1
    while alignment <= size:
        alignment *= 2
    return size < 16 and end % alignment == 0


def _summed_entry(memory: str, path: tuple[str, ...], symbol: str, section: str, runs: list[tuple[int, int]]) -> SizeEntry:
    """One entry for a label's runs (one leaf in the tree, as the map lists one line per object and section); when the
    runs lie apart (strings placed by the code that refers to them), `pieces` keeps where each one is."""
    if len(runs) == 1:  # most labels: one run
        address, size = runs[0]
        return SizeEntry(memory, path, symbol, section, address, size)
    runs.sort()
    joined: list[list[int]] = []
    for address, size in runs:
        if joined and joined[-1][0] + joined[-1][1] == address:
            joined[-1][1] += size
        else:
            joined.append([address, size])
    pieces = tuple((address, size) for address, size in joined) if len(joined) > 1 else ()
    return SizeEntry(memory=memory, path=path, symbol=symbol, section=section, address=joined[0][0],
                     size=sum(size for _, size in runs), pieces=pieces)


def _place_strings(placer, section, start, end, label, add, counts) -> list[tuple[int, int]]:
    """Adds the bytes [start, end) that placer gives a file, labelled with the input section they lie in; returns the
    ranges it leaves out."""
    left, cursor = [], start
    for low, high, path in placer(section, start, end):
        low, high = max(low, cursor), min(high, end)
        if high <= low:
            continue
        if low > cursor:
            left.append((cursor, low))
        add(path, label, low, high - low)
        if counts is not None:
            counts.by_references += high - low
        cursor = high
    if cursor < end:
        left.append((cursor, end))
    return left
