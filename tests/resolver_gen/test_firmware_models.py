"""gen-resolver FIRMWARE.elf: an ELF stands for the models linked into it (found by the same finder as size-report's,
read here with pyelftools)."""

import hashlib
import json

from resolver_gen.cli import main
from resolver_gen.firmware_models import models_in_elf
from tests.conftest import REPO_ROOT

OUT = REPO_ROOT / "fixtures/embedded_models/out"
MODELS = REPO_ROOT / "fixtures/models"
VISION, CUSTOM = MODELS / "int8_vision.tflite", MODELS / "tflm_custom_ops.tflite"


def code(text: str) -> str:
    return "".join(line for line in text.splitlines(keepends=True) if not line.lstrip().startswith("//"))


def test_the_models_of_an_elf_are_found_demangled_and_equal_to_their_sources():
    found = models_in_elf(str(OUT / "two-models/firmware.elf"))
    assert [(m.symbol, m.data) for m in found] == [("keyword::model_data", CUSTOM.read_bytes()),
                                                   ("g_model", VISION.read_bytes())]
    stripped = models_in_elf(str(OUT / "two-models/firmware-stripped.elf"))
    assert [m.data for m in stripped] == [CUSTOM.read_bytes(), VISION.read_bytes()]


def test_the_header_for_a_firmware_registers_what_the_header_for_its_models_registers(tmp_path, capsys):
    assert main([str(OUT / "two-models/firmware.elf"), "-o", str(tmp_path / "fw.h")]) == 0
    assert main([str(CUSTOM), str(VISION), "-o", str(tmp_path / "files.h")]) == 0
    from_firmware = (tmp_path / "fw.h").read_text()
    assert code(from_firmware) == code((tmp_path / "files.h").read_text())
    assert "//   firmware.elf:g_model: 9 distinct operators (10 operator nodes) in 1 subgraph" in from_firmware


def test_json_gives_each_embedded_models_digest(capsys):
    assert main([str(OUT / "two-models/firmware.elf"), "--format", "json"]) == 0
    models = json.loads(capsys.readouterr().out)["models"]
    assert [(m["file"], m["sha256"]) for m in models] == [
        ("firmware.elf:keyword::model_data", hashlib.sha256(CUSTOM.read_bytes()).hexdigest()),
        ("firmware.elf:g_model", hashlib.sha256(VISION.read_bytes()).hexdigest())]


def test_an_elf_without_a_model_is_one_line_and_exit_2(capsys):
    assert main([str(OUT / "no-models/firmware.elf")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "an ELF with no TFLite model in its stored data" in err
