"""The terminal report: a rich tree of paths, files and symbols with size, share, address and section."""

from __future__ import annotations

import io
import os

from rich.console import Console
from rich.markup import escape
from rich.tree import Tree

from sizetool.report_model import SizeNode, SizeReport, build_tree
from sizetool.render.text_formats import regions_table


def render_tree(report: SizeReport, memories: list[str], depth: int, color: bool = False, width: int = 120) -> str:
    out = io.StringIO()
    console = Console(file=out, width=width, color_system="auto" if color else None, force_terminal=color,
                      highlight=False, soft_wrap=True)
    for memory in memories:
        total = report.total(memory)
        root = build_tree(report.entries, memory)
        tree = Tree(f"[bold]{memory.upper()}[/bold] {os.path.basename(report.source)}: {total} bytes")
        _add_children(tree, root, total, depth, 1)
        console.print(tree)
    if report.regions:
        console.print(regions_table(report), markup=False)
    for warning in report.warnings:
        console.print(f"warning: {warning}", markup=False)
    return out.getvalue()


def _add_children(branch: Tree, node: SizeNode, total: int, depth: int, level: int) -> None:
    for child in node.children:
        share = 100.0 * child.size / total if total else 0.0
        label = f"{child.size:>8} {share:6.2f}%  {child.name}"
        if child.entry is not None:
            label += f"  @0x{child.entry.address:08x} {child.entry.section}"
            if child.entry.aliases:
                label += f" (aliases: {', '.join(child.entry.aliases)})"
        sub = branch.add(escape(label))
        if depth == 0 or level < depth:
            _add_children(sub, child, total, depth, level + 1)

