"""The memory-region table Zephyr builds print (Memory region / Used Size / Region Size / %age Used, plus what the
region is: ROM or RAM), and the one-line totals that head each memory's tree in the text formats."""

from __future__ import annotations

import os

from sizetool.report.ram_use import is_reserved, ram_use, use_text
from sizetool.report.report_model import SizeReport


def regions_table(report: SizeReport) -> str:
    rows = [f"read: {report.input_format}"] if report.input_format else []
    rows += [f"{'Memory region':<16}{'Used Size':>12}{'Region Size':>14}{'%age Used':>12}  Memory"]
    for region in report.regions:  # a region without a size (ESP-IDF flash, an IAR `place at`): its use alone
        size, share = (f"{region.length:>12} B", f"{region.percent_used:>11.2f}%") if region.length else (
            f"{'-':>14}", f"{'-':>12}")
        rows.append(f"{region.name + ':':<16}{region.used:>10} B{size}{share}  {region.memory.upper()}".rstrip())
    return "\n".join(rows) + "\n"


def total_line(report: SizeReport, memory: str) -> str:
    """`RAM firmware.elf: 36336 bytes (ITCM 3824 + DTCM 18176 + SRAM 14336)`: the total, split by region when the
    memory spans several; a RAM-loaded image says that it has no ROM. RAM with region lengths (a map, or --ram-size)
    adds each region's static data, reserved and free bytes (sizetool/report/ram_use.py):
    `RAM firmware.elf: 262144 bytes; RAM: used 20112 / reserved 12288 / free 229744 of 262144`."""
    total = report.total(memory)
    line = f"{memory.upper()} {os.path.basename(report.source)}: {total} bytes"
    used = [r for r in report.regions_of(memory) if r.used]
    if len(used) > 1:
        line += " (" + " + ".join(f"{r.name} {r.used}" for r in used) + ")"
    elif memory == "rom" and total == 0 and report.ram_total:
        line += " (no ROM: the whole image is placed in RAM"
        line += f"; what it stores is in the RAM tree{' below' if ram_image_tree(report, [memory]) else ' (--ram)'})"
    if memory == "ram":
        uses = ram_use(report)
        if uses:
            line += "".join(f"; {use.region}: {use_text(use)}" for use in uses)
        else:
            line += reservations_text(report)
    return line


def reservations_text(report: SizeReport) -> str:
    """Without region lengths (no map, no --ram-size): the RAM total split into static data and the reservations in
    it (heap and stack sections, space without symbols), so that a heap filling the rest of RAM is not read as data:
    ` = static data 110184 + reserved 151960 (.heap 150680, .stack 1024, .crash_data_ram 256)`."""
    by_section: dict[str, int] = {}
    for entry in report.entries_for("ram"):
        if is_reserved(entry):
            by_section[entry.section] = by_section.get(entry.section, 0) + entry.size
    reserved = sum(by_section.values())
    if not reserved:
        return ""
    parts = sorted(by_section.items(), key=lambda item: (-item[1], item[0]))
    shown = ", ".join(f"{name} {size}" for name, size in parts[:4]) + (", ..." if len(parts) > 4 else "")
    return f" = static data {report.total('ram') - reserved} + reserved {reserved} ({shown})"


def ram_image_tree(report: SizeReport, memories: list[str]) -> bool:
    """Whether the default tree (ROM only) also shows the RAM tree: the image loads whole into RAM, so its ROM tree
    is empty and every byte it stores is in the RAM tree."""
    return memories == ["rom"] and report.total("rom") == 0 and report.ram_total > 0


def notes(report: SizeReport) -> list[str]:
    """What the reader may want to know but cannot act on (the warnings are what they can): printed with the
    report, never on stderr."""
    strings = report.linker_map.merged_strings if report.linker_map is not None else None
    if not strings or not strings[1]:
        return []
    where = ("stay under (merged by the linker)" if report.linker_map.format == "lld" else
             "stay under the object the map lists them under (the first object with such a section)")
    return [f"{strings[1]} bytes of merged string sections that no code refers to {where}; {strings[0]} went to the "
            "files whose code refers to them"]


def map_line(report: SizeReport) -> str:
    """`map: armlink (Arm Compiler for Embedded 6.22) Project.map, ROM 1128 and RAM 352 bytes by its own summary`."""
    source = report.linker_map
    line = f"map: {source.description} {source.file}"
    if source.rom_total is not None:
        line += f", ROM {source.rom_total} and RAM {source.ram_total} bytes by its own summary"
    return line
