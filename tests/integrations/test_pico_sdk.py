"""The CMake package in a real Raspberry Pi Pico SDK build (../shared/sdk/pico-sdk-2.1.0, its own toolchain file,
Debian's arm-none-eabi GCC), as docs/cmake.md's Pico SDK example: the package found through TflmSizeToolkit_DIR
where CMAKE_PREFIX_PATH is not enough; the size check run after the link of `cmake --build --target <firmware>`, and
failing `cmake --build` in a step of its own with the reason on the console and no long line near it; a no-op rebuild running nothing; a model touched without changing its ops recompiling
nothing. One configure and one full build (about 20 s on two cores), then incremental builds."""

import json
import re
import subprocess
import sys

import pytest

from tests.conftest import REPO_ROOT
from tests.integrations.cmake_projects import (
    PROJECTS,
    build,
    cmake_package_dir,
    configure,
    copy_project,
    ninja_explain,
    require_tools,
    touch,
    write_stand_in,
)

PICO_SDK = (REPO_ROOT.parent / "shared" / "sdk" / "pico-sdk-2.1.0").resolve()
FIRMWARE = "kws"
STEPS = re.compile(r"^\[\d+/\d+\] (.*)$", re.MULTILINE)


def pico_options(project) -> list[str]:
    """Offline, as ../shared/sdk/README.md says: no picotool download, the plain Pico board."""
    return [f"-DPICO_SDK_PATH={PICO_SDK}", "-DPICO_BOARD=pico", "-DPICO_NO_PICOTOOL=1",
            f"-DTFLM_STAND_IN_DIR={project.parent / 'stand_in'}"]


@pytest.fixture(scope="module")
def pico_build(tmp_path_factory):
    if not (PICO_SDK / "pico_sdk_init.cmake").exists():
        pytest.skip(f"{PICO_SDK} is absent (the real Pico SDK is optional: ../shared/sdk/README.md)")
    require_tools("cmake", "ninja", "arm-none-eabi-gcc", "arm-none-eabi-g++")
    probe = subprocess.run(["arm-none-eabi-g++", "-mcpu=cortex-m0plus", "-mthumb", "-E", "-x", "c++", "-"],
                           input="#include <cstdio>\n", capture_output=True, text=True)
    if probe.returncode != 0:
        pytest.skip("arm-none-eabi-g++ has no C library headers (install libnewlib-arm-none-eabi and "
                    "libstdc++-arm-none-eabi-newlib)")
    root = tmp_path_factory.mktemp("pico")
    project = copy_project("pico", root, {"kws.tflite": "arena_while.tflite"})
    write_stand_in(root / "stand_in")
    build_dir = root / "build"
    # docs/cmake.md's one line: TflmSizeToolkit_DIR (not CMAKE_PREFIX_PATH, which the SDK's toolchain file re-roots).
    configured = configure(project, build_dir, *pico_options(project),
                           f"-DTflmSizeToolkit_DIR={cmake_package_dir()}",
                           f"-DPython3_EXECUTABLE={sys.executable}")  # the tools are found next to this Python
    assert configured.returncode == 0, configured.stdout + configured.stderr
    first = build(build_dir, "--target", FIRMWARE)
    assert first.returncode == 0, first.stdout
    everything = build(build_dir)  # and the check's own step (in ALL), which replays the link's verdict
    assert everything.returncode == 0 and STEPS.findall(everything.stdout) == ["size-report check: kws"], \
        everything.stdout
    return project, build_dir, first.stdout


def test_the_documented_line_finds_the_package_under_the_pico_toolchain_and_cmake_prefix_path_does_not(
        pico_build, tmp_path):
    project, build_dir, _ = pico_build
    cache = (build_dir / "CMakeCache.txt").read_text()
    toolchain = PICO_SDK / "cmake" / "preload" / "toolchains" / "pico_arm_cortex_m0plus_gcc.cmake"
    assert f"CMAKE_TOOLCHAIN_FILE:FILEPATH={toolchain}" in cache
    # What the issue met: the SDK's toolchain file sets CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY.
    refused = configure(project, tmp_path / "prefix-path", *pico_options(project),
                        f"-DCMAKE_PREFIX_PATH={cmake_package_dir()}")
    assert refused.returncode != 0 and "TflmSizeToolkitConfig.cmake" in refused.stderr


def test_building_the_firmware_target_alone_runs_the_size_check_after_its_link(pico_build):
    project, build_dir, first = pico_build
    steps = STEPS.findall(first)
    assert "gen-resolver: tflm_generated/kws/ops.h" in steps and steps[-1] == "Linking CXX executable kws.elf"
    assert "\npass (3 passed, 0 failed): least headroom " in first  # the check's verdict, printed after the link
    assert first.rstrip().splitlines()[-1].split()[-1] == "pass"  # then the rule table
    elf = build_dir / "kws.elf"
    assert elf.read_bytes()[18] == 40  # e_machine EM_ARM
    summary = json.loads((build_dir / "kws.size.json").read_text())
    assert summary["status"] == "pass" and [r["rule"] for r in summary["rules"]] == ["rom.total", "ram.total",
                                                                                     "regions.FLASH"]
    header = (build_dir / "tflm_generated" / "kws" / "ops.h").read_text()
    arena = int(re.search(r"Kws_kTensorArenaSize = (\d+);", header).group(1))
    assert 0 < arena <= summary["ram"]


def test_a_no_op_rebuild_runs_nothing(pico_build):
    _, build_dir, _ = pico_build
    assert "ninja: no work to do." in ninja_explain(build_dir)
    again = build(build_dir, "--target", FIRMWARE)
    assert again.returncode == 0 and STEPS.findall(again.stdout) == [] and "no work to do" in again.stdout


def test_a_model_touched_without_changing_its_ops_recompiles_nothing(pico_build):
    project, build_dir, _ = pico_build
    header = build_dir / "tflm_generated" / "kws" / "ops.h"
    objects = {p: p.stat().st_mtime_ns for p in build_dir.rglob("*.o")}
    elf_time, header_time = (build_dir / "kws.elf").stat().st_mtime_ns, header.stat().st_mtime_ns
    touch(project / "models" / "kws.tflite", newer_than=header)
    rebuilt = build(build_dir, "--target", FIRMWARE)
    assert rebuilt.returncode == 0, rebuilt.stdout
    assert STEPS.findall(rebuilt.stdout) == ["gen-resolver: tflm_generated/kws/ops.h"]
    assert header.stat().st_mtime_ns == header_time and (build_dir / "kws.elf").stat().st_mtime_ns == elf_time
    assert {p: p.stat().st_mtime_ns for p in objects} == objects
    assert "ninja: no work to do." in ninja_explain(build_dir)


def test_a_breach_fails_the_build_in_a_step_of_its_own_with_no_long_line_near_the_reasons_until_it_passes(
        pico_build):
    """Issue 40: with the check in the link step, Ninja printed the whole pico-sdk link command (9.6 KB here) above
    the FAIL lines. The check is now a step of its own: no line over 2,000 characters in the output."""
    project, build_dir, _ = pico_build
    rom = json.loads((build_dir / "kws.size.json").read_text())["rom"]
    budget = project / "size-budget.toml"
    original = budget.read_text()
    budget.write_text('[rom]\ntotal = "16K"\n[ram]\ntotal = "200K"\n')
    reason = f"size-report check: FAIL rom.total: {rom} bytes exceeds the limit 16K (16384 bytes) by {rom - 16384}"
    try:
        # The firmware target alone: linked, the reasons printed after the link; under Ninja it does not fail.
        alone = build(build_dir, "--target", FIRMWARE)
        assert alone.returncode == 0 and reason in alone.stdout.splitlines(), alone.stdout
        assert "gen-resolver" not in alone.stdout  # the budget changed, not the model: only the link and its check
        assert max(map(len, alone.stdout.splitlines())) <= 2000
        failed = build(build_dir)  # all: the check's own step fails
        assert failed.returncode != 0
        lines = failed.stdout.splitlines()
        assert reason in lines
        assert "tflm_size_check(kws) FAILED: size-report check (kws.size.md)" in " ".join(failed.stdout.split())
        assert max(map(len, lines)) <= 2000, max(map(len, lines))
        assert json.loads((build_dir / "kws.size.json").read_text())["status"] == "fail"
        assert build(build_dir, "--target", "kws_size_check").returncode != 0  # a failed check is never done
    finally:
        budget.write_text(original)
    passed = build(build_dir)
    assert passed.returncode == 0 and "3 passed, 0 failed" in passed.stdout, passed.stdout
    assert "ninja: no work to do." in ninja_explain(build_dir)


def test_the_documented_pico_example_is_the_tested_project():
    page = (REPO_ROOT / "docs" / "cmake.md").read_text()
    calls = [line.split("#")[0].strip() for line in (PROJECTS / "pico" / "CMakeLists.txt").read_text().splitlines()
             if line.startswith(("tflm_", "find_package(", "pico_add_map_output("))]
    assert len(calls) == 5 and all(call in page for call in calls), [c for c in calls if c not in page]
    assert '-DTflmSizeToolkit_DIR="$(gen-resolver --cmake-dir)"' in page
