"""tflm_size_check's EMBEDDED_MODELS and HEADER: a real CMake + Ninja build fails when the model linked into the
firmware is not the given .tflite, or the committed header was not made from it."""

import sys

import pytest

from tests.conftest import REPO_ROOT
from tests.integrations.cmake_projects import SCRIPTS, build, cmake_package_dir, configure, require_tools

FIRMWARE = REPO_ROOT / "fixtures/embedded_models/out/tflm-two-models/firmware.elf"
MODELS = REPO_ROOT / "fixtures/models"


def project(tmp_path, arguments: str):
    require_tools("cmake", "ninja")
    elf = tmp_path / "firmware.elf"
    elf.write_bytes(FIRMWARE.read_bytes())
    (tmp_path / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.16)\nproject(m NONE)\nfind_package(TflmSizeToolkit REQUIRED)\n"
        f"tflm_size_check(fw ELF {elf} {arguments})\n")
    assert configure(tmp_path, tmp_path / "build", f"-DCMAKE_PREFIX_PATH={cmake_package_dir()}",
                     f"-DPython3_EXECUTABLE={sys.executable}").returncode == 0
    return build(tmp_path / "build")


@pytest.mark.parametrize("model,passes", [("int8_vision.tflite", True), ("hybrid.tflite", False)])
def test_embedded_models_fails_the_build_when_the_linked_model_differs(tmp_path, model, passes):
    built = project(tmp_path, f"EMBEDDED_MODELS {MODELS / model}")
    assert (built.returncode == 0) == passes, built.stdout
    if not passes:
        assert "size-report check: FAIL embedded_model[hybrid.tflite]: the firmware's model differs" in built.stdout
        assert "09d38fc14ff9ad2e" in built.stdout  # hybrid.tflite's digest, beside the firmware's


def test_header_fails_the_build_when_it_was_made_from_another_model(tmp_path):
    import subprocess

    header = tmp_path / "ops.h"
    subprocess.run([str(SCRIPTS / "gen-resolver"), str(MODELS / "int8_vision.tflite"),
                    str(MODELS / "arena_add_chain.tflite"), "--allow-unsupported", "-o", str(header)], check=True)
    assert project(tmp_path, f"HEADER {header} HEADER_ARGS --allow-unsupported").returncode == 0
    subprocess.run([str(SCRIPTS / "gen-resolver"), str(MODELS / "int8_vision.tflite"), "--allow-unsupported", "-o",
                    str(header)], check=True)
    built = build(tmp_path / "build")
    assert built.returncode != 0 and "FAIL header[ops.h]" in built.stdout, built.stdout
