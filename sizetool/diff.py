"""Compare two size reports: total, per-path and per-symbol deltas, added and removed symbols.

Both sides are SizeReports (built from an ELF or loaded from a saved JSON report). The total delta is exactly
new_total - old_total; per-path rows cover every directory and file of the tree; rows are sorted by absolute delta.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from sizetool.report_model import SizeReport


@dataclass(frozen=True)
class DeltaRow:
    name: str  # "kernels/conv.cc" for paths; "kernels/conv.cc: tflite::Eval(...)" style key parts for symbols
    old: int
    new: int
    path: str = ""
    symbol: str = ""

    @property
    def delta(self) -> int:
        return self.new - self.old

    @property
    def status(self) -> str:
        if self.old == 0:
            return "added"
        if self.new == 0:
            return "removed"
        return "changed"


@dataclass
class SizeDiff:
    memory: str
    old_source: str
    new_source: str
    old_total: int
    new_total: int
    paths: list[DeltaRow]
    symbols: list[DeltaRow]

    @property
    def delta(self) -> int:
        return self.new_total - self.old_total


def diff_reports(old: SizeReport, new: SizeReport, memory: str = "rom") -> SizeDiff:
    return SizeDiff(
        memory=memory,
        old_source=old.source,
        new_source=new.source,
        old_total=old.total(memory),
        new_total=new.total(memory),
        paths=_rows(_path_sizes(old, memory), _path_sizes(new, memory), symbols=False),
        symbols=_rows(_symbol_sizes(old, memory), _symbol_sizes(new, memory), symbols=True),
    )


def _path_sizes(report: SizeReport, memory: str) -> dict[tuple, int]:
    sizes: dict[tuple, int] = defaultdict(int)
    for entry in report.entries_for(memory):
        for depth in range(1, len(entry.path) + 1):
            sizes[(entry.path[:depth],)] += entry.size
    return sizes


def _symbol_sizes(report: SizeReport, memory: str) -> dict[tuple, int]:
    sizes: dict[tuple, int] = defaultdict(int)
    for entry in report.entries_for(memory):
        sizes[(entry.path, entry.symbol)] += entry.size
    return sizes


def _rows(old: dict[tuple, int], new: dict[tuple, int], symbols: bool) -> list[DeltaRow]:
    rows = []
    for key in old.keys() | new.keys():
        before, after = old.get(key, 0), new.get(key, 0)
        if before == after:
            continue
        path = "/".join(key[0])
        rows.append(
            DeltaRow(name=f"{path}: {key[1]}" if symbols else path, old=before, new=after, path=path,
                     symbol=key[1] if symbols else "")
        )
    rows.sort(key=lambda r: (-abs(r.delta), r.name))
    return rows
