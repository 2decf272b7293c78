"""Place every allocated byte by the layout an armlink or IAR map states (sizetool/inputs/map_layout.py), not by the
program headers.

Each ELF section lies in one block of the map (an armlink execution region, an IAR placement part) at the same
addresses; a section in no block, or a block the ELF's sections do not fill as the map says, means the map is from
another build, and is refused. A ROM block's sections are stored in its area. A RAM block's sections occupy RAM; its
initialised part is also stored in its load region, at the map's load address: as is, or, when armlink compressed
it, as a separate run of the compressed size (the ELF section then holds the compressed bytes, so the RAM side is
widened to the uncompressed RW data the map lists, and the ROM side is one `(compressed RW data)` run: compressed
bytes cannot be split by object). IAR counts a part only up to the end of its last section, so a section's tail past
that is not counted, and neither are the unused ranges between parts, the alignment before a block nor an init
block's tail (a NOBITS section is then placed as the pieces the map counts; a gap between two ELF sections of one
part counts as fill). armlink counts the gaps between the sections of
a RAM region (they are inside its Size; reported as fill), but its Total ROM Size leaves out the alignment between
the regions a load region stores and the padding after a region's RW data (counted with its ZI data): those stored
bytes count in RAM only, and the load region's use can be a few bytes below its Size.

The ROM and RAM totals then equal the map's own summary; when they do not (a layout this reader does not know), the
report says so in a warning naming the bytes in question and where they are.
"""

from __future__ import annotations

from dataclasses import replace

from sizetool.errors import SizeToolError
from sizetool.inputs.elf_reader import SHF_ALLOC, ElfImage, Section
from sizetool.inputs.map_file import FILL, LinkerMap
from sizetool.inputs.map_layout import RAM, ROM, MapBlock
from sizetool.report.placement import Area, Fill, PlacedSection, Placement, _gaps, placed_sections


def place_by_map(image: ElfImage, linker_map: LinkerMap) -> Placement:
    """ROM and RAM placement of every allocated section by an armlink or IAR map's layout."""
    layout = linker_map.layout
    assert layout is not None
    sections = placed_sections(image)
    members = blocks_of_sections(image, linker_map, sections)
    placed: list[PlacedSection] = []
    fills: list[Fill] = []
    left_out: list[tuple[str, int, int, str]] = []  # (block, address, size, why): ELF bytes the totals leave out
    for block, inside in members:
        counted_end = block.address + block.counted
        block_ranges = []
        pieces = []
        for section in inside:
            kept = _counted_pieces(section, counted_end, block.uncounted)
            pieces += kept
            cursor = section.address
            for start, end in [(p.address, p.end) for p in kept] + [(section.end, section.end)]:
                if start > cursor:
                    why = ("past the last section the map lists in it" if cursor >= counted_end
                           else "an alignment gap its totals leave out")
                    left_out.append((block.name, cursor, start - cursor, why))
                cursor = max(cursor, end)
        for position, section in enumerate(pieces):
            if block.memory == ROM:
                placed.append(PlacedSection(section, block.area, None))
                block_ranges.append((section.address, section.end))
                continue
            if section.is_nobits or block.load_area is None:
                placed.append(PlacedSection(section, None, block.area))
                block_ranges.append((section.address, section.end))
                continue
            if block.compressed:
                # The ELF holds the compressed bytes: RAM gets the uncompressed RW data, ROM one compressed run.
                following = pieces[position + 1].address if position + 1 < len(pieces) else counted_end
                ram_end = min(max(block.address + block.initialised, section.end), following)
                ram_side = replace(section, size=ram_end - section.address, load_address=section.address)
                placed.append(PlacedSection(ram_side, None, block.area))
                block_ranges.append((ram_side.address, ram_side.end))
                stored = Section(-1 - len(placed), f"{section.name} (compressed)", "SHT_PROGBITS", SHF_ALLOC,
                                 block.load_address, block.load_address, block.stored, section.offset)
                placed.append(PlacedSection(stored, block.load_area, None))
                continue
            load_address = block.load_address + (section.address - block.address)
            section = replace(section, load_address=load_address)
            block_ranges.append((section.address, section.end))
            stored_end = min(section.end, block.address + block.stored)
            if stored_end == section.end:
                placed.append(PlacedSection(section, block.load_area, block.area))
            else:  # the padding after the RW data: stored, but armlink counts it with the ZI data (RAM only)
                placed.append(PlacedSection(section, None, block.area))
                if stored_end > section.address:
                    placed.append(PlacedSection(replace(section, size=stored_end - section.address), block.load_area,
                                                None))
        if block.memory == RAM and layout.counts_gaps and block_ranges:
            # armlink: a region's Size counts the gaps between its sections (RW data then ZI data, aligned)
            gaps = _gaps(block_ranges + [(counted_end, counted_end)], block.address)
            fills.extend(Fill(RAM, block.area, start, size) for start, size in gaps)
        elif not layout.counts_gaps and block_ranges:
            # IAR: a gap in a part between two of the ELF's sections counts, as inside one, unless the map leaves it
            # out (ILINK writes one section per part, so this is rare: an ELF that splits a part)
            for start, size in _gaps(block_ranges + [(counted_end, counted_end)], block.address):
                fills.extend(Fill(block.memory, block.area, low, high - low)
                             for low, high in _less(start, start + size, block.uncounted))
    # Gaps between the regions a load region stores (alignment of the RW data's load address) are in its Size but
    # not in armlink's Total ROM Size, nor in IAR's readonly totals: they are not counted.

    areas = []
    for area in layout.areas:
        used = sum(p.section.size for p in placed if (p.rom_area if area.memory == ROM else p.ram_area) == area.name)
        used += sum(f.size for f in fills if f.area == area.name and f.memory == area.memory)
        areas.append(Area(area.name, area.memory, area.origin, area.length, "", used))
    placement = Placement(placed, areas=areas, fills=fills)
    for memory, name, stated in ((ROM, "ROM", layout.rom_total), (RAM, "RAM", layout.ram_total)):
        if placement.total(memory) != stated:
            placement.warnings.append(_difference(placement, linker_map, memory, name, stated, left_out))
    return placement


def _difference(placement: Placement, linker_map: LinkerMap, memory: str, name: str, stated: int,
                left_out: list[tuple[str, int, int, str]]) -> str:
    """The warning for a total that differs from the map's summary, naming the bytes in question and where they are:
    below the summary, the ELF's bytes in the map's blocks that were not counted (past the last section a block
    lists, or gaps taken for uncounted); above it, the alignment gaps counted that the summary may leave out."""
    layout = linker_map.layout
    assert layout is not None
    ours = placement.total(memory)
    text = (f"{name} is {ours} bytes here but {stated} in the map's own summary "
            f"({abs(ours - stated)} bytes {'more' if ours > stated else 'fewer'} here)")
    blocks = {b.name: b for b in layout.blocks if b.memory == memory}
    if ours < stated:
        found = [f"{size} B at 0x{start:x} in {block} ({why})" for block, start, size, why in left_out
                 if block in blocks]
        if found:
            return f"{text}; the ELF's bytes not counted here: {_first(found)}"
        return f"{text}; every byte the ELF holds in the map's {_kind(linker_map)}s is counted here"
    found = []
    for block in blocks.values():
        uncounted = set(block.uncounted)
        found += [f"{piece.size} B at 0x{piece.address:x} in {block.name}" for piece in linker_map.input_sections
                  if piece.name == FILL and block.address <= piece.address < block.address + block.counted
                  and (piece.address, piece.size) not in uncounted]
    if found:
        return f"{text}; alignment gaps counted here that the summary may leave out: {_first(found)}"
    return f"{text}; no alignment gap is counted here: the summary leaves out bytes of the sections themselves"


def _first(items: list[str], shown: int = 6) -> str:
    return ", ".join(items[:shown]) + (f" and {len(items) - shown} more" if len(items) > shown else "")


def _less(low: int, high: int, taken: tuple[tuple[int, int], ...]) -> list[tuple[int, int]]:
    """The range [low, high) less the (address, size) ranges taken out of it."""
    pieces = [(low, high)]
    for start, size in taken:
        pieces = [(a, b) for piece_low, piece_high in pieces
                  for a, b in ((piece_low, min(piece_high, start)), (max(piece_low, start + size), piece_high)) if a < b]
    return pieces


def _counted_pieces(section: Section, counted_end: int, uncounted: tuple[tuple[int, int], ...]) -> list[Section]:
    """The parts of a section the map's totals count: up to the block's counted end, less the gaps it leaves out. Only
    a NOBITS section is cut at gaps (ILINK 7's RAM is NOBITS); a section with contents keeps its start, so that what
    reads its bytes reads them from the start (a map placing one in RAM is off its format: the totals then warn)."""
    end = min(section.end, counted_end)
    pieces = []
    cursor = section.address
    for start, size in sorted(uncounted) if section.is_nobits else ():
        if start + size <= cursor or start >= end:
            continue
        if start > cursor:
            pieces.append(_piece(section, cursor, start))
        cursor = max(cursor, start + size)
    if cursor < end:
        pieces.append(_piece(section, cursor, end))
    return pieces


def _piece(section: Section, start: int, end: int) -> Section:
    if (start, end) == (section.address, section.end):
        return section
    shift = start - section.address
    return replace(section, address=start, load_address=section.load_address + shift, size=end - start,
                   offset=section.offset + (0 if section.is_nobits else shift))


def blocks_of_sections(image: ElfImage, linker_map: LinkerMap,
                       sections: list[Section] | None = None) -> list[tuple[MapBlock, list[Section]]]:
    """Each block of the map with the ELF sections in it, checked: every allocated section lies in a block, and the
    sections of each block start where it starts and end where it ends. Otherwise the map is not this ELF's."""
    layout = linker_map.layout
    assert layout is not None
    sections = sorted(sections if sections is not None else placed_sections(image), key=lambda s: (s.address, s.size))
    members: list[tuple[MapBlock, list[Section]]] = [(block, []) for block in layout.blocks]
    for section in sections:
        home = next((inside for block, inside in members
                     if block.address <= section.address < block.address + max(block.size, 1)
                     and section.end <= block.address + block.size), None)
        if home is None:
            raise SizeToolError(
                f"{linker_map.path}: does not belong to {image.path}: the ELF's section {section.name} "
                f"(0x{section.address:x}, {section.size} bytes) lies in no region of the map"
            )
        home.append(section)
    for block, inside in members:
        if not inside:
            if block.size and not block.reserved:
                raise SizeToolError(
                    f"{linker_map.path}: does not belong to {image.path}: the map's {_kind(linker_map)} {block.name} "
                    f"(0x{block.address:x}, {block.size} bytes) has no section in the ELF"
                )
            continue
        start = inside[0].address
        end = max(s.end for s in inside)
        if block.compressed:
            end = max(end, block.address + block.initialised)
        initialised = [s for s in inside if not s.is_nobits]
        if block.memory == RAM and block.load_area is not None and initialised:
            stored = initialised[-1].end - block.address if not block.compressed else initialised[-1].size
            if stored != (block.stored if block.compressed else block.initialised):
                raise SizeToolError(
                    f"{linker_map.path}: does not belong to {image.path}: {_kind(linker_map)} {block.name} stores "
                    f"{block.stored if block.compressed else block.initialised} bytes"
                    f"{' compressed' if block.compressed else ''} in the map but the ELF's "
                    f"section {initialised[-1].name} holds {stored}"
                )
        if (start, end) != (block.address, block.address + block.size):
            raise SizeToolError(
                f"{linker_map.path}: does not belong to {image.path}: {_kind(linker_map)} {block.name} is at "
                f"0x{block.address:x} ({block.size} bytes) in the map but the ELF's sections there span "
                f"0x{start:x} ({end - start} bytes)"
            )
    return members


def _kind(linker_map: LinkerMap) -> str:
    return "execution region" if linker_map.format == "armlink" else "placement"
