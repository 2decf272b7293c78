"""What the history keeps of a build's report, and the changes between two builds, as pure functions.

- trim_report: the tree down to files with every symbol of at least `min_symbol` bytes; the smaller symbols of a
  file become one "(smaller symbols)" leaf, so every file, directory and total still adds up exactly.
- encode_report / decode_report: the saved-report JSON (report_model.report_to_dict / report_from_dict, so new
  report fields flow through), compact and zlib-compressed.
- report_parts: ROM and RAM by path prefix (depth 1 and 2) and the operators' exclusive bytes: what the plot stacks
  (the `parts` and `parts_depth2` JSON columns).
- changes_between: per-file (ROM, RAM) and per-operator deltas between two builds, largest first, capped: what hover
  text, movers and the plot's treemap diff show.
"""

from __future__ import annotations

import json
import zlib
from collections import defaultdict
from dataclasses import replace
from typing import Callable

from sizetool.errors import SizeToolError
from sizetool.report.report_model import (
    MEMORIES,
    REPORT_SCHEMA,
    SizeEntry,
    SizeReport,
    report_from_dict,
    report_to_dict,
)

SMALLER_SYMBOLS = "(smaller symbols)"
DEFAULT_MIN_SYMBOL = 64
PART_DEPTHS = (1, 2)
MAX_CHANGED_FILES = 200  # per memory and build; the rest is summed into one "(N more files)" row
COMPRESSION_LEVEL = 6


def trim_report(report: SizeReport, min_symbol: int) -> SizeReport:
    """The report with symbols under min_symbol bytes folded per file (0 keeps every symbol); mangled names dropped."""
    kept: list[SizeEntry] = []
    folded: dict[tuple[str, tuple[str, ...]], int] = defaultdict(int)
    for entry in report.entries:
        if entry.size >= min_symbol:
            kept.append(replace(entry, mangled="") if entry.mangled else entry)
        else:
            folded[(entry.memory, entry.path)] += entry.size
    kept.extend(SizeEntry(memory=memory, path=path, symbol=SMALLER_SYMBOLS, section="", address=0, size=size)
                for (memory, path), size in folded.items())
    return replace(report, entries=kept)


def encode_report(report: SizeReport) -> bytes:
    text = json.dumps(report_to_dict(report), separators=(",", ":"), ensure_ascii=False)
    return zlib.compress(text.encode("utf-8"), COMPRESSION_LEVEL)


def decode_report(blob: bytes, source: str) -> SizeReport:
    return report_from_dict(decode_json(blob, source), source)


def encode_json(data) -> bytes:
    return zlib.compress(json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode("utf-8"), COMPRESSION_LEVEL)


def decode_json(blob: bytes, source: str | Callable[[], str]):
    """The JSON of a compressed blob; `source` names it in the error (a callable is only called then: a plot decodes
    10,000 blobs and names none of them)."""
    try:
        return json.loads(zlib.decompress(blob))
    except (zlib.error, UnicodeDecodeError, json.JSONDecodeError, TypeError, RecursionError) as error:
        name = source() if callable(source) else source
        kind = "zlib" if isinstance(error, zlib.error) else type(error).__name__
        raise SizeToolError(f"{name}: damaged stored report ({kind}: {str(error)[:80]})") from None


def require_saved_report(data, path: str) -> None:
    """A recorded report must be one size-report saved (both memories): not Zephyr's single rom.json, not another
    tool's JSON."""
    if not isinstance(data, dict) or data.get("schema") != REPORT_SCHEMA:
        raise SizeToolError(f"{path}: not a report saved by size-report (record the ELF, or a report written with "
                            "'size-report ELF --save REPORT.json')")


def parts_column(depth: int) -> str:
    """The size_builds column holding the path parts of one depth: "parts" (top level, with the operators) or
    "parts_depth2"."""
    return "parts" if depth == 1 else f"parts_depth{depth}"


def report_parts(report: SizeReport) -> dict[str, dict]:
    """The parts columns of a build: {"parts": {"rom": {top-level path: bytes}, "ram": {...}, "ops": {operator:
    bytes}}, "parts_depth2": {"rom": {"dir/sub": bytes}, "ram": {...}}}. Operators are their exclusive bytes, the
    runtime and the bytes operators share (empty without an operator table).

    A path shorter than the depth counts as itself and a pathless entry under its symbol, so each memory's parts add
    up to its total at every depth. Names are sorted, so the stored JSON is the same for the same report."""
    sums = {(depth, memory): defaultdict(int) for depth in PART_DEPTHS for memory in MEMORIES}
    for entry in report.entries:
        for depth in PART_DEPTHS:
            name = "/".join(entry.path[:depth]) if entry.path else entry.symbol
            sums[(depth, entry.memory)][name] += entry.size
    columns = {parts_column(depth): {memory: dict(sorted(sums[(depth, memory)].items())) for memory in MEMORIES}
               for depth in PART_DEPTHS}
    columns[parts_column(1)]["ops"] = dict(sorted(operator_parts(report).items()))
    return columns


def operator_parts(report: SizeReport) -> dict[str, int]:
    """The ROM split by operator as the treemap page's operator view splits it (exclusive bytes, runtime, shared)."""
    if report.operators is None:
        return {}
    from sizetool.operators.operator_view import operator_view

    return {child["name"]: child["size"] for child in operator_view(report.operators)["tree"]["children"]}


def file_sizes(report: SizeReport, memory: str) -> dict[str, int]:
    sizes: dict[str, int] = defaultdict(int)
    for entry in report.entries_for(memory):
        sizes["/".join(entry.path) if entry.path else entry.symbol] += entry.size
    return sizes


def changes_between(old: SizeReport, new: SizeReport) -> dict:
    """{"rom": [[file, old, new], ...], "ram": [...], "ops": [[op, old, new], ...]}: what changed, largest first.

    Each memory keeps its MAX_CHANGED_FILES largest changes; the rest become one "(N more files)" row, so the rows
    of a memory always sum to its total delta."""
    out: dict = {}
    for memory in ("rom", "ram"):
        out[memory] = _delta_rows(file_sizes(old, memory), file_sizes(new, memory), "files")
    out["ops"] = _delta_rows(operator_parts(old), operator_parts(new), "operators") \
        if old.operators is not None and new.operators is not None else []
    return out


def _delta_rows(old: dict[str, int], new: dict[str, int], what: str) -> list[list]:
    rows = [[name, old.get(name, 0), new.get(name, 0)] for name in old.keys() | new.keys()
            if old.get(name, 0) != new.get(name, 0)]
    rows.sort(key=lambda row: (-abs(row[2] - row[1]), row[0]))
    if len(rows) > MAX_CHANGED_FILES:
        rest = rows[MAX_CHANGED_FILES - 1:]
        rows = rows[:MAX_CHANGED_FILES - 1]
        rows.append([f"({len(rest)} more {what})", sum(r[1] for r in rest), sum(r[2] for r in rest)])
    return rows
