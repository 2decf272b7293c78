"""Compare two size reports: total, per-path, per-symbol and per-operator deltas, added and removed symbols.

Both sides are SizeReports (built from an ELF or loaded from a saved JSON report). The total delta is exactly
new_total - old_total; per-path rows cover every directory and file of the tree; rows are sorted by absolute delta.
Per-operator rows (exclusive and shared bytes of each registration) come with a ROM diff when both sides carry an
operator table (saved with --ops, or computed by `diff --ops`); otherwise SizeDiff.operators is None.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from sizetool.report.operator_records import OperatorTable
from sizetool.report.report_model import SizeReport


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


@dataclass(frozen=True)
class OperatorDelta:
    """One operator's exclusive and shared bytes on both sides; a side without the registration counts 0."""

    op: str
    registration: str
    old: int  # exclusive bytes
    new: int
    old_shared: int = 0
    new_shared: int = 0
    status: str = "changed"  # "added", "removed" or "changed": whether the registration is on each side

    @property
    def delta(self) -> int:
        return self.new - self.old

    @property
    def shared_delta(self) -> int:
        return self.new_shared - self.old_shared


@dataclass
class SizeDiff:
    memory: str
    old_source: str
    new_source: str
    old_total: int
    new_total: int
    paths: list[DeltaRow]
    symbols: list[DeltaRow]
    operators: list[OperatorDelta] | None = None  # None: not both sides have an operator table (or a RAM diff)
    old_runtime: int = 0
    new_runtime: int = 0

    @property
    def delta(self) -> int:
        return self.new_total - self.old_total


def diff_reports(old: SizeReport, new: SizeReport, memory: str = "rom") -> SizeDiff:
    result = SizeDiff(
        memory=memory,
        old_source=old.source,
        new_source=new.source,
        old_total=old.total(memory),
        new_total=new.total(memory),
        paths=_rows(_path_sizes(old, memory), _path_sizes(new, memory), symbols=False),
        symbols=_rows(_symbol_sizes(old, memory), _symbol_sizes(new, memory), symbols=True),
    )
    if memory == "rom" and old.operators is not None and new.operators is not None:
        result.operators = diff_operators(old.operators, new.operators)
        result.old_runtime, result.new_runtime = old.operators.runtime_bytes, new.operators.runtime_bytes
    return result


def diff_operators(old: OperatorTable, new: OperatorTable) -> list[OperatorDelta]:
    """Operators whose exclusive or shared bytes differ, or that one side does not register; largest change first."""
    before = {o.op: o for o in old.operators}
    after = {o.op: o for o in new.operators}
    rows = []
    for op in before.keys() | after.keys():
        a, b = before.get(op), after.get(op)
        same = a is not None and b is not None and (a.exclusive_bytes, a.shared_bytes) == (b.exclusive_bytes,
                                                                                           b.shared_bytes)
        if same:
            continue
        rows.append(OperatorDelta(
            op=op,
            registration=(b or a).registration,
            old=a.exclusive_bytes if a else 0,
            new=b.exclusive_bytes if b else 0,
            old_shared=a.shared_bytes if a else 0,
            new_shared=b.shared_bytes if b else 0,
            status="added" if a is None else "removed" if b is None else "changed",
        ))
    rows.sort(key=lambda r: (-abs(r.delta), -abs(r.shared_delta), r.op))
    return rows


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
