"""render/operators.py: the operator table, the --model cross-check and the --drop/--keep answer as a terminal table,
JSON (the issue's shape), CSV and markdown. Tables here are built by hand, so each figure is known."""

import csv
import io
import json

import pytest

from sizetool.operators.model_crosscheck import ModelCost, ModelSets, crosscheck_models
from sizetool.operators.operator_sets import SetCost
from sizetool.operators.what_if import GoingFile, GoingSymbol, WhatIf
from sizetool.render.operators import FORMATS, TOP_FILES, TOP_SYMBOLS, render_operators
from sizetool.render.what_if import render_what_if
from sizetool.report.operator_records import (
    LEGACY_SHARED_NOTE, FileBytes, OperatorBytes, OperatorCost, OperatorTable, TemplateCost, operator_table_from_dict,
)
from tests.conftest import FIXTURES

VISION = str(FIXTURES / "models" / "vision_subset.tflite")
UNUSED = str(FIXTURES / "models" / "unused_opcodes.tflite")
DEPTHWISE_FILES = (FileBytes("kernels/depthwise_conv.cc", 1700), FileBytes("kernels/reference_ops.h", 1000),
                   FileBytes("(no symbol)", 300), FileBytes("micro/flatbuffer_conversions.cc", 120))


def resolver(n, size, functions=3):
    return TemplateCost("tflite::MicroMutableOpResolver", n, size,
                        tuple(f"tflite::MicroMutableOpResolver<{n}u>::f{i}()" for i in range(functions)))


def table(resolvers=("13",)):
    return OperatorTable(
        operators=[
            OperatorCost("DEPTHWISE_CONV_2D", "tflite::Register_DEPTHWISE_CONV_2D()", 3120, 2000, DEPTHWISE_FILES,
                         runtime_bytes=840,
                         shared_files=(FileBytes("kernels/kernel_util.cc", 1200, ("ADD", "CONV_2D", "MUL")),
                                       FileBytes("kernels/conv_common.cc", 800, ("CONV_2D",))),
                         shared_with=(OperatorBytes("CONV_2D", 2000), OperatorBytes("ADD", 1200),
                                      OperatorBytes("MUL", 1200)),
                         call_sites=1, call_site_bytes=22),
            OperatorCost("WINDOW", "tflite::tflm_signal::Register_WINDOW()", 920, 0,
                         (FileBytes("kernels/window.cc", 920),), runtime_bytes=460, call_sites=1, call_site_bytes=22),
            OperatorCost("CONV_2D_INT8", "tflite::Register_CONV_2D_INT8()", 130, 970,
                         (FileBytes("kernels/conv.cc", 130),), runtime_bytes=840,
                         shared_files=(FileBytes("kernels/conv_common.cc", 970, ("CONV_2D",)),),
                         shared_with=(OperatorBytes("CONV_2D", 970),), call_sites=1, call_site_bytes=20),
        ],
        resolvers=[resolver(n, 100 + int(n)) for n in resolvers],
        templates=[TemplateCost("tflite::reference_ops::DepthwiseConv3x3", "<1>; <2|x>", 412, ("a", "b"))],
        runtime_bytes=8000,
        total_rom=15000,
        notes=["103 bytes are reached from no root"],
    )


def test_json_has_the_issue_shape_and_reads_back_as_the_same_table():
    data = json.loads(render_operators(table(), "json", "/build/firmware.elf", "arm"))
    assert {"operators", "resolvers", "runtime_bytes", "total_rom"} <= set(data)
    row = data["operators"][0]
    assert {"op", "registration", "exclusive_bytes", "shared_bytes", "runtime_bytes", "files", "shared_files",
            "shared_with", "call_sites", "call_site_bytes"} == set(row)
    assert len(row["files"]) == 4 and row["files"][0] == {"path": "kernels/depthwise_conv.cc", "bytes": 1700}
    assert row["shared_files"][1] == {"path": "kernels/conv_common.cc", "bytes": 800, "operators": ["CONV_2D"]}
    assert row["shared_with"][0] == {"op": "CONV_2D", "bytes": 2000}
    assert data["resolvers"] == [{"n": 13, "bytes": 113, "symbols": list(resolver("13", 113).symbols)}]
    assert (data["runtime_bytes"], data["total_rom"], data["source"]) == (8000, 15000, "firmware.elf")
    assert data["exclusive_bytes"] == 3120 + 920 + 130 and data["call_site_bytes"] == 64
    assert data["shared_among_operators_bytes"] == 15000 - 8000 - (3120 + 920 + 130) - 64
    assert operator_table_from_dict(data) == table()  # the same reader as saved reports


def test_a_table_saved_before_the_split_reads_back_with_a_note():
    old = {"operators": [{"op": "ADD", "registration": "tflite::Register_ADD()", "exclusive_bytes": 1170,
                          "shared_bytes": 2806, "files": ["kernels/add.cc"]}],
           "resolvers": [], "templates": [], "runtime_bytes": 9000, "total_rom": 20000, "notes": []}
    read = operator_table_from_dict(old)
    assert read.operators[0].files == (FileBytes("kernels/add.cc", 0),) and read.operators[0].shared_bytes == 2806
    assert read.notes == [LEGACY_SHARED_NOTE]


def test_more_than_one_resolver_size_is_flagged():
    one = json.loads(render_operators(table(("13",)), "json", "fw.elf"))
    two = json.loads(render_operators(table(("3", "13")), "json", "fw.elf"))
    assert (one["several_resolver_sizes"], two["several_resolver_sizes"]) == (False, True)
    assert "more than one N" in render_operators(table(("3", "13")), "tree", "fw.elf")
    assert "more than one N" not in render_operators(table(("13",)), "tree", "fw.elf")
    assert "more than one N" in render_operators(table(("3", "13")), "markdown", "fw.elf")


def test_tree_splits_shared_into_named_operators_and_runtime():
    text = render_operators(table(("3", "13")), "tree", "/build/firmware.elf", "arm")
    lines = text.splitlines()
    assert lines[0] == "Operators of firmware.elf (arm): 3 registrations, ROM 15000 bytes"
    assert lines[1].startswith("largest (what removing it alone saves): ")
    assert lines[2] == ""
    header = lines[3].split()
    assert header[:7] == ["op", "alone", "saves", "shared", "runtime", "it", "uses"]
    for op in table().operators:
        row = next(line for line in lines if line.startswith(op.op + " "))
        assert row.split()[1:4] == [str(op.exclusive_bytes), str(op.shared_bytes), str(op.runtime_bytes)]
        assert f"{op.files[0].path} {op.files[0].bytes}" in row
    # Shared code names the other operators: one or two by name, more by count.
    assert "kernels/conv_common.cc 970 with CONV_2D" in text
    assert "kernels/kernel_util.cc 1200 with 3 others" in text
    assert "ROM 15000 bytes = runtime 8000 (the firmware with no operator) + operators' exclusive 4170 + their AddXxx() " \
           "calls 64 + shared only among " \
           "operators 2766" in text
    assert "note: 103 bytes are reached from no root" in text
    assert "DepthwiseConv3x3" in text and "412" in text
    assert all(line == line.rstrip() for line in lines) and "\x1b[" not in text


def test_tree_lists_at_most_three_files_per_operator_and_json_csv_list_them_all():
    text = render_operators(table(), "tree", "fw.elf")
    assert "kernels/reference_ops.h 1000" in text and "(no symbol) 300" in text
    assert "flatbuffer_conversions" not in text and f"... {len(DEPTHWISE_FILES) - TOP_FILES} more" in text
    markdown = render_operators(table(), "markdown", "fw.elf")
    assert "flatbuffer_conversions" not in markdown and "... 1 more" in markdown
    rows = list(csv.DictReader(io.StringIO(render_operators(table(), "csv", "fw.elf"))))
    assert [(r["path"], int(r["bytes"])) for r in rows if r["kind"] == "operator_file" and
            r["name"] == "DEPTHWISE_CONV_2D"] == [(f.path, f.bytes) for f in DEPTHWISE_FILES]


def test_tree_colour_only_when_asked():
    assert "\x1b[" in render_operators(table(), "tree", "fw.elf", color=True)


def test_an_empty_table_says_no_registrations_were_found():
    empty = OperatorTable(runtime_bytes=500, total_rom=500)
    for fmt in FORMATS:
        assert "no TFLM operator registrations found" in render_operators(empty, fmt, "app.elf")
    # A note that already says so is not repeated.
    said = OperatorTable(runtime_bytes=5, total_rom=5,
                         notes=["app.elf: no TFLM operator registrations (Register_<OP>() functions) found"])
    assert render_operators(said, "tree", "app.elf").count("no TFLM operator registrations") == 1


def test_csv_rows_add_up_to_the_rom_total():
    rows = list(csv.DictReader(io.StringIO(render_operators(table(), "csv", "fw.elf"))))
    operators = [r for r in rows if r["kind"] == "operator"]
    assert [r["name"] for r in operators] == ["DEPTHWISE_CONV_2D", "WINDOW", "CONV_2D_INT8"]
    assert (operators[2]["shared_bytes"], operators[2]["runtime_bytes"]) == ("970", "840")
    shared = [r for r in rows if r["kind"] == "operator_shared_file" and r["name"] == "DEPTHWISE_CONV_2D"]
    assert shared[0]["operators"] == "ADD;CONV_2D;MUL"
    single = {r["kind"]: int(r["bytes"]) for r in rows if r["kind"] in ("runtime", "call_sites",
                                                                        "shared_among_operators", "total_rom")}
    exclusive = sum(int(r["exclusive_bytes"]) for r in operators)
    assert single["runtime"] + exclusive + single["call_sites"] + single["shared_among_operators"] \
        == single["total_rom"] == 15000
    assert [r["name"] for r in rows if r["kind"] == "resolver"] == ["tflite::MicroMutableOpResolver<13>"]


def test_markdown_puts_the_summary_first_and_escapes_pipes():
    text = render_operators(table(), "markdown", "fw.elf", "arm")
    lines = text.splitlines()
    assert lines[0] == "# Operator cost: fw.elf (arm)" and lines[2].startswith("**ROM 15000 bytes**")
    assert "`<1>; <2\\|x>`" in text  # a '|' inside a cell would split the row
    assert ("| WINDOW | `tflite::tflm_signal::Register_WINDOW()` | 920 | 0 | 460 | `kernels/window.cc 920` |  |"
            in text)


def test_crosscheck_without_the_graph_in_every_format():
    result = crosscheck_models(table(), [VISION])  # the model needs CONV_2D (the INT8 kernel serves it) and more
    missing = {m.op.name for m in result.missing}
    assert {"ADD", "RESHAPE", "SOFTMAX", "Sinh"} <= missing and "CONV_2D" not in missing
    data = json.loads(render_operators(table(), "json", "fw.elf", crosscheck=result))
    assert data["models"] == [VISION] and data["unused"] == [] and "predicted_rom" not in data
    assert {m["op"] for m in data["missing"]} == missing
    sinh = next(m for m in data["missing"] if m["op"] == "Sinh")
    assert sinh == {"op": "Sinh", "kind": "custom", "method": "AddCustom", "registration": "Register_SINH",
                    "models": [VISION], "reason": None, "available": None, "available_note": None}
    tree = render_operators(table(), "tree", "fw.elf", crosscheck=result)
    assert 'AddCustom("Sinh", Register_SINH())' in tree and "Didn't find op" in tree
    assert "vision_subset.tflite" in render_operators(table(), "markdown", "fw.elf", crosscheck=result)
    rows = list(csv.DictReader(io.StringIO(render_operators(table(), "csv", "fw.elf", crosscheck=result))))
    assert {r["name"] for r in rows if r["kind"] == "missing"} == missing


def with_sets(models=(VISION, UNUSED)):
    extra = table()
    extra.operators.append(OperatorCost("MUL", "tflite::Register_MUL()", 998, 10))
    result = crosscheck_models(extra, list(models))
    unused = SetCost(("MUL",), 1200, 1, 22, frozenset())
    costs = tuple(ModelCost(m, ("CONV_2D_INT8",), 11000 + i, 3000 + i, ("CONV_2D_INT8",), 500 + i)
                  for i, m in enumerate(models))
    result.sets = ModelSets(unused, extra.total_rom, 8000, costs)
    return extra, result


def test_the_set_answers_in_every_format():
    extra, result = with_sets()
    data = json.loads(render_operators(extra, "json", "fw.elf", crosscheck=result))
    assert data["unused_saving"] == {"ops": ["MUL"], "bytes": 1222, "code_bytes": 1200, "call_sites": 1,
                                     "call_site_bytes": 22}
    assert data["predicted_rom"] == 15000 - 1222 and data["no_operators_rom"] == 8000
    assert data["unused_exclusive_bytes"] == 998  # each alone, added up: kept, labelled as such
    assert [m["firmware_bytes"] for m in data["model_costs"]] == [11000, 11001]
    sentences = ["Dropping the 1 op no model uses saves 1222 bytes (1200 of code and data only they need + 22 in 1 "
                 "AddXxx() call)", "Firmware with exactly these models' ops: 13778 bytes (now 15000 - 1222)"]
    tree = render_operators(extra, "tree", "fw.elf", crosscheck=result)
    markdown = render_operators(extra, "markdown", "fw.elf", crosscheck=result)
    for sentence in sentences:
        assert sentence in tree and sentence in markdown
    assert "firmware with no operator: 8000 bytes" in tree and "adds to the others" in tree
    assert "| `unused_opcodes.tflite` | 1 | 11001 | 3001 | CONV_2D_INT8 | 501 |" in markdown
    rows = list(csv.DictReader(io.StringIO(render_operators(extra, "csv", "fw.elf", crosscheck=result))))
    kinds = {r["kind"]: r for r in rows}
    assert kinds["unused_saving"]["bytes"] == "1222" and kinds["predicted_rom"]["bytes"] == "13778"
    assert [r["bytes"] for r in rows if r["kind"] == "model_adds_to_others"] == ["500", "501"]


def test_one_model_gets_no_per_model_table():
    extra, result = with_sets((VISION,))
    assert "adds to the others" not in render_operators(extra, "tree", "fw.elf", crosscheck=result)
    assert "adds to the others" not in render_operators(extra, "markdown", "fw.elf", crosscheck=result)


def answer(symbols=3):
    cost = SetCost(("ADD", "MUL"), 2469, 2, 52, frozenset())
    return WhatIf("drop", ("ADD,MUL",), ("ADD", "MUL"), ("CONV_2D",), cost, 30352,
                  files=[GoingFile("kernels/add.cc", 1026, 1026), GoingFile("kernels/reference_ops.h", 202, 1228)],
                  symbols=[GoingSymbol(f"f{i}()", "kernels/add.cc", ".text", 0x1000 + i, 100 - i)
                           for i in range(symbols)],
                  notes=["a note"])


@pytest.mark.parametrize("fmt", FORMATS)
def test_what_if_gives_the_saving_and_the_predicted_rom(fmt):
    text = render_what_if(answer(), fmt, "/b/fw.elf", "arm")
    assert "2521" in text and "27831" in text and "kernels/reference_ops.h" in text and "f2()" in text
    if fmt == "json":
        data = json.loads(text)
        assert (data["saving"], data["predicted_rom"], data["rom"]) == (2521, 27831, 30352)
        assert data["files"][1] == {"path": "kernels/reference_ops.h", "bytes": 202, "file_bytes": 1228}


def test_what_if_lists_the_largest_symbols_in_the_terminal_and_all_in_json_and_csv():
    many = answer(symbols=TOP_SYMBOLS + 5)
    tree = render_what_if(many, "tree", "fw.elf")
    assert f"the {TOP_SYMBOLS} largest of {TOP_SYMBOLS + 5}" in tree and f"f{TOP_SYMBOLS}()" not in tree
    assert len(json.loads(render_what_if(many, "json", "fw.elf"))["symbols"]) == TOP_SYMBOLS + 5
    rows = list(csv.DictReader(io.StringIO(render_what_if(many, "csv", "fw.elf"))))
    assert sum(r["kind"] == "symbol" for r in rows) == TOP_SYMBOLS + 5


@pytest.mark.parametrize("fmt", FORMATS)
def test_output_is_deterministic(fmt):
    assert render_operators(table(("3", "13")), fmt, "fw.elf") == render_operators(table(("3", "13")), fmt, "fw.elf")


def test_the_terminal_merges_a_files_shared_groups_and_json_keeps_them():
    split = table()
    first = split.operators[0]
    groups = (FileBytes("kernels/kernel_util.cc", 700, ("ADD", "MUL")), FileBytes("kernels/conv_common.cc", 800, ("CONV_2D",)),
              FileBytes("kernels/kernel_util.cc", 500, ("CONV_2D",)))
    split.operators[0] = OperatorCost(first.op, first.registration, first.exclusive_bytes, 2000, first.files,
                                      shared_files=groups)
    tree = render_operators(split, "tree", "fw.elf")
    assert "kernels/kernel_util.cc 1200 with 3 others" in tree and "kernel_util.cc 700" not in tree
    data = json.loads(render_operators(split, "json", "fw.elf"))
    assert [f["bytes"] for f in data["operators"][0]["shared_files"]] == [700, 800, 500]


def test_type_problems_and_variant_suggestions_in_every_format():
    hybrid, int8 = (str(FIXTURES / "models" / f"{m}.tflite") for m in ("hybrid", "int8_vision"))
    ops = ("AVERAGE_POOL_2D", "CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED", "MAX_POOL_2D", "PAD", "RESHAPE",
           "SOFTMAX", "TRANSPOSE")
    firmware = OperatorTable(operators=[OperatorCost(op, f"tflite::Register_{op}()", 10, 0) for op in ops])
    crosscheck = crosscheck_models(firmware, [hybrid])
    problem = crosscheck.type_problems[0]
    data = json.loads(render_operators(firmware, "json", "fw.elf", crosscheck=crosscheck))
    assert data["type_problems"] == [{"model": hybrid, "op": "FULLY_CONNECTED", "subgraph": 0, "operators": [1],
                                      "types": "float32×int8→float32", "reason": problem.reason}]
    rows = list(csv.DictReader(io.StringIO(render_operators(firmware, "csv", "fw.elf", crosscheck=crosscheck))))
    assert [(r["name"], r["registration"], r["operators"], r["models"]) for r in rows if r["kind"] == "type_problem"] \
        == [("FULLY_CONNECTED", "float32×int8→float32", "1", hybrid)]
    for fmt in ("tree", "markdown"):
        assert "operator 1 (float32×int8→float32)" in render_operators(firmware, fmt, "fw.elf", crosscheck=crosscheck,
                                                                       width=400)

    crosscheck = crosscheck_models(firmware, [int8])
    assert crosscheck.type_problems == []
    data = json.loads(render_operators(firmware, "json", "fw.elf", crosscheck=crosscheck))
    conv = next(v for v in data["variants"] if v["op"] == "CONV_2D")
    assert (conv["variant"], conv["function"], conv["saving"]) == ("CONV_2D_INT8", "tflite::Register_CONV_2D_INT8",
                                                                   None)
    rows = list(csv.DictReader(io.StringIO(render_operators(firmware, "csv", "fw.elf", crosscheck=crosscheck))))
    assert ("CONV_2D", "tflite::Register_CONV_2D_INT8") in [(r["name"], r["registration"]) for r in rows
                                                            if r["kind"] == "variant"]
    for fmt in ("tree", "markdown"):
        assert "AddConv2D(tflite::Register_CONV_2D_INT8())" in render_operators(
            firmware, fmt, "fw.elf", crosscheck=crosscheck, width=400)


def test_only_tflms_templates_are_tabled_and_the_others_are_counted():
    with_app = table()
    with_app.templates = with_app.templates + [TemplateCost("mbed::Callback", "<void ()>; <void (int)>", 120, ("c",)),
                                               TemplateCost("BLECharacteristic", "<int>; <bool>", 60, ("d",))]
    line = "2 class templates not of TFLM with several instantiations (180 bytes beyond the largest ones) left out"
    for fmt in ("tree", "markdown"):
        text = render_operators(with_app, fmt, "/build/firmware.elf", "arm")
        assert "tflite::reference_ops::DepthwiseConv3x3" in text and line in text
        assert "mbed::Callback" not in text and "BLECharacteristic" not in text
    data = json.loads(render_operators(with_app, "json", "/build/firmware.elf", "arm"))
    assert {t["template"] for t in data["templates"]} >= {"mbed::Callback", "BLECharacteristic"}
