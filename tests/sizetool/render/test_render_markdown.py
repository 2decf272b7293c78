"""Markdown output: a table per memory whose top-level rows sum to the heading's total."""

import re
from pathlib import Path

from sizetool.render.markdown import render_markdown
from sizetool.report.report_builder import build_report

OUT = Path(__file__).resolve().parents[3] / "fixtures" / "firmware" / "out"


def test_top_level_rows_sum_to_the_total_and_pipes_are_escaped():
    report = build_report(str(OUT / "cortex-m4/firmware.elf"))
    text = render_markdown(report, ["rom"], depth=1)
    assert f"## ROM: {report.rom_total} bytes" in text
    sizes = [int(m.group(1)) for m in re.finditer(r"^\| [^&|][^|]* \| (\d+) \|", text, re.MULTILINE)]
    assert sum(sizes) == report.rom_total
    deep = render_markdown(report, ["rom"], depth=0)
    assert "&nbsp;&nbsp;fully_connected.cc" in deep
    assert all(line.count(" | ") >= 2 for line in deep.splitlines() if line.startswith("| ") and "operator|" not in line)


def test_the_ram_heading_reads_used_reserved_free_per_region():
    layout = Path(__file__).resolve().parents[3] / "fixtures" / "layouts" / "out" / "cmsis-armcm4"
    report = build_report(str(layout / "firmware.elf"), map_path=str(layout / "firmware.map"), use_cache=False)
    heading = next(line for line in render_markdown(report, ["ram"], 1).splitlines() if line.startswith("## RAM"))
    assert heading.startswith("## RAM: 131072 bytes; RAM: used ")
    assert heading.endswith(" / reserved 4096 / free 106736 of 131072")
    assert "| &nbsp;&nbsp;(free) RAM | 106736 |" in render_markdown(report, ["ram"], 0)
