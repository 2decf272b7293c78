"""How each RAM region is used: static data, reserved, free.

A report's RAM total is ld's "Used Size" of its RAM regions: from a region's origin to the last byte placed in it. On
the standard CMSIS layout (ARMCM4_gcc.ld: the heap after .bss, the stack at the top of RAM) that is the whole region,
most of it the free gap below the stack. This module splits each RAM region three ways, from the report's entries:

- static: what the program's own data occupies (.data, .bss, noinit objects, with their alignment fill);
- reserved: memory set aside with no object in it: heaps and stacks (the `(reserved)` entries, and anything in a
  section named like a heap or a stack);
- free: what nothing occupies: the `(free)` gap inside ld's use, plus the region's bytes past it.

static + reserved + free is the region's length. Works on fresh and saved reports alike (the split is read from the
entries' labels); a region without a length (no map and no --ram-size) has no free figure.

An ESP-IDF report's regions are memory types, and a type's `used` is every byte of the sections placed in it
(esp-idf-size's `used`): code that runs from DIRAM through the instruction bus (ESP32-S3's and C3's `.iram0.text`)
included, which an address match against the type's data-bus origin would leave out. Its reserved bytes are found
by the type's address windows through either bus, and static is the rest of `used`, so that free is esp-idf-size's
`remain`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from sizetool.report.esp_idf_detect import read_with_esp_idf_layout
from sizetool.report.report_model import MemoryRegion, SizeEntry, SizeReport

RESERVED = "(reserved)"
FREE = "(free)"
# Sections that are heaps or stacks as a whole (.heap, .stack, .stack_dummy, ._user_heap_stack), not Zephyr's
# k_heap_area (heap control blocks) or noinit (thread stacks among other objects: those are named objects).
_RESERVED_SECTION = re.compile(r"^\.?_*(user_)?(heap|stack)\d*(_dummy|_stack)?$", re.IGNORECASE)


@dataclass(frozen=True)
class RegionUse:
    """A RAM region's use: static data, reservations and what is free."""

    region: str
    length: int
    used: int  # ld's Used Size
    static: int
    reserved: int
    free: int  # length - static - reserved


def is_reserved(entry: SizeEntry) -> bool:
    return bool(entry.path) and entry.path[0] == RESERVED or bool(_RESERVED_SECTION.search(entry.section))


def is_free(entry: SizeEntry) -> bool:
    return bool(entry.path) and entry.path[0] == FREE


def script_reservations(sections: list, regions: list[MemoryRegion]) -> list[MemoryRegion]:
    """The regions with the stacks and heaps the linker script places in them without the alloc flag (`sections`: the
    ELF's, elf_reader.Section): ld counts them in no region's use and the ELF in no segment (pico-sdk's crt0 declares `.section .stack` and `.heap` without
    flags; memmap_default.ld puts them in `.stack_dummy (NOLOAD)` alone in SCRATCH_Y, `.stack1_dummy` in SCRATCH_X and
    `.heap` in RAM, and derives __StackTop/__StackBottom from them)."""
    reserved = {r.name: 0 for r in regions}
    for section in sections:
        if section.is_alloc or not section.size or not section.address or not _RESERVED_SECTION.search(section.name):
            continue
        region = next((r for r in regions if r.memory != "rom" and r.origin <= section.address < r.origin + r.length),
                      None)
        if region is not None:
            reserved[region.name] += min(section.size, region.origin + region.length - section.address)
    return [replace(r, reserved=r.reserved + reserved[r.name]) if reserved[r.name] else r for r in regions]


def ram_use(report: SizeReport) -> list[RegionUse]:
    """Static / reserved / free of each RAM region with a length that the image uses or the script reserves part of,
    in the report's region order (a region nothing is placed in, such as Zephyr's SRAM0 over RAM, is left out)."""
    regions = [r for r in report.regions_of("ram") if r.length and (r.used or r.reserved)]
    if not regions:
        return []
    sums = {r.name: [0, 0, 0] for r in regions}  # static, reserved, free-inside-use
    chip = None
    if read_with_esp_idf_layout(report.input_format):  # the chips' address maps load only for their reports (~0.5 ms)
        from sizetool.report.esp_idf_chips import layout_chip, ram_type_spans

        chip = layout_chip(report.input_format)
    for entry in report.entries_for("ram"):
        kind = 2 if is_free(entry) else 1 if is_reserved(entry) else 0
        if chip is not None:
            for type_name, size in ram_type_spans(chip, entry.section, entry.address, entry.size):
                if type_name in sums:
                    sums[type_name][kind] += size
            continue
        region = _region_of(regions, entry)
        if region is not None:
            sums[region.name][kind] += entry.size
    uses = []
    for region in regions:
        static, reserved, free_inside = sums[region.name]
        reserved += region.reserved
        if chip is not None:  # entries grouped per file may start in one type and run on in the next
            static = region.used - reserved - free_inside
        uses.append(RegionUse(region.name, region.length, region.used, static, reserved,
                              region.length - static - reserved))
    return uses


def _region_of(regions: list[MemoryRegion], entry: SizeEntry) -> MemoryRegion | None:
    """The first declared region holding the entry's address (ld's rule); with one RAM region, that one."""
    if len(regions) == 1:
        return regions[0]
    for region in regions:
        if region.origin <= entry.address < region.origin + region.length:
            return region
    return None


def use_text(use: RegionUse) -> str:
    """`used 20112 / reserved 12288 / free 229744 of 262144`."""
    return f"used {use.static} / reserved {use.reserved} / free {use.free} of {use.length}"
