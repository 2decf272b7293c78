"""Model arguments: a .tflite as it is, a C/C++ file as every model array in it, FILE:NAME as one array; every reader
of the package opens the references the same way, and a file with no model in it is one clear error."""

import hashlib
import os

import pytest

from tflm_model.digest import sha256_of_model
from tflm_model.errors import ModelError
from tflm_model.model_sources import expand_model_arguments, load_models, model_bytes, model_size, split_reference
from tflm_model.operator_uses import read_model_uses
from tflm_model.tensor_graph import read_tensor_graph
from tflm_model.tflite_reader import read_operator_table
from tests.conftest import FIXTURES
from tests.tflm_model import c_array_styles as styles

VISION = FIXTURES / "models" / "vision_subset.tflite"
CONTROL = FIXTURES / "models" / "control_flow.tflite"


@pytest.fixture
def two_models(tmp_path):
    """models.cc: g_vision and g_control (models) and g_image (not one)."""
    path = tmp_path / "models.cc"
    path.write_text(styles.several_arrays({"g_vision": VISION.read_bytes(), "g_control": CONTROL.read_bytes()},
                                          bytes(range(64))))
    return path


def test_a_c_file_gives_every_array_that_is_a_model(two_models):
    models = load_models(str(two_models))
    assert [(m.name, m.reference, m.data) for m in models] == [
        ("models.cc:g_vision", f"{two_models}:g_vision", VISION.read_bytes()),
        ("models.cc:g_control", f"{two_models}:g_control", CONTROL.read_bytes())]


def test_file_name_picks_one_array(two_models):
    [model] = load_models(f"{two_models}:g_control")
    assert model.name == "models.cc:g_control" and model.read_bytes() == CONTROL.read_bytes()


def test_a_tflite_is_itself(tmp_path):
    [model] = load_models(str(VISION))
    assert model.name == "vision_subset.tflite" and model.array is None and model.read_bytes() == VISION.read_bytes()


def test_every_reader_opens_a_reference_as_it_opens_the_tflite(two_models):
    reference = f"{two_models}:g_vision"
    assert expand_model_arguments([str(two_models), str(VISION)]) == [reference, f"{two_models}:g_control",
                                                                    str(VISION)]
    from_array, from_file = read_operator_table(reference), read_operator_table(VISION)
    assert (from_array.operator_codes, from_array.operators) == (from_file.operator_codes, from_file.operators)
    assert read_tensor_graph(reference).subgraphs == read_tensor_graph(VISION).subgraphs
    uses = read_model_uses(reference)
    assert uses.name == "models.cc:g_vision"
    assert uses.sha256 == hashlib.sha256(VISION.read_bytes()).hexdigest() == sha256_of_model(VISION)
    assert model_size(reference) == model_size(VISION) == VISION.stat().st_size


def test_a_file_holding_several_models_must_be_named_where_one_model_is_read(two_models):
    with pytest.raises(ModelError, match=r"models.cc: holds 2 models \(g_vision, g_control\): name one as "
                                         r"models.cc:NAME"):
        model_bytes(two_models)


def test_a_file_holding_one_model_reads_as_that_model(tmp_path):
    path = tmp_path / "model_data.cc"
    path.write_text(styles.xxd_style(VISION.read_bytes(), "g_model"))
    assert model_bytes(path) == VISION.read_bytes()
    assert read_model_uses(path).ops == read_model_uses(VISION).ops


@pytest.mark.parametrize("text, problem", [
    ("const int g_model_len = 0;\n", "no TFLite model in it: no byte array with an initializer"),
    ("const unsigned char g_image[] = {1, 2, 3, 4, 5, 6, 7, 8};\n",
     "no TFLite model in it: 1 byte array(s) (g_image), none with the TFLite identifier TFL3 at offset 4"),
    (styles.generate_cc_arrays_header("g_model"),
     "no TFLite model in it: g_model is only declared here (extern): give the file that defines it"),
    ("const unsigned char g_model[] = {0x1c, MODEL_BYTE};\n",
     "no TFLite model in it: byte array g_model (line 1) cannot be read: element 'MODEL_BYTE'"),
])
def test_a_file_with_no_model_is_one_error_naming_it(tmp_path, text, problem):
    path = tmp_path / "model_data.h"
    path.write_text(text)
    with pytest.raises(ModelError) as error:
        load_models(str(path))
    assert str(error.value).startswith(f"{path}: {problem}") and "\n" not in str(error.value)


def test_a_missing_array_names_the_ones_there(two_models):
    with pytest.raises(ModelError) as error:
        load_models(f"{two_models}:g_missing")
    assert str(error.value) == f"{two_models}: no byte array named g_missing (its byte arrays: g_vision, g_image, " \
                               "g_control)"


def test_an_array_that_is_not_a_valid_model_fails_in_the_reader_named_by_its_reference(tmp_path):
    truncated = (FIXTURES / "models" / "truncated.tflite").read_bytes()
    path = tmp_path / "bad.cc"
    path.write_text(styles.xxd_style(truncated, "g_bad"))
    [reference] = expand_model_arguments([str(path)])
    with pytest.raises(ModelError, match=rf"^{path}:g_bad: offset \d+ lies outside the file \(80 bytes\)"):
        read_operator_table(reference)


def test_a_named_array_that_is_no_model_is_the_readers_error(tmp_path):
    path = tmp_path / "image.cc"
    path.write_text("const unsigned char g_image[] = {1, 2, 3, 4, 5, 6, 7, 8, 9};\n")
    with pytest.raises(ModelError, match=rf"^{path}:g_image: not a TFLite model \(file identifier"):
        read_operator_table(f"{path}:g_image")


@pytest.mark.parametrize("argument, expected", [
    ("model.cc:g_model", ("model.cc", "g_model")),
    ("dir/a:b/model.cc:g_model", ("dir/a:b/model.cc", "g_model")),
    (r"C:\models\model.cc", (r"C:\models\model.cc", None)),  # a drive letter, not FILE:NAME
    (r"C:\models\model.cc:g_model", (r"C:\models\model.cc", "g_model")),
    ("C:model.cc", ("C:model.cc", None)),
    ("model.tflite", ("model.tflite", None)),
    ("model.cc:9lives", ("model.cc:9lives", None)),
])
def test_file_name_is_split_at_the_last_colon_before_a_c_identifier(argument, expected):
    assert split_reference(argument) == expected


def test_an_existing_file_with_a_colon_in_its_name_is_that_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "odd:name").write_bytes(VISION.read_bytes())
    assert split_reference("odd:name") == ("odd:name", None)
    assert load_models("odd:name")[0].read_bytes() == VISION.read_bytes()


def test_file_name_of_a_missing_file_is_no_such_file(tmp_path):
    with pytest.raises(ModelError, match=r"missing.cc:g_model: no such file"):
        load_models(str(tmp_path / "missing.cc:g_model"))


def test_a_c_file_is_parsed_once_while_unchanged(tmp_path):
    path = tmp_path / "m.cc"
    path.write_text(styles.xxd_style(VISION.read_bytes(), "g_model"))
    assert model_bytes(path) is model_bytes(path)
    path.write_text(styles.xxd_style(CONTROL.read_bytes(), "g_model"))
    os.utime(path, ns=(1, 1))  # a new size and times: read again
    assert model_bytes(path) == CONTROL.read_bytes()
