"""`history plot`: what the plot draws: ROM and RAM over the commits of each series, stacked by path or by operator,
steps marked.

collect_plot_data reads what the plot needs (summary columns, and in one pass over the shown builds their parts
JSON of the chosen depth and, for the page, their changes against their predecessors) into PlotData; the page and
the SVG/PNG figure are drawn by sizetool/render/history_plot.py.

A step is a build whose total moved by at least the threshold against its predecessor: bytes ("1K") or a share of
the predecessor's total ("0.5%"). The stacks keep the MAX_LAYERS largest parts of a series (by their largest size
in any build); the rest is summed as "(other)", so every build's layers add up to its total.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sizetool.errors import SizeToolError
from sizetool.history.queries import Build, changes_for, check_parts, stored_columns
from sizetool.history.stored_report import parts_column
from sizetool.sizes import parse_size

MAX_LAYERS = 9
OTHER = "(other)"
PRIMARY_BRANCHES = ("main", "master", "trunk", "develop")


@dataclass(frozen=True)
class Step:
    """The threshold for marking a step: bytes, or a percentage of the previous total."""

    text: str
    bytes: int | None = None
    percent: float | None = None

    def is_step(self, before: int, after: int) -> bool:
        change = abs(after - before)
        if self.bytes is not None:
            return change >= self.bytes and change > 0
        return change > 0 and before > 0 and 100.0 * change / before >= self.percent


def parse_step(text: str) -> Step:
    stripped = text.strip()
    if stripped.endswith("%"):
        try:
            percent = float(stripped[:-1])
        except ValueError:
            raise SizeToolError(f"--step {text!r}: expected bytes (1K) or a percentage (0.5%)") from None
        if percent <= 0:
            raise SizeToolError(f"--step {text!r}: must be more than 0%")
        return Step(text=stripped, percent=percent)
    return Step(text=stripped, bytes=max(1, parse_size(stripped, "--step")))


@dataclass
class SeriesData:
    branch: str
    labels: dict[str, str]
    builds: list[Build]
    deltas: dict[str, list[int | None]]  # per memory, against the predecessor (None for the first shown build)
    stacks: dict[str, dict]  # "rom" / "ram" (by path) and "op": {"names": [...], "values": [[per build]...]}
    steps: dict[str, list[int]]  # per memory: indexes of builds that are steps

    @property
    def key(self) -> str:
        return self.branch + "".join(f",{k}={v}" for k, v in self.labels.items())


@dataclass
class PlotData:
    series: list[SeriesData]
    step: Step
    depth: int
    changes: dict[int, dict | None] = field(default_factory=dict)
    title: str = "Size history"

    @property
    def primary(self) -> SeriesData:
        """The series a static plot draws and the page opens on: main/master/... if present, else the longest."""
        for name in PRIMARY_BRANCHES:
            for series in self.series:
                if series.branch == name:
                    return series
        return max(self.series, key=lambda s: (len(s.builds), s.key))


def collect_plot_data(connection, builds: list[Build], previous: dict[int, Build | None], depth: int = 1,
                      last: int = 0, threshold: Step | None = None, with_changes: bool = True) -> PlotData:
    threshold = threshold or parse_step("1K")
    grouped: dict[tuple[str, str], list[Build]] = {}
    for build in builds:
        grouped.setdefault(build.series, []).append(build)
    chosen = {key: (series[-last:] if last else series) for key, series in grouped.items()}
    shown = [b for series in chosen.values() for b in series]
    path_column = parts_column(depth)
    columns = ["parts"] + ([path_column] if path_column != "parts" else []) + \
        (["base_id", "changes"] if with_changes else [])
    stored = stored_columns(connection, [b.id for b in shown], *columns)
    at = {name: index for index, name in enumerate(columns)}
    part_values = {}
    for build_id, values in stored.items():
        top, paths = check_parts(values[0], build_id), check_parts(values[at[path_column]], build_id)
        part_values[build_id] = {"rom": paths.get("rom") or {}, "ram": paths.get("ram") or {}, "op": top.get("ops") or {}}
    data = PlotData(series=[], step=threshold, depth=depth)
    for key in sorted(chosen, key=lambda k: (k[0], k[1])):
        data.series.append(_series(chosen[key], previous, part_values, threshold))
    if with_changes:
        data.changes = changes_for(connection, shown, previous,
                                   {build_id: values[at["base_id"]:] for build_id, values in stored.items()})
    return data


def _series(builds: list[Build], previous: dict[int, Build | None], part_values, step: Step) -> SeriesData:
    deltas: dict[str, list[int | None]] = {"rom": [], "ram": []}
    steps: dict[str, list[int]] = {"rom": [], "ram": []}
    for index, build in enumerate(builds):
        before = previous.get(build.id)
        for memory in ("rom", "ram"):
            if before is None:
                deltas[memory].append(None)
                continue
            deltas[memory].append(build.total(memory) - before.total(memory))
            if step.is_step(before.total(memory), build.total(memory)):
                steps[memory].append(index)
    stacks = {kind: _stack([part_values[b.id][kind] for b in builds]) for kind in ("rom", "ram", "op")}
    return SeriesData(branch=builds[0].branch, labels=builds[0].labels, builds=builds, deltas=deltas, stacks=stacks,
                      steps=steps)


def _stack(values: list[dict[str, int]]) -> dict:
    """The MAX_LAYERS largest parts (by their peak) as layers, the rest as "(other)"; layers sum to each total.

    Operator stacks are empty for builds recorded without an operator table (their layers are 0 there). One pass
    over each build's parts for the peaks and one to fill the layers (10,000 builds of ~20 parts each)."""
    peaks: dict[str, int] = {}
    for parts_of_build in values:
        for name, size in parts_of_build.items():
            if size > peaks.get(name, -1):
                peaks[name] = size
    if not peaks:
        return {"names": [], "values": []}
    names = sorted(peaks, key=lambda n: (-peaks[n], n))
    layers = names[:MAX_LAYERS] if len(names) > MAX_LAYERS + 1 else names
    row_of = {name: row for row, name in enumerate(layers)}
    rows = [[0] * len(values) for _ in layers]
    other = [0] * len(values) if len(layers) < len(names) else None
    for column, parts_of_build in enumerate(values):
        rest = 0
        for name, size in parts_of_build.items():
            row = row_of.get(name)
            if row is None:
                rest += size
            else:
                rows[row][column] = size
        if other is not None:
            other[column] = rest
    if other is not None:
        rows.append(other)
        layers = layers + [OTHER]
    return {"names": layers, "values": rows}
