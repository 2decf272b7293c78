"""gen-resolver on models held as C arrays: the same header, arena, JSON and fit as on the .tflite, the model named
`file.cc:ARRAY`; a file with no model in it is one line and exit 2."""

import hashlib
import json

import pytest

from resolver_gen import cli
from sizetool import cli as size_report
from tests.conftest import FIXTURES
from tests.tflm_model import c_array_styles as styles

VISION = FIXTURES / "models" / "int8_vision.tflite"
CONTROL = FIXTURES / "models" / "control_flow.tflite"
ELF = FIXTURES / "firmware/out/cortex-m4/firmware.elf"
MAP = FIXTURES / "firmware/out/cortex-m4/firmware.map"


def run(capsys, *argv):
    status = cli.main([str(a) for a in argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.fixture
def model_data(tmp_path):
    """model_data.cc holding vision_subset as generate_cc_arrays.py writes it."""
    path = tmp_path / "model_data.cc"
    path.write_text(styles.generate_cc_arrays_source(VISION.read_bytes(), "g_model", "model_data.h"))
    return path


@pytest.mark.parametrize("options", [[], ["--arena"], ["--reduce-types", "--name", "Vision"], ["--format", "lite"]])
def test_the_header_is_the_tflites_but_for_the_models_name(capsys, model_data, options):
    status, from_array, _ = run(capsys, model_data, *options)
    assert status == 0
    _, from_tflite, _ = run(capsys, VISION, *options)
    assert "model_data.cc:g_model" in from_array
    assert from_array.replace("model_data.cc:g_model", "int8_vision.tflite") == from_tflite


def test_json_names_the_array_and_carries_the_tflites_digest(capsys, model_data):
    status, out, _ = run(capsys, model_data, "--format", "json")
    [model] = json.loads(out)["models"]
    assert status == 0 and model["file"] == "model_data.cc:g_model"
    assert model["sha256"] == hashlib.sha256(VISION.read_bytes()).hexdigest()


def test_a_file_with_two_models_gives_their_union_and_file_name_one(capsys, tmp_path):
    path = tmp_path / "models.cc"
    path.write_text(styles.several_arrays({"g_vision": VISION.read_bytes(), "g_control": CONTROL.read_bytes()},
                                          b"\x01\x02"))
    _, both, _ = run(capsys, path, "--allow-unsupported")
    _, union, _ = run(capsys, VISION, CONTROL, "--allow-unsupported")
    assert both.replace("models.cc:g_vision", "int8_vision.tflite").replace(
        "models.cc:g_control", "control_flow.tflite") == union
    _, one, _ = run(capsys, f"{path}:g_vision")
    _, alone, _ = run(capsys, VISION)
    assert one.replace("models.cc:g_vision", "int8_vision.tflite") == alone


def test_check_passes_on_a_header_from_the_same_array_and_fails_when_the_array_changes(capsys, model_data, tmp_path):
    header = tmp_path / "ops.h"
    assert run(capsys, model_data, "-o", header)[0] == 0
    assert run(capsys, model_data, "--check", header)[0] == 0
    model_data.write_text(styles.xxd_style(CONTROL.read_bytes(), "g_model"))
    status, _, err = run(capsys, model_data, "--check", header, "--allow-unsupported")
    assert status == 1 and "is stale" in err


def test_fit_answers_for_the_array_as_for_the_tflite(capsys, model_data, tmp_path):
    profile = tmp_path / "fixture-m4.json"
    assert size_report.main(["profile", str(ELF), "--map", str(MAP), "-o", str(profile)]) == 0
    capsys.readouterr()
    status, from_array, _ = run(capsys, model_data, "--fit", profile, "--format", "json")
    _, from_tflite, _ = run(capsys, VISION, "--fit", profile, "--format", "json")
    assert status in (0, 1)
    named = from_array.replace(str(model_data) + ":g_model", str(VISION))
    assert named.replace("model_data.cc:g_model", "int8_vision.tflite") == from_tflite


@pytest.mark.parametrize("text, problem", [
    ("const int g_model_len = 2488;\n", "no TFLite model in it: no byte array with an initializer"),
    (styles.generate_cc_arrays_header("g_model"), "no TFLite model in it: g_model is only declared here (extern)"),
])
def test_a_file_with_no_model_is_one_line_and_exit_2(capsys, tmp_path, text, problem):
    path = tmp_path / "model_data.h"
    path.write_text(text)
    status, out, err = run(capsys, path)
    assert status == 2 and out == "" and err.count("\n") == 1
    assert err.startswith(f"gen-resolver: error: {path}: {problem}")


def test_a_missing_array_is_one_line_and_exit_2(capsys, model_data):
    status, out, err = run(capsys, f"{model_data}:g_other")
    assert status == 2 and out == "" and err == (f"gen-resolver: error: {model_data}: no byte array named g_other "
                                                 "(its byte arrays: g_model)\n")
