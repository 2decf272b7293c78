"""size-report diff: deltas between fixture builds, checked against the `size` figures recorded at build time."""

import json
from pathlib import Path

import pytest

from sizetool import cli
from sizetool.ci.diff import diff_operators, diff_reports
from sizetool.report.report_builder import build_report
from sizetool.report.operator_records import OperatorCost, OperatorTable
from sizetool.report.report_model import save_report

OUT = Path(__file__).resolve().parents[3] / "fixtures" / "firmware" / "out"
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


def ops_table(*rows):
    return OperatorTable(operators=[OperatorCost(op, f"tflite::Register_{op}()", exclusive, shared)
                                    for op, exclusive, shared in rows], runtime_bytes=100)


def test_operator_deltas_say_added_removed_and_changed_largest_first():
    old = ops_table(("CONV_2D", 1400, 4000), ("SOFTMAX", 2939, 2540), ("MUL", 998, 2788), ("ADD", 0, 50))
    new = ops_table(("CONV_2D", 1500, 4000), ("MUL", 998, 2700), ("ADD", 0, 50), ("WINDOW", 920, 609))
    rows = diff_operators(old, new)
    assert [(r.op, r.old, r.new, r.delta, r.status) for r in rows] == [
        ("SOFTMAX", 2939, 0, -2939, "removed"), ("WINDOW", 0, 920, 920, "added"),
        ("CONV_2D", 1400, 1500, 100, "changed"), ("MUL", 998, 998, 0, "changed")]  # MUL: shared bytes changed
    assert rows[-1].shared_delta == -88
    assert rows[0].registration == "tflite::Register_SOFTMAX()"


def test_operator_rows_need_a_table_on_both_sides_and_rom(full_report):
    old, new = build_report(str(OUT / FULL)), build_report(str(OUT / FULL))
    old.operators = ops_table(("CONV_2D", 1, 1))
    assert diff_reports(old, new).operators is None
    new.operators = ops_table(("CONV_2D", 2, 1))
    assert [r.delta for r in diff_reports(old, new).operators] == [1]
    assert diff_reports(old, new, "ram").operators is None


def test_diff_ops_between_elfs_and_saved_reports(tmp_path, capsys):
    pytest.importorskip("sizetool.operators.operator_cost")
    variant = OUT / "variants/cortex-m4/without_SOFTMAX.elf"
    assert cli.main(["diff", str(variant), str(OUT / FULL), "--ops", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    softmax = next(r for r in data["operators"] if r["op"] == "SOFTMAX")
    assert (softmax["status"], softmax["old"]) == ("added", 0) and softmax["new"] == softmax["delta"] > 0
    assert softmax["registration"] == "tflite::Register_SOFTMAX()"
    assert not any(r["status"] == "removed" for r in data["operators"])  # the variant registers nothing new

    # Saved with --ops, a report diffs clean against its own ELF, operators included.
    saved = tmp_path / "full.json"
    assert cli.main([str(OUT / FULL), "--ops", "--save", str(saved), "--format", "json"]) == 0
    capsys.readouterr()
    assert cli.main(["diff", str(saved), str(OUT / FULL), "--ops", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["operators"] == [] and data["delta"] == 0
    # Two saved reports with tables need no --ops.
    assert cli.main(["diff", str(saved), str(saved), "--format", "markdown"]) == 0
    assert capsys.readouterr().out.count("<details>") == 3


def test_diff_ops_refuses_a_saved_report_without_a_table_and_ram(tmp_path, full_report, capsys):
    saved = tmp_path / "plain.json"
    save_report(full_report, saved)
    assert cli.main(["diff", str(saved), str(saved), "--ops"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no operator table" in err and str(saved) in err
    assert cli.main(["diff", str(saved), str(saved), "--ops", "--ram"]) == 2
    assert "ROM" in capsys.readouterr().err


def test_operator_rows_in_text_and_csv(full_report):
    from sizetool.render.diff_output import render_diff_csv, render_diff_text

    old, new = build_report(str(OUT / FULL)), build_report(str(OUT / FULL))
    old.operators, new.operators = ops_table(("SOFTMAX", 2939, 1)), ops_table()
    result = diff_reports(old, new)
    assert "-2939      2939 -> 0         removed  SOFTMAX" in render_diff_text(result, 0)
    assert "operator,SOFTMAX,tflite::Register_SOFTMAX(),2939,0,-2939,removed" in render_diff_csv(result)


def test_diff_save_keeps_the_new_side_as_the_next_baseline(tmp_path, capsys):
    variant = OUT / "variants/cortex-m4/without_MUL.elf"
    saved = tmp_path / "next-baseline.json"
    assert cli.main(["diff", str(variant), str(OUT / FULL), "--ops", "--save", str(saved)]) == 0
    capsys.readouterr()
    data = json.loads(saved.read_text())
    assert data["rom"]["total_size"] == flash(FULL)  # the new side, not the old one
    assert any(o["op"] == "MUL" for o in data["operators"]["operators"])
    # and it is a baseline the next diff reads back
    assert cli.main(["diff", str(saved), str(OUT / FULL), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["delta"] == 0
