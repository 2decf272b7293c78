"""`--format markdown`: the size tree as a table (indented names, size, share), for pull requests and wikis."""

from __future__ import annotations

import os

from sizetool.render.regions import map_line, notes, regions_table, total_line
from sizetool.report.report_model import SizeNode, SizeReport, build_tree
from sizetool.text_escaping import markdown_fence, markdown_text


def render_markdown(report: SizeReport, memories: list[str], depth: int) -> str:
    lines = [f"# Size report: {markdown_text(os.path.basename(report.source))} ({markdown_text(report.arch)})", ""]
    if report.linker_map is not None:
        lines += [markdown_text(map_line(report)), ""]
    for memory in memories:
        total = report.total(memory)
        title = total_line(report, memory).replace(f" {os.path.basename(report.source)}:", ":", 1)
        lines += [f"## {markdown_text(title)}", "", "| path | size | % |", "|---|---:|---:|"]
        for node, level in walk(build_tree(report.entries, memory), depth):
            share = 100.0 * node.size / total if total else 0.0
            lines.append(f"| {'&nbsp;&nbsp;' * level}{markdown_text(node.name)} | {node.size} | {share:.2f}% |")
        lines.append("")
    if report.regions:
        table = regions_table(report).rstrip()
        fence = markdown_fence(table)
        lines += ["## Memory regions", "", fence, table, fence, ""]
    lines += [f"> note: {markdown_text(note)}" for note in notes(report)]
    for warning in report.warnings:
        lines.append(f"> warning: {markdown_text(warning)}")
    return "\n".join(lines).rstrip() + "\n"


def walk(root: SizeNode, depth: int):
    """(node, level) in display order below the root, folded at `depth` levels (0 = unlimited)."""
    stack = [(child, 0) for child in reversed(root.children)]
    while stack:
        node, level = stack.pop()
        yield node, level
        if depth == 0 or level + 1 < depth:
            stack.extend((child, level + 1) for child in reversed(node.children))
