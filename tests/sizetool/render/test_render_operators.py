"""render/operators.py: the operator table as a terminal table, JSON (the issue's shape), CSV and markdown."""

import csv
import io
import json

import pytest

from sizetool.operators.model_crosscheck import crosscheck_models
from sizetool.render.operators import FORMATS, render_operators
from sizetool.report.report_model import OperatorCost, OperatorTable, TemplateCost, operator_table_from_dict
from tests.conftest import FIXTURES

VISION = str(FIXTURES / "models" / "vision_subset.tflite")


def resolver(n, size, functions=3):
    return TemplateCost("tflite::MicroMutableOpResolver", n, size,
                        tuple(f"tflite::MicroMutableOpResolver<{n}u>::f{i}()" for i in range(functions)))


def table(resolvers=("13",)):
    return OperatorTable(
        operators=[
            OperatorCost("DEPTHWISE_CONV_2D", "tflite::Register_DEPTHWISE_CONV_2D()", 3120, 2862,
                         ("kernels/depthwise_conv.cc", "kernels/reference_ops.h")),
            OperatorCost("WINDOW", "tflite::tflm_signal::Register_WINDOW()", 920, 609, ("kernels/window.cc",)),
            OperatorCost("CONV_2D_INT8", "tflite::Register_CONV_2D_INT8()", 130, 3941, ("kernels/conv.cc",)),
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
    assert set(data["operators"][0]) == {"op", "registration", "exclusive_bytes", "shared_bytes", "files"}
    assert data["resolvers"] == [{"n": 13, "bytes": 113, "symbols": list(resolver("13", 113).symbols)}]
    assert (data["runtime_bytes"], data["total_rom"], data["source"]) == (8000, 15000, "firmware.elf")
    assert data["exclusive_bytes"] == 3120 + 920 + 130
    assert data["shared_among_operators_bytes"] == 15000 - 8000 - (3120 + 920 + 130)
    assert operator_table_from_dict(data) == table()  # the same reader as saved reports


def test_more_than_one_resolver_size_is_flagged():
    one = json.loads(render_operators(table(("13",)), "json", "fw.elf"))
    two = json.loads(render_operators(table(("3", "13")), "json", "fw.elf"))
    assert (one["several_resolver_sizes"], two["several_resolver_sizes"]) == (False, True)
    assert "more than one N" in render_operators(table(("3", "13")), "tree", "fw.elf")
    assert "more than one N" not in render_operators(table(("13",)), "tree", "fw.elf")
    assert "more than one N" in render_operators(table(("3", "13")), "markdown", "fw.elf")


def test_tree_lists_every_row_and_the_rom_split():
    text = render_operators(table(("3", "13")), "tree", "/build/firmware.elf", "arm")
    lines = text.splitlines()
    assert lines[0] == "Operators of firmware.elf (arm): 3 registrations, ROM 15000 bytes"
    for op in table().operators:
        row = next(line for line in lines if line.startswith(op.op + " "))
        assert op.registration in row and f" {op.exclusive_bytes} " in row and f" {op.shared_bytes} " in row
        assert op.files[0] in row
    assert "kernels/reference_ops.h" in text  # second file of a row, on its own line
    assert "ROM 15000 bytes = runtime 8000 + operators' exclusive 4170 + shared only among operators 2830" in text
    assert "note: 103 bytes are reached from no root" in text
    assert "DepthwiseConv3x3" in text and "412" in text
    assert all(line == line.rstrip() for line in lines) and "\x1b[" not in text


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
    assert operators[0]["files"] == "kernels/depthwise_conv.cc;kernels/reference_ops.h"
    single = {r["kind"]: int(r["bytes"]) for r in rows if r["kind"] in ("runtime", "shared_among_operators",
                                                                        "total_rom")}
    exclusive = sum(int(r["exclusive_bytes"]) for r in operators)
    assert single["runtime"] + exclusive + single["shared_among_operators"] == single["total_rom"] == 15000
    assert [r["name"] for r in rows if r["kind"] == "resolver"] == ["tflite::MicroMutableOpResolver<13>"]


def test_markdown_puts_the_summary_first_and_escapes_pipes():
    text = render_operators(table(), "markdown", "fw.elf", "arm")
    lines = text.splitlines()
    assert lines[0] == "# Operator cost: fw.elf (arm)" and lines[2].startswith("**ROM 15000 bytes**")
    assert "`<1>; <2\\|x>`" in text  # a '|' inside a cell would split the row
    assert "| WINDOW | `tflite::tflm_signal::Register_WINDOW()` | 920 | 609 | `kernels/window.cc` |" in text


def test_crosscheck_in_every_format():
    result = crosscheck_models(table(), [VISION])  # the model needs CONV_2D (the INT8 kernel serves it) and more
    missing = {m.op.name for m in result.missing}
    assert {"ADD", "RESHAPE", "SOFTMAX", "Sinh"} <= missing and "CONV_2D" not in missing
    data = json.loads(render_operators(table(), "json", "fw.elf", crosscheck=result))
    assert data["models"] == [VISION] and data["unused"] == []
    assert {m["op"] for m in data["missing"]} == missing
    sinh = next(m for m in data["missing"] if m["op"] == "Sinh")
    assert sinh == {"op": "Sinh", "kind": "custom", "method": "AddCustom", "registration": "Register_SINH",
                    "models": [VISION], "reason": None}
    tree = render_operators(table(), "tree", "fw.elf", crosscheck=result)
    assert 'AddCustom("Sinh", Register_SINH())' in tree and "Didn't find op" in tree
    assert "vision_subset.tflite" in render_operators(table(), "markdown", "fw.elf", crosscheck=result)
    rows = list(csv.DictReader(io.StringIO(render_operators(table(), "csv", "fw.elf", crosscheck=result))))
    assert {r["name"] for r in rows if r["kind"] == "missing"} == missing


def test_unused_operators_with_their_savings():
    extra = table()
    extra.operators.append(OperatorCost("MUL", "tflite::Register_MUL()", 998, 10, ()))
    result = crosscheck_models(extra, [VISION])
    data = json.loads(render_operators(extra, "json", "fw.elf", crosscheck=result))
    assert data["unused"] == [{"op": "MUL", "registration": "tflite::Register_MUL()", "exclusive_bytes": 998}]
    assert data["unused_exclusive_bytes"] == 998
    assert "removing them saves at least 998 bytes" in render_operators(extra, "tree", "fw.elf", crosscheck=result)


@pytest.mark.parametrize("fmt", FORMATS)
def test_output_is_deterministic(fmt):
    assert render_operators(table(("3", "13")), fmt, "fw.elf") == render_operators(table(("3", "13")), fmt, "fw.elf")
