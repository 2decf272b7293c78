"""size-report diff: deltas between fixture builds, checked against the `size` figures recorded at build time."""

import json
from pathlib import Path

import pytest

from sizetool import cli
from sizetool.diff import diff_reports
from sizetool.report_builder import build_report
from sizetool.report_model import save_report

OUT = Path(__file__).resolve().parents[2] / "fixtures" / "firmware" / "out"
SIZES = json.loads((OUT / "sizes.json").read_text())
FULL = "cortex-m4/firmware-nodebug.elf"  # the variants carry no DWARF either, so paths compare like for like
VARIANTS = sorted(k for k in SIZES if k.startswith("variants/cortex-m4/"))


def flash(key: str) -> int:
    return SIZES[key]["text"] + SIZES[key]["data"]


@pytest.fixture(scope="module")
def full_report():
    return build_report(str(OUT / FULL))


@pytest.mark.parametrize("variant", VARIANTS)
def test_total_delta_is_the_recorded_flash_difference(full_report, variant):
    result = diff_reports(build_report(str(OUT / variant)), full_report)
    assert result.delta == flash(FULL) - flash(variant)
    assert sum(row.delta for row in result.symbols) == result.delta


def test_dropping_softmax_removes_its_registration(full_report):
    result = diff_reports(full_report, build_report(str(OUT / "variants/cortex-m4/without_SOFTMAX.elf")))
    removed = {row.symbol for row in result.symbols if row.status == "removed"}
    assert "tflite::Register_SOFTMAX()" in removed
    assert all(row.delta <= 0 for row in result.symbols if row.status == "removed")
    assert [abs(r.delta) for r in result.symbols] == sorted((abs(r.delta) for r in result.symbols), reverse=True)


def test_a_saved_report_diffs_clean_against_its_elf(tmp_path, full_report, capsys):
    saved = tmp_path / "main.json"
    save_report(full_report, saved)
    assert cli.main(["diff", str(saved), str(OUT / FULL), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["old_total"], data["new_total"], data["delta"]) == (flash(FULL), flash(FULL), 0)
    assert data["paths"] == [] and data["symbols"] == []


def test_ram_diff_uses_ram_totals(capsys):
    old, new = OUT / "variants/cortex-m4/without_DETECTION_POSTPROCESS.elf", OUT / FULL
    assert cli.main(["diff", str(old), str(new), "--ram", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    key = "variants/cortex-m4/without_DETECTION_POSTPROCESS.elf"
    assert data["delta"] == (SIZES[FULL]["data"] + SIZES[FULL]["bss"]) - (SIZES[key]["data"] + SIZES[key]["bss"])


def test_markdown_puts_the_summary_first_and_folds_details(capsys):
    cli.main(["diff", str(OUT / "variants/cortex-m4/without_CONV_2D.elf"), str(OUT / FULL), "--format", "markdown"])
    out = capsys.readouterr().out
    delta = flash(FULL) - flash("variants/cortex-m4/without_CONV_2D.elf")
    assert out.splitlines()[0].startswith("**ROM**") and f"+{delta}" in out.splitlines()[0]
    assert out.count("<details>") == 2


def test_csv_symbol_rows_sum_to_the_total_row(capsys):
    cli.main(["diff", str(OUT / "variants/cortex-m4/without_ADD.elf"), str(OUT / FULL), "--format", "csv"])
    rows = [line.split(",") for line in capsys.readouterr().out.splitlines()[1:]]
    total = next(r for r in rows if r[0] == "total")
    assert sum(int(r[-2]) for r in rows if r[0] == "symbol") == int(total[5])


@pytest.mark.parametrize("content", [b"", b"{not json", b'{"hello": 1}', b"\x00\x01binary"])
def test_bad_sides_are_one_line_and_status_2(tmp_path, capsys, content):
    bad = tmp_path / "bad.json"
    bad.write_bytes(content)
    assert cli.main(["diff", str(bad), str(OUT / FULL)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(bad) in err
