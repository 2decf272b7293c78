"""The Zephyr module (zephyr/module.yml + zephyr/CMakeLists.txt) and the ESP-IDF component (esp-idf/tflm_size_toolkit)
in projects laid out as each (docs/zephyr.md, docs/esp-idf.md), built with real CMake + Ninja against stand-ins for
Zephyr's CMake package and ESP-IDF's project.cmake, since neither is installed here."""

import json
import os
import sys

import pytest

from tests.conftest import REPO_ROOT
from tests.integrations.cmake_projects import (
    PROJECTS,
    build,
    configure,
    copy_project,
    ninja_explain,
    require_tools,
    write_stand_in,
)


def test_the_zephyr_module_points_at_its_cmake():
    text = (REPO_ROOT / "zephyr" / "module.yml").read_text()
    assert "name: tflm-size-toolkit" in text and "\n  cmake: zephyr\n" in text
    assert (REPO_ROOT / "zephyr" / "CMakeLists.txt").exists()


def test_a_zephyr_app_calls_the_functions_after_find_package_zephyr(tmp_path):
    require_tools("cmake", "ninja", "c++")
    project = copy_project("zephyr_app", tmp_path, {"kws.tflite": "arena_while.tflite"})
    build_dir = tmp_path / "build"
    configured = configure(project, build_dir, f"-DZephyr_DIR={PROJECTS / 'zephyr_stand_in'}",
                           f"-DZEPHYR_EXTRA_MODULES={REPO_ROOT}", f"-DPython3_EXECUTABLE={sys.executable}",
                           f"-DTFLM_STAND_IN_DIR={write_stand_in(tmp_path / 'stand_in')}")
    assert configured.returncode == 0, configured.stderr
    built = build(build_dir)
    assert built.returncode == 0, built.stdout
    assert "gen-resolver: tflm_generated/app/ops.h" in built.stdout and "size-report check: zephyr" in built.stdout
    summary = json.loads((build_dir / "zephyr" / "zephyr.size.json").read_text())
    assert summary["status"] == "pass" and summary["rom"] > 0
    assert "| ROM |" in (build_dir / "zephyr" / "zephyr.size.md").read_text()
    assert "no work to do" in ninja_explain(build_dir)
    shown = build(build_dir, "--target", "zephyr_rom_report")
    assert shown.returncode == 0 and "ROM zephyr.elf" in shown.stdout


def test_the_esp_idf_component_defines_the_functions_for_every_component_and_the_project(tmp_path):
    require_tools("cmake", "ninja", "c++")
    manifest = (REPO_ROOT / "esp-idf" / "tflm_size_toolkit" / "idf_component.yml").read_text()
    assert 'version: "0.1.0"' in manifest and "dependencies:" in manifest
    project = copy_project("esp_idf_app", tmp_path, {"kws.tflite": "arena_while.tflite"},
                           models_dir="main/models")
    build_dir = tmp_path / "build"
    os.environ["IDF_PATH"] = str(PROJECTS / "esp_idf_stand_in")
    try:
        configured = configure(project, build_dir, f"-DTFLM_SIZE_TOOLKIT_DIR={REPO_ROOT}",
                               f"-DPYTHON={sys.executable}", f"-DTFLM_STAND_IN_DIR={write_stand_in(tmp_path / 's')}")
        assert configured.returncode == 0, configured.stderr
        built = build(build_dir)
    finally:
        del os.environ["IDF_PATH"]
    assert built.returncode == 0, built.stdout
    assert "gen-resolver: esp-idf/main/tflm_generated/__idf_main/ops.h" in built.stdout
    summary = json.loads((build_dir / "kws.elf.size.json").read_text())
    assert summary["status"] == "pass" and summary["ram"] > 0
    assert "no work to do" in ninja_explain(build_dir)


@pytest.mark.parametrize("app", ["zephyr_app", "esp_idf_app"])
def test_the_documented_example_is_the_tested_project(app):
    """docs/zephyr.md and docs/esp-idf.md show these projects' CMake calls."""
    page = (REPO_ROOT / "docs" / ("zephyr.md" if app == "zephyr_app" else "esp-idf.md")).read_text()
    calls = [line.strip() for path in (PROJECTS / app).rglob("CMakeLists.txt")
             for line in path.read_text().splitlines() if line.startswith("tflm_")]
    assert calls and all(call in page for call in calls), [c for c in calls if c not in page]
