"""`history plot`: ROM and RAM over the commits of each series, stacked by path or by operator, steps marked.

collect_plot_data reads what the plot needs (summary columns, and in one pass over the shown builds their parts
JSON of the chosen depth and, for the page, their changes against their predecessors) into PlotData; render_plot_html writes one self-contained page (templates/history.html.j2: inline
SVG drawn by its own script, the data as JSON in the page, nothing loaded from the network); render_plot_image
draws the primary series with matplotlib (the optional `plot` extra) as SVG or PNG for a PR comment or a wiki.

A step is a build whose total moved by at least the threshold against its predecessor: bytes ("1K") or a share of
the predecessor's total ("0.5%"). The stacks keep the MAX_LAYERS largest parts of a series (by their largest size
in any build); the rest is summed as "(other)", so every build's layers add up to its total.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sizetool import __version__
from sizetool.errors import SizeToolError
from sizetool.history.queries import Build, changes_for, check_parts, stored_columns
from sizetool.history.stored_report import parts_column
from sizetool.history.show_output import iso
from sizetool.sizes import parse_size

TEMPLATE = "history.html.j2"
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


# --- the page --------------------------------------------------------------------------------------------------------


def page_data(data: PlotData, stack: str) -> dict:
    """What the page's script draws, column by column (compact for 10,000 builds)."""
    out_series = []
    for series in data.series:
        builds = series.builds
        out_series.append({
            "key": series.key,
            "branch": series.branch,
            "labels": series.labels,
            "id": [b.id for b in builds],
            "commit": [b.commit for b in builds],
            "time": [iso(b.built_at) for b in builds],
            "url": [b.build_url for b in builds],
            "rom": [b.rom_total for b in builds],
            "ram": [b.ram_total for b in builds],
            "delta": series.deltas,
            "steps": series.steps,
            "stacks": series.stacks,
        })
    changes = {}
    for build_id, change in data.changes.items():
        if change is not None:
            changes[str(build_id)] = change
    return {
        "title": data.title,
        "tool": f"size-report {__version__}",
        "step": data.step.text,
        "depth": data.depth,
        "stack": stack,
        "primary": data.primary.key,
        "series": out_series,
        "changes": changes,
    }


def render_plot_html(data: PlotData, stack: str = "path") -> str:
    import markupsafe

    from sizetool.render.html import _environment, script_json

    payload = page_data(data, stack)
    return _environment().get_template(TEMPLATE).render(
        title=data.title,
        tool=payload["tool"],
        builds=sum(len(s.builds) for s in data.series),
        series_count=len(data.series),
        step=data.step.text,
        data_json=markupsafe.Markup(script_json(payload)),
    )


# --- SVG / PNG through matplotlib ------------------------------------------------------------------------------------


def render_plot_image(data: PlotData, stack: str, path: str, kind: str) -> None:
    """The primary series as a static figure: ROM and RAM panels, stacked parts, total line, steps marked."""
    try:
        import matplotlib
    except ModuleNotFoundError:
        raise SizeToolError(f"{path}: .svg and .png plots need matplotlib: pip install 'tflm-size-toolkit[plot]' "
                            "(or write .html)") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    series = data.primary
    builds = series.builds
    x = list(range(len(builds)))
    rc = {"svg.hashsalt": "size-report", "svg.fonttype": "path", "font.size": 9}
    with matplotlib.rc_context(rc):
        figure, axes = plt.subplots(2, 1, figsize=(10, 6.5), sharex=True)
        for axis, memory in zip(axes, ("rom", "ram")):
            kind_name = "op" if stack == "operator" and memory == "rom" and series.stacks["op"]["names"] else memory
            layers = series.stacks[kind_name]
            if layers["names"]:
                axis.stackplot(x, layers["values"], labels=layers["names"], alpha=0.85, linewidth=0)
            totals = [b.total(memory) for b in builds]
            axis.plot(x, totals, color="#1d2329", linewidth=1.2, label="total")
            for index in series.steps[memory]:
                delta = series.deltas[memory][index]
                axis.axvline(index, color="#c92a2a", linestyle="--", linewidth=0.8)
                axis.annotate(f"{delta:+d} B\n{builds[index].short[:7]}", (index, totals[index]), fontsize=7,
                              color="#c92a2a", xytext=(3, 4), textcoords="offset points")
            axis.set_ylabel(f"{memory.upper()} bytes")
            axis.set_ylim(bottom=0)
            axis.grid(True, axis="y", color="#d9dee3", linewidth=0.6)
            axis.legend(loc="upper left", fontsize=7, ncol=2, framealpha=0.85)
        ticks = x if len(x) <= 12 else x[:: max(1, len(x) // 12)]
        axes[1].set_xticks(ticks)
        axes[1].set_xticklabels([builds[i].short[:7] for i in ticks], rotation=45, ha="right", fontsize=7)
        axes[1].set_xlabel(f"commits on {series.key or '(no branch)'}")
        figure.suptitle(f"{data.title} ({series.key or '(no branch)'}, {len(builds)} builds)")
        figure.tight_layout()
        _save_figure(figure, path, kind)
        plt.close(figure)


def _save_figure(figure, path: str, kind: str) -> None:
    """Whole file or nothing: drawn into memory, then written atomically; no timestamps, so output is repeatable."""
    import io
    import os
    import tempfile

    buffer = io.BytesIO()
    metadata = {"Date": None} if kind == "svg" else {"Software": None}
    figure.savefig(buffer, format=kind, metadata=metadata, dpi=110)
    temp = None
    try:
        handle, temp = tempfile.mkstemp(prefix=".tmp-", dir=os.path.dirname(os.path.abspath(path)))
        with os.fdopen(handle, "wb") as stream:
            stream.write(buffer.getvalue())
        os.chmod(temp, 0o644)
        os.replace(temp, path)
    except OSError as error:
        if temp and os.path.exists(temp):
            os.unlink(temp)
        raise SizeToolError(f"{path}: cannot write ({error.strerror or error})") from None
