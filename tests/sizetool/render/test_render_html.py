"""HTML output: the embedded report (totals, tree sums, operators), escaping, determinism, the CLI, and the page as
headless Chromium renders it (treemap boxes, totals, zoom, search, operator view, a hostile symbol name)."""

import json
import random
import re
import struct
import zlib
from dataclasses import replace
from pathlib import Path

import pytest

from tests.browser import WINDOW, load

from sizetool import cli
from sizetool.operators.operator_view import RUNTIME_NODE, SHARED_NODE
from sizetool.render.html import render_html
from sizetool.report.report_builder import build_report
from sizetool.report.operator_records import FileBytes, OperatorCost, OperatorTable, TemplateCost
from sizetool.report.report_model import report_from_dict, report_to_dict

OUT = Path(__file__).resolve().parents[3] / "fixtures" / "firmware" / "out"
ELF = OUT / "cortex-m4" / "firmware.elf"
MAP = OUT / "cortex-m4" / "firmware.map"
HOSTILE = "</script><script>document.title='pwned'</script>"


def embedded(html: str) -> dict:
    match = re.search(r'<script type="application/json" id="report-data">(.*?)</script>', html, re.DOTALL)
    assert match, "no embedded report"
    return json.loads(match.group(1))


def view(data: dict, view_id: str) -> dict:
    return next(v for v in data["views"] if v["id"] == view_id)


def inner_nodes(node: dict):
    stack = [node]
    while stack:
        current = stack.pop()
        if "children" in current:
            yield current
            stack.extend(current["children"])


def leaves(node: dict) -> list[dict]:
    return [child for inner in inner_nodes(node) for child in inner["children"] if "children" not in child]


def size_tool_totals() -> tuple[int, int]:
    """ROM and RAM of the Cortex-M4 fixture: arm-none-eabi-size's text + data (all of it lies in flash), and its
    data + bss less the 4-byte .init_array the linker script keeps in FLASH (writable by flag, never in RAM)."""
    sizes = json.loads((OUT / "sizes.json").read_text())["cortex-m4/firmware.elf"]
    init_array = 4
    return sizes["text"] + sizes["data"], sizes["data"] + sizes["bss"] - init_array


def hand_built_operators(total_rom: int) -> OperatorTable:
    return OperatorTable(
        operators=[
            OperatorCost("SOFTMAX", "tflite::Register_SOFTMAX()", 1814, 300, (FileBytes("kernels/softmax.cc", 1814),)),
            OperatorCost("CONV_2D", "tflite::Register_CONV_2D()", 1558, 900,
                         (FileBytes("kernels/conv.cc", 1000), FileBytes("kernels/conv_common.cc", 558))),
            OperatorCost("CONV_2D_INT8", "tflite::Register_CONV_2D_INT8()", 0, 2400),
            OperatorCost("ADD", "tflite::Register_ADD()", 1228, 120, (FileBytes("kernels/add.cc", 1228),)),
        ],
        resolvers=[TemplateCost("tflite::MicroMutableOpResolver", "13", 646, ("AddConv2D",))],
        runtime_bytes=9000,
        total_rom=total_rom,
        notes=["hand-built for the test"],
    )


@pytest.fixture(scope="module")
def report():
    return build_report(str(ELF), map_path=str(MAP), use_cache=False)


@pytest.fixture(scope="module")
def page(report) -> str:
    return render_html(report, "Size report: firmware.elf")


def test_embedded_totals_are_the_report_totals_and_sizes(report, page):
    data = embedded(page)
    rom, ram = size_tool_totals()
    assert (report.rom_total, report.ram_total) == (rom, ram)
    assert data["totals"] == {"rom": rom, "ram": ram}
    assert [v["id"] for v in data["views"]] == ["rom", "ram"]
    for memory, total in (("rom", rom), ("ram", ram)):
        assert view(data, memory)["total"] == total == view(data, memory)["tree"]["size"]
    assert f'id="total-rom" data-bytes="{rom}">{rom} bytes<' in page
    assert [r["name"] for r in data["regions"]] == ["FLASH", "RAM"] and "FLASH" in page


def test_every_inner_node_is_the_sum_of_its_children_and_leaves_are_the_entries(report, page):
    data = embedded(page)
    for memory in ("rom", "ram"):
        root = view(data, memory)["tree"]
        for node in inner_nodes(root):
            assert node["size"] == sum(child["size"] for child in node["children"]), node["name"]
            sizes = [child["size"] for child in node["children"]]
            assert sizes == sorted(sizes, reverse=True)
        entries = report.entries_for(memory)
        got = sorted((leaf["name"], leaf["section"], leaf["address"], leaf["size"]) for leaf in leaves(root))
        assert got == sorted((e.symbol, e.section, e.address, e.size) for e in entries)


def test_page_is_self_contained(page):
    assert page.startswith("<!DOCTYPE html>")
    assert re.search(r"\b(src|href)\s*=", page) is None, "the page must not load anything"
    assert "url(" not in page and "@import" not in page and "http://" not in page and "https://" not in page
    assert page.count("<script") == 2 and page.count("</script>") == 2


def test_hostile_names_cannot_leave_the_data_block(report):
    entries = list(report.entries)
    victim = next(i for i, e in enumerate(entries) if e.memory == "rom" and e.path and e.path[0] == "kernels")
    entries[victim] = replace(entries[victim], symbol=HOSTILE, path=entries[victim].path[:-1] + ("<!--x.cc",))
    hostile = replace(report, entries=entries, source="a<b>.elf")
    page = render_html(hostile, "Size report: <a<b>.elf & co")
    assert page.count("<script") == 2 and page.count("</script>") == 2 and "<!--" not in page
    assert "<title>Size report: &lt;a&lt;b&gt;.elf &amp; co</title>" in page
    names = {leaf["name"] for leaf in leaves(view(embedded(page), "rom")["tree"])}
    assert HOSTILE in names


def test_same_report_gives_the_same_bytes_whatever_the_entry_order(report, page):
    assert render_html(report, "Size report: firmware.elf") == page
    shuffled = list(report.entries)
    random.Random(5).shuffle(shuffled)
    assert render_html(replace(report, entries=shuffled), "Size report: firmware.elf") == page
    reloaded = report_from_dict(json.loads(json.dumps(report_to_dict(report))), report.source)
    assert render_html(reloaded, "Size report: firmware.elf") == page


def test_operator_view_splits_the_rom_total(report):
    table = hand_built_operators(report.rom_total)
    ops = view(embedded(render_html(replace(report, operators=table), "t")), "ops")
    children = {child["name"]: child for child in ops["tree"]["children"]}
    exclusive = 1814 + 1558 + 0 + 1228
    assert children["SOFTMAX"]["size"] == 1814 and children["CONV_2D"]["shared_bytes"] == 900
    assert children[RUNTIME_NODE]["size"] == 9000
    assert children[SHARED_NODE]["size"] == report.rom_total - 9000 - exclusive
    assert ops["tree"]["size"] == ops["total"] == report.rom_total
    assert [o["op"] for o in ops["operators"]] == ["SOFTMAX", "CONV_2D", "ADD", "CONV_2D_INT8"]
    assert ops["resolvers"] == [{"template": "tflite::MicroMutableOpResolver<13>", "bytes": 646}]
    assert "ops" not in [v["id"] for v in embedded(render_html(report, "t"))["views"]]


def test_operator_view_of_the_real_operator_table_adds_up_to_the_rom_total(report):
    from sizetool.operators.graph_cache import operator_table

    table = operator_table(str(ELF), report)
    ops = view(embedded(render_html(replace(report, operators=table), "t")), "ops")
    sizes = {child["name"]: child["size"] for child in ops["tree"]["children"]}
    assert ops["tree"]["size"] == sum(sizes.values()) == size_tool_totals()[0]
    assert all(sizes.get(o.op, 0) == o.exclusive_bytes for o in table.operators)
    assert sizes[RUNTIME_NODE] == table.runtime_bytes


def test_cli_writes_the_page(tmp_path, capsys):
    target = tmp_path / "report.html"
    status = cli.main([str(ELF), "--format", "html", "-o", str(target)])
    assert status == 0 and capsys.readouterr().out == ""
    data = embedded(target.read_text(encoding="utf-8"))
    assert (data["totals"]["rom"], data["totals"]["ram"]) == size_tool_totals()
    assert data["source"] == "firmware.elf" and data["regions"] == []


# --- the page in a real browser -------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def page_file(tmp_path_factory, report) -> Path:
    path = tmp_path_factory.mktemp("html") / "firmware.html"
    hostile_entries = [
        replace(e, symbol=HOSTILE) if e.memory == "rom" and e.symbol == "tflite::Register_SOFTMAX()" else e
        for e in report.entries
    ]
    assert hostile_entries != report.entries
    path.write_text(
        render_html(replace(report, entries=hostile_entries, operators=hand_built_operators(report.rom_total)),
                    "Size report: firmware.elf"),
        encoding="utf-8",
    )
    return path


def test_browser_draws_the_rom_treemap_with_its_totals(chromium, page_file, report):
    dom = load(chromium, page_file)
    boxes = dom.by_class("node")
    assert len(boxes) > 20
    top_level = [b for b in boxes if b["attrs"]["data-level"] == "1"]
    assert sum(int(b["attrs"]["data-size"]) for b in top_level) == report.rom_total
    files: dict[str, int] = {}
    for entry in report.entries_for("rom"):
        files["/".join(entry.path)] = files.get("/".join(entry.path), 0) + entry.size
    largest = sorted(files, key=lambda p: (-files[p], p))[:3]
    drawn = {b["attrs"]["data-path"]: int(b["attrs"]["data-size"]) for b in boxes}
    assert {path: drawn.get(path) for path in largest} == {path: files[path] for path in largest}
    assert dom.by_id("total-rom")["text"] == f"{report.rom_total} bytes"
    assert dom.by_id("zoom-size")["attrs"]["data-bytes"] == str(report.rom_total)  # written by the page's script
    assert [t["attrs"]["data-view"] for t in dom.by_class("tab")] == ["rom", "ram", "ops"]
    assert dom.by_class("tab")[0]["attrs"]["class"] == "tab active"
    title = next(e for e in dom.elements if e["tag"] == "title")
    assert title["text"] == "Size report: firmware.elf"  # the hostile symbol's script never ran
    assert len([e for e in dom.elements if e["tag"] == "script"]) == 2


def test_browser_zooms_and_searches_from_the_address(chromium, page_file, report):
    dom = load(chromium, page_file, "#path=kernels&search=conv")
    boxes = dom.by_class("node")
    assert boxes and all(b["attrs"]["data-path"].startswith("kernels/") for b in boxes)
    assert dom.by_class("crumb-current")[0]["attrs"]["data-path"] == "kernels"
    kernels = sum(e.size for e in report.entries_for("rom") if e.path[:1] == ("kernels",))
    assert dom.by_id("zoom-size")["attrs"]["data-bytes"] == str(kernels)
    matches = dom.by_class("match")
    assert matches and all("conv" in m["attrs"]["data-path"].rsplit("/", 1)[-1].lower() for m in matches)
    assert "kernels/conv.cc" in {m["attrs"]["data-path"] for m in matches}
    expected = {"/".join(e.path[:depth]) for e in report.entries_for("rom") for depth in range(1, len(e.path) + 1)
                if "conv" in e.path[depth - 1].lower()}
    expected |= {"/".join(e.path + (e.symbol,)) for e in report.entries_for("rom") if "conv" in e.symbol.lower()}
    listed = {item["attrs"]["data-path"] for item in dom.by_class("match-item")}
    assert listed == expected and 0 < len(listed) <= 200


def test_browser_shows_the_operator_view_and_the_hostile_name_as_text(chromium, page_file):
    dom = load(chromium, page_file, "#view=ops")
    drawn = {b["attrs"]["data-path"]: int(b["attrs"]["data-size"]) for b in dom.by_class("node")}
    assert drawn["SOFTMAX"] == 1814 and drawn["CONV_2D"] == 1558 and drawn[RUNTIME_NODE] == 9000
    assert "CONV_2D_INT8" not in drawn  # no exclusive bytes: no area, but a table row
    panel = dom.by_id("operator-panel")
    assert "hidden" not in panel["attrs"] and "tflite::Register_CONV_2D_INT8()" in panel["text"]
    assert len([e for e in dom.elements if e["tag"] == "tr" and "Register_" in e["text"]]) == 4
    dom = load(chromium, page_file, "#search=pwned")
    listed = [item["attrs"]["data-path"] for item in dom.by_class("match-item")]
    assert listed == [f"kernels/softmax.cc/{HOSTILE}"]
    assert HOSTILE in dom.by_class("match-item")[0]["text"]


def test_browser_screenshot_is_a_drawn_page(chromium, page_file, tmp_path):
    shot = tmp_path / "treemap.png"
    result = chromium(f"--screenshot={shot}", page_file.as_uri())
    assert result.returncode == 0 and shot.is_file(), result.stderr[-500:]
    png = shot.read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", png[16:24])
    assert (width, height) == WINDOW
    pixels = zlib.decompress(b"".join(_png_chunks(png, b"IDAT")))
    assert len(set(pixels)) > 64  # a blank or one-colour page has only a handful of distinct byte values


def _png_chunks(png: bytes, kind: bytes):
    offset = 8
    while offset < len(png):
        length, chunk = struct.unpack(">I4s", png[offset : offset + 8])
        if chunk == kind:
            yield png[offset + 8 : offset + 8 + length]
        offset += 12 + length


def test_the_header_draws_a_bar_only_for_regions_with_a_size():
    # ESP-IDF's flash memory types and the "(image)" rows have no size in the map: their used figure alone, never
    # "24556 of 0 bytes (0.00%)".
    layouts = Path(__file__).resolve().parents[3] / "fixtures" / "layouts" / "out" / "esp32-like"
    report = build_report(str(layouts / "esp32-like.elf"), map_path=str(layouts / "esp32-like.map"), use_cache=False)
    page = render_html(report, "esp32-like.elf")
    rows = re.findall(r'<div class="region">(.*?)</div>', page)
    sized = [r for r in report.regions if r.length]
    unsized = [r for r in report.regions if not r.length]
    assert sized and unsized and len(rows) == len(report.regions)
    assert " of 0 bytes" not in page
    for region in unsized:
        assert f'<span class="region-name">{region.name}</span><span>{region.used} bytes</span>' in rows
    assert sum("region-bar" in row for row in rows) == len(sized)
