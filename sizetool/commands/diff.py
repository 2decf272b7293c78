"""`size-report diff OLD NEW`: what changed between two builds; each side an ELF or a saved JSON report."""

from __future__ import annotations

import sys
from typing import Optional

import typer

from sizetool.errors import SizeToolError

app = typer.Typer(pretty_exceptions_enable=False, add_completion=False)

FORMATS = ("tree", "json", "csv", "markdown")


def load_side(path: str, map_path: Optional[str]):
    """An ELF is analysed; anything else must be a saved report (or Zephyr's rom.json/ram.json)."""
    from sizetool.input_files import is_elf_file
    from sizetool.report_builder import build_report
    from sizetool.report_model import load_report

    if is_elf_file(path):
        return build_report(path, map_path=map_path, use_cache=True)
    return load_report(path)


@app.command()
def diff(
    old: str = typer.Argument(..., help="The baseline: an ELF or a saved report (--save)."),
    new: str = typer.Argument(..., help="The new build: an ELF or a saved report."),
    output_format: str = typer.Option("tree", "--format", "-f", help="tree, json, csv or markdown."),
    ram: bool = typer.Option(False, "--ram", help="Compare RAM instead of ROM."),
    limit: int = typer.Option(20, "--limit", min=0, help="Rows per table in tree/markdown output (0: all)."),
    old_map: Optional[str] = typer.Option(None, "--old-map", help="Map file of the old ELF."),
    new_map: Optional[str] = typer.Option(None, "--new-map", help="Map file of the new ELF."),
    output: Optional[str] = typer.Option(None, "-o", "--output", help="Write the output to this file (atomically)."),
) -> int:
    from sizetool.diff import diff_reports
    from sizetool.render.diff_output import (
        render_diff_csv,
        render_diff_json,
        render_diff_markdown,
        render_diff_text,
    )
    from sizetool.report_model import write_text_atomically

    if output_format not in FORMATS:
        raise SizeToolError(f"unknown --format {output_format!r} (choose from {', '.join(FORMATS)})")
    result = diff_reports(load_side(old, old_map), load_side(new, new_map), "ram" if ram else "rom")
    if output_format == "json":
        text = render_diff_json(result)
    elif output_format == "csv":
        text = render_diff_csv(result)
    elif output_format == "markdown":
        text = render_diff_markdown(result, limit)
    else:
        text = render_diff_text(result, limit)
    if output:
        write_text_atomically(output, text)
    else:
        sys.stdout.write(text)
    return 0
