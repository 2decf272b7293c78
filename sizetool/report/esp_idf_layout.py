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
from sizetool.report.esp_idf_chips import (  # noqa: F401 (CHIPS, ESP_IDF_SIZE_NAMES, IMAGE_SUFFIX: this layout's API)
    CHIPS, DIRAM, DRAM, ESP_IDF_SIZE_NAMES, FLASH_CODE, FLASH_DATA, IMAGE_SUFFIX, IRAM, PSRAM_SECTIONS, RTC_FAST,
    RTC_SLOW, SPI_RAM, MemoryType, split_by_types,
)
from sizetool.report.esp_idf_detect import could_be_esp_image, is_esp_idf_map  # noqa: F401 (this layout's API)
from sizetool.report.placement import RAM, ROM, Area, PlacedSection, Placement, check_map_matches, placed_sections

_APP_DESC_MAGIC = 0xABCD5432  # esp_app_desc_t.magic_word
_IDF_VER_OFFSET, _IDF_VER_LENGTH = 112, 32  # esp_app_desc_t.idf_ver, after magic, secure_version, reserv1[2],
# version[32], project_name[32], time[16], date[16]
_STORED_TYPES = ("SHT_PROGBITS", "SHT_INIT_ARRAY", "SHT_FINI_ARRAY", "SHT_PREINIT_ARRAY")  # esptool elf2image's
_RISCV_CHIPS = frozenset({"esp32c2", "esp32c3", "esp32c6", "esp32h2"})
_TARGET = re.compile(r"IDF_TARGET_(ESP32\w*) =|project_elf_src_(esp32\w*)\.c\.obj|/xtensa-(esp32\w*)-elf/")
_PLACEHOLDER = re.compile(r"(dummy|reserved_for_iram|noload)$")
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
    if not could_be_esp_image(image):
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
    names = ESP_IDF_SIZE_NAMES.get(chip or "", {})
    by_name_type = {r.name: _region_type(r.name) for r in regions}

    placed: list[PlacedSection] = []
    parts: dict[str, list[tuple[str, int]]] = {}
    memory_of: dict[str, str] = {}
    warnings: list[str] = []
    for section in sections:
        if _PLACEHOLDER.search(section.name) or section.name in padding:
            placed.append(PlacedSection(section, None, None))
            continue
        pieces = [(names.get(kind, kind), size) for kind, size in _split(section, types, regions, by_name_type)]
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
    sizes = {names.get(name, name): size for name, size in sizes.items()}
    order = [names.get(t.name, t.name) for t in types] or [name for _, name in _REGION_TYPES]
    start_of = {names.get(t.name, t.name): t.start for t in types}
    uses = []
    for name in sorted(parts, key=lambda n: (memory_of[n] != ROM, order.index(n) if n in order else len(order))):
        uses.append(EspIdfUse(name, memory_of[name], sum(size for _, size in parts[name]), sizes.get(name, 0),
                              tuple(parts[name])))

    stored: dict[str, int] = {}
    for p in placed:
        if p.rom_area is not None and p.ram_area is not None:
            stored[p.rom_area] = stored.get(p.rom_area, 0) + p.section.size
    areas = [Area(use.name, use.memory, start_of.get(use.name, 0), use.size, "", use.used) for use in uses]
    areas += [Area(name, ROM, 0, 0, "", used) for name, used in stored.items()]
    return Placement(placed, areas=areas, warnings=warnings), uses, chip


def _region_type(region_name: str) -> str | None:
    for pattern, type_name in _REGION_TYPES:
        if pattern.search(region_name):
            return type_name
    return None


def _split(section: Section, types: tuple[MemoryType, ...], regions: list[MapRegion],
           by_name_type: dict[str, str | None]) -> list[tuple[str, int]]:
    """(memory type, bytes) of a section: by the chip's address map, a section crossing from one type into the next
    split at the boundary; PSRAM sections by name; without a chip, by the name of the region holding it."""
    if section.name.startswith(PSRAM_SECTIONS):
        return [(SPI_RAM, section.size)]
    if not types:
        for region in regions:
            if region.origin <= section.address < region.origin + region.length and by_name_type.get(region.name):
                return [(by_name_type[region.name] or DRAM, section.size)]
        return []
    return split_by_types(types, section.address, section.size)


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


def esp_idf_version(image: ElfImage) -> str | None:
    """The ESP-IDF version the app was built with: `idf_ver` of its `esp_app_desc` (ESP-IDF 4.x and 5.x alike), or
    None when the ELF has no application description."""
    symbol = next((s for s in image.symbols if s.name == "esp_app_desc" and s.size >= _IDF_VER_OFFSET + 32), None)
    section = next((s for s in image.sections if symbol and not s.is_nobits and s.contains(symbol.address)), None)
    if symbol is None or section is None:
        return None
    data = image.section_data(section)[symbol.address - section.address:][: symbol.size]
    order = "little" if image.little_endian else "big"
    if len(data) < _IDF_VER_OFFSET + _IDF_VER_LENGTH or int.from_bytes(data[:4], order) != _APP_DESC_MAGIC:
        return None
    text = data[_IDF_VER_OFFSET: _IDF_VER_OFFSET + _IDF_VER_LENGTH].split(b"\0", 1)[0].decode("ascii", "replace")
    return text if text.isprintable() and text else None


def image_note(image: ElfImage, rom_total: int) -> str | None:
    """One line when the image esptool's elf2image would write from this ELF holds other than `rom_total` bytes of
    segment data (the report's ROM, esp-idf-size's "Total image size": every allocated PROGBITS section), with the
    causes: elf2image stores every PROGBITS or init/fini array section with an address and a size, allocated or not,
    and pads each one's data with zeros to a multiple of 4 bytes (segment headers, the checksum and the hash come on
    top, in every image alike). None when they are equal."""
    stored = [s for s in image.sections if s.type in _STORED_TYPES and s.address and s.size]
    padding = [s for s in stored if s.size % 4]
    counted = {s.index for s in image.sections if s.type == "SHT_PROGBITS" and s.is_alloc and s.size}
    extra = [s for s in stored if s.index not in counted]
    written = sum((s.size + 3) & ~3 for s in stored)
    if written == rom_total:
        return None
    causes = []
    if padding:
        causes.append(f"{sum(-s.size % 4 for s in padding)} of zero padding that rounds {len(padding)} "
                      f"section{'s' if len(padding) > 1 else ''} up to 4 bytes")
    if extra:
        causes.append(f"{sum(s.size for s in extra)} in sections esp-idf-size does not count ("
                      + ", ".join(f"{s.name} {s.size}" for s in extra) + ")")
    other = written - rom_total - sum(-s.size % 4 for s in padding) - sum(s.size for s in extra)
    if other:
        causes.append(f"{other:+d} in sections the ROM and elf2image count differently")
    return (f"image: esptool elf2image would store {written} bytes of segment data, {written - rom_total:+d} "
            f"against ROM {rom_total} (esp-idf-size's Total image size): " + "; ".join(causes))
