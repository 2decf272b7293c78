"""`size-report ELF --stack`: every format, .su cross-check, models, budgets, and bad input with exit 2."""

import csv
import io
import json
from pathlib import Path

import pytest

from sizetool import cli

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
OUT = FIXTURES / "firmware/out"
ELF = str(OUT / "cortex-m4/firmware.elf")
SU = str(OUT / "cortex-m4/su")


def run(capsys, *argv):
    status = cli.main([str(a) for a in argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_json_gives_each_roots_depth_path_and_warnings(capsys):
    status, out, _ = run(capsys, ELF, "--stack", "--su-dir", SU, "--format", "json")
    data = json.loads(out)
    assert status == 0
    assert [root["root"] for root in data["roots"]][:2] == ["main", "Reset_Handler"]
    main = data["roots"][0]
    assert main["depth"] == main["path"][-1]["depth"] + main["path"][-1]["frame"]
    assert main["bounded"] is False and main["warnings"]
    assert {"kind", "function", "address", "detail"} == set(main["warnings"][0])
    assert data["stack_usage"]["matched"] > 100 and data["stack_usage"]["mismatches"] == []


def test_csv_markdown_and_tree_carry_the_same_figure(capsys):
    _, json_out, _ = run(capsys, ELF, "--stack", "main", "--format", "json")
    depth = json.loads(json_out)["roots"][0]["depth"]
    _, csv_out, _ = run(capsys, ELF, "--stack", "main", "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(csv_out)))
    assert [int(r["depth"]) for r in rows if r["record"] == "total"] == [depth]
    assert any(r["record"] == "warning" and r["address"].startswith("0x") for r in rows)
    _, markdown, _ = run(capsys, ELF, "--stack", "main", "--format", "markdown")
    assert f"| `main` | named | {depth} B |" in markdown
    _, tree, _ = run(capsys, ELF, "--stack", "main")
    assert f"main (named): {depth} bytes worst case" in tree
    assert "warning: indirect call: " in tree


def test_output_is_deterministic(capsys):
    first = run(capsys, ELF, "--stack", "--format", "json")[1]
    assert run(capsys, ELF, "--stack", "--format", "json")[1] == first


def test_a_model_narrows_invoke_to_its_kernels(capsys):
    invoke = "tflite::MicroInterpreter::Invoke()"
    _, everything, _ = run(capsys, ELF, "--stack", invoke, "--format", "json")
    _, narrowed, _ = run(capsys, ELF, "--stack", invoke, "--model", FIXTURES / "models/unused_opcodes.tflite",
                         "--format", "json")
    assert json.loads(narrowed)["roots"][0]["depth"] < json.loads(everything)["roots"][0]["depth"]
    assert json.loads(narrowed)["models"]


@pytest.mark.parametrize("argv, message", [
    ([ELF, "--stack", "nosuch"], "unknown root function 'nosuch'"),
    ([str(OUT / "cortex-m4/firmware-stripped.elf"), "--stack"], "no symbol table"),
    ([ELF, "--stack", "--su-dir", str(FIXTURES / "models")], "no .su files"),
    ([ELF, "--stack", "--su-dir", "/nonexistent/su"], "not a directory"),
    ([ELF, "--su-dir", SU], "--su-dir goes with --stack"),
    ([ELF, "--stack", "--format", "html"], "--stack prints"),
    ([str(FIXTURES / "models/unused_opcodes.tflite"), "--stack"], "not an ELF"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, argv, message):
    status, out, err = run(capsys, *argv)
    assert status == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and message in err


def test_a_stack_budget_fails_over_the_limit_and_passes_under_it(capsys, tmp_path):
    _, out, _ = run(capsys, ELF, "--stack", "main", "--format", "json")
    depth = json.loads(out)["roots"][0]["depth"]
    budget = tmp_path / "size-budget.toml"
    budget.write_text(f'[stack]\n"main" = {depth}\n"tflite::MicroInterpreter::Invoke()" = "4K"\n')
    status, out, _ = run(capsys, "check", ELF, "--budget", budget)
    assert status == 0 and "stack[main]" in out
    budget.write_text(f'[stack]\n"main" = {depth - 1}\n')
    status, out, _ = run(capsys, "check", ELF, "--budget", budget, "--format", "json")
    assert status == 1 and "a lower bound" in out


@pytest.mark.parametrize("text, message", [
    ('[stack]\n"main" = "lots"\n', "size-budget.toml:2:"),
    ('[stack]\n"nosuch" = "1K"\n', "size-budget.toml: [stack]: unknown root function 'nosuch'"),
    ('[stack]\n"main" = "50%"\n', "a percentage is not allowed"),
    ('[stack.main]\nlimit = 1\n', "must be a size, not a table"),
])
def test_bad_stack_budgets_name_the_file_and_exit_2(capsys, tmp_path, text, message):
    budget = tmp_path / "size-budget.toml"
    budget.write_text(text)
    status, _, err = run(capsys, "check", ELF, "--budget", budget)
    assert status == 2 and message in err and len(err.strip().splitlines()) == 1


def test_stack_rules_need_the_elf_not_a_saved_report(capsys, tmp_path):
    saved = tmp_path / "report.json"
    run(capsys, ELF, "--save", saved)
    budget = tmp_path / "size-budget.toml"
    budget.write_text('[stack]\n"main" = "4K"\n')
    status, _, err = run(capsys, "check", saved, "--budget", budget)
    assert status == 2 and "[stack] rules" in err


def test_ignore_cuts_the_calls_into_a_function(capsys):
    _, out, _ = run(capsys, ELF, "--stack", "main", "--format", "json")
    full = json.loads(out)["roots"][0]
    assert any(step["function"].startswith("tflite::MicroPrintf(") for step in full["path"])
    _, out, _ = run(capsys, ELF, "--stack", "main", "--ignore", "tflite::MicroPrintf", "--format", "json")
    cut = json.loads(out)
    assert cut["ignored"] == ["tflite::MicroPrintf(char const*, ...)"]
    assert cut["roots"][0]["depth"] < full["depth"]
    assert not any(step["function"].startswith("tflite::MicroPrintf(") for step in cut["roots"][0]["path"])
    status, _, err = run(capsys, ELF, "--stack", "--ignore", "nosuch")
    assert status == 2 and "nosuch" in err
    status, _, err = run(capsys, ELF, "--ignore", "main")
    assert status == 2 and "--ignore goes with --stack" in err


def test_the_terminal_shows_a_long_path_in_a_few_lines_and_verbose_shows_every_step(capsys):
    _, json_out, _ = run(capsys, "stack", ELF, "main", "--format", "json")
    path = json.loads(json_out)["roots"][0]["path"]
    assert len(path) > 5
    _, short, _ = run(capsys, "stack", ELF, "main")
    _, verbose, _ = run(capsys, "stack", ELF, "main", "--verbose")
    deepest, largest = path[-1], max(path[3:-1], key=lambda step: step["frame"])
    for step in path[:3] + [largest, deepest]:
        assert step["function"][:30] in short
    left_out = [step for step in path[3:-1] if step is not largest]
    assert sum(int(line.split("... ")[1].split()[0]) for line in short.splitlines() if "more frame" in line) == \
        len(left_out)
    assert f"total: {len(path)} frames" in short
    assert all(step["function"][:30] in verbose for step in path) and "more frame" not in verbose


def test_repeated_warnings_are_one_line_with_a_count_and_verbose_lists_each(capsys):
    _, json_out, _ = run(capsys, "stack", ELF, "--format", "json")
    roots = json.loads(json_out)["roots"]
    every = sum(len(root["warnings"]) for root in roots)
    _, short, _ = run(capsys, "stack", ELF)
    _, verbose, _ = run(capsys, "stack", ELF, "-v")
    assert sum(line.startswith("warning: ") for line in verbose.splitlines()) == every
    lines = [line for line in short.splitlines() if line.startswith("warning: ")]
    main = roots[0]["warnings"]
    # main: one line per kind, with its sites counted; Reset_Handler reaches main: main's warnings are one line there
    kinds = {w["kind"] for w in main}
    assert len(lines) <= len(kinds) + 2 < every / 5
    for kind in kinds:
        count = sum(w["kind"] == kind for w in main)
        assert any(line.startswith(f"warning: {kind}: {count} sites in ") for line in lines) or count == 1
    assert "warning: " + f"{len(main)} warnings as under main (reached from both)" in lines


def test_verbose_goes_with_the_stack(capsys):
    status, _, err = run(capsys, ELF, "--verbose")
    assert status == 2 and "--verbose goes with --stack" in err


def test_a_handler_that_calls_nothing_is_measured_not_a_bound(capsys):
    elf = ELF
    assert cli.main(["stack", str(elf), "--format", "json"]) == 0
    roots = {r["root"]: r for r in json.loads(capsys.readouterr().out)["roots"]}
    handler = roots["Default_Handler"]
    assert handler["measured"] and handler["bounded"] and handler["depth"] == 0 and len(handler["path"]) == 1
    assert not roots["main"]["measured"]
    assert cli.main(["stack", str(elf)]) == 0
    line = next(l for l in capsys.readouterr().out.splitlines() if l.startswith("Default_Handler"))
    assert "0 B   measured" in line and "upper bound" not in line
