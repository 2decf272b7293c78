"""`--format markdown`: the size tree as a table (indented names, size, share), for pull requests and wikis."""

from __future__ import annotations

import os

from sizetool.render.regions import map_line, regions_table, total_line
from sizetool.report.report_model import SizeNode, SizeReport, build_tree


def render_markdown(report: SizeReport, memories: list[str], depth: int) -> str:
    lines = [f"# Size report: {os.path.basename(report.source)} ({report.arch})", ""]
    if report.linker_map is not None:
        lines += [map_line(report), ""]
    for memory in memories:
        total = report.total(memory)
        title = total_line(report, memory).replace(f" {os.path.basename(report.source)}:", ":", 1)
        lines += [f"## {title}", "", "| path | size | % |", "|---|---:|---:|"]
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


def walk(root: SizeNode, depth: int):
    """(node, level) in display order below the root, folded at `depth` levels (0 = unlimited)."""
    stack = [(child, 0) for child in reversed(root.children)]
    while stack:
        node, level = stack.pop()
        yield node, level
        if depth == 0 or level + 1 < depth:
            stack.extend((child, level + 1) for child in reversed(node.children))
