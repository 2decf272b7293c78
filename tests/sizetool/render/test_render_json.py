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
