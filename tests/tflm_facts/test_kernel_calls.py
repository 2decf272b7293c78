"""The registration fields and the interpreter functions that call them, checked against a TFLM checkout when one is
beside the repo (or named by $TFLM_DIR)."""

import os
import re
from pathlib import Path

import pytest

from tflm_facts.kernel_calls import DISPATCHERS, REGISTRATION_FIELDS, field_at, field_offset, kernel_role

REPO_ROOT = Path(__file__).resolve().parents[2]
TFLM_DIR = Path(os.environ.get("TFLM_DIR", REPO_ROOT.parent / "ext" / "tflm"))


@pytest.fixture
def micro_dir():
    micro = TFLM_DIR / "tensorflow" / "lite" / "micro"
    if not (micro / "micro_common.h").is_file():
        pytest.skip(f"{TFLM_DIR} is not a tflite-micro checkout (set TFLM_DIR to check the tables against one)")
    return micro


def test_field_offsets_follow_the_struct():
    assert field_offset("invoke", 4) == 12 and field_offset("invoke", 8) == 24
    assert [field_at(offset, 4) for offset in (0, 4, 8, 12, 16, 20, 2)] == [
        "init", "free", "prepare", "invoke", "reset", None, None]


@pytest.mark.parametrize("name, role", [
    ("tflite::(anonymous namespace)::AddInit(tflite::TfLiteContext*, char const*, unsigned int)", "init"),
    ("tflite::ConvPrepare(TfLiteContext*, TfLiteNode*)", "prepare"),
    ("tflite::(anonymous namespace)::Prepare(TfLiteContext*, TfLiteNode*)", "prepare"),
    ("tflite::SoftmaxEval(TfLiteContext*, TfLiteNode*)", "invoke"),
    ("tflite::(anonymous namespace)::EvalMaximumInt8(TfLiteContext*, TfLiteNode*)", "invoke"),
    ("tflite::VarHandleFree(TfLiteContext*, void*)", "free"),
    ("tflite::CircularBufferReset(TfLiteContext*, void*)", "reset"),
])
def test_a_kernel_functions_role_comes_from_its_name(name, role):
    assert kernel_role(name) == role


def test_the_registration_struct_has_the_fields_in_this_order(micro_dir):
    text = (micro_dir / "micro_common.h").read_text()
    body = re.search(r"struct TFLMRegistration \{(.*?)\};", text, re.S).group(1)
    assert re.findall(r"\(\*(\w+)\)", body) == list(REGISTRATION_FIELDS)


def test_the_interpreter_graph_calls_each_field_where_the_table_says(micro_dir):
    text = (micro_dir / "micro_interpreter_graph.cc").read_text()
    functions = re.split(r"\n(?=\w[^\n]*MicroInterpreterGraph::\w+\()", text)
    calls = {}
    for chunk in functions:
        name = re.match(r"\w[^\n]*(MicroInterpreterGraph::\w+)\(", chunk)
        if name:
            calls[name.group(1)] = set(re.findall(r"registration->(\w+)\(", chunk))
    for field in REGISTRATION_FIELDS:
        callers = {name for name, fields in calls.items() if field in fields}
        assert callers, field
        for caller in callers:
            assert field in DISPATCHERS["tflite::" + caller], (caller, field)
