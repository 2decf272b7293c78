"""Renderings of a SizeDiff: a plain table for terminals, JSON, CSV, and markdown for pull-request comments."""

from __future__ import annotations

import csv
import io
import os

from sizetool.diff import DeltaRow, SizeDiff
from sizetool.report_model import dump_json


def _signed(value: int) -> str:
    return f"{value:+d}"


def _percent(diff: SizeDiff) -> str:
    return f"{100.0 * diff.delta / diff.old_total:+.2f}%" if diff.old_total else "n/a"


def render_diff_text(diff: SizeDiff, limit: int) -> str:
    lines = [
        f"{diff.memory.upper()}: {diff.old_total} -> {diff.new_total} bytes ({_signed(diff.delta)}, {_percent(diff)})",
        f"  old: {os.path.basename(diff.old_source)}  new: {os.path.basename(diff.new_source)}",
        "",
    ]
    for title, rows in (("paths", diff.paths), ("symbols", diff.symbols)):
        lines.append(f"{title} ({len(rows)} changed):")
        for row in rows[: limit or None]:
            lines.append(f"  {_signed(row.delta):>9} {row.old:>9} -> {row.new:<9} {row.status:<8} {row.name}")
        if limit and len(rows) > limit:
            lines.append(f"  ... {len(rows) - limit} more (use --limit 0 for all)")
        lines.append("")
    return "\n".join(lines)


def _row_dict(row: DeltaRow) -> dict:
    out = {"name": row.name, "old": row.old, "new": row.new, "delta": row.delta, "status": row.status}
    if row.symbol:
        out.update({"path": row.path, "symbol": row.symbol})
    return out


def render_diff_json(diff: SizeDiff) -> str:
    return dump_json(
        {
            "old_total": diff.old_total,
            "new_total": diff.new_total,
            "delta": diff.delta,
            "memory": diff.memory,
            "old": os.path.basename(diff.old_source),
            "new": os.path.basename(diff.new_source),
            "paths": [_row_dict(r) for r in diff.paths],
            "symbols": [_row_dict(r) for r in diff.symbols],
        }
    )


def render_diff_csv(diff: SizeDiff) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(("kind", "path", "symbol", "old", "new", "delta", "status"))
    writer.writerow(("total", "", "", diff.old_total, diff.new_total, diff.delta, "changed" if diff.delta else "same"))
    for kind, rows in (("path", diff.paths), ("symbol", diff.symbols)):
        for row in rows:
            writer.writerow((kind, row.path, row.symbol, row.old, row.new, row.delta, row.status))
    return out.getvalue()


def render_diff_markdown(diff: SizeDiff, limit: int) -> str:
    """Summary first, details folded: made for a pull-request comment."""
    lines = [
        f"**{diff.memory.upper()}**: {diff.old_total} → {diff.new_total} bytes (**{_signed(diff.delta)}**, {_percent(diff)})",
        "",
    ]
    for title, rows in (("paths", diff.paths), ("symbols", diff.symbols)):
        lines += [f"<details><summary>{len(rows)} {title} changed</summary>", "", "| delta | old | new | name |",
                  "|---:|---:|---:|---|"]
        for row in rows[: limit or None]:
            name = row.name.replace("|", "\\|")
            lines.append(f"| {_signed(row.delta)} | {row.old} | {row.new} | `{name}` |")
        lines += ["", "</details>", ""]
    return "\n".join(lines)
