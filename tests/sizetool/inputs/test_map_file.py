"""GNU ld map files: memory regions, input sections, and the coverage they give the report."""

from pathlib import Path

import pytest

from sizetool.errors import SizeToolError
from sizetool.inputs.map_file import object_path, read_map
from sizetool.report.report_builder import build_report
from sizetool.sizes import parse_size

OUT = Path(__file__).resolve().parents[3] / "fixtures" / "firmware" / "out"
LINKER_SCRIPT = (OUT.parent / "linker" / "cortex_m4.ld").read_text()


def test_memory_configuration_gives_the_linker_scripts_regions():
    regions = {r.name: r for r in read_map(str(OUT / "cortex-m4/firmware.map")).regions}
    assert set(regions) == {"FLASH", "RAM"}
    assert regions["FLASH"].origin == 0x08000000 and regions["FLASH"].length == 256 * 1024
    assert "0x08000000" in LINKER_SCRIPT or "0x8000000" in LINKER_SCRIPT


def test_string_literal_input_sections_name_their_object():
    sections = read_map(str(OUT / "cortex-m4/firmware.map")).input_sections
    literals = [s for s in sections if s.name.endswith(".str1.1")]
    assert literals and all(s.object_file.endswith(".o") for s in literals)
    assert any(s.object_file.endswith("app/main.o") for s in literals)


def test_archive_members_are_paths_under_the_archive():
    assert object_path("/usr/lib/gcc/libgcc.a(_udivsi3.o)") == ("(archives)", "libgcc.a", "_udivsi3.o")
    assert object_path("obj/app/main.o") == ("obj", "app", "main.o")


@pytest.mark.parametrize("arch", ["cortex-m4", "riscv32", "host-x86_64"])
def test_with_the_map_at_least_99_5_percent_of_rom_is_under_a_source_file_or_object(arch):
    report = build_report(str(OUT / arch / "firmware.elf"), map_path=str(OUT / arch / "firmware.map"))
    rom = report.entries_for("rom")
    anonymous = sum(e.size for e in rom if e.path[0] in ("(no symbol)", "(no debug info)"))
    assert sum(e.size for e in rom) == report.rom_total
    assert anonymous / report.rom_total < 0.005


def test_string_literals_land_under_the_file_that_holds_them():
    report = build_report(str(OUT / "cortex-m4/firmware.elf"), map_path=str(OUT / "cortex-m4/firmware.map"))
    literal_paths = {e.path for e in report.entries_for("rom") if e.symbol.endswith(".str1.1")}
    assert ("app", "main.cc") in literal_paths


def test_flash_region_use_equals_the_rom_total():
    report = build_report(str(OUT / "cortex-m4/firmware.elf"), map_path=str(OUT / "cortex-m4/firmware.map"))
    flash = next(r for r in report.regions if r.name == "FLASH")
    assert flash.used == report.rom_total


def test_sizes_without_a_map_give_regions():
    report = build_report(str(OUT / "cortex-m4/firmware.elf"), flash_size=192 * 1024, ram_size=64 * 1024)
    assert [(r.name, r.length, r.used) for r in report.regions] == [
        ("FLASH", 196608, report.rom_total),
        ("RAM", 65536, report.ram_total),
    ]


@pytest.mark.parametrize("text,expected", [("192K", 196608), ("1.5M", 1572864), (4096, 4096), ("64KiB", 65536)])
def test_sizes_are_parsed_with_binary_suffixes(text, expected):
    assert parse_size(text) == expected


@pytest.mark.parametrize("text", ["12Q", "-1", "1.5", "", True])
def test_malformed_sizes_are_user_errors(text):
    with pytest.raises(SizeToolError):
        parse_size(text)


def test_a_file_that_is_not_a_map_is_a_user_error(tmp_path):
    bogus = tmp_path / "x.map"
    bogus.write_text("hello\n")
    with pytest.raises(SizeToolError, match="not a GNU ld map file"):
        read_map(str(bogus))
