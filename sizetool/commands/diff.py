"""`size-report diff OLD NEW`: what changed between two builds; each side an ELF or a saved JSON report.

Per-operator rows appear when both sides carry an operator table: saved reports written with `--ops --save`, or ELF
sides when `--ops` is given (then a saved report without a table is an input error).
"""

from __future__ import annotations

import sys
from typing import Optional

import typer

from sizetool.errors import SizeToolError

app = typer.Typer(pretty_exceptions_enable=False, add_completion=False, rich_markup_mode=None)

FORMATS = ("tree", "json", "csv", "markdown")


def load_side(path: str, map_path: Optional[str], ops: bool = False):
    """An ELF is analysed; anything else must be a saved report (or Zephyr's rom.json/ram.json).

    With ops, the side must come with its operator table: computed for an ELF, stored in a saved report."""
    from sizetool.inputs.input_files import is_elf_file
    from sizetool.report.report_builder import build_report
    from sizetool.report.report_model import load_report

    if is_elf_file(path):
        report = build_report(path, map_path=map_path, use_cache=True)
        if ops:
            from sizetool.operators.graph_cache import operator_table

            report.operators = operator_table(path, report, map_path=map_path)
        return report
    report = load_report(path)
    if ops and report.operators is None:
        raise SizeToolError(f"{path}: this saved report has no operator table (save it with "
                            "'size-report ELF --ops --save REPORT.json', or diff the ELF)")
    return report


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
    ops: bool = typer.Option(False, "--ops", help="Also compare per-operator flash cost (computed for ELF sides)."),
    save: Optional[str] = typer.Option(None, "--save", help="Also save the NEW side's full report as JSON "
                                       "(the next baseline)."),
) -> int:
    from sizetool.ci.diff import diff_reports
    from sizetool.render.diff_output import render_diff
    from sizetool.report.report_model import save_report, write_text_atomically

    if output_format not in FORMATS:
        raise SizeToolError(f"unknown --format {output_format!r} (choose from {', '.join(FORMATS)})")
    if ops and ram:
        raise SizeToolError("--ops compares flash (ROM) only: leave out --ram")
    new_report = load_side(new, new_map, ops)
    result = diff_reports(load_side(old, old_map, ops), new_report, "ram" if ram else "rom")
    text = render_diff(result, output_format, limit)
    if save:
        save_report(new_report, save)
    if output:
        write_text_atomically(output, text)
    else:
        sys.stdout.write(text)
    return 0
