"""A saved report is type-checked field by field when it is read: a wrong type, a negative size or a missing field is
one SizeToolError naming the file and the field, never a crash in diff, check or history later."""

import copy
import json

import pytest

from sizetool import cli
from sizetool.errors import SizeToolError
from sizetool.report.operator_records import OperatorCost, OperatorTable
from sizetool.report.report_model import MemoryRegion, SizeEntry, SizeReport, load_report, report_to_dict

REPORT = SizeReport(
    "fw.elf", "arm", 400, 64,
    [SizeEntry("rom", ("kernels", "conv.cc"), "Eval", ".text", 0x100, 400, "_Z4Evalv", ("EvalAlias",)),
     SizeEntry("ram", ("app", "main.cc"), "arena", ".bss", 0x2000, 64)],
    [MemoryRegion("FLASH", 0, 4096, 400, "rx", "rom")], warnings=["a warning"],
    operators=OperatorTable([OperatorCost("CONV_2D", "tflite::Register_CONV_2D()", 400, 0)], total_rom=400))
GOOD = report_to_dict(REPORT)


def saved(tmp_path, change) -> str:
    data = copy.deepcopy(GOOD)
    change(data)
    path = tmp_path / "report.json"
    path.write_text(json.dumps(data))
    return str(path)


def leaf(data):
    return data["rom"]["symbols"]["children"][0]["children"][0]["children"][0]


def test_a_good_report_reads_back(tmp_path):
    again = load_report(saved(tmp_path, lambda data: None))
    assert again.entries == sorted(REPORT.entries, key=lambda e: (e.memory, e.path, e.symbol, e.address))
    assert again.operators.operators[0].exclusive_bytes == 400


@pytest.mark.parametrize("change,field,expected", [
    (lambda d: d.update(warnings=1.5), "warnings", "expected a list, got a number (1.5)"),
    (lambda d: d.update(warnings=[1]), "warnings[0]", "expected a string"),
    (lambda d: d["rom"].update(total_size=-1), "rom.total_size", "non-negative integer"),
    (lambda d: d["rom"].update(total_size=1e400), "rom.total_size", "got a number (inf)"),
    (lambda d: d["rom"].update(total_size=True), "rom.total_size", "got a boolean"),
    (lambda d: d["rom"].pop("total_size"), "rom.total_size", "it is missing"),
    (lambda d: leaf(d).update(size=12.0), "rom.symbols.children[0].children[0].children[0].size", "got a number"),
    (lambda d: leaf(d).update(size="400"), ".children[0].size", "got a string"),
    (lambda d: leaf(d).update(address=-4), ".address", "non-negative"),
    (lambda d: leaf(d).update(aliases="EvalAlias"), ".aliases", "expected a list"),
    (lambda d: leaf(d).update(name=None), ".name", "got null"),
    (lambda d: d["rom"]["symbols"].update(children={"a": 1}), "rom.symbols.children", "expected a list"),
    (lambda d: d["rom"].update(symbols=[]), "rom.symbols", "expected an object"),
    (lambda d: d["regions"][0].update(used="400"), "regions[0].used", "got a string"),
    (lambda d: d["regions"][0].update(memory="flash"), "regions[0].memory", '"rom" or "ram"'),
    (lambda d: d.update(regions={}), "regions", "expected a list"),
    (lambda d: d.update(berkeley=[1, 2, 3]), "berkeley", "expected an object"),
    (lambda d: d["operators"].update(operators=5), "operators.operators", "expected a list"),
    (lambda d: d["operators"]["operators"][0].update(exclusive_bytes=None), "operators.operators[0].exclusive_bytes",
     "got null"),
    (lambda d: d["operators"]["operators"][0].update(files=[{"path": 3}]), "operators.operators[0].files[0].path",
     "expected a string"),
    (lambda d: d.update(arch=7), "arch", "expected a string"),
])
def test_a_wrong_type_is_one_line_naming_the_file_and_the_field(tmp_path, change, field, expected):
    path = saved(tmp_path, change)
    with pytest.raises(SizeToolError) as caught:
        load_report(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: malformed size report: ") and "\n" not in message
    assert field in message and expected in message


def test_a_zephyr_rom_json_with_an_unknown_memory_is_refused(tmp_path):
    path = tmp_path / "rom.json"
    path.write_text(json.dumps({"symbols": {"name": "Root", "children": []}, "total_size": 0, "memory": "flash"}))
    with pytest.raises(SizeToolError, match="memory"):
        load_report(path)


def test_json_nested_too_deeply_is_an_input_error(tmp_path):
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(SizeToolError, match="nested too deeply"):
        load_report(path)


@pytest.mark.parametrize("command", [["diff", "{old}", "{bad}"], ["check", "{bad}", "--budget", "{budget}"],
                                     ["check", "{old}", "--budget", "{budget}", "--baseline", "{bad}"]])
def test_diff_and_check_turn_a_float_where_a_list_belongs_into_exit_2(tmp_path, capsys, command):
    """The issue's case: 'TypeError: 'float' object is not iterable' in diff and check."""
    old = saved(tmp_path, lambda d: None)
    (tmp_path / "old.json").write_text(open(old).read())
    bad = saved(tmp_path, lambda d: d.update(warnings=2.5))
    budget = tmp_path / "budget.toml"
    budget.write_text('[rom]\ntotal = "1K"\nmax_growth = "1%"\n')
    argv = [part.format(old=tmp_path / "old.json", bad=bad, budget=budget) for part in command]
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and bad in err and "warnings" in err and "internal error" not in err
