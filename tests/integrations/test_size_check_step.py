"""tflm_size_check as a step of its own (issue 40): a failed check prints its FAIL lines under the step's short
command, never under the link command, with Ninja and with Make. The host project links with a few hundred
`--wrap`/`--defsym` options, as a pico-sdk program does (its link line is 9.6 KB; the Pico SDK build itself is
tests/integrations/test_pico_sdk.py)."""

import json
import re
import sys

import pytest

from tests.integrations.cmake_projects import build, cmake_package_dir, configure, copy_project, require_tools, \
    write_stand_in

LONG_LINE = 2000
# 300 linker options that change nothing in the program: a link command of about 10 KB.
LINK_OPTIONS = "\n".join(f'target_link_options(app PRIVATE "LINKER:--defsym=tflm_test_padding_symbol_{i:04d}=0")'
                         for i in range(300))


def failing_project(tmp_path, generator: str):
    project = copy_project("host", tmp_path, ("arena_add_chain.tflite", "arena_while.tflite"))
    lists = project / "CMakeLists.txt"
    lists.write_text(lists.read_text().replace("tflm_size_check(app", LINK_OPTIONS + "\ntflm_size_check(app"))
    (project / "size-budget.toml").write_text("[rom]\ntotal = 100\n")  # any host program breaches it
    build_dir = tmp_path / "build"
    configured = configure(project, build_dir, f"-DCMAKE_PREFIX_PATH={cmake_package_dir()}",
                           f"-DTFLM_STAND_IN_DIR={write_stand_in(tmp_path / 'stand_in')}",
                           f"-DPython3_EXECUTABLE={sys.executable}", generator=generator)
    assert configured.returncode == 0, configured.stderr
    return project, build_dir


def fail_lines(text: str) -> list[int]:
    return [i for i, line in enumerate(text.splitlines()) if "size-report check: FAIL rom.total" in line]


def assert_readable(text: str) -> None:
    """The FAIL lines are there, and no line of the output is a link command (none over 2,000 characters)."""
    assert fail_lines(text), text
    longest = max(len(line) for line in text.splitlines())
    assert longest <= LONG_LINE, f"a {longest}-character line in:\n{text[:3000]}"
    assert "tflm_size_check(app) FAILED: size-report check (app.size.md)" in " ".join(text.split())


@pytest.mark.parametrize("generator", ["Ninja", "Unix Makefiles"])
def test_a_failed_check_is_its_own_step_with_no_link_command_around_its_reasons(tmp_path, generator):
    require_tools("cmake", "ninja" if generator == "Ninja" else "make", "c++")
    _, build_dir = failing_project(tmp_path, generator)
    failed = build(build_dir)
    assert failed.returncode != 0
    assert_readable(failed.stdout)
    assert json.loads((build_dir / "app.size.json").read_text())["status"] == "fail"
    if generator == "Ninja":
        # The step that failed is the check's, and the link command is not printed at all.
        assert re.search(r"^FAILED: .*app\.size-check\.stamp", failed.stdout, re.MULTILINE), failed.stdout
        assert "tflm_test_padding_symbol_0299" not in failed.stdout
    again = build(build_dir)  # a failed check is never taken as done, and the replay is as readable
    assert again.returncode != 0
    assert_readable(again.stdout)


def test_building_the_target_alone_prints_the_reasons_under_ninja_and_fails_under_make(tmp_path):
    require_tools("cmake", "ninja", "make", "c++")
    for generator, fails in (("Ninja", False), ("Unix Makefiles", True)):
        _, build_dir = failing_project(tmp_path / generator.split()[0], generator)
        alone = build(build_dir, "--target", "app")
        assert (alone.returncode != 0) == fails, alone.stdout
        assert fail_lines(alone.stdout) and max(len(line) for line in alone.stdout.splitlines()) <= LONG_LINE
        if not fails:
            assert "`cmake --build` (all) and the target app_size_check fail on it" in " ".join(alone.stdout.split())
        step = build(build_dir, "--target", "app_size_check")
        assert step.returncode != 0
        assert_readable(step.stdout)
