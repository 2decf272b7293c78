"""`--format csv`: one row per labelled run of bytes (memory, path, symbol, mangled, size, section, address).

The rows of one memory sum to its total, so a spreadsheet pivot gives the same figures as the tree.
"""

from __future__ import annotations

import csv
import io

from sizetool.report.report_model import SizeReport

CSV_COLUMNS = ("memory", "path", "symbol", "mangled", "size", "section", "address")


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
