"""The address maps of the ESP chips (which memory type each address is, through either bus) and the names
esp-idf-size gives those types: the facts both the ESP-IDF layout (esp_idf_layout.py) and the RAM split of a saved
report (ram_use.py) need, kept apart from ELF and map reading so that rendering a cached report loads neither."""

from __future__ import annotations

import re
from dataclasses import dataclass

from sizetool.report.esp_idf_detect import ESP_IDF_LAYOUT

ROM, RAM = "rom", "ram"  # as sizetool/report/placement.py names the memories
FLASH_CODE, FLASH_DATA = "Flash Code", "Flash Data"
IRAM, DRAM, DIRAM = "IRAM", "DRAM", "DIRAM"
RTC_FAST, RTC_SLOW, SPI_RAM = "RTC FAST", "RTC SLOW", "SPI RAM"
IMAGE_SUFFIX = " (image)"  # the ROM area of a RAM type: its initial contents stored in the app image


@dataclass(frozen=True)
class MemoryType:
    """One of a chip's memory types (esp-idf-size's names) and its address range."""

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
# data; PSRAM sections are told apart by name, see PSRAM_SECTIONS).
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
# The names esp-idf-size (1.0 to 2.3, the tool `idf.py size` runs from ESP-IDF 5.3 on, which reads builds of every
# ESP-IDF version alike) gives these memory types, per chip: ESP32-C3's shared SRAM is its "DRAM" (C2's is "DIRAM"),
# C6/H2 RTC memory "LP SRAM", PSRAM "SPI DRAM" or "External RAM". The report uses these names.
ESP_IDF_SIZE_NAMES = {
    "esp8266": {},
    "esp32c3": {DIRAM: "DRAM"}, "esp32c2": {}, "esp32c6": {RTC_SLOW: "LP SRAM"}, "esp32h2": {RTC_SLOW: "LP SRAM"},
    "esp32s3": {SPI_RAM: "External RAM"}, "esp32": {SPI_RAM: "SPI DRAM"}, "esp32s2": {SPI_RAM: "SPI DRAM"},
}

_LAYOUT_FORMAT = re.compile(re.escape(ESP_IDF_LAYOUT) + r", (esp\w+)")
PSRAM_SECTIONS = (".ext_ram.bss", ".ext_ram_noinit", ".ext_ram.data")


def split_by_types(types: tuple[MemoryType, ...], address: int, size: int) -> list[tuple[str, int]]:
    """(memory type, bytes) of the run [address, address + size) by a chip's address map, split where it crosses
    from one type into the next; what lies in no type is left out."""
    pieces: list[tuple[str, int]] = []
    remaining = size
    while remaining > 0:
        for memory_type in types:
            offset = memory_type.offset_of(address)
            if offset is not None:
                part = min(remaining, memory_type.length - offset)
                pieces.append((memory_type.name, part))
                address += part
                remaining -= part
                break
        else:
            return pieces
    return pieces


def layout_chip(input_format: str) -> str | None:
    """The chip of a report read with the ESP-IDF layout, from its input format line; None for other reports."""
    match = _LAYOUT_FORMAT.search(input_format)
    return match.group(1) if match and match.group(1) in CHIPS else None


def ram_type_spans(chip: str, section_name: str, address: int, size: int) -> list[tuple[str, int]]:
    """(memory type as the report names it, bytes) of a run of bytes of a chip's image: by the address map, through
    either bus (ESP32-S3's `.iram0.text` runs from DIRAM through the instruction bus), split where it crosses from
    one type into the next; PSRAM sections by name."""
    names = ESP_IDF_SIZE_NAMES.get(chip, {})
    if section_name.startswith(PSRAM_SECTIONS):
        return [(names.get(SPI_RAM, SPI_RAM), size)]
    return [(names.get(kind, kind), part) for kind, part in split_by_types(CHIPS[chip], address, size)]
