"""Plain-text renderings of a size report: JSON (Zephyr's rom.json/ram.json shape), CSV rows and a markdown table."""

from __future__ import annotations

import csv
import io
import os

from sizetool import __version__
from sizetool.report_model import SizeNode, SizeReport, build_tree, dump_json, memory_to_dict, report_to_dict

CSV_COLUMNS = ("memory", "path", "symbol", "mangled", "size", "section", "address")


def render_json(report: SizeReport, memories: list[str]) -> str:
    """One memory: Zephyr's {"symbols", "total_size"} plus additive fields; both: the saved-report form."""
    if len(memories) == 1:
        data = memory_to_dict(report, memories[0])
        data.update(
            {
                "memory": memories[0],
                "source": os.path.basename(report.source),
                "arch": report.arch,
                "tool": f"size-report {__version__}",
                "warnings": list(report.warnings),
            }
        )
        return dump_json(data)
    return dump_json(report_to_dict(report))


def render_csv(report: SizeReport, memories: list[str]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for entry in report.entries:
        if entry.memory in memories:
            writer.writerow(
                (entry.memory, "/".join(entry.path), entry.symbol, entry.mangled, entry.size, entry.section,
                 f"0x{entry.address:08x}")
            )
    return out.getvalue()


def render_markdown(report: SizeReport, memories: list[str], depth: int) -> str:
    lines = [f"# Size report: {os.path.basename(report.source)} ({report.arch})", ""]
    for memory in memories:
        total = report.total(memory)
        lines += [f"## {memory.upper()}: {total} bytes", "", "| path | size | % |", "|---|---:|---:|"]
        for node, level in walk(build_tree(report.entries, memory), depth):
            share = 100.0 * node.size / total if total else 0.0
            name = node.name.replace("|", "\\|")
            lines.append(f"| {'&nbsp;&nbsp;' * level}{name} | {node.size} | {share:.2f}% |")
        lines.append("")
    if report.regions:
        lines += ["## Memory regions", "", "```", regions_table(report).rstrip(), "```", ""]
    for warning in report.warnings:
        lines.append(f"> warning: {warning}")
    return "\n".join(lines).rstrip() + "\n"


def regions_table(report: SizeReport) -> str:
    """The table Zephyr builds print: Memory region / Used Size / Region Size / %age Used."""
    rows = [f"{'Memory region':<16}{'Used Size':>12}{'Region Size':>14}{'%age Used':>12}"]
    for region in report.regions:
        rows.append(f"{region.name + ':':<16}{region.used:>10} B{region.length:>12} B{region.percent_used:>11.2f}%")
    return "\n".join(rows) + "\n"


def walk(root: SizeNode, depth: int):
    """(node, level) in display order below the root, folded at `depth` levels (0 = unlimited)."""
    stack = [(child, 0) for child in reversed(root.children)]
    while stack:
        node, level = stack.pop()
        yield node, level
        if depth == 0 or level + 1 < depth:
            stack.extend((child, level + 1) for child in reversed(node.children))
