"""size-report's model arguments held as C arrays: `ops`, `fit`, `--keep` and `stack --model` answer for a
`model_data.cc` as for the .tflite it was written from, naming the model `model_data.cc:ARRAY`."""

import json

import pytest

from sizetool import cli
from tests.conftest import REPO_ROOT
from tests.tflm_model import c_array_styles as styles

ELF = str(REPO_ROOT / "fixtures/firmware/out/cortex-m4/firmware.elf")
MODEL = REPO_ROOT / "fixtures/models/vision_subset.tflite"
OTHER = REPO_ROOT / "fixtures/models/unused_opcodes.tflite"


def run(capsys, *argv):
    status = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture
def model_data(tmp_path):
    path = tmp_path / "model_data.cc"
    path.write_text(styles.xxd_style(MODEL.read_bytes(), "g_model"))
    return path


def as_tflite(text: str, path, model=MODEL, array="g_model") -> str:
    """The output with the array's names (and the file as asked, in --drop's JSON) replaced by the .tflite's."""
    text = text.replace(f"{path}:{array}", str(model)).replace(f"{path.name}:{array}", model.name)
    return text.replace(f'"{path}"', f'"{model}"')


@pytest.mark.parametrize("argv", [
    ["ops", ELF, "MODEL"],
    ["ops", ELF, "--model", "MODEL", "-f", "json"],
    ["ops", ELF, "MODEL", "-f", "markdown"],
    ["fit", ELF, "MODEL"],
    ["fit", ELF, "MODEL", "-f", "json"],
    ["ops", ELF, "--keep", "MODEL"],
    ["ops", ELF, "--drop", "MODEL", "-f", "json"],
    ["stack", ELF, "--model", "MODEL"],
], ids=["ops", "ops-json", "ops-markdown", "fit", "fit-json", "keep", "drop-json", "stack"])
def test_a_c_array_answers_as_its_tflite(capsys, model_data, argv):
    status, from_array, err = run(capsys, *[model_data if a == "MODEL" else a for a in argv])
    expected_status, from_tflite, _ = run(capsys, *[MODEL if a == "MODEL" else a for a in argv])
    assert status == expected_status and status in (0, 1), err
    assert as_tflite(from_array, model_data) == from_tflite


def test_fit_json_names_the_array(capsys, model_data):
    _, out, _ = run(capsys, "fit", ELF, model_data, "-f", "json")
    assert f"{model_data}:g_model" in json.loads(out)["models"]


def test_every_model_of_a_file_is_checked(capsys, tmp_path):
    path = tmp_path / "models.h"
    path.write_text(styles.several_arrays({"g_a": MODEL.read_bytes(), "g_b": OTHER.read_bytes()}, b"\x00" * 8))
    _, from_arrays, _ = run(capsys, "fit", ELF, path, "-f", "json")
    _, from_files, _ = run(capsys, "fit", ELF, MODEL, OTHER, "-f", "json")
    assert as_tflite(as_tflite(from_arrays, path, MODEL, "g_a"), path, OTHER, "g_b") == from_files
    _, one, _ = run(capsys, "fit", ELF, f"{path}:g_b", "-f", "json")
    _, alone, _ = run(capsys, "fit", ELF, OTHER, "-f", "json")
    assert as_tflite(one, path, OTHER, "g_b") == alone


@pytest.mark.parametrize("mode", [["fit", ELF], ["ops", ELF, "--keep"]])
def test_a_file_with_no_model_is_one_line_and_exit_2(capsys, tmp_path, mode):
    path = tmp_path / "image_data.cc"
    path.write_text("const unsigned char g_image[] = {1, 2, 3, 4, 5, 6, 7, 8};\n")
    status, out, err = run(capsys, *mode, path)
    assert status == 2 and out == "" and err.count("\n") == 1
    assert f"{path}: no TFLite model in it" in err
