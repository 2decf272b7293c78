"""`history plot`: the data the page and the figure draw (stacks that add up, steps at the right builds), the page
as one self-contained file, SVG/PNG through matplotlib, and the page in headless Chromium: charts drawn, steps marked,
hover text, and a click that opens the build's treemap diff."""

import json
import re

import pytest
from history_helpers import CORTEX_M4, VARIANTS

from tests.browser import Dom, has_class
from tests.browser import load as load_page

from sizetool import cli
from sizetool.history.plot import OTHER, PlotData, SeriesData, collect_plot_data, parse_step
from sizetool.render.history_plot import render_plot_html
from sizetool.history.queries import Build, list_builds, predecessors
from sizetool.history.storage import history_database

# Successive main builds: leave-one-out variants of the fixture firmware, then the full firmware.
MAIN = [("without_ADD", "a0000001"), ("without_SOFTMAX", "a0000002"), ("without_MUL", "a0000003"),
        ("without_LOGISTIC", "a0000004")]
HISTORY_WINDOW = (1280, 1400)
HOSTILE = "</script><script>document.title='pwned'</script>"


@pytest.fixture(scope="module")
def history(tmp_path_factory):
    db = tmp_path_factory.mktemp("plot") / "sizes.db"
    for day, (variant, commit) in enumerate(MAIN, start=1):
        assert cli.main(["history", "record", str(VARIANTS / f"{variant}.elf"), "--ops", "--db", str(db),
                         "--commit", commit, "--branch", "main", "--time", f"2024-01-0{day}"]) == 0
    assert cli.main(["history", "record", str(CORTEX_M4), "--ops", "--db", str(db), "--commit", "a0000005", "--branch",
                     "main", "--time", "2024-01-05"]) == 0
    assert cli.main(["history", "record", str(CORTEX_M4), "--db", str(db), "--commit", "b0000001", "--branch", HOSTILE,
                     "--time", "2024-01-06"]) == 0
    return db


def plot_data(db, step="1K", depth=1):
    with history_database(str(db)) as database, database.reading() as connection:
        builds = list_builds(connection)
        return collect_plot_data(connection, builds, predecessors(builds), threshold=parse_step(step), depth=depth)


@pytest.mark.parametrize("depth", [1, 2])
def test_stacks_add_up_to_each_builds_totals(history, depth):
    data = plot_data(history, depth=depth)
    main = data.primary
    assert main.branch == "main" and [b.commit for b in main.builds] == ["a0000001", "a0000002", "a0000003", "a0000004", "a0000005"]
    for kind, memory in (("rom", "rom"), ("ram", "ram"), ("op", "rom")):
        stack = main.stacks[kind]
        assert stack["names"], kind
        for index, build in enumerate(main.builds):
            assert sum(layer[index] for layer in stack["values"]) == build.total(memory), (kind, index)
    assert "CONV_2D" in main.stacks["op"]["names"]
    hostile = next(s for s in data.series if s.branch == HOSTILE)
    assert hostile.stacks["op"] == {"names": [], "values": []}  # recorded without --ops


def test_steps_are_the_builds_that_moved_by_the_threshold(history):
    for step in ("1K", "100", "2%"):
        main = plot_data(history, step).primary
        threshold = parse_step(step)
        totals = [b.rom_total for b in main.builds]
        expected = [i for i in range(1, len(totals)) if threshold.is_step(totals[i - 1], totals[i])]
        assert main.steps["rom"] == expected
        assert main.deltas["rom"] == [None] + [totals[i] - totals[i - 1] for i in range(1, len(totals))]
    assert plot_data(history, "1K").primary.steps["rom"] != plot_data(history, "100").primary.steps["rom"]


def test_small_parts_are_folded_into_other(history, monkeypatch):
    from sizetool.history import plot

    monkeypatch.setattr(plot, "MAX_LAYERS", 2)
    main = plot_data(history).primary
    assert len(main.stacks["rom"]["names"]) == 3 and main.stacks["rom"]["names"][-1] == OTHER
    for index, build in enumerate(main.builds):
        assert sum(layer[index] for layer in main.stacks["rom"]["values"]) == build.rom_total


def embedded(page: str) -> dict:
    match = re.search(r'<script type="application/json" id="history-data">(.*?)</script>', page, re.DOTALL)
    return json.loads(match.group(1))


@pytest.fixture(scope="module")
def page_file(history, tmp_path_factory):
    target = tmp_path_factory.mktemp("page") / "flash.html"
    assert cli.main(["history", "plot", "--db", str(history), "-o", str(target)]) == 0
    return target


def test_the_page_is_self_contained_deterministic_and_escapes_names(history, page_file, tmp_path):
    page = page_file.read_text()
    assert re.search(r"\b(src|href)\s*=", page) is None and "url(" not in page and "@import" not in page
    assert "fetch(" not in page and "XMLHttpRequest" not in page
    assert set(re.findall(r"https?://[^\s\"']+", page)) == {"http://www.w3.org/2000/svg"}  # a namespace, not a load
    assert page.count("<script") == 2 and page.count("</script>") == 2
    data = embedded(page)
    assert HOSTILE in [s["branch"] for s in data["series"]] and data["primary"] == "main"
    again = tmp_path / "again.html"
    assert cli.main(["history", "plot", "--db", str(history), "-o", str(again)]) == 0
    assert again.read_bytes() == page_file.read_bytes()


def test_the_page_carries_each_builds_changes_against_the_previous_build(page_file):
    data = embedded(page_file.read_text())
    main = next(s for s in data["series"] if s["key"] == "main")
    assert str(main["id"][0]) not in data["changes"]  # the first build has nothing to compare with
    for index in range(1, len(main["id"])):
        change = data["changes"][str(main["id"][index])]
        for memory in ("rom", "ram"):
            assert sum(new - old for _, old, new in change[memory]) == main[memory][index] - main[memory][index - 1]
    assert any(change["ops"] for change in data["changes"].values())


def test_svg_and_png_figures(history, tmp_path):
    pytest.importorskip("matplotlib", reason="matplotlib (the 'plot' extra) is not installed")
    svg, png = tmp_path / "flash.svg", tmp_path / "flash.png"
    assert cli.main(["history", "plot", "--db", str(history), "-o", str(svg), "--stack", "operator"]) == 0
    assert cli.main(["history", "plot", "--db", str(history), "-o", str(png)]) == 0
    text = svg.read_text()
    assert text.lstrip().startswith("<?xml") and "<svg" in text
    from xml.etree import ElementTree

    root = ElementTree.fromstring(text)
    assert len(root.findall(".//{http://www.w3.org/2000/svg}path")) > 20
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    again = tmp_path / "again.svg"
    assert cli.main(["history", "plot", "--db", str(history), "-o", str(again), "--stack", "operator"]) == 0
    assert again.read_bytes() == svg.read_bytes()


# --- the page in a real browser -------------------------------------------------------------------------------------


def load(chromium, path, fragment: str = "") -> Dom:
    return load_page(chromium, path, fragment, window=HISTORY_WINDOW)  # tall enough for both charts


def test_browser_draws_both_charts_with_layers_totals_and_steps(chromium, page_file, history):
    data = plot_data(history)
    main = data.primary
    dom = load(chromium, page_file)
    for memory in ("rom", "ram"):
        layers = dom.find(lambda e: e["tag"] == "path" and has_class("layer")(e)
                          and e["attrs"].get("data-name") in main.stacks[memory]["names"])
        chart_layers = [e for e in layers if e in _chart_elements(dom, memory)]
        assert [e["attrs"]["data-name"] for e in chart_layers] == main.stacks[memory]["names"]
        assert sum(int(e["attrs"]["data-last"]) for e in chart_layers) == main.builds[-1].total(memory)
        steps = [e for e in _chart_elements(dom, memory) if has_class("step")(e) and e["tag"] == "line"]
        assert [int(e["attrs"]["data-index"]) for e in steps] == main.steps[memory]
        assert [int(e["attrs"]["data-delta"]) for e in steps] == [main.deltas[memory][i] for i in main.steps[memory]]
        labels = [e for e in _chart_elements(dom, memory) if has_class("step-label")(e)]
        assert sorted(int(e["attrs"]["data-index"]) for e in labels) == main.steps[memory]  # few steps: all labelled
    assert main.steps["rom"], "the fixture history has a step of at least 1K"
    title = next(e for e in dom.elements if e["tag"] == "title")
    assert title["text"] == f"Size history: {history}"  # the hostile branch name never ran as script
    series_rows = dom.find(has_class("series-row"))
    assert [r["attrs"]["data-series"] for r in series_rows] == sorted(s.key for s in data.series)


def _chart_elements(dom: Dom, memory: str) -> list[dict]:
    """Elements inside the chart <svg> of one memory (in document order)."""
    start = next(i for i, e in enumerate(dom.elements) if e["tag"] == "svg" and e["attrs"].get("data-memory") == memory)
    out = []
    for element in dom.elements[start + 1:]:
        if element["tag"] in ("svg", "div", "section"):
            break
        out.append(element)
    return out


def test_browser_opens_a_builds_treemap_diff_from_the_address(chromium, page_file, history):
    main = plot_data(history).primary
    target = main.builds[-1]
    dom = load(chromium, page_file, f"#build={target.id}")
    assert dom.by_id("build-title")["attrs"]["data-commit"] == target.commit
    details = dom.by_id("build-details")["text"]
    delta = target.rom_total - main.builds[-2].rom_total
    assert f"({delta:+,d} B)" in details
    diff_map = dom.by_id("diff-map")
    assert int(diff_map["attrs"]["data-total-delta"]) == delta
    groups = dom.find(has_class("diff-group"))
    assert groups and sum(int(g["attrs"]["data-delta"]) for g in groups) == delta
    rows = dom.by_id("diff-files")
    assert "kernels/" in rows["text"]
    dom = load(chromium, page_file, f"#build={target.id}&memory=ram")
    ram_delta = target.ram_total - main.builds[-2].ram_total
    assert int(dom.by_id("diff-map")["attrs"]["data-total-delta"]) == ram_delta


HOVER_AND_CLICK = """<script>
(function () {
  var svg = document.querySelector('svg[data-memory="rom"]'), box = svg.getBoundingClientRect();
  var n = +svg.getAttribute("data-count"), left = +svg.getAttribute("data-plot-left");
  var width = +svg.getAttribute("data-plot-width"), scale = box.width / svg.viewBox.baseVal.width;
  function at(i) { return { clientX: box.left + (left + i * width / (n - 1)) * scale, clientY: box.top + box.height / 2, bubbles: true }; }
  var overlay = svg.querySelector(".overlay");
  overlay.dispatchEvent(new MouseEvent("mousemove", at(INDEX)));
  var tip = document.getElementById("tooltip");
  document.body.setAttribute("data-tooltip", tip.hidden ? "" : tip.textContent);
  overlay.dispatchEvent(new MouseEvent("click", at(INDEX)));
})();
</script></body>"""


def test_browser_hover_names_the_build_and_a_click_selects_it(chromium, page_file, history, tmp_path):
    """Real mouse events on the ROM chart (dispatched by a script appended to a copy of the page): the tooltip tells
    the commit, the delta and the movers; the click opens that build's diff."""
    main = plot_data(history).primary
    index = main.steps["rom"][0]
    build, before = main.builds[index], main.builds[index - 1]
    page = page_file.read_text().replace("</body>", HOVER_AND_CLICK.replace("INDEX", str(index)))
    probe = tmp_path / "hover.html"
    probe.write_text(page)
    dom = load(chromium, probe)
    body = next(e for e in dom.elements if e["tag"] == "body")
    tooltip = body["attrs"]["data-tooltip"]
    delta = build.rom_total - before.rom_total
    assert build.commit in tooltip and f"{delta:+,d} B" in tooltip
    assert "movers (ROM)" in tooltip
    assert dom.by_id("build-title")["attrs"]["data-commit"] == build.commit
    selected = [e for e in _chart_elements(dom, "rom") if has_class("selected")(e)]
    assert [int(e["attrs"]["data-index"]) for e in selected] == [index]


DENSE_LABELS = """<script>
(function () {
  var out = {};
  ["rom", "ram"].forEach(function (memory) {
    var svg = document.querySelector('svg[data-memory="' + memory + '"]');
    out[memory] = {
      width: svg.viewBox.baseVal.width,
      steps: Array.prototype.map.call(svg.querySelectorAll("line.step"), function (l) { return +l.getAttribute("data-index"); }),
      labels: Array.prototype.map.call(svg.querySelectorAll("text.step-label"), function (t) {
        var box = t.getBBox();
        return { index: +t.getAttribute("data-index"), text: t.textContent, x: box.x, y: box.y, w: box.width, h: box.height };
      })
    };
  });
  document.body.setAttribute("data-labels", JSON.stringify(out));
})();
</script></body>"""


def dense_steps(count: int = 150) -> PlotData:
    """One series in which every build moves ROM by 1 to 4 KiB up or down: far more steps than labels fit side by side."""
    import random
    from datetime import datetime, timedelta

    rng, rom, builds = random.Random(12), 200_000, []
    for index in range(count):
        if index:
            rom += rng.choice((-1, 1)) * rng.randint(1024, 4096)
        when = datetime(2024, 1, 1) + timedelta(hours=index)
        builds.append(Build(id=index + 1, commit=f"{index + 1:040x}", branch="main", labels_key="{}", built_at=when,
                            recorded_at=when, source="fw.elf", arch="arm", tool="t", build_url="", rom_total=rom,
                            ram_total=50_000, min_symbol=64, base_id=None))
    step = parse_step("1K")
    deltas = {m: [None] + [b.total(m) - a.total(m) for a, b in zip(builds, builds[1:])] for m in ("rom", "ram")}
    steps = {m: [i for i in range(1, count) if step.is_step(builds[i - 1].total(m), builds[i].total(m))]
             for m in ("rom", "ram")}
    stacks = {m: {"names": ["app"], "values": [[b.total(m) for b in builds]]} for m in ("rom", "ram")}
    stacks["op"] = {"names": [], "values": []}
    series = SeriesData(branch="main", labels={}, builds=builds, deltas=deltas, stacks=stacks, steps=steps)
    return PlotData(series=[series], step=step, depth=1)


def test_browser_step_labels_never_overlap_when_steps_are_dense(chromium, tmp_path):
    """Every build a step: each keeps its dashed line, the labels that are drawn do not touch one another and stay
    inside the chart, the largest steps are the ones labelled, and the rest are left unlabelled rather than piled up."""
    data = dense_steps()
    series = data.primary
    page = tmp_path / "dense.html"
    page.write_text(render_plot_html(data).replace("</body>", DENSE_LABELS))
    dom = load(chromium, page)
    drawn = json.loads(next(e for e in dom.elements if e["tag"] == "body")["attrs"]["data-labels"])
    rom = drawn["rom"]
    assert rom["steps"] == series.steps["rom"] == list(range(1, len(series.builds)))
    labels = rom["labels"]
    for first_index, first in enumerate(labels):
        assert first["w"] > 0 and 0 <= first["x"] and first["x"] + first["w"] <= rom["width"], first
        for second in labels[first_index + 1:]:
            apart = (first["x"] + first["w"] <= second["x"] or second["x"] + second["w"] <= first["x"]
                     or first["y"] + first["h"] <= second["y"] or second["y"] + second["h"] <= first["y"])
            assert apart, (first, second)
    assert 10 < len(labels) < len(rom["steps"])  # dense: some steps go unlabelled
    by_size = sorted(rom["steps"], key=lambda i: (-abs(series.deltas["rom"][i]), i))
    labelled = {label["index"] for label in labels}
    assert by_size[0] in labelled  # the largest step always has its label
    for label in labels:
        delta = series.deltas["rom"][label["index"]]
        assert label["text"].startswith("+" if delta > 0 else "-")
    assert drawn["ram"]["steps"] == [] and drawn["ram"]["labels"] == []


AXIS_LABELS = """<script>
(function () {
  var out = {};
  ["rom", "ram"].forEach(function (memory) {
    var svg = document.querySelector('svg[data-memory="' + memory + '"]');
    out[memory] = {
      width: svg.viewBox.baseVal.width,
      labels: Array.prototype.map.call(svg.querySelectorAll("text.x-label"), function (t) {
        var box = t.getBBox();
        return { index: +t.getAttribute("data-index"), text: t.textContent, x: box.x, w: box.width };
      })
    };
  });
  document.body.setAttribute("data-labels", JSON.stringify(out));
})();
</script></body>"""


def daily_builds(count: int, hours_apart: int = 24) -> PlotData:
    from datetime import datetime, timedelta

    builds = []
    for index in range(count):
        when = datetime(2026, 11, 1) + timedelta(hours=hours_apart * index)
        builds.append(Build(id=index + 1, commit=f"{index + 1:040x}", branch="main", labels_key="{}", built_at=when,
                            recorded_at=when, source="fw.elf", arch="arm", tool="t", build_url="",
                            rom_total=100_000 + 10 * index, ram_total=50_000, min_symbol=64, base_id=None))
    deltas = {m: [None] + [b.total(m) - a.total(m) for a, b in zip(builds, builds[1:])] for m in ("rom", "ram")}
    stacks = {m: {"names": ["app"], "values": [[b.total(m) for b in builds]]} for m in ("rom", "ram")}
    stacks["op"] = {"names": [], "values": []}
    series = SeriesData(branch="main", labels={}, builds=builds, deltas=deltas, stacks=stacks,
                        steps={"rom": [], "ram": []})
    return PlotData(series=[series], step=parse_step("1K"), depth=1)


@pytest.mark.parametrize("count,hours_apart,window", [
    (2, 24, (1280, 1400)), (12, 24, (1280, 1400)), (365, 24, (1280, 1400)), (9, 24, (420, 1400)),
    (8, 24, (818, 1400)), (60, 6, (1280, 1400)), (3, 1, (1280, 1400)),
], ids=lambda value: "x".join(map(str, value)) if isinstance(value, tuple) else str(value))
def test_browser_x_axis_labels_never_overlap(chromium, tmp_path, count, hours_apart, window):
    """Builds a day apart (or several a day, or all within a day): the dates under each chart, measured as drawn,
    keep apart and inside the chart; the first and the last day are labelled, and no label is printed twice (builds
    of one day are told apart by their time)."""
    data = daily_builds(count, hours_apart)
    page = tmp_path / "daily.html"
    page.write_text(render_plot_html(data).replace("</body>", AXIS_LABELS))
    dom = load_page(chromium, page, window=window)
    drawn = json.loads(next(e for e in dom.elements if e["tag"] == "body")["attrs"]["data-labels"])
    times = [b.built_at for b in data.primary.builds]
    for memory in ("rom", "ram"):
        chart = drawn[memory]
        labels = sorted(chart["labels"], key=lambda label: label["x"])
        assert len(labels) >= min(2, len(set(t.date() for t in times)))
        assert labels[0]["index"] == 0
        assert times[labels[-1]["index"]].date() == times[-1].date()  # the last day is labelled
        for label in labels:
            assert label["w"] > 0 and label["x"] >= 0 and label["x"] + label["w"] <= chart["width"], label
        for first, second in zip(labels, labels[1:]):
            assert first["x"] + first["w"] + 4 <= second["x"], (first, second)
        texts = [label["text"] for label in labels]
        assert len(texts) == len(set(texts)), texts
