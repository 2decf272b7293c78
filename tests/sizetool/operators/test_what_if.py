"""what_if.py: `--drop` / `--keep` with op names or model files, on the fixture firmware and its keep-only builds."""

import json

import pytest

from sizetool.errors import SizeToolError
from sizetool.operators.graph_cache import load_operator_graph
from sizetool.operators.what_if import split_names, what_if
from sizetool.report.report_builder import build_report
from tests.conftest import FIXTURES

OUT = FIXTURES / "firmware" / "out"
ELF = str(OUT / "cortex-m4/firmware.elf")
MODELS = FIXTURES / "models"
MANIFEST = json.loads((OUT / "manifest.json").read_text())


@pytest.fixture(scope="module")
def graph():
    return load_operator_graph(ELF, use_cache=False)


@pytest.fixture(scope="module")
def report():
    return build_report(ELF, use_cache=False)


def test_names_split_on_commas_and_repeat():
    assert split_names(["ADD,MUL", " SOFTMAX ", "a.tflite,"]) == ["ADD", "MUL", "SOFTMAX", "a.tflite"]


def test_keeping_a_models_ops_predicts_its_keep_only_build(graph, report):
    answer = what_if(graph, report, "keep", [str(MODELS / "vision_subset.tflite")])
    build = MANIFEST["builds"]["keep-only/cortex-m4/vision_subset.elf"]
    assert set(answer.kept) == set(build["ops"]) and set(answer.dropped) == set(build["dropped"])
    assert answer.rom == report.rom_total
    assert abs(answer.predicted_rom - build["flash_bytes"]) <= max(256, 0.01 * build["flash_bytes"])


def test_dropping_names_the_files_and_symbols_that_go(graph, report):
    answer = what_if(graph, report, "drop", ["AVERAGE_POOL_2D", "MAX_POOL_2D"])
    assert answer.dropped == ("AVERAGE_POOL_2D", "MAX_POOL_2D")
    assert sum(f.bytes for f in answer.files) == sum(s.bytes for s in answer.symbols) == answer.cost.code_bytes
    pooling = next(f for f in answer.files if f.path == "kernels/pooling.cc")
    # both pooling kernels gone: all of pooling.cc goes, its symbols (the graph's nodes) and the padding between them
    padding = sum(e.size for e in report.entries_for("rom")
                  if "/".join(e.path) == "kernels/pooling.cc" and e.symbol.startswith("(no symbol)"))
    assert pooling.file_bytes - padding <= pooling.bytes <= pooling.file_bytes
    names = {s.name.split("(")[0] for s in answer.symbols}
    assert {"tflite::Register_AVERAGE_POOL_2D", "tflite::Register_MAX_POOL_2D", "tflite::ParsePool"} <= names
    assert [s.bytes for s in answer.symbols] == sorted((s.bytes for s in answer.symbols), reverse=True)


def test_drop_and_keep_are_complements(graph, report):
    dropped = what_if(graph, report, "drop", ["ADD", "MUL", "SINH"])
    kept = what_if(graph, report, "keep", [op for op in dropped.kept])
    assert kept.dropped == dropped.dropped and kept.predicted_rom == dropped.predicted_rom


def test_a_model_op_the_firmware_lacks_is_a_note(graph, report):
    answer = what_if(graph, report, "keep", [str(MODELS / "custom_ops.tflite")])
    assert set(answer.kept) == {"CONV_2D", "CONV_2D_INT8", "DETECTION_POSTPROCESS"}
    assert any("needs Atan" in note for note in answer.notes)


@pytest.mark.parametrize("names,message", [
    (["MULL"], "--drop MULL: no such operator registration in this firmware (did you mean MUL?)"),
    ([], "--drop needs at least one op name"),
    ([str(MODELS / "truncated.tflite")], "truncated.tflite"),
])
def test_bad_names_are_one_line_errors(graph, report, names, message):
    with pytest.raises(SizeToolError) as error:
        what_if(graph, report, "drop", names)
    assert message in str(error.value) and "\n" not in str(error.value)
