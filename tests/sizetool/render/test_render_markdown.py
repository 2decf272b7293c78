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
