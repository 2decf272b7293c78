"""`size-report diff OLD NEW`: what changed between two builds; each side an ELF or a saved JSON report.

Per-operator rows appear when both sides carry an operator table: saved reports written with `--ops --save`, or ELF
sides when `--ops` is given (then a saved report without a table is an input error).
"""

from __future__ import annotations

import sys
from typing import Optional

from sizetool.commands.arguments import OneLineParser, non_negative
from sizetool.errors import SizeToolError

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


def build_parser(prog: str = "size-report diff"):
    parser = OneLineParser(prog=prog, description="What changed between two builds (each an ELF or a saved report).",
                           epilog="Exit status: 0 diff printed, 2 usage or input error.")
    parser.add_argument("old", metavar="OLD", help="The baseline: an ELF or a saved report (--save).")
    parser.add_argument("new", metavar="NEW", help="The new build: an ELF or a saved report.")
    parser.add_argument("-f", "--format", dest="output_format", default="tree", metavar="FORMAT",
                        help="tree, json, csv or markdown.")
    parser.add_argument("--ram", action="store_true", help="Compare RAM instead of ROM.")
    parser.add_argument("--limit", type=non_negative, default=20, metavar="N",
                        help="Rows per table in tree/markdown output (0: all).")
    parser.add_argument("--old-map", metavar="FILE.map", help="Map file of the old ELF.")
    parser.add_argument("--new-map", metavar="FILE.map", help="Map file of the new ELF.")
    parser.add_argument("-o", "--output", metavar="FILE", help="Write the output to this file (atomically).")
    parser.add_argument("--ops", action="store_true",
                        help="Also compare per-operator flash cost (computed for ELF sides).")
    parser.add_argument("--save", metavar="REPORT.json",
                        help="Also save the NEW side's full report as JSON (the next baseline).")
    return parser


def main(args: list[str], prog: str = "size-report diff") -> int:
    return diff(**vars(build_parser(prog).parse_intermixed_args(args)))


def diff(old: str, new: str, output_format: str = "tree", ram: bool = False, limit: int = 20,
         old_map: Optional[str] = None, new_map: Optional[str] = None, output: Optional[str] = None,
         ops: bool = False, save: Optional[str] = None) -> int:
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
