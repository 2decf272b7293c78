"""Where every allocated byte of a firmware image physically lives: ROM (stored in non-volatile memory), RAM (occupied
at run time), or both.

The program headers say it. A PT_LOAD segment whose load address (p_paddr) differs from its run address (p_vaddr) is
copied at start-up: its bytes are stored in flash and occupy RAM (`.data`, Zephyr's `datas` and `device_area`, code
copied to ITCM). A segment without file bytes is zero-filled or reserved RAM (`.bss`, noinit, stacks, heaps). A segment
stored in place (p_paddr == p_vaddr) lies in flash when the image copies anything (an execute-in-place image: its
vector table, code, read-only data, and writable tables the linker script keeps in flash, such as Zephyr's rom_start
and sw_isr_table); an image that copies nothing but carries initialised writable data in place is loaded into RAM as
a whole (a RAM-only image: it has no ROM).

A linker map refines this with its MEMORY regions: a region is ROM or RAM by its name (FLASH, ROM; RAM, TCM, CCM,
SRAM...), else by its attributes (writable: RAM), and each section belongs to the first declared region that holds
its address (run address for RAM, load address for ROM). Each region's use is what ld's --print-memory-usage prints:
from the region's origin to the end of the last byte placed in it, so alignment gaps between sections count, and are
reported as (fill). A gap in a RAM region that alignment does not explain (at least as large as the alignment the next
section asks for: CMSIS's ARMCM4_gcc.ld places the stack at the top of RAM, and ld counts everything between the heap
and the stack as used) is memory nothing occupies: free RAM, reported as (free). The ROM and RAM totals are then the
sums of the ROM and RAM regions' use.

Without a map the totals come from the segments: each segment's sections from the first to the last byte (the gaps
between sections inside a segment are fill); gaps between segments are not counted, since nothing says they lie in
one memory.

Programs for an operating system (x86-64 hosted builds, shared objects) have no flash or RAM of their own: their ROM
is the file image (stored bytes) and their RAM the writable bytes, Berkeley `size`'s view.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from sizetool.errors import SizeToolError
from sizetool.inputs.elf_reader import ElfImage, Section

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:  # the map's records: map_file.py loads only for a map
    from sizetool.inputs.map_file import LinkerMap, MapRegion

ROM, RAM = "rom", "ram"
OUTSIDE_REGIONS = "(outside regions)"

# Region names that say what the memory is; checked before the attributes, which scripts often leave loose (an
# ITCM declared "rx" is still RAM; iram0_0_seg is RAM, drom0_0_seg is flash).
# A memory-mapped QSPI/OSPI/XIP flash window (Zephyr's nRF5340 QSPI at 0x10000000, EXTFLASH) is flash, not RAM.
# Non-volatile memories named "RAM" are ROM too: MRAM (Ambiq Apollo4/5's code memory, MCU_MRAM), FRAM (TI's FR
# parts), RRAM (nRF54L).
_ROM_NAME = re.compile(r"FLASH|ROM|NVM|EEPROM|OTP|RRAM|MRAM|FRAM(?!E)|QSPI|OSPI|XIP", re.IGNORECASE)
_RAM_NAME = re.compile(r"RAM|TCM|CCM|DATA|BSS|HEAP|STACK", re.IGNORECASE)
_ARRAY_SECTIONS = (".init_array", ".fini_array", ".preinit_array", "init_array", "fini_array", ".ctors", ".dtors")


@dataclass(frozen=True)
class Area:
    """A memory the image uses: a linker MEMORY region, or (without a map) the ROM or RAM the segments say."""

    name: str
    memory: str  # ROM or RAM
    origin: int = 0
    length: int = 0  # 0 when unknown
    attributes: str = ""
    used: int = 0  # with a region: from its origin to the end of the last byte placed in it (ld's "Used Size")


@dataclass(frozen=True)
class PlacedSection:
    """An allocated section and the ROM and RAM areas its bytes count in."""

    section: Section
    rom_area: str | None  # the area that stores its bytes (None: nothing of it is in ROM)
    ram_area: str | None  # the area it occupies at run time (None: it stays in ROM)


@dataclass(frozen=True)
class Fill:
    """Bytes of a memory between placed sections: alignment, or a gap the linker counts as used."""

    memory: str
    area: str
    address: int
    size: int
    free: bool = False  # a RAM gap alignment does not explain: free RAM below a section placed at a fixed address


@dataclass
class Placement:
    """Every allocated section's place, the memory areas, and the fill between sections."""

    sections: list[PlacedSection]
    areas: list[Area] = field(default_factory=list)  # with a map: every MEMORY region, in the map's order
    fills: list[Fill] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def total(self, memory: str) -> int:
        placed = sum(
            p.section.size for p in self.sections if (p.rom_area if memory == ROM else p.ram_area) is not None
        )
        return placed + sum(f.size for f in self.fills if f.memory == memory)

    @property
    def rom_total(self) -> int:
        return self.total(ROM)

    @property
    def ram_total(self) -> int:
        return self.total(RAM)


def placed_sections(image: ElfImage) -> list[Section]:
    """The sections that occupy memory: allocated, not empty, and not a TLS template's zero-fill (.tbss has an
    address but takes no room: the bytes after it belong to the next section)."""
    return [s for s in image.sections if s.is_alloc and s.size > 0 and not (s.is_tls and s.is_nobits)]


def place(image: ElfImage, linker_map: LinkerMap | None = None) -> Placement:
    """ROM and RAM placement of every allocated section of a linked image."""
    sections = placed_sections(image)
    if linker_map is not None:
        check_map_matches(image, linker_map, sections)
    if image.is_hosted:
        return _file_image(sections)
    by_headers = _kinds_from_program_headers(image, sections)
    if linker_map is not None and linker_map.regions:
        return _by_regions(sections, by_headers, linker_map.regions)
    return _by_segments(image, sections, by_headers)


def check_map_matches(image: ElfImage, linker_map: LinkerMap, sections: list[Section] | None = None) -> None:
    """A map from another build (or another link of the same sources) is refused: every allocated section of the
    ELF must be in the map at the same address with the same size."""
    for section in sections if sections is not None else placed_sections(image):
        listed = linker_map.output_section(section.name)
        if listed is None:
            raise SizeToolError(
                f"{linker_map.path}: does not belong to {image.path}: the ELF's section {section.name} "
                f"(0x{section.address:x}, {section.size} bytes) is not in the map"
            )
        if (listed.address, listed.size) != (section.address, section.size):
            raise SizeToolError(
                f"{linker_map.path}: does not belong to {image.path}: section {section.name} is at "
                f"0x{listed.address:x} ({listed.size} bytes) in the map but at 0x{section.address:x} "
                f"({section.size} bytes) in the ELF"
            )


def region_memory(region: MapRegion, evidence: str | None = None) -> str:
    """Whether a MEMORY region is ROM or RAM: by its name, else by its attributes (writable: RAM), else by what the
    program headers say of the sections in it, else RAM. A region whose map says what it is (armlink, IAR) is that."""
    if region.memory:
        return region.memory
    if _ROM_NAME.search(region.name):
        return ROM
    if _RAM_NAME.search(region.name):
        return RAM
    attributes = region.attributes.split("!", 1)[0].lower()
    if "w" in attributes:
        return RAM
    if attributes.strip():
        return ROM
    return evidence or RAM


def _file_image(sections: list[Section]) -> Placement:
    placed = [
        PlacedSection(s, "ROM" if not s.is_nobits else None, "RAM" if s.is_writable else None) for s in sections
    ]
    return Placement(placed)


def _kinds_from_program_headers(image: ElfImage, sections: list[Section]) -> dict[int, tuple[str, str | None]]:
    """Section index -> (memory it runs in, memory its bytes are stored in or None), from the PT_LOAD segments."""
    loads = [segment for segment in image.segments if segment.is_load]
    segment_of = {section.index: next((seg for seg in loads if seg.holds(section)), None) for section in sections}
    # A segment's file bytes are what its sections store. One that holds only sections without contents stores
    # nothing, whatever its p_filesz: ld gives a NOLOAD stack file bytes when an empty section with contents follows
    # it in the segment (Ambiq's .stack, then an empty .heap: 16 KB of "file" that is no flash, and no image copy).
    stores = {id(segment): False for segment in loads}
    for section in sections:
        if not section.is_nobits and segment_of[section.index] is not None:
            stores[id(segment_of[section.index])] = True

    def file_size(segment) -> int:
        return segment.file_size if stores[id(segment)] else 0

    copies = any(s.physical_address != s.virtual_address and file_size(s) > 0 for s in loads)

    def in_place(section: Section) -> bool:
        segment = segment_of[section.index]
        return segment is not None and segment.physical_address == segment.virtual_address

    # An image that copies nothing yet holds initialised writable data in place was loaded into RAM whole. (Pointer
    # arrays such as .init_array are writable by flag but often kept in flash, so they do not count as evidence.)
    # So was one whose zero-filled data shares a stored segment with its code: flash is never zero-filled in place.
    def shares_stored_segment(section: Section) -> bool:
        segment = segment_of[section.index]
        return segment is not None and file_size(segment) > 0 and any(
            s.is_code and segment_of[s.index] is segment for s in sections)

    ram_loaded = not copies and any(
        s.is_writable and not s.is_code and s.name not in _ARRAY_SECTIONS and in_place(s)
        and (not s.is_nobits or shares_stored_segment(s))
        for s in sections
    )
    kinds: dict[int, tuple[str, str | None]] = {}
    for section in sections:
        segment = segment_of[section.index]
        stored = None if section.is_nobits else ROM
        if segment is None:
            kinds[section.index] = (RAM if section.is_writable else ROM, stored)
        elif segment.physical_address != segment.virtual_address and file_size(segment) > 0:
            kinds[section.index] = (RAM, stored)  # copied at start-up (or zero-filled after the copied part)
        elif file_size(segment) == 0:
            kinds[section.index] = (RAM, None)  # zero-filled or reserved
        elif ram_loaded:
            kinds[section.index] = (RAM, None if stored is None else RAM)
        else:
            kinds[section.index] = (ROM, stored)  # stored in place in flash (incl. a reservation after it)
    return kinds


def _by_segments(image: ElfImage, sections: list[Section], kinds) -> Placement:
    placed = []
    for section in sections:
        runs_in, stored_in = kinds[section.index]
        rom = "ROM" if ROM in (runs_in, stored_in) else None
        placed.append(PlacedSection(section, rom, "RAM" if runs_in == RAM else None))
    # Fill: inside each segment, between its first and last section (run side, and load side when copied).
    spans: dict[tuple[str, int, str], list[tuple[int, int]]] = {}
    for p in placed:
        section = p.section
        segment = next((i for i, seg in enumerate(image.segments) if seg.is_load and seg.holds(section)), -1)
        if p.ram_area is not None:
            spans.setdefault((RAM, segment, "run"), []).append((section.address, section.end))
        if p.rom_area is not None:
            stored = not section.is_nobits and kinds[section.index][0] == RAM
            start = section.load_address if stored else section.address
            spans.setdefault((ROM, segment, "load" if stored else "run"), []).append((start, start + section.size))
    fills = []
    for (memory, segment, _), ranges in sorted(spans.items()):
        if segment < 0:
            continue
        fills.extend(Fill(memory, "ROM" if memory == ROM else "RAM", start, size) for start, size in _gaps(ranges))
    return Placement(placed, fills=fills)


def _by_regions(sections: list[Section], kinds, regions: list[MapRegion]) -> Placement:
    # What each region is: its name and attributes first; the program headers only for a region they leave open.
    evidence: dict[str, list[str]] = {}
    for section in sections:
        runs_in, stored_in = kinds[section.index]
        evidence.setdefault(_region_of(regions, section.address) or "", []).append(runs_in)
        if stored_in is not None and section.load_address != section.address:
            evidence.setdefault(_region_of(regions, section.load_address) or "", []).append(stored_in)
    memory_of = {}
    for region in regions:
        votes = evidence.get(region.name, [])
        memory_of[region.name] = region_memory(region, max(set(votes), key=votes.count) if votes else None)

    placed = []
    ranges: dict[str, list[tuple[int, int]]] = {}
    alignment_at: dict[int, int] = {}  # run address of a RAM section -> the alignment it asks for
    warnings = []
    for section in sections:
        run_region = _region_of(regions, section.address)
        runs_in = memory_of[run_region] if run_region else kinds[section.index][0]
        load_region = None
        stored_in = None
        if not section.is_nobits:
            load_region = _region_of(regions, section.load_address)
            stored_in = memory_of[load_region] if load_region else kinds[section.index][1]
        rom_area = ram_area = None
        if runs_in == RAM:
            ram_area = run_region or OUTSIDE_REGIONS
            ranges.setdefault(ram_area, []).append((section.address, section.end))
            alignment_at[section.address] = max(alignment_at.get(section.address, 1), section.alignment)
        if stored_in == ROM and section.load_address != section.address:
            rom_area = load_region or OUTSIDE_REGIONS  # stored in flash, copied to RAM
            ranges.setdefault(rom_area, []).append((section.load_address, section.load_address + section.size))
        elif runs_in == ROM:
            rom_area = run_region or OUTSIDE_REGIONS  # in flash in place (or a reservation in flash)
            ranges.setdefault(rom_area, []).append((section.address, section.end))
        elif stored_in == RAM and ram_area is None:
            ram_area = load_region or OUTSIDE_REGIONS
        if (rom_area or ram_area) == OUTSIDE_REGIONS:
            warnings.append(f"section {section.name} (0x{section.address:x}) lies outside the map's MEMORY regions; "
                            "the program headers place it")
        placed.append(PlacedSection(section, rom_area, ram_area))

    areas, fills = [], []
    for region in regions:
        memory = memory_of[region.name]
        spans = ranges.get(region.name, [])
        end = max((stop for _, stop in spans), default=region.origin)
        areas.append(Area(region.name, memory, region.origin, region.length, region.attributes, end - region.origin))
        for start, size in _gaps(spans, region.origin):
            # A RAM gap at least as large as the next section's alignment is not padding: free RAM.
            free = memory == RAM and size >= alignment_at.get(start + size, 1)
            fills.append(Fill(memory, region.name, start, size, free))
    return Placement(placed, areas=areas, fills=fills, warnings=warnings)


def _region_of(regions: list[MapRegion], address: int) -> str | None:
    """The first declared region holding an address (regions may overlap: Zephyr's SRAM0 lies over RAM, and ld
    counts a section in the region the script names, which is the first one in practice)."""
    for region in regions:
        if region.origin <= address < region.origin + region.length:
            return region.name
    return None


def _gaps(ranges: list[tuple[int, int]], start: int | None = None) -> list[tuple[int, int]]:
    """(address, size) of the holes between the ranges, from `start` (default: the first range) to the last end."""
    if not ranges:
        return []
    ordered = sorted(ranges)
    cursor = ordered[0][0] if start is None else min(start, ordered[0][0])
    gaps = []
    for low, high in ordered:
        if low > cursor:
            gaps.append((cursor, low - cursor))
        cursor = max(cursor, high)
    return gaps
