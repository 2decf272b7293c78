"""The terminal report: a tree of paths, files and symbols with size, share of the total, address and section.

The tree lines are laid out here (rich's Tree widget takes seconds for the tens of thousands of symbols of a large
C++ ELF); colour, when the output is a terminal, comes from rich styles rendered to ANSI.
"""

from __future__ import annotations

from sizetool.render.regions import map_line, notes, ram_image_tree, regions_table, total_line
from sizetool.report.linker_made import LINKER
from sizetool.report.report_model import SizeNode, SizeReport, build_tree

BRANCH, LAST, PIPE, SPACE = "├── ", "└── ", "│   ", "    "
# rich styles by kind (rich is imported only for a terminal: a piped or cached run does not load it)
STYLES = {
    "guide": {"dim": True},
    "title": {"bold": True},
    "size": {"bold": True},
    "directory": {"color": "blue", "bold": True},
    "file": {"color": "green"},
    "symbol": {"color": "cyan"},
    "catch_all": {"color": "yellow"},
    "detail": {"dim": True},
    "warning": {"color": "yellow", "bold": True},
}


def render_tree(report: SizeReport, memories: list[str], depth: int, color: bool = False, width: int = 120) -> str:
    """The tree of each memory, then the memory-region table and warnings. `width` is kept for callers; lines are
    never wrapped (long C++ names stay on one line, as in a log)."""
    paint = _painter(color)
    lines: list[str] = []
    if report.linker_map is not None:
        lines.append(paint("detail", map_line(report)))
    shown = memories + ["ram"] if ram_image_tree(report, memories) else memories
    for memory in shown:
        total = report.total(memory)
        root = build_tree(report.entries, memory)
        lines.append(paint("title", total_line(report, memory)))
        _add_lines(lines, root, total, depth, 1, "", paint if color else None)
    if "rom" in memories:
        lines.extend(paint("detail", line) for line in model_lines(report))
    if report.regions:
        lines.append(regions_table(report).rstrip("\n"))
    for note in notes(report):
        lines.append(paint("detail", f"note: {note}"))
    for warning in report.warnings:
        lines.append(paint("warning", f"warning: {warning}"))
    return "\n".join(lines) + "\n"


def model_lines(report: SizeReport) -> list[str]:
    """One line per TFLite model linked in: where, how large, its digest, and what stripping would save."""
    lines = []
    for model in report.models:
        line = (f"model {model.symbol}: {model.size} bytes @0x{model.address:08x} {model.section}, "
                f"sha256 {model.sha256}, {len(model.operators)} ops")
        if model.sized_by == "extent":
            line += " (no symbol: sized by the FlatBuffer's extent)"
        if model.in_ram:
            line += (f"; in RAM, copied from flash at start-up (its {model.size} bytes count in both): declared const "
                     f"it gives back {model.const_saving} bytes of RAM")
        if model.strip_saving is not None:
            line += (f"; without names and metadata: {model.strip_saving} bytes less (written again without them: "
                     f"{model.stripped} bytes)")
        lines.append(line)
    return lines


def _painter(color: bool):
    if not color:
        return lambda _kind, text: text
    from rich.color import ColorSystem
    from rich.style import Style

    rendered = {kind: Style(**style) for kind, style in STYLES.items()}
    return lambda kind, text: rendered[kind].render(text, color_system=ColorSystem.STANDARD)


def _kind(node: SizeNode) -> str:
    if node.entry is not None:
        return "catch_all" if node.name.startswith("(") else "symbol"
    if node.name.startswith("("):
        return "catch_all"
    return "file" if "." in node.name and not node.children[0].children else "directory"


def _add_lines(lines: list[str], node: SizeNode, total: int, depth: int, level: int, prefix: str, paint) -> None:
    count = len(node.children)
    deeper = depth == 0 or level < depth
    for position, child in enumerate(node.children):
        last = position == count - 1
        guide = prefix + (LAST if last else BRANCH)
        share = 100.0 * child.size / total if total else 0.0
        entry = child.entry
        name = child.name
        folded = entry is None and child.identifier.startswith(LINKER + "/")  # veneers of one kind: one line
        if folded:
            name = f"{name} ({len(child.children)} symbol{'s' if len(child.children) != 1 else ''})"
        if entry is not None:
            detail = f"  @0x{entry.address:08x} {entry.section}" if entry.section else f"  @0x{entry.address:08x}"
            if entry.aliases:
                detail += f" (aliases: {', '.join(entry.aliases)})"
        if paint is None:  # plain text (a pipe, a file, a CI log): no styles to wrap each part in
            text = f"{guide}{child.size:>8} {share:6.2f}%  {name}{detail if entry is not None else ''}"
        else:
            text = paint("guide", guide) + paint("size", f"{child.size:>8}")
            text += f" {share:6.2f}%  " + paint(_kind(child), name)
            if entry is not None:
                text += paint("detail", detail)
        lines.append(text)
        if child.children and deeper and not folded:
            _add_lines(lines, child, total, depth, level + 1, prefix + (SPACE if last else PIPE), paint)
