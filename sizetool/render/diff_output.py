"""Renderings of a SizeDiff: a plain table for terminals, JSON, CSV, and markdown for pull-request comments."""

from __future__ import annotations

import csv
import io
import os

from sizetool.ci.diff import DeltaRow, OperatorDelta, SizeDiff
from sizetool.report.report_model import dump_json
from sizetool.text_escaping import markdown_code, markdown_text


def _signed(value: int) -> str:
    return f"{value:+d}"


def _percent(diff: SizeDiff) -> str:
    return f"{100.0 * diff.delta / diff.old_total:+.2f}%" if diff.old_total else "n/a"


def render_diff(diff: SizeDiff, output_format: str, limit: int) -> str:
    """The diff as text, json, csv or markdown (size-report diff and history diff print alike)."""
    if output_format == "json":
        return render_diff_json(diff)
    if output_format == "csv":
        return render_diff_csv(diff)
    if output_format == "markdown":
        return render_diff_markdown(diff, limit)
    return render_diff_text(diff, limit)


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
    if diff.operators is not None:
        lines.append(f"operators, exclusive bytes ({len(diff.operators)} changed; runtime {diff.old_runtime} -> "
                     f"{diff.new_runtime}):")
        for op in diff.operators[: limit or None]:
            lines.append(f"  {_signed(op.delta):>9} {op.old:>9} -> {op.new:<9} {op.status:<8} {op.op}"
                         f"  (shared {op.old_shared} -> {op.new_shared})")
        if limit and len(diff.operators) > limit:
            lines.append(f"  ... {len(diff.operators) - limit} more (use --limit 0 for all)")
        lines.append("")
    return "\n".join(lines)


def _row_dict(row: DeltaRow) -> dict:
    out = {"name": row.name, "old": row.old, "new": row.new, "delta": row.delta, "status": row.status}
    if row.symbol:
        out.update({"path": row.path, "symbol": row.symbol})
    return out


def _operator_dict(row: OperatorDelta) -> dict:
    return {"op": row.op, "registration": row.registration, "old": row.old, "new": row.new, "delta": row.delta,
            "status": row.status, "old_shared": row.old_shared, "new_shared": row.new_shared,
            "shared_delta": row.shared_delta}


def render_diff_json(diff: SizeDiff) -> str:
    data = {
        "old_total": diff.old_total,
        "new_total": diff.new_total,
        "delta": diff.delta,
        "memory": diff.memory,
        "old": os.path.basename(diff.old_source),
        "new": os.path.basename(diff.new_source),
        "paths": [_row_dict(r) for r in diff.paths],
        "symbols": [_row_dict(r) for r in diff.symbols],
    }
    if diff.operators is not None:
        data["operators"] = [_operator_dict(r) for r in diff.operators]
        data["old_runtime_bytes"], data["new_runtime_bytes"] = diff.old_runtime, diff.new_runtime
    return dump_json(data)


def render_diff_csv(diff: SizeDiff) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(("kind", "path", "symbol", "old", "new", "delta", "status"))
    writer.writerow(("total", "", "", diff.old_total, diff.new_total, diff.delta, "changed" if diff.delta else "same"))
    for kind, rows in (("path", diff.paths), ("symbol", diff.symbols)):
        for row in rows:
            writer.writerow((kind, row.path, row.symbol, row.old, row.new, row.delta, row.status))
    for op in diff.operators or ():  # the operator in the path column, its registration in the symbol column
        writer.writerow(("operator", op.op, op.registration, op.old, op.new, op.delta, op.status))
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
            lines.append(f"| {_signed(row.delta)} | {row.old} | {row.new} | {markdown_code(row.name)} |")
        lines += ["", "</details>", ""]
    if diff.operators is not None:
        lines += [f"<details><summary>{len(diff.operators)} operators changed (exclusive bytes)</summary>", "",
                  "| delta | old | new | op | status | shared |", "|---:|---:|---:|---|---|---:|"]
        for op in diff.operators[: limit or None]:
            lines.append(f"| {_signed(op.delta)} | {op.old} | {op.new} | {markdown_text(op.op)} | {op.status} | "
                         f"{op.old_shared} → {op.new_shared} |")
        lines += ["", "</details>", ""]
    return "\n".join(lines)
