"""CSV output: one row per labelled run; rows of each memory sum to its total."""

import csv
import io
from pathlib import Path

from sizetool.render.csv_output import CSV_COLUMNS, render_csv
from sizetool.report.report_builder import build_report

OUT = Path(__file__).resolve().parents[3] / "fixtures" / "firmware" / "out"


def test_rows_sum_per_memory_and_carry_mangled_names():
    report = build_report(str(OUT / "host-x86_64/firmware.elf"))
    rows = list(csv.DictReader(io.StringIO(render_csv(report, ["rom", "ram"]))))
    assert tuple(rows[0]) == CSV_COLUMNS
    for memory in ("rom", "ram"):
        assert sum(int(r["size"]) for r in rows if r["memory"] == memory) == report.total(memory)
    (row,) = [r for r in rows if r["symbol"] == "tflite::Register_SOFTMAX()" and r["memory"] == "rom"]
    assert row["mangled"] == "_ZN6tflite16Register_SOFTMAXEv" and row["path"] == "kernels/softmax.cc"
    assert int(row["address"], 16) > 0
