"""Budgets: rules that pass and fail, baselines, malformed budget files, CI outputs, and the check command."""

import json
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

from sizetool import cli
from sizetool.ci.budget import check_budget, glob_to_regex, read_budget
from sizetool.errors import SizeToolError
from sizetool.report.report_builder import build_report
from sizetool.report.operator_records import OperatorCost, OperatorTable
from sizetool.report.report_model import load_report

OUT = Path(__file__).resolve().parents[3] / "fixtures" / "firmware" / "out"
ELF = OUT / "cortex-m4/firmware.elf"
MAP = OUT / "cortex-m4/firmware.map"
SIZES = json.loads((OUT / "sizes.json").read_text())
ROM = SIZES["cortex-m4/firmware.elf"]["text"] + SIZES["cortex-m4/firmware.elf"]["data"]
RAM = SIZES["cortex-m4/firmware.elf"]["data"] + SIZES["cortex-m4/firmware.elf"]["bss"]


def budget_file(tmp_path, text):
    path = tmp_path / "size-budget.toml"
    path.write_text(text)
    return str(path)


def run(capsys, *argv):
    status = cli.main([str(a) for a in argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_totals_at_the_exact_size_pass_and_one_byte_less_fails(tmp_path):
    report = build_report(str(ELF))
    exact = read_budget(budget_file(tmp_path, f"[rom]\ntotal = {ROM}\n[ram]\ntotal = {RAM}\n"))
    assert [r.passed for r in check_budget(exact, report)] == [True, True]
    tight = read_budget(budget_file(tmp_path, f"[rom]\ntotal = {ROM - 1}\n"))
    (result,) = check_budget(tight, report)
    assert not result.passed and result.headroom == -1


def test_growth_against_a_baseline_is_the_recorded_difference(tmp_path):
    variant = "variants/cortex-m4/without_SOFTMAX.elf"
    growth = ROM - (SIZES[variant]["text"] + SIZES[variant]["data"])
    budget = read_budget(budget_file(tmp_path, f'[rom]\nmax_growth = {growth}\n'))
    (result,) = check_budget(budget, build_report(str(ELF)), build_report(str(OUT / variant)))
    assert result.actual == growth and result.passed
    percent = read_budget(budget_file(tmp_path, '[rom]\nmax_growth = "0.5%"\n'))
    (result,) = check_budget(percent, build_report(str(ELF)), build_report(str(OUT / variant)))
    assert not result.passed and result.limit == int((ROM - growth) * 0.005)


def test_growth_rules_without_a_baseline_are_a_user_error(tmp_path):
    budget = read_budget(budget_file(tmp_path, '[rom]\nmax_growth = "1K"\n'))
    with pytest.raises(SizeToolError, match="--baseline"):
        check_budget(budget, build_report(str(ELF)))


def test_path_globs_sum_the_bytes_under_them(tmp_path):
    report = build_report(str(ELF))
    kernels = sum(e.size for e in report.entries_for("rom") if e.path[0] == "kernels")
    budget = read_budget(budget_file(tmp_path, f'[rom.paths]\n"kernels/**" = {kernels}\n"**/nothing.cc" = 0\n'))
    results = check_budget(budget, report)
    assert [(r.actual, r.passed) for r in results] == [(kernels, True), (0, True)]


@pytest.mark.parametrize("pattern,path,matches", [
    ("kernels/**", "kernels/conv.cc", True),
    ("kernels/*", "kernels/sub/conv.cc", False),
    ("**/conv.cc", "conv.cc", True),
    ("**/conv.cc", "a/b/conv.cc", True),
    ("kernels/?onv.cc", "kernels/conv.cc", True),
])
def test_glob_semantics(pattern, path, matches):
    assert bool(glob_to_regex(pattern).match(path)) is matches


def test_regions_use_the_map(tmp_path):
    budget = read_budget(budget_file(tmp_path, '[regions]\nFLASH = "95%"\nRAM = "16K"\n'))
    results = check_budget(budget, build_report(str(ELF), map_path=str(MAP)))
    assert [(r.rule.name, r.passed) for r in results] == [("regions.FLASH", True), ("regions.RAM", False)]


def test_esp_idf_memory_types_are_budget_regions(tmp_path):
    layout = OUT.parent.parent / "layouts" / "out" / "esp32-like"
    report = build_report(str(layout / "esp32-like.elf"), map_path=str(layout / "esp32-like.map"))
    budget = read_budget(budget_file(tmp_path, '[regions]\n"Flash Code" = "24K"\nIRAM = "1%"\nDRAM = "10%"\n'))
    results = check_budget(budget, report)
    assert [(r.rule.name, r.passed) for r in results] == [
        ("regions.Flash Code", True), ("regions.IRAM", True), ("regions.DRAM", False)]
    # A flash type has no size in the map (the partition bounds it): a percentage of it is refused, with the line.
    budget = read_budget(budget_file(tmp_path, '[regions]\n"Flash Data" = "50%"\n'))
    with pytest.raises(SizeToolError, match=r":2: \[regions\] Flash Data: its size is not known"):
        check_budget(budget, report)


@pytest.mark.parametrize("text,line,reason", [
    ('[rom]\ntotl = "1K"\n', 2, "unknown key 'totl'"),
    ('[rom]\ntotal = "12Q"\n', 2, "12Q"),
    ('[rom]\ntotal = "5%"\n', 2, "percentage is not allowed"),
    ('\n[romm]\ntotal = 1\n', 2, "unknown table [romm]"),
    ('[rom]\ntotal = \n', 2, ""),
    ('[ram.operators]\nCONV_2D = "8K"\n', 1, "put them in [rom.operators]"),
    ('[rom.operators]\nCONV_2D = "5%"\n', 2, "percentage is not allowed"),
    ('[rom.operators]\nCONV_2D = "8Q"\n', 2, "8Q"),
    ('[rom]\noperators = "8K"\n', 2, "must be a table of OP = size"),
    # non-finite, negative, wrong types, wrong nesting: every one a line naming the file, never a crash
    ('[rom]\nmax_growth = "nan%"\n', 2, "not a finite percentage"),
    ('[rom]\nmax_growth = "inf%"\n', 2, "not a finite percentage"),
    ('[regions]\nFLASH = "1e400%"\n', 2, "not a finite percentage"),
    ('[rom]\nmax_growth = "-5%"\n', 2, "cannot be negative"),
    ('[rom]\ntotal = nan\n', 2, "nan"),
    ('[rom]\ntotal = inf\n', 2, "inf"),
    ('[rom]\ntotal = -inf\n', 2, "inf"),
    ('[rom]\ntotal = -1\n', 2, "cannot be negative"),
    ('[rom]\ntotal = "-4K"\n', 2, "-4K"),
    ('[rom]\ntotal = 1.5\n', 2, "not a whole number"),
    ('[rom]\ntotal = true\n', 2, "True"),
    ('[rom]\ntotal = [1, 2]\n', 2, "[1, 2]"),
    ('[rom]\ntotal = 1979-05-27\n', 2, "1979"),
    ('[rom.total]\nx = 1\n', 0, "must be a size, not a table"),
    ('[rom.paths]\n"**" = {x = 1}\n', 2, "expected a size"),
    ('rom = 5\n', 1, "must be a table"),
    ('[[rom]]\ntotal = 1\n', 0, "must be a table"),
    ('[models]\n"m.tflite" = {a = 1}\n', 2, "unknown key 'a'"),
    ('[stack]\n"main" = {a = 1}\n', 2, "not a table"),
])
def test_a_malformed_budget_names_file_line_and_reason(tmp_path, text, line, reason):
    path = budget_file(tmp_path, text)
    with pytest.raises(SizeToolError) as error:
        read_budget(path)
    message = str(error.value)
    assert message.startswith(path) and reason in message and "\n" not in message
    assert f":{line}:" in message or f"line {line}" in message or (line == 0 and message.startswith(path + ":"))


def test_check_exits_1_on_failure_0_on_pass_2_on_bad_budget(tmp_path, capsys):
    assert run(capsys, "check", ELF, "--budget", budget_file(tmp_path, f"[rom]\ntotal = {ROM}\n"))[0] == 0
    status, out, _ = run(capsys, "check", ELF, "--budget", budget_file(tmp_path, f"[rom]\ntotal = {ROM - 1}\n"))
    assert status == 1 and "FAIL" in out and "0 passed, 1 failed" in out
    status, _, err = run(capsys, "check", ELF, "--budget", budget_file(tmp_path, "[rom]\ntotal = [\n"))
    assert status == 2 and err.count("\n") == 1


def test_junit_and_github_annotations(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    junit = tmp_path / "size.xml"
    budget = budget_file(tmp_path, f"[rom]\ntotal = {ROM - 8}\n[ram]\ntotal = {RAM}\n")
    status, out, _ = run(capsys, "check", ELF, "--budget", budget, "--junit", junit)
    assert status == 1
    assert f"::error file={budget},line=2,title=Size budget::rom.total: {ROM} bytes" in out
    suite = ElementTree.parse(junit).getroot().find("testsuite")
    assert (suite.get("tests"), suite.get("failures")) == ("2", "1")
    assert [c.get("name") for c in suite.iter("testcase") if c.find("failure") is not None] == ["rom.total"]


def test_markdown_summary_comes_first(tmp_path, capsys):
    _, out, _ = run(capsys, "check", ELF, "--budget", budget_file(tmp_path, f"[rom]\ntotal = {ROM}\n"),
                    "--format", "markdown")
    assert out.splitlines()[0] == "**Size budget: all 1 rules pass**" and "<details>" in out


def with_operators(report, *costs):
    report.operators = OperatorTable(operators=[OperatorCost(op, f"tflite::Register_{op}()", size, 0)
                                                for op, size in costs])
    return report


def test_operator_rules_limit_exclusive_bytes(tmp_path):
    report = with_operators(build_report(str(ELF)), ("CONV_2D", 1427), ("CONV_2D_INT8", 130))
    budget = read_budget(budget_file(tmp_path, '[rom.operators]\nCONV_2D = 1427\nCONV_2D_INT8 = 129\n'))
    results = check_budget(budget, report)
    # CONV_2D is its own registration: the INT8 kernel's bytes do not count towards it.
    assert [(r.rule.name, r.actual, r.limit, r.passed) for r in results] == [
        ("rom.operators[CONV_2D]", 1427, 1427, True), ("rom.operators[CONV_2D_INT8]", 130, 129, False)]
    assert [r.rule.line for r in results] == [2, 3]


def test_an_operator_the_firmware_does_not_register_passes_with_a_note(tmp_path):
    report = with_operators(build_report(str(ELF)), ("CONV_2D", 1427))
    (result,) = check_budget(read_budget(budget_file(tmp_path, '[rom.operators]\nCONV_3D = 0\n')), report)
    assert (result.actual, result.passed) == (0, True)
    assert "CONV_3D is not registered" in result.note
    empty = with_operators(build_report(str(ELF)))
    (result,) = check_budget(read_budget(budget_file(tmp_path, '[rom.operators]\nCONV_2D = 0\n')), empty)
    assert result.passed and "no operator is registered" in result.note


def test_operator_rules_without_an_operator_table_are_a_user_error(tmp_path):
    budget = read_budget(budget_file(tmp_path, '[rom.operators]\nCONV_2D = "8K"\n'))
    with pytest.raises(SizeToolError, match="no operator table .* --ops --save"):
        check_budget(budget, build_report(str(ELF)))


def test_check_computes_operators_for_an_elf_and_reads_them_from_a_saved_report(tmp_path, capsys):
    pytest.importorskip("sizetool.operators.operator_cost")
    budget = budget_file(tmp_path, '[rom.operators]\nCONV_2D = "1M"\nSOFTMAX = 0\nNOT_AN_OP = 0\n')
    status, out, _ = run(capsys, "check", ELF, "--budget", budget, "--format", "json")
    rules = {r["rule"]: r for r in json.loads(out)["rules"]}
    assert status == 1  # SOFTMAX costs more than nothing
    assert rules["rom.operators[CONV_2D]"]["passed"] and not rules["rom.operators[SOFTMAX]"]["passed"]
    assert rules["rom.operators[SOFTMAX]"]["actual"] > 0
    unknown = rules["rom.operators[NOT_AN_OP]"]
    assert unknown["actual"] == 0 and unknown["passed"] and "not registered" in unknown["note"]

    plain = tmp_path / "plain.json"
    with_ops = tmp_path / "ops.json"
    assert run(capsys, ELF, "--save", plain)[0] == 0
    assert run(capsys, ELF, "--ops", "--save", with_ops)[0] == 0
    status, _, err = run(capsys, "check", plain, "--budget", budget)
    assert status == 2 and "no operator table" in err and err.count("\n") == 1
    status, out, _ = run(capsys, "check", with_ops, "--budget", budget, "--format", "json")
    assert status == 1 and {r["rule"]: r["actual"] for r in json.loads(out)["rules"]} == {
        name: rule["actual"] for name, rule in rules.items()}
    assert load_report(with_ops).operators is not None


def test_check_save_keeps_the_operator_table(tmp_path, capsys):
    pytest.importorskip("sizetool.operators.operator_cost")
    saved = tmp_path / "saved.json"
    budget = budget_file(tmp_path, '[rom.operators]\nCONV_2D = "1M"\n')
    assert run(capsys, "check", ELF, "--budget", budget, "--save", saved)[0] == 0
    assert "CONV_2D" in {o.op for o in load_report(saved).operators.operators}


# [models]: gate a model on the firmware it would need, predicted from an all-ops build (the fixture firmware), checked
# against the fixture's keep-only links of the same models.

MODELS = OUT.parents[1] / "models"
KEEP = json.loads((OUT / "manifest.json").read_text())["builds"]


def test_models_table_parses_with_paths_relative_to_the_budget_file(tmp_path):
    from sizetool.ci.budget import ModelFirmware

    budget = read_budget(budget_file(tmp_path, '[models]\n"models/person_detect.tflite" = "96K"\n"b.tflite" = 4096\n'))
    assert budget.models == [str(tmp_path / "models/person_detect.tflite"), str(tmp_path / "b.tflite")]
    assert [(r.name, r.limit.bytes, r.line) for r in budget.rules] == [
        ("models[models/person_detect.tflite]", 96 * 1024, 2), ("models[b.tflite]", 4096, 3)]
    firmware = {budget.models[0]: ModelFirmware(98304, 4), budget.models[1]: ModelFirmware(4097, 1)}
    results = check_budget(budget, build_report(str(ELF)), models=firmware)
    assert [(r.actual, r.passed) for r in results] == [(98304, True), (4097, False)]


@pytest.mark.parametrize("text,line,message", [
    ('[models]\n"a.tflite" = "5%"\n', 2, "percentage is not allowed"),
    ('[models]\n"a.tflite" = { size = 1 }\n', 2, "unknown key 'size' (give flash, arena or both"),
    ('[model]\n"a.tflite" = 1\n', 2, "unknown key 'a.tflite' in [model]"),
    ('[models]\n"a.tflite" = {}\n', 2, "empty table"),
    ('[models]\n\n"a.tflite" = { flash = "96K", arena = "lots" }\n', 3, "'a.tflite' arena"),
    ('[models]\n"a.tflite" = { arena = "50%" }\n', 2, "percentage is not allowed"),
    ('[models]\n"a.tflite" = { arena = -1 }\n', 2, "arena"),
    ('[models]\n"a.tflite" = { arena = { x = 1 } }\n', 2, "arena: must be a size"),
])
def test_bad_models_tables_name_the_line(tmp_path, text, line, message):
    path = budget_file(tmp_path, text)
    with pytest.raises(SizeToolError) as error:
        read_budget(path)
    assert f"{path}:{line}:" in str(error.value) and message in str(error.value)


def test_a_model_needing_ops_the_build_lacks_fails_whatever_its_size(tmp_path):
    from sizetool.ci.budget import ModelFirmware

    budget = read_budget(budget_file(tmp_path, '[models]\n"m.tflite" = "1M"\n'))
    (result,) = check_budget(budget, build_report(str(ELF)),
                             models={budget.models[0]: ModelFirmware(9000, 2, ("Atan",))})
    assert not result.passed and result.headroom > 0 and "needs Atan" in result.note


def test_model_rules_need_the_elf(tmp_path, capsys):
    saved = tmp_path / "saved.json"
    assert run(capsys, ELF, "--ops", "--save", saved)[0] == 0
    budget = budget_file(tmp_path, f'[models]\n"{MODELS / "vision_subset.tflite"}" = "1M"\n')
    status, _, err = run(capsys, "check", saved, "--budget", budget)
    assert status == 2 and "[models]" in err and "need the ELF" in err and err.count("\n") == 1


def test_check_gates_models_on_their_predicted_firmware(tmp_path, capsys):
    vision = KEEP["keep-only/cortex-m4/vision_subset.elf"]["flash_bytes"]
    fully_connected = KEEP["keep-only/cortex-m4/unused_opcodes.elf"]["flash_bytes"]
    budget = budget_file(tmp_path, f'[models]\n"{MODELS / "vision_subset.tflite"}" = {vision + 1024}\n'
                                   f'"{MODELS / "unused_opcodes.tflite"}" = {fully_connected - 1024}\n')
    status, out, _ = run(capsys, "check", ELF, "--budget", budget, "--format", "json")
    rules = json.loads(out)["rules"]
    assert status == 1 and [r["passed"] for r in rules] == [True, False]
    # The actual figure is the predicted firmware, close to the real keep-only link.
    assert abs(rules[0]["actual"] - vision) <= max(256, vision // 100)
    assert abs(rules[1]["actual"] - fully_connected) <= max(256, fully_connected // 100)
    status, out, _ = run(capsys, "check", ELF, "--budget", budget)
    assert status == 1 and "FAIL" in out and str(rules[1]["actual"]) in out
    missing = budget_file(tmp_path, f'[models]\n"{MODELS / "custom_ops.tflite"}" = "1M"\n')
    status, out, _ = run(capsys, "check", ELF, "--budget", missing)
    assert status == 1 and "needs Atan" in out


def test_a_model_table_gives_flash_and_arena_rules_and_the_old_string_form_still_reads(tmp_path):
    from sizetool.ci.budget import ModelArena, ModelFirmware

    budget = read_budget(budget_file(tmp_path, '[models]\n"a.tflite" = { flash = "96K", arena = "64K" }\n'
                                               '"b.tflite" = "32K"\n"c.tflite" = { arena = 1000 }\n'))
    a, b, c = (str(tmp_path / name) for name in ("a.tflite", "b.tflite", "c.tflite"))
    assert [(r.name, r.memory, r.kind, r.limit.bytes, r.line) for r in budget.rules] == [
        ("models[a.tflite].flash", "rom", "model", 96 * 1024, 2), ("models[a.tflite].arena", "ram", "model_arena",
                                                                    64 * 1024, 2),
        ("models[b.tflite]", "rom", "model", 32 * 1024, 3), ("models[c.tflite].arena", "ram", "model_arena", 1000, 4)]
    assert budget.models == [a, b] and budget.arena_models == [a, c]
    results = check_budget(budget, build_report(str(ELF)),
                           models={a: ModelFirmware(90000, 3), b: ModelFirmware(40000, 2)},
                           arenas={a: ModelArena(70000, True, "cmsis_nn", 4), c: ModelArena(999, False, "reference", 4)})
    assert [(r.rule.name, r.actual, r.passed) for r in results] == [
        ("models[a.tflite].flash", 90000, True), ("models[a.tflite].arena", 70000, False),
        ("models[b.tflite]", 40000, False), ("models[c.tflite].arena", 999, True)]
    assert results[1].note == "estimated: tensor arena for cmsis_nn kernels, 32-bit pointers"
    assert results[3].note.startswith("estimated upper bound")


def test_arena_rules_need_the_elf(tmp_path, capsys):
    saved = tmp_path / "saved.json"
    assert run(capsys, ELF, "--save", saved)[0] == 0
    budget = budget_file(tmp_path, f'[models]\n"{MODELS / "vision_subset.tflite"}" = {{ arena = "64K" }}\n')
    status, _, err = run(capsys, "check", saved, "--budget", budget)
    assert status == 2 and "arena rules" in err and "need the ELF" in err and err.count("\n") == 1
    status, _, err = run(capsys, "check", ELF, "--budget", budget, "--kernels", "xtensa")
    assert status == 2 and "unknown --kernels 'xtensa'" in err and err.count("\n") == 1


def test_ram_occupied_is_static_data_and_reservations_not_the_free_ram_ld_counts(tmp_path):
    layout = OUT.parents[1] / "layouts" / "out" / "cmsis-armcm4"
    report = build_report(str(layout / "firmware.elf"), map_path=str(layout / "firmware.map"))
    budget = read_budget(budget_file(tmp_path, '[ram]\ntotal = "128K"\noccupied = 24336\n'))
    total, occupied = check_budget(budget, report)
    # ld counts the whole 128K; static data (20240) and heap + stack (4096) occupy 24336 of it.
    assert (total.actual, total.passed) == (131072, True)
    assert (occupied.rule.name, occupied.actual, occupied.passed) == ("ram.occupied", 24336, True)
    assert occupied.note == "106736 bytes of RAM free"
    (tight,) = check_budget(read_budget(budget_file(tmp_path, '[ram]\noccupied = "23K"\n')), report)
    assert not tight.passed and tight.headroom == 23 * 1024 - 24336
    # Without region sizes the whole RAM total counts, and the note says so.
    bare_report = build_report(str(ELF))
    (bare,) = check_budget(read_budget(budget_file(tmp_path, '[ram]\noccupied = "64K"\n')), bare_report)
    assert bare.actual == bare_report.ram_total and "no RAM region sizes" in bare.note


@pytest.mark.parametrize("text,message", [
    ('[rom]\noccupied = "1K"\n', "occupied is a RAM rule"),
    ('[ram]\noccupied = "5%"\n', "percentage is not allowed"),
    ('[ram]\noccupied = { a = 1 }\n', "must be a size, not a table"),
])
def test_bad_occupied_rules_name_the_file_and_line(tmp_path, text, message):
    path = budget_file(tmp_path, text)
    with pytest.raises(SizeToolError) as error:
        read_budget(path)
    assert f"{path}:2:" in str(error.value) and message in str(error.value)


def test_each_rule_names_the_line_of_its_own_table(tmp_path):
    budget = read_budget(budget_file(tmp_path, '[ram]\ntotal = "1M"\n\n[rom]\ntotal = "1M"\n[rom.paths]\n'
                                               '"a/**" = 1\n[regions]\nRAM = 1\n[stack]\n"RAM" = 1\n'))
    assert {rule.name: rule.line for rule in budget.rules} == {
        "rom.total": 5, "rom.paths[a/**]": 7, "ram.total": 2, "regions.RAM": 9, "stack[RAM]": 11}
