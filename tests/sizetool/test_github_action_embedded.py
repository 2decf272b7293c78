"""The Action's embedded-models and header inputs: the step fails when the model linked into the firmware is not
the given .tflite (an annotation naming both digests) or the committed header was made from another model."""

import hashlib

from resolver_gen.cli import main as gen_resolver
from tests.conftest import REPO_ROOT
from tests.sizetool.test_github_action import run_action_step

ELF = REPO_ROOT / "fixtures/embedded_models/out/tflm-two-models/firmware.elf"
MODELS = REPO_ROOT / "fixtures/models"


def digest(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_the_linked_model_passes_and_another_fails_naming_both_digests(tmp_path):
    result, summary, outputs = run_action_step(tmp_path, elf=ELF, embedded_models=MODELS / "int8_vision.tflite")
    assert result.returncode == 0, result.stderr
    assert outputs["status"] == "pass" and "embedded_model[int8_vision.tflite]" in summary
    result, summary, outputs = run_action_step(tmp_path, elf=ELF, embedded_models=MODELS / "hybrid.tflite")
    assert result.returncode == 1 and outputs["status"] == "fail"
    (annotation,) = [line for line in result.stdout.splitlines() if line.startswith("::error")]
    assert "embedded_model[hybrid.tflite]" in annotation
    assert digest(MODELS / "hybrid.tflite") in annotation and digest(MODELS / "int8_vision.tflite") in annotation


def test_a_header_from_another_model_fails_the_step(tmp_path):
    header = tmp_path / "ops.h"
    assert gen_resolver([str(MODELS / "int8_vision.tflite"), str(MODELS / "arena_add_chain.tflite"),
                         "--allow-unsupported", "-o", str(header)]) == 0
    result, _, outputs = run_action_step(tmp_path, elf=ELF, header=header, header_args="--allow-unsupported")
    assert result.returncode == 0 and outputs["status"] == "pass", result.stderr
    assert gen_resolver([str(MODELS / "arena_add_chain.tflite"), "-o", str(header)]) == 0
    result, summary, outputs = run_action_step(tmp_path, elf=ELF, header=header, header_args="--allow-unsupported")
    assert result.returncode == 1 and outputs["status"] == "fail" and "header[ops.h]" in summary
