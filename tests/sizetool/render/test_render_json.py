"""JSON output: Zephyr size_report's rom.json/ram.json shape, sums, and the two-memory saved-report form."""

import json
from pathlib import Path

from sizetool.render.json_output import render_json
from sizetool.report.report_builder import build_report

OUT = Path(__file__).resolve().parents[3] / "fixtures" / "firmware" / "out"


def walk(node):
    yield node
    for child in node.get("children", []):
        yield from walk(child)


def test_one_memory_is_zephyrs_shape_and_every_inner_node_sums_its_children():
    report = build_report(str(OUT / "riscv32/firmware.elf"))
    data = json.loads(render_json(report, ["ram"]))
    assert data["total_size"] == report.ram_total == data["symbols"]["size"]
    assert data["memory"] == "ram" and data["arch"] == "riscv"
    for node in walk(data["symbols"]):
        assert {"name", "identifier", "size"} <= set(node)
        if "children" in node:
            assert node["size"] == sum(child["size"] for child in node["children"])
        else:
            assert isinstance(node["address"], int) and node["section"].startswith(".")


def test_both_memories_give_the_saved_report_form():
    report = build_report(str(OUT / "riscv32/firmware.elf"))
    data = json.loads(render_json(report, ["rom", "ram"]))
    assert data["schema"] == "sizetool-report"
    assert data["rom"]["total_size"] == report.rom_total and data["ram"]["total_size"] == report.ram_total


def test_json_keeps_the_physical_total_and_berkeley_figures_beside_it():
    sizes = json.loads((OUT / "sizes.json").read_text())["cortex-m4/firmware.elf"]
    report = build_report(str(OUT / "cortex-m4/firmware.elf"), map_path=str(OUT / "cortex-m4/firmware.map"))
    one = json.loads(render_json(report, ["ram"]))
    assert one["berkeley"] == {"text": sizes["text"], "data": sizes["data"], "bss": sizes["bss"]}
    assert one["total_size"] == report.ram_total != sizes["data"] + sizes["bss"]  # .init_array stays in flash
    assert [(r["name"], r["memory"], r["used"]) for r in one["regions"]] == [("RAM", "ram", report.ram_total)]
    both = json.loads(render_json(report, ["rom", "ram"]))
    assert both["schema_version"] == 2 and both["berkeley"] == one["berkeley"]
    assert {r["name"]: r["memory"] for r in both["regions"]} == {"FLASH": "rom", "RAM": "ram"}


def test_ram_keeps_lds_used_size_in_regions_and_adds_the_static_reserved_free_split():
    layout = Path(__file__).resolve().parents[3] / "fixtures" / "layouts" / "out" / "cmsis-armcm4"
    report = build_report(str(layout / "firmware.elf"), map_path=str(layout / "firmware.map"), use_cache=False)
    data = json.loads(render_json(report, ["ram"]))
    assert [(r["name"], r["used"]) for r in data["regions"]] == [("RAM", 131072)]  # ld's Used Size, as printed
    [use] = data["ram_use"]
    assert use["region"] == "RAM" and use["used"] == 131072
    assert use["static"] + use["reserved"] + use["free"] == use["length"] == 131072
    assert use["free"] > 100_000 and use["reserved"] == 4096
    assert json.loads(render_json(report, ["rom", "ram"]))["ram_use"] == [use]
    assert "ram_use" not in json.loads(render_json(report, ["rom"]))
