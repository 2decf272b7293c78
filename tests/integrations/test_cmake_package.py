"""The CMake package (resolver_gen/cmake, find_package(TflmSizeToolkit)): real CMake + Ninja builds of a host program
and of a Cortex-M4 firmware that compile the generated header against a stand-in for TFLM's resolver API; the header
regenerated when a model or the tool changes and only then; the size gate failing `cmake --build`; its reports; and
bad arguments stopping the configure step with one line naming them."""

import json
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from resolver_gen import __version__
from resolver_gen.cli import cmake_package_dir as package_dir
from tests.conftest import FIXTURES, REPO_ROOT
from tests.integrations.cmake_projects import (
    SCRIPTS,
    build,
    cmake_package_dir,
    configure,
    copy_project,
    ninja_explain,
    require_tools,
    touch,
    write_stand_in,
)
from tests.tflm_model import c_array_styles as styles

HOST_MODELS = ("arena_add_chain.tflite", "arena_while.tflite")


def gen_resolver(*argv) -> str:
    return subprocess.run([str(SCRIPTS / "gen-resolver"), *map(str, argv)], capture_output=True, text=True,
                          check=True).stdout


def size_report_json(*argv) -> dict:
    return json.loads(subprocess.run([str(SCRIPTS / "size-report"), *map(str, argv), "--all", "--format", "json"],
                                     capture_output=True, text=True, check=True).stdout)


@pytest.fixture
def host_build(tmp_path):
    require_tools("cmake", "ninja", "c++")
    project = copy_project("host", tmp_path, HOST_MODELS)
    build_dir = tmp_path / "build"
    configured = configure(project, build_dir, f"-DCMAKE_PREFIX_PATH={cmake_package_dir()}",
                           f"-DTFLM_STAND_IN_DIR={write_stand_in(tmp_path / 'stand_in')}",
                           f"-DPython3_EXECUTABLE={sys.executable}")  # the tools are found next to this Python
    assert configured.returncode == 0, configured.stderr
    return project, build_dir


def test_gen_resolver_prints_the_cmake_package_that_the_wheel_carries():
    # The installed command prints its own package's folder: this checkout's with an editable install, the
    # site-packages copy with `pip install .`; either way it carries the same files as the source tree.
    folder = Path(gen_resolver("--cmake-dir").strip())
    assert (folder.parent.name, folder.name) == ("resolver_gen", "cmake")
    assert {p.name: p.read_bytes() for p in folder.iterdir() if p.suffix == ".cmake"} == \
        {p.name: p.read_bytes() for p in package_dir().iterdir() if p.suffix == ".cmake"}
    files = sorted(p.name for p in package_dir().iterdir() if p.suffix == ".cmake")
    assert files == ["TflmSizeCheck.cmake", "TflmSizeToolkit.cmake", "TflmSizeToolkitConfig.cmake",
                     "TflmSizeToolkitConfigVersion.cmake"]
    pyproject = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())
    assert "cmake/*.cmake" in pyproject["tool"]["setuptools"]["package-data"]["resolver_gen"]
    version_file = (package_dir() / "TflmSizeToolkitConfigVersion.cmake").read_text()
    assert f'set(PACKAGE_VERSION "{__version__}")' in version_file
    assert pyproject["project"]["version"] == __version__


def test_the_generator_packages_cover_every_package_gen_resolver_imports(tmp_path):
    """A header is regenerated when a file of these packages changes: every package gen-resolver runs must be there."""
    script = ("import sys; from pathlib import Path; from resolver_gen.cli import main\n"
              f"main([{str(REPO_ROOT / 'fixtures/models/int8_vision.tflite')!r}, '--reduce-types', '--arena', "
              f"'--kernels', 'cmsis_nn', '-o', {str(tmp_path / 'ops.h')!r}])\n"
              f"root = Path({str(REPO_ROOT)!r})\n"
              "print(sorted({Path(m.__file__).resolve().relative_to(root).parts[0] for m in list(sys.modules.values())"
              " if getattr(m, '__file__', None) and Path(m.__file__).resolve().is_relative_to(root)}))\n")
    imported = eval(subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True,
                                   cwd=REPO_ROOT).stdout)
    listed = re.search(r"set\(generator_packages ([^)]*)\)",
                       (package_dir() / "TflmSizeToolkit.cmake").read_text()).group(1).split()
    assert "resolver_gen" in imported and set(imported) <= set(listed)


def test_host_build_regenerates_the_header_when_a_model_changes_and_only_then(host_build):
    project, build_dir = host_build
    first = build(build_dir)
    assert first.returncode == 0, first.stdout
    header = build_dir / "tflm_generated" / "app" / "ops.h"
    assert "gen-resolver: tflm_generated/app/ops.h" in first.stdout
    models = [project / "models" / m for m in HOST_MODELS]
    assert header.read_text() == gen_resolver(*models, "--name", "Kws", "--arena")

    assert "no work to do" in ninja_explain(build_dir) and "explain" not in ninja_explain(build_dir)
    second = build(build_dir)
    assert second.returncode == 0 and "gen-resolver" not in second.stdout and "no work to do" in second.stdout

    touch(models[1], newer_than=header)
    explained = ninja_explain(build_dir)
    assert f"{header} is dirty" in explained or "tflm_generated/app/ops.h is dirty" in explained
    before = header.stat().st_mtime_ns
    third = build(build_dir)  # the same ops: the header is left as it was and nothing after it runs
    assert third.returncode == 0, third.stdout
    assert re.findall(r"^\[\d+/\d+\] (.*)$", third.stdout, re.MULTILINE) == ["gen-resolver: tflm_generated/app/ops.h"]
    assert header.stat().st_mtime_ns == before and "no work to do" in ninja_explain(build_dir)

    shutil.copy2(FIXTURES / "models" / "int8_vision.tflite", models[1])  # other ops: a new header, compiled
    touch(models[1], newer_than=header)
    fourth = build(build_dir)
    assert fourth.returncode == 0, fourth.stdout
    assert "gen-resolver: tflm_generated/app/ops.h" in fourth.stdout and "Building CXX object" in fourth.stdout
    assert "Linking CXX executable app\npass (2 passed, 0 failed)" in fourth.stdout and "2 passed, 0 failed" in fourth.stdout  # its check
    assert "resolver.AddConv2D()" in header.read_text()
    assert "no work to do" in build(build_dir).stdout


def test_models_held_as_c_arrays_give_the_header_and_rebuild_when_the_array_changes(tmp_path):
    """MODELS takes the app's own model_data.cc (every model array in it) or FILE:ARRAY, compiled into the app too."""
    require_tools("cmake", "ninja", "c++")
    project = copy_project("host", tmp_path)
    models = [REPO_ROOT / "fixtures" / "models" / m for m in HOST_MODELS]
    (project / "models").mkdir()
    model_data = project / "models" / "model_data.cc"
    model_data.write_text(styles.several_arrays({"g_add": models[0].read_bytes(),
                                                 "g_while": models[1].read_bytes()}, b"\x01"))
    lists = (project / "CMakeLists.txt").read_text()
    lists = lists.replace("add_executable(app main.cc)", "add_executable(app main.cc models/model_data.cc)")
    lists = lists.replace("MODELS models/arena_add_chain.tflite models/arena_while.tflite",
                          "MODELS models/model_data.cc:g_add models/model_data.cc:g_while")
    (project / "CMakeLists.txt").write_text(lists)
    build_dir = tmp_path / "build"
    configured = configure(project, build_dir, f"-DCMAKE_PREFIX_PATH={cmake_package_dir()}",
                           f"-DTFLM_STAND_IN_DIR={write_stand_in(tmp_path / 'stand_in')}",
                           f"-DPython3_EXECUTABLE={sys.executable}")
    assert configured.returncode == 0, configured.stderr
    assert build(build_dir).returncode == 0
    header = build_dir / "tflm_generated" / "app" / "ops.h"
    from_tflite = gen_resolver(*models, "--name", "Kws", "--arena")
    assert header.read_text() == gen_resolver(model_data, "--name", "Kws", "--arena")
    assert header.read_text().replace("model_data.cc:g_add", models[0].name).replace(
        "model_data.cc:g_while", models[1].name) == from_tflite
    assert "no work to do" in build(build_dir).stdout
    touch(model_data, newer_than=header)
    rebuilt = build(build_dir)
    assert rebuilt.returncode == 0 and "gen-resolver: tflm_generated/app/ops.h" in rebuilt.stdout


def test_the_header_depends_on_the_tool_itself(host_build):
    _, build_dir = host_build
    inputs = subprocess.run(["ninja", "-C", str(build_dir), "-t", "query", "tflm_generated/app/ops.h"],
                            capture_output=True, text=True, check=True).stdout
    assert str(SCRIPTS / "gen-resolver") in inputs
    installed_root = Path(cmake_package_dir()).parent.parent  # where the installed tool's sources live
    for source in ("resolver_gen/templates/header.h.j2", "resolver_gen/render.py", "tflm_facts/registry.py"):
        assert str(installed_root / source) in inputs, source


def test_host_build_writes_the_size_report_next_to_the_binary(host_build):
    _, build_dir = host_build
    assert build(build_dir).returncode == 0
    report = size_report_json(build_dir / "app")
    summary = json.loads((build_dir / "app.size.json").read_text())
    assert summary["status"] == "pass" and summary["rom"] == report["rom"]["total_size"] > 0
    assert summary["ram"] == report["ram"]["total_size"] and [r["rule"] for r in summary["rules"]] == ["rom.total",
                                                                                                   "ram.total"]
    markdown = (build_dir / "app.size.md").read_text()
    assert f"| ROM | {summary['rom']} | - |" in markdown and f"| RAM | {summary['ram']} | - |" in markdown
    rom_report = build(build_dir, "--target", "app_rom_report")
    assert rom_report.returncode == 0 and f"ROM app: {summary['rom']} bytes" in rom_report.stdout


@pytest.fixture
def cortex_m4_build(tmp_path):
    require_tools("cmake", "ninja", "arm-none-eabi-g++")
    probe = subprocess.run(["arm-none-eabi-g++", "-mcpu=cortex-m4", "-mthumb", "-E", "-x", "c++", "-"],
                           input="#include <cstddef>\n", capture_output=True, text=True)
    if probe.returncode != 0:
        pytest.skip("arm-none-eabi-g++ has no C++ headers (install libstdc++-arm-none-eabi-newlib)")
    project = copy_project("cortex_m4", tmp_path, ("int8_vision.tflite",))
    build_dir = tmp_path / "build"
    configured = configure(project, build_dir, f"--toolchain={project / 'arm-none-eabi.cmake'}",
                           f"-DCMAKE_PREFIX_PATH={cmake_package_dir()}",
                           f"-DTFLM_STAND_IN_DIR={write_stand_in(tmp_path / 'stand_in')}",
                           f"-DFIXTURE_FIRMWARE_DIR={REPO_ROOT / 'fixtures' / 'firmware'}",
                           f"-DTFLM_GEN_RESOLVER={SCRIPTS / 'gen-resolver'}",  # the override cache variables
                           f"-DTFLM_SIZE_REPORT={SCRIPTS / 'size-report'}")
    assert configured.returncode == 0, configured.stderr
    return project, build_dir


def test_cortex_m4_firmware_cross_compiles_with_the_generated_header(cortex_m4_build):
    project, build_dir = cortex_m4_build
    built = build(build_dir)
    assert built.returncode == 0, built.stdout
    elf = build_dir / "firmware.elf"
    assert elf.read_bytes()[18] == 40  # e_machine EM_ARM
    header = (build_dir / "tflm_generated" / "firmware" / "ml" / "ops.h").read_text()
    assert header == gen_resolver(project / "models" / "int8_vision.tflite", "--name", "Vision", "--reduce-types",
                                  "--arena", "--kernels", "cmsis_nn", "--short-enums")
    assert "Register_CONV_2D_INT8()" in header
    arena = int(re.search(r"Vision_kTensorArenaSize = (\d+);", header).group(1))

    summary = json.loads((build_dir / "firmware.size.json").read_text())
    report = size_report_json(elf, "--map", build_dir / "firmware.map")
    assert summary["status"] == "pass" and (summary["rom"], summary["ram"]) == (report["rom"]["total_size"],
                                                                                 report["ram"]["total_size"])
    assert summary["ram"] >= arena  # the tensor arena the header sized is in RAM
    assert [r["rule"] for r in summary["rules"]] == ["rom.total", "ram.total", "regions.FLASH"]
    assert "no work to do" in build(build_dir).stdout
    for kind, expected in (("rom", "ROM firmware.elf"), ("ram", "RAM firmware.elf"), ("stack", "Stack of firmware.elf")):
        shown = build(build_dir, "--target", f"firmware_{kind}_report")
        assert shown.returncode == 0 and expected in shown.stdout, shown.stdout


def test_a_budget_breach_fails_cmake_build_with_the_reason_until_it_passes(cortex_m4_build):
    project, build_dir = cortex_m4_build
    assert build(build_dir).returncode == 0
    rom = json.loads((build_dir / "firmware.size.json").read_text())["rom"]
    budget = project / "size-budget.toml"
    budget.write_text("[rom]\ntotal = 100\n")
    failed = build(build_dir)
    assert failed.returncode != 0
    assert f"size-report check: FAIL rom.total: {rom} bytes exceeds the limit 100 (100 bytes) by {rom - 100}" \
        in failed.stdout.splitlines()
    assert "gen-resolver" not in failed.stdout  # only the check reran: the budget changed, not the models
    summary = json.loads((build_dir / "firmware.size.json").read_text())
    assert summary["status"] == "fail" and summary["failures"] == [
        f"rom.total: {rom} bytes exceeds the limit 100 (100 bytes) by {rom - 100}"]
    assert build(build_dir).returncode != 0  # a failed check is never taken as done
    budget.write_text(f"[rom]\ntotal = {rom}\n")
    assert build(build_dir).returncode == 0


BAD_CALLS = [
    ("tflm_op_resolver(lib MODELS missing.tflite)", "tflm_op_resolver(lib): MODELS: no such file: {dir}/missing.tflite"),
    ("tflm_op_resolver(lib MODELS m.tflite BOGUS)", "tflm_op_resolver(lib): unknown argument 'BOGUS'"),
    ("tflm_op_resolver(lib)", "tflm_op_resolver(lib): MODELS: at least one model (.tflite or C array) is "
                              "needed"),
    ("tflm_op_resolver(lib MODELS m.tflite HEADER)", "tflm_op_resolver(lib): HEADER needs a value"),
    ("tflm_op_resolver(lib MODELS m.tflite KERNELS cmsis_nn)", "tflm_op_resolver(lib): KERNELS, SHORT_ENUMS and "
                                                               "TFLM_REVISION set the arena estimate"),
    ("tflm_op_resolver(nothing MODELS m.tflite)", "tflm_op_resolver(nothing): no target named nothing"),
    ("tflm_size_check(lib BUDGET missing.toml ELF fw.elf)", "tflm_size_check(lib): BUDGET: no such file: "
                                                            "{dir}/missing.toml"),
    ("tflm_size_check(lib ELF fw.elf MAPP fw.map)", "tflm_size_check(lib): unknown argument 'MAPP'"),
    ("tflm_size_report(nothing)", "tflm_size_report(nothing): no target named nothing (or give ELF <file>)"),
]


@pytest.mark.parametrize("call,message", BAD_CALLS, ids=[c for c, _ in BAD_CALLS])
def test_bad_arguments_stop_the_configure_step_with_one_line_naming_them(tmp_path, call, message):
    require_tools("cmake", "ninja")
    (tmp_path / "m.tflite").write_bytes((REPO_ROOT / "fixtures/models/arena_while.tflite").read_bytes())
    (tmp_path / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.16)\nproject(bad NONE)\nfind_package(TflmSizeToolkit REQUIRED)\n"
        f"add_library(lib INTERFACE)\n{call}\n")
    result = configure(tmp_path, tmp_path / "build", f"-DCMAKE_PREFIX_PATH={cmake_package_dir()}",
                       f"-DPython3_EXECUTABLE={sys.executable}")
    assert result.returncode != 0
    flattened = " ".join(result.stderr.split())  # CMake wraps a long message over indented lines
    assert message.format(dir=tmp_path) in flattened, result.stderr


def test_an_incompatible_version_is_refused(tmp_path):
    require_tools("cmake", "ninja")
    (tmp_path / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.16)\nproject(v NONE)\nfind_package(TflmSizeToolkit 1.0 REQUIRED)\n")
    result = configure(tmp_path, tmp_path / "build", f"-DCMAKE_PREFIX_PATH={cmake_package_dir()}")
    assert result.returncode != 0 and f"version: {__version__}" in result.stderr


def test_the_tools_are_found_next_to_the_python_that_installed_the_package(tmp_path):
    """A wheel install: <prefix>/lib/pythonX.Y/site-packages/resolver_gen/cmake, the scripts in <prefix>/bin."""
    require_tools("cmake", "ninja")
    package = tmp_path / "prefix" / "lib" / "python3.11" / "site-packages" / "resolver_gen" / "cmake"
    package.mkdir(parents=True)
    for path in package_dir().glob("*.cmake"):
        (package / path.name).write_text(path.read_text())
    scripts = tmp_path / "prefix" / "bin"
    scripts.mkdir()
    for tool in ("gen-resolver", "size-report"):
        (scripts / tool).write_text("#!/bin/sh\n")
        (scripts / tool).chmod(0o755)
    (tmp_path / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.16)\nproject(w NONE)\nfind_package(TflmSizeToolkit REQUIRED)\n"
        "tflm_size_report(fw ELF fw.elf)\nmessage(STATUS \"size-report: ${TFLM_SIZE_REPORT}\")\n")
    result = configure(tmp_path, tmp_path / "build", f"-DCMAKE_PREFIX_PATH={package}")
    assert result.returncode == 0, result.stderr
    found = re.search(r"size-report: (.*)", result.stdout).group(1)
    assert Path(found).resolve() == (scripts / "size-report").resolve()


@pytest.mark.parametrize("model,passes", [("vision_subset.tflite", True), ("two_subgraphs.tflite", False)])
def test_size_check_models_runs_size_report_fit_on_the_firmware(tmp_path, model, passes):
    """MODELS: the build fails when the firmware lacks an op a model needs (here the fixture TFLM-shaped firmware)."""
    require_tools("cmake", "ninja")
    firmware = REPO_ROOT / "fixtures" / "firmware" / "out" / "cortex-m4"
    elf = tmp_path / "firmware.elf"
    elf.write_bytes((firmware / "firmware.elf").read_bytes())
    (tmp_path / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.16)\nproject(m NONE)\nfind_package(TflmSizeToolkit REQUIRED)\n"
        f"tflm_size_check(fw ELF {elf} MAP {firmware / 'firmware.map'} "
        f"MODELS {REPO_ROOT / 'fixtures' / 'models' / model})\n")
    assert configure(tmp_path, tmp_path / "build", f"-DCMAKE_PREFIX_PATH={cmake_package_dir()}",
                     f"-DPython3_EXECUTABLE={sys.executable}").returncode == 0
    built = build(tmp_path / "build")
    assert (built.returncode == 0) == passes, built.stdout
    if not passes:  # the models' verdict on the console, one line per reason, not only in the report
        lines = built.stdout.splitlines()
        assert "size-report fit: FAIL WHILE (builtin) is not registered; needed by two_subgraphs.tflite" in lines
        assert "pass (0 passed, 0 failed)" in lines  # the budget part passed (no rules); the fit did not
        assert "tflm_size_check(fw) FAILED: size-report fit (firmware.models.md)" in " ".join(built.stdout.split())
    report = (tmp_path / "firmware.models.md").read_text()
    assert report.startswith(f"### {'fits' if passes else 'does not fit'}: firmware.elf")
    assert json.loads((tmp_path / "firmware.size.json").read_text())["status"] == "pass"  # no budget: no rules


@pytest.mark.parametrize("tflm_dir", [False, True])
def test_size_check_models_suggests_only_what_the_tflm_has(tmp_path, tflm_dir):
    """The models report of a firmware on a 2021-fork-shaped TFLM (fixtures/old_tflm) never recommends
    Register_SOFTMAX_INT8, from the ELF alone or from TFLM_DIR, which the package passes on as --tflm."""
    require_tools("cmake", "ninja")
    fixture = REPO_ROOT / "fixtures" / "old_tflm"
    elf = tmp_path / "firmware.elf"
    elf.write_bytes((fixture / "out" / "firmware.elf").read_bytes())
    tflm = f" TFLM_DIR {fixture / 'src'}" if tflm_dir else ""
    (tmp_path / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.16)\nproject(m NONE)\nfind_package(TflmSizeToolkit REQUIRED)\n"
        f"tflm_size_check(fw ELF {elf} MODELS {REPO_ROOT / 'fixtures' / 'models' / 'int8_vision.tflite'}{tflm})\n")
    assert configure(tmp_path, tmp_path / "build", f"-DCMAKE_PREFIX_PATH={cmake_package_dir()}",
                     f"-DPython3_EXECUTABLE={sys.executable}").returncode == 0
    built = build(tmp_path / "build")
    assert built.returncode != 0  # PAD, TRANSPOSE and CONV_2D are missing
    report = (tmp_path / "firmware.models.md").read_text()
    assert "Register_SOFTMAX_INT8" not in report and "Register_SOFTMAX_INT8" not in built.stdout
    source = "the TFLM tree" if tflm_dir else "the firmware's DWARF"
    assert f"so not suggested ({source}" in report and "SOFTMAX_INT8 (AddSoftmax() in this TFLM takes no " \
        "registration)" in " ".join(report.split())


CROSS_TOOLCHAIN = """# A cross toolchain file as many SDKs write it: every find_* re-rooted under the target's sysroot.
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_FIND_ROOT_PATH "${CMAKE_CURRENT_LIST_DIR}/sysroot")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
"""


def test_toolkit_dir_finds_the_package_and_its_tools_under_a_toolchain_file_that_re_roots_every_search(tmp_path):
    """docs/cmake.md's one line against the strictest toolchain file: CMAKE_PREFIX_PATH is re-rooted under the
    sysroot and fails; TflmSizeToolkit_DIR is read as given, and the tools (host programs) are still found."""
    require_tools("cmake", "ninja")
    (tmp_path / "sysroot").mkdir()
    (tmp_path / "cross.cmake").write_text(CROSS_TOOLCHAIN)
    (tmp_path / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.16)\nproject(cross NONE)\nfind_package(TflmSizeToolkit 0.1 REQUIRED)\n"
        "tflm_size_report(fw ELF fw.elf)\nmessage(STATUS \"size-report: ${TFLM_SIZE_REPORT}\")\n")
    # (PROGRAM ONLY would hide ninja itself from CMake too: it is given, as such a toolchain's users must.)
    toolchain = (f"--toolchain={tmp_path / 'cross.cmake'}", f"-DCMAKE_MAKE_PROGRAM={shutil.which('ninja')}")
    refused = configure(tmp_path, tmp_path / "prefix", *toolchain, f"-DCMAKE_PREFIX_PATH={cmake_package_dir()}")
    assert refused.returncode != 0 and "TflmSizeToolkitConfig.cmake" in refused.stderr
    found = configure(tmp_path, tmp_path / "dir", *toolchain, f"-DTflmSizeToolkit_DIR={cmake_package_dir()}",
                      f"-DPython3_EXECUTABLE={sys.executable}")
    assert found.returncode == 0, found.stderr
    assert Path(re.search(r"size-report: (.*)", found.stdout).group(1)) == SCRIPTS / "size-report"


@pytest.mark.parametrize("methods,builds", [({"AddAdd": True}, False), ({"AddAdd": True, "AddReverseV2": True}, True)],
                         ids=["tree-lacks-the-method", "tree-has-it"])
def test_tflm_dir_checks_the_header_against_the_users_tree(tmp_path, methods, builds):
    from tests.resolver_gen.tflm_trees import write_tree

    require_tools("cmake", "ninja")
    write_tree(tmp_path / "third_party" / "tflm", methods)
    (tmp_path / "m.tflite").write_bytes((REPO_ROOT / "fixtures/models/reverse_v2.tflite").read_bytes())
    (tmp_path / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.16)\nproject(tree NONE)\nfind_package(TflmSizeToolkit REQUIRED)\n"
        "add_library(lib INTERFACE)\ntflm_op_resolver(lib MODELS m.tflite TFLM_DIR third_party/tflm)\n")
    configured = configure(tmp_path, tmp_path / "build", f"-DCMAKE_PREFIX_PATH={cmake_package_dir()}",
                           f"-DPython3_EXECUTABLE={sys.executable}")
    assert configured.returncode == 0, configured.stderr
    result = build(tmp_path / "build", "--target", "lib_tflm_ops_h")  # the header's own target
    header = tmp_path / "build" / "tflm_generated" / "lib" / "ops.h"
    if builds:
        assert result.returncode == 0, result.stdout
        assert "status = resolver.AddReverseV2();" in header.read_text()
    else:
        assert result.returncode != 0 and not header.exists()
        assert ("unsupported op REVERSE_V2 in m.tflite: this TFLM tree (unknown revision" in result.stdout
                and "has no AddReverseV2() in tensorflow/lite/micro/micro_mutable_op_resolver.h" in result.stdout)
