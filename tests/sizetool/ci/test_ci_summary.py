"""check's summary outputs for CI pages and build systems: --summary, --summary-json, --github-output, --reasons."""

import json
from pathlib import Path

from sizetool import cli
from sizetool.report.report_builder import build_report

OUT = Path(__file__).resolve().parents[3] / "fixtures" / "firmware" / "out"
ELF = OUT / "cortex-m4/firmware.elf"
BASELINE = OUT / "variants/cortex-m4/without_SOFTMAX.elf"


def run(capsys, *argv):
    status = cli.main([str(a) for a in argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def budget_file(tmp_path, text):
    path = tmp_path / "size-budget.toml"
    path.write_text(text)
    return path


def test_passing_build_summaries_carry_totals_and_deltas_against_the_baseline(tmp_path, capsys):
    new, old = build_report(str(ELF)), build_report(str(BASELINE))
    budget = budget_file(tmp_path, f"[rom]\ntotal = {new.rom_total}\n")
    outputs = tmp_path / "github-output"
    outputs.write_text("earlier=1\n")
    status, _, err = run(capsys, "check", ELF, "--budget", budget, "--baseline", BASELINE, "--reasons",
                         "--summary", tmp_path / "s.md", "--summary-json", tmp_path / "s.json",
                         "--github-output", outputs)
    assert status == 0 and err == ""
    rom_delta, ram_delta = new.rom_total - old.rom_total, new.ram_total - old.ram_total
    assert rom_delta > 0
    summary = json.loads((tmp_path / "s.json").read_text())
    assert summary == {"status": "pass", "rom": new.rom_total, "ram": new.ram_total, "rom_delta": rom_delta,
                       "ram_delta": ram_delta, "failures": [], "rules": summary["rules"]}
    assert [rule["rule"] for rule in summary["rules"]] == ["rom.total"]
    markdown = (tmp_path / "s.md").read_text()
    assert markdown.startswith("**Size budget: all 1 rules pass**")
    assert f"| ROM | {new.rom_total} | {rom_delta:+d} |" in markdown
    assert outputs.read_text() == (f"earlier=1\nrom={new.rom_total}\nram={new.ram_total}\nrom-delta={rom_delta:+d}\n"
                                   f"ram-delta={ram_delta:+d}\nstatus=pass\n")


def test_failing_build_gives_one_reason_line_per_failed_rule(tmp_path, capsys):
    rom = build_report(str(ELF)).rom_total
    budget = budget_file(tmp_path, f'[rom]\ntotal = {rom - 10}\n[rom.paths]\n"**" = "1K"\n[ram]\ntotal = "1M"\n')
    status, _, err = run(capsys, "check", ELF, "--budget", budget, "--reasons", "--summary", tmp_path / "s.md",
                         "--summary-json", tmp_path / "s.json", "--github-output", tmp_path / "out")
    assert status == 1
    assert err.splitlines()[0] == f"size-report check: FAIL rom.total: {rom} bytes exceeds the limit {rom - 10} " \
                                  f"({rom - 10} bytes) by 10"
    assert len(err.splitlines()) == 2 and err.splitlines()[1].startswith("size-report check: FAIL rom.paths[**]: ")
    summary = json.loads((tmp_path / "s.json").read_text())
    assert summary["status"] == "fail" and summary["rom_delta"] is None and len(summary["failures"]) == 2
    markdown = (tmp_path / "s.md").read_text()
    assert markdown.startswith("**Size budget: 2 of 3 rules failed**")
    assert f"| ROM | {rom} | - |" in markdown
    assert "- `rom.paths[**]`: " in markdown  # the glob stays code, never bold markdown
    assert "rom-delta=\n" in (tmp_path / "out").read_text() and "status=fail\n" in (tmp_path / "out").read_text()


def test_the_new_options_leave_the_existing_outputs_byte_identical(tmp_path, capsys):
    budget = budget_file(tmp_path, '[rom]\ntotal = "20K"\n')
    for output_format in ("tree", "json", "markdown"):
        plain = run(capsys, "check", ELF, "--budget", budget, "--format", output_format)
        extended = run(capsys, "check", ELF, "--budget", budget, "--format", output_format,
                       "--summary", tmp_path / "s.md", "--github-output", tmp_path / "o")
        assert plain == extended


def test_an_empty_budget_summarises_the_totals(tmp_path, capsys):
    report = build_report(str(ELF))
    status, out, _ = run(capsys, "check", ELF, "--budget", budget_file(tmp_path, ""), "--summary", tmp_path / "s.md")
    assert status == 0
    markdown = (tmp_path / "s.md").read_text()
    assert markdown.startswith("**Size: no budget rules**") and f"| RAM | {report.ram_total} | - |" in markdown


def test_an_unwritable_github_output_is_one_line_and_status_2(tmp_path, capsys):
    budget = budget_file(tmp_path, '[rom]\ntotal = "1M"\n')
    status, _, err = run(capsys, "check", ELF, "--budget", budget, "--github-output", tmp_path / "no" / "such")
    assert status == 2 and err.count("\n") == 1 and "cannot write" in err
