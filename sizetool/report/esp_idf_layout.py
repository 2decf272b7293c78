"""ROM and RAM of an ESP-IDF firmware (ESP32, ESP32-S2/S3, ESP32-C2/C3/C6, ESP32-H2) by memory type, as
`esp-idf-size` counts them.

ESP-IDF links every section at the address it runs at (no `AT>` load addresses: the program headers say nothing is
copied), and `esptool elf2image` then stores every section with contents in the app image, which the bootloader
loads: code for IRAM and the initial values of `.dram0.data` come from flash too. The MEMORY region names mislead a
generic reader: `iram0_2_seg` is flash mapped through the instruction cache, `drom0_0_seg` flash mapped through the
data cache. So this layout:

- puts every section in a memory type by its address, from the chip's address map (CHIPS; the facts esp-idf-size's
  chip tables and the technical reference manuals give): Flash Code, Flash Data, IRAM, DRAM, DIRAM (one SRAM seen
  on the instruction and the data bus, as on ESP32-C3/S3), RTC FAST, RTC SLOW (LP SRAM), SPI RAM (PSRAM). A
  section spanning two types (ESP32-S3's `.iram0.text` runs from the 32 KB IRAM into DIRAM) counts in each for its
  part. Without a known chip the region names decide (iram0_2_seg/irom: flash code, drom: flash data, iram, dram,
  rtc, ext_ram);
- ROM (the image size) is every section with contents (PROGBITS) in any type: what `esp-idf-size` calls the total
  image size when it reads the ELF. Each memory type's use is the sum of its sections' sizes, the `used` column of
  `esp-idf-size`. RAM is the sum of the RAM types' use;
- leaves out what `esp-idf-size` leaves out: NOLOAD placeholders (`*.dummy`, `*_dummy`, `*reserved_for_iram`,
  `*noload`) that only move one bus's view past memory the other bus's view uses, and output sections the script
  fills with padding alone, no object contributing (`.iram0.text_end`'s prefetch pad).

A map is taken for an ESP-IDF one when its regions include `dram0_0_seg` and either `iram0_0_seg` or `drom0_0_seg`
(the ESP8266 RTOS SDK's `iram1_0_seg`/`irom0_0_seg` too).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sizetool.errors import SizeToolError
from sizetool.inputs.elf_reader import ElfImage, Section
from sizetool.inputs.input_files import read_input
from sizetool.inputs.map_file import FILL, LinkerMap, MapRegion
from sizetool.report.placement import RAM, ROM, Area, PlacedSection, Placement, check_map_matches, placed_sections

FLASH_CODE, FLASH_DATA = "Flash Code", "Flash Data"
IRAM, DRAM, DIRAM = "IRAM", "DRAM", "DIRAM"
RTC_FAST, RTC_SLOW, SPI_RAM = "RTC FAST", "RTC SLOW", "SPI RAM"
IMAGE_SUFFIX = " (image)"  # the ROM area of a RAM type: its initial contents stored in the app image


@dataclass(frozen=True)
class MemoryType:
    name: str
    memory: str  # ROM or RAM
    start: int
    length: int
    alias: int = 0  # the same memory's address on the other bus (0: none)

    def offset_of(self, address: int) -> int | None:
        """The offset of an address in this memory, through either bus; None when outside."""
        for base in (self.start, self.alias) if self.alias else (self.start,):
            if base <= address < base + self.length:
                return address - base
        return None


def _t(name: str, start: int, length: int, alias: int = 0) -> MemoryType:
    return MemoryType(name, ROM if name.startswith("Flash") else RAM, start, length, alias)


# Address maps (data bus address first; `alias` is the instruction-bus view of the same SRAM). The order matters
# where windows share addresses: the first type holding an address wins (ESP32-S3's PSRAM window lies over flash
# data; PSRAM sections are told apart by name, see _PSRAM_SECTIONS).
CHIPS: dict[str, tuple[MemoryType, ...]] = {
    # ESP8266 (lx106): 96 KB DRAM, up to 48 KB IRAM, 1 MB of flash mapped for code (irom0), read-only data in DRAM
    # or flash. First: its addresses also lie inside ESP32's wide flash-code window.
    "esp8266": (
        _t(DRAM, 0x3FFE8000, 0x18000), _t(IRAM, 0x40100000, 0xC000), _t(FLASH_CODE, 0x40200000, 0x100000),
        _t(RTC_SLOW, 0x60001000, 0x200),
    ),
    "esp32": (
        _t(DRAM, 0x3FFAE000, 17 * 0x2000 + 4 * 0x8000 + 4 * 0x4000), _t(IRAM, 0x40070000, 0x50000),
        _t(FLASH_CODE, 0x400C2000, 0xB3E000), _t(FLASH_DATA, 0x3F400000, 0x400000), _t(SPI_RAM, 0x3F800000, 0x400000),
        _t(RTC_FAST, 0x3FF80000, 0x2000, 0x400C0000), _t(RTC_SLOW, 0x50000000, 0x2000),
    ),
    "esp32s2": (
        _t(DIRAM, 0x3FFB2000, 3 * 0x2000 + 18 * 0x4000, 0x40022000), _t(FLASH_DATA, 0x3F000000, 0x400000),
        _t(SPI_RAM, 0x3F500000, 0xA80000), _t(FLASH_CODE, 0x40080000, 0x780000),
        _t(RTC_FAST, 0x40070000, 0x2000, 0x3FF9E000), _t(RTC_SLOW, 0x50000000, 0x2000),
    ),
    "esp32s3": (
        _t(IRAM, 0x40370000, 0x8000), _t(DIRAM, 0x3FC88000, 0x8000 + 6 * 0x10000, 0x40378000),
        _t(DRAM, 0x3FCF0000, 0x10000), _t(FLASH_CODE, 0x42000000, 0x2000000), _t(FLASH_DATA, 0x3C000000, 0x2000000),
        _t(RTC_FAST, 0x3FF80000, 0x2000, 0x600FE000), _t(RTC_SLOW, 0x50000000, 0x2000),
    ),
    "esp32c2": (
        _t(DIRAM, 0x3FCA0000, 0x40000, 0x40380000), _t(IRAM, 0x4037C000, 0x4000),
        _t(FLASH_CODE, 0x42000000, 0x400000), _t(FLASH_DATA, 0x3C000000, 0x400000),
    ),
    "esp32c3": (
        _t(DIRAM, 0x3FC80000, 0x60000, 0x40380000), _t(IRAM, 0x4037C000, 0x4000),
        _t(FLASH_CODE, 0x42000000, 0x800000), _t(FLASH_DATA, 0x3C000000, 0x800000), _t(RTC_SLOW, 0x50000000, 0x2000),
    ),
    "esp32c6": (
        _t(DIRAM, 0x40800000, 0x80000), _t(FLASH_CODE, 0x42000000, 0x1000000), _t(RTC_SLOW, 0x50000000, 0x4000),
    ),
    "esp32h2": (
        _t(DIRAM, 0x40800000, 0x50000), _t(FLASH_CODE, 0x42000000, 0x1000000), _t(RTC_SLOW, 0x50000000, 0x1000),
    ),
}
# Names esp-idf-size gives the same memory types (ESP32-C3's and C2's shared SRAM is its "DRAM"; C6/H2 RTC: LP SRAM).
ESP_IDF_SIZE_NAMES = {
    "esp8266": {},
    "esp32c3": {DIRAM: "DRAM"}, "esp32c2": {}, "esp32c6": {RTC_SLOW: "LP SRAM"}, "esp32h2": {RTC_SLOW: "LP SRAM"},
    "esp32s3": {SPI_RAM: "External RAM"}, "esp32": {SPI_RAM: "SPI DRAM"}, "esp32s2": {SPI_RAM: "SPI DRAM"},
}

_RISCV_CHIPS = frozenset({"esp32c2", "esp32c3", "esp32c6", "esp32h2"})
_TARGET = re.compile(r"IDF_TARGET_(ESP32\w*) =|project_elf_src_(esp32\w*)\.c\.obj|/xtensa-(esp32\w*)-elf/")
_PLACEHOLDER = re.compile(r"(dummy|reserved_for_iram|noload)$")
_PSRAM_SECTIONS = (".ext_ram.bss", ".ext_ram_noinit", ".ext_ram.data")
# By region name when the chip is unknown (first match wins).
_REGION_TYPES = (
    (re.compile(r"^(iram0_2_seg|irom|default_code_seg|flash_text)", re.I), FLASH_CODE),
    (re.compile(r"^(drom|default_rodata_seg|flash_rodata)", re.I), FLASH_DATA),
    (re.compile(r"^ext(ern)?_?ram", re.I), SPI_RAM),
    (re.compile(r"^rtc_(iram|data|fast)", re.I), RTC_FAST),
    (re.compile(r"^(rtc_slow|rtc_reserved|lp_)", re.I), RTC_SLOW),
    (re.compile(r"^iram", re.I), IRAM),
    (re.compile(r"^dram", re.I), DRAM),
)


@dataclass(frozen=True)
class EspIdfUse:
    """One memory type's use: esp-idf-size's `used` (bytes of counted sections) and its size from the regions."""

    name: str
    memory: str
    used: int
    size: int  # the memory the map's regions give this type (0 for flash: the partition decides)
    sections: tuple[tuple[str, int], ...]  # (output section, bytes in this type)


def is_esp_idf_map(linker_map: LinkerMap) -> bool:
    names = {region.name for region in linker_map.regions}
    return "dram0_0_seg" in names and bool(names & {"iram0_0_seg", "drom0_0_seg", "iram1_0_seg", "irom0_0_seg"})


def esp_idf_target(linker_map: LinkerMap) -> str | None:
    """The chip the map was linked for: from ESP-IDF's IDF_TARGET_<CHIP> symbol (v5+), the project_elf_src_<chip>
    object (v4), a toolchain path (make builds); else the chip whose address map holds every used region."""
    try:
        text = read_input(linker_map.path, "a map file").decode("utf-8", "replace") if linker_map.path else ""
    except SizeToolError:  # the map was read once already; a file gone since just means no hint from its text
        text = ""
    match = _TARGET.search(text)
    if match:
        chip = next(group for group in match.groups() if group).lower()
        if chip in CHIPS:
            return chip
    for chip, types in CHIPS.items():
        regions = [r for r in linker_map.regions if r.length]
        if regions and all(any(t.offset_of(r.origin) is not None for t in types) for r in regions
                           if not r.name.startswith("ext")):
            if any(r.name == "iram0_2_seg" for r in regions) and _type_at(types, _origin(regions, "iram0_2_seg")) \
                    != FLASH_CODE:
                continue
            return chip
    return None


def _origin(regions: list[MapRegion], name: str) -> int:
    return next(r.origin for r in regions if r.name == name)


def _type_at(types: tuple[MemoryType, ...], address: int) -> str | None:
    for memory_type in types:
        if memory_type.offset_of(address) is not None:
            return memory_type.name
    return None


def _padding_only(linker_map: LinkerMap) -> set[str]:
    """Output sections no object contributes to: only *fill* (or nothing) inside."""
    with_objects = {s.output_section for s in linker_map.input_sections if s.name != FILL}
    return {o.name for o in linker_map.output_sections if o.size and o.name not in with_objects}


def chip_of_sections(image: ElfImage) -> str | None:
    """The ESP chip whose address map holds every allocated section of an ELF read without its map (code in flash
    and something in RAM, so a generic firmware that happens to fit a window is not taken for one); else None."""
    if image.arch not in ("xtensa", "riscv") or image.elf_class != 32:
        return None
    sections = [s for s in placed_sections(image) if not _PLACEHOLDER.search(s.name)]
    for chip, types in CHIPS.items():
        if (chip in _RISCV_CHIPS) != (image.arch == "riscv"):
            continue
        kinds = [_type_at(types, s.address) for s in sections]
        if sections and None not in kinds and FLASH_CODE in kinds and any(not k.startswith("Flash") for k in kinds):
            return chip
    return None


def esp_idf_placement(image: ElfImage, linker_map: LinkerMap | None) -> tuple[Placement, list[EspIdfUse], str | None]:
    """The placement of an ESP-IDF image (ROM: the app image; RAM: the RAM types' use), each memory type's use, and
    the chip (None when the map does not say and the addresses fit no known chip). Without the map the chip comes
    from the section addresses, and padding-only sections cannot be told apart (they count)."""
    sections = placed_sections(image)
    if linker_map is not None:
        check_map_matches(image, linker_map, sections)
        chip = esp_idf_target(linker_map)
        padding = _padding_only(linker_map)
        regions = linker_map.regions
    else:
        chip, padding, regions = chip_of_sections(image), set(), []
    types = CHIPS.get(chip or "", ())
    by_name_type = {r.name: _region_type(r.name) for r in regions}

    placed: list[PlacedSection] = []
    parts: dict[str, list[tuple[str, int]]] = {}
    memory_of: dict[str, str] = {}
    warnings: list[str] = []
    for section in sections:
        if _PLACEHOLDER.search(section.name) or section.name in padding:
            placed.append(PlacedSection(section, None, None))
            continue
        pieces = _split(section, types, regions, by_name_type)
        if not pieces:
            warnings.append(f"section {section.name} (0x{section.address:x}) lies in no ESP-IDF memory type; "
                            "counted as RAM")
            pieces = [(DRAM, section.size)]
        for type_name, size in pieces:
            parts.setdefault(type_name, []).append((section.name, size))
            memory_of[type_name] = ROM if type_name.startswith("Flash") else RAM
        first = pieces[0][0]
        if memory_of[first] == ROM:
            placed.append(PlacedSection(section, first, None))
        else:
            placed.append(PlacedSection(section, None if section.is_nobits else first + IMAGE_SUFFIX, first))

    sizes = _type_sizes(regions, types, by_name_type) if regions else {t.name: t.length for t in types
                                                                        if t.memory == RAM and t.name != SPI_RAM}
    order = [t.name for t in types] or [name for _, name in _REGION_TYPES]
    uses = []
    for name in sorted(parts, key=lambda n: (memory_of[n] != ROM, order.index(n) if n in order else len(order))):
        uses.append(EspIdfUse(name, memory_of[name], sum(size for _, size in parts[name]), sizes.get(name, 0),
                              tuple(parts[name])))

    stored: dict[str, int] = {}
    for p in placed:
        if p.rom_area is not None and p.ram_area is not None:
            stored[p.rom_area] = stored.get(p.rom_area, 0) + p.section.size
    areas = [Area(use.name, use.memory, _type_start(types, use.name), use.size, "", use.used) for use in uses]
    areas += [Area(name, ROM, 0, 0, "", used) for name, used in stored.items()]
    return Placement(placed, areas=areas, warnings=warnings), uses, chip


def _region_type(region_name: str) -> str | None:
    for pattern, type_name in _REGION_TYPES:
        if pattern.search(region_name):
            return type_name
    return None


def _type_start(types: tuple[MemoryType, ...], name: str) -> int:
    return next((t.start for t in types if t.name == name), 0)


def _split(section: Section, types: tuple[MemoryType, ...], regions: list[MapRegion],
           by_name_type: dict[str, str | None]) -> list[tuple[str, int]]:
    """(memory type, bytes) of a section: by the chip's address map, a section crossing from one type into the next
    split at the boundary; PSRAM sections by name; without a chip, by the name of the region holding it."""
    if section.name.startswith(_PSRAM_SECTIONS):
        return [(SPI_RAM, section.size)]
    if not types:
        for region in regions:
            if region.origin <= section.address < region.origin + region.length and by_name_type.get(region.name):
                return [(by_name_type[region.name] or DRAM, section.size)]
        return []
    pieces: list[tuple[str, int]] = []
    address, remaining = section.address, section.size
    while remaining > 0:
        for memory_type in types:
            offset = memory_type.offset_of(address)
            if offset is not None:
                size = min(remaining, memory_type.length - offset)
                pieces.append((memory_type.name, size))
                address += size
                remaining -= size
                break
        else:
            return pieces
    return pieces


def _type_sizes(regions: list[MapRegion], types: tuple[MemoryType, ...],
                by_name_type: dict[str, str | None]) -> dict[str, int]:
    """Each RAM type's size: the memory its regions cover, a region seen through both buses counted once (ESP32-C3's
    iram0_0_seg and dram0_0_seg are one SRAM). Flash types get 0: the app partition, not the map, bounds them."""
    spans: dict[str, list[tuple[int, int]]] = {}
    for region in regions:
        if not region.length:
            continue
        if not types:
            name = by_name_type.get(region.name)
            if name and not name.startswith("Flash"):
                spans.setdefault(name, []).append((region.origin, region.origin + region.length))
            continue
        address, remaining = region.origin, region.length
        while remaining > 0:
            for memory_type in types:
                offset = memory_type.offset_of(address)
                if offset is not None:
                    size = min(remaining, memory_type.length - offset)
                    if memory_type.memory == RAM and memory_type.name != SPI_RAM:
                        start = memory_type.start + offset
                        spans.setdefault(memory_type.name, []).append((start, start + size))
                    address += size
                    remaining -= size
                    break
            else:
                break
    sizes = {}
    for name, ranges in spans.items():
        total, end = 0, None
        for low, high in sorted(ranges):
            if end is not None:
                low, high = max(low, end), max(high, end)
            total += high - low
            end = high
        sizes[name] = total
    return sizes
