"""The terminal tree: sizes, shares, addresses, folding, colour only on request, and the region table."""

from pathlib import Path

from sizetool.render.tree import render_tree
from sizetool.report.report_builder import build_report

OUT = Path(__file__).resolve().parents[3] / "fixtures" / "firmware" / "out"


def test_tree_lines_show_size_share_address_and_section():
    report = build_report(str(OUT / "cortex-m4/firmware.elf"))
    text = render_tree(report, ["rom"], depth=0)
    assert text.startswith(f"ROM firmware.elf: {report.rom_total} bytes\n")
    (line,) = [l for l in text.splitlines() if "tflite::Register_SOFTMAX()" in l]
    (entry,) = [e for e in report.entries_for("rom") if e.symbol == "tflite::Register_SOFTMAX()"]
    assert f"{entry.size:>8}" in line and f"@0x{entry.address:08x} .text" in line
    assert "\x1b[" not in text


def test_depth_folds_and_all_prints_both_memories():
    report = build_report(str(OUT / "cortex-m4/firmware.elf"))
    folded = render_tree(report, ["rom", "ram"], depth=1)
    top_level = [l for l in folded.splitlines() if l.startswith(("├── ", "└── "))]
    assert len(top_level) == len(folded.splitlines()) - 2  # only the two titles besides the top-level nodes
    assert "RAM firmware.elf" in folded and "softmax.cc" not in folded


def test_colour_when_asked_and_regions_table_with_a_map():
    report = build_report(str(OUT / "cortex-m4/firmware.elf"), map_path=str(OUT / "cortex-m4/firmware.map"))
    text = render_tree(report, ["rom"], depth=2, color=True)
    assert "\x1b[" in text and "Memory region" in text and "FLASH:" in text
