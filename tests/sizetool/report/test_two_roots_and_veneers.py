"""The tree of a real project (issue 40, item 6): unrelated source roots are top nodes named after each root, never
after the folder that holds both; linker veneers and stubs are one node per kind under `(linker)`.

fixtures/two_roots: an application compiled as /home/dev/work/kws-app (its build directory inside it, as CMake
does) and an SDK as /home/dev/pico-sdk (a TinyUSB-like lib/ and rp2_common/), with RAM functions 256 MB from the
flash, so ld wrote three long-branch veneers."""

from pathlib import Path

import pytest

from sizetool import cli
from sizetool.report.linker_made import LINKER, linker_made_path
from sizetool.report.report_builder import build_report
from sizetool.report.source_roots import find_roots
from tests.sizetool.report.test_source_roots import index_of

FIXTURE = Path(__file__).resolve().parents[3] / "fixtures" / "two_roots" / "out"
ELF, MAP = str(FIXTURE / "firmware.elf"), str(FIXTURE / "firmware.map")
VENEERS = {"__flash_log_status_veneer", "__flash_range_program_veneer", "__time_critical_checksum_veneer"}


@pytest.mark.parametrize("map_file", [None, MAP])
def test_each_root_is_a_top_node_named_after_itself_and_veneers_are_one_node(map_file):
    report = build_report(ELF, map_path=map_file, use_cache=False)
    for memory in ("rom", "ram"):
        tops = {e.path[0] for e in report.entries_for(memory)}
        assert tops - {"(no symbol)", LINKER} == {"kws-app", "pico-sdk"}
        assert not tops & {"work", "dev", "home"}
    paths = {e.path for e in report.entries_for("rom")}
    assert ("kws-app", "source", "main.c") in paths and ("kws-app", "model", "classifier.c") in paths
    assert ("pico-sdk", "lib", "tinyusb", "src", "tusb.c") in paths
    veneers = [e for e in report.entries if e.symbol.endswith("_veneer")]
    assert {e.symbol for e in veneers} == VENEERS
    assert {e.path for e in veneers} == {(LINKER, "veneers")}  # not flash.c, not (no debug info)


def test_the_tree_shows_each_kind_as_one_line(capsys):
    assert cli.main([ELF, "--map", MAP, "--no-cache"]) == 0
    out = capsys.readouterr().out
    assert "veneers (3 symbols)" in out
    assert not any(name in out for name in VENEERS)  # folded: JSON and CSV list them one by one
    assert cli.main([ELF, "--map", MAP, "--no-cache", "--format", "csv"]) == 0
    csv_text = capsys.readouterr().out
    assert all(name in csv_text for name in VENEERS)


def test_one_project_with_its_build_directory_inside_keeps_one_unnamed_root():
    build = "/home/dev/proj/build"
    index = index_of({"/home/dev/proj/src/main.c": build, "/home/dev/proj/lib/foo/foo.c": build,
                      "/home/dev/proj/build/generated/model.c": build})
    assert [(r.name, r.directory) for r in find_roots(index)] == [("", "/home/dev/proj")]


def test_an_sdk_beside_the_project_is_a_root_of_its_own():
    build = "/home/dev/work/kws-app/build"
    index = index_of({"/home/dev/work/kws-app/src/main.c": build, "/home/dev/work/kws-app/src/usb.c": build,
                      "/home/dev/pico-sdk/src/rp2_common/stdlib.c": build,
                      "/home/dev/pico-sdk/lib/tinyusb/src/tusb.c": build})
    assert sorted((r.name, r.directory) for r in find_roots(index)) == [
        ("kws-app", "/home/dev/work/kws-app"), ("pico-sdk", "/home/dev/pico-sdk")]


@pytest.mark.parametrize("name,kind", [
    ("__flash_range_program_veneer", "veneers"),
    ("___ZN6tflite12MicroPrintfEPKcz_veneer", "veneers"),
    ("__vfp11_veneer_1c", "erratum veneers"),
    ("__erratum_843419_veneer_0", "erratum veneers"),
    ("__main_from_thumb", "interworking stubs"),
    ("__bx_r3", "interworking stubs"),
    ("00000011.plt_call.memcpy", "call stubs"),
    ("puts@plt", "call stubs"),
])
def test_linker_made_names(name, kind):
    assert linker_made_path(name) == (LINKER, kind)


@pytest.mark.parametrize("name", ["main", "__aeabi_uidiv", "__libc_init_array", "_veneer", "flash_veneer",
                                  "g_vectors", "std::__veneer_count"])
def test_ordinary_names_are_not_linker_made(name):
    assert linker_made_path(name) is None
