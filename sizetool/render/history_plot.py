"""`history plot -o FILE`: the size history drawn as one self-contained page (templates/history.html.j2: inline SVG
drawn by its own script, the data as JSON in the page, nothing loaded from the network), or the primary series as an
SVG or PNG figure through matplotlib (the optional `plot` extra) for a PR comment or a wiki."""

from __future__ import annotations

from sizetool import __version__
from sizetool.errors import SizeToolError
from sizetool.history.plot import PlotData
from sizetool.history.show_output import iso

TEMPLATE = "history.html.j2"


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
    """Whole file or nothing: drawn into memory, then written atomically (a device or pipe in place); no timestamps,
    so output is repeatable."""
    import io

    from sizetool.report.report_model import write_bytes_atomically

    buffer = io.BytesIO()
    metadata = {"Date": None} if kind == "svg" else {"Software": None}
    figure.savefig(buffer, format=kind, metadata=metadata, dpi=110)
    write_bytes_atomically(path, buffer.getvalue())
