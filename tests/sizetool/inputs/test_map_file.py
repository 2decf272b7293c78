"""GNU ld map files: memory regions, input sections, and the coverage they give the report."""

from pathlib import Path

import pytest

from sizetool.errors import SizeToolError
from sizetool.inputs.map_file import object_path, read_map
from sizetool.report.report_builder import build_report
from sizetool.sizes import parse_size

OUT = Path(__file__).resolve().parents[3] / "fixtures" / "firmware" / "out"
LAYOUTS = Path(__file__).resolve().parents[3] / "fixtures" / "layouts" / "out"
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
def test_with_the_map_every_rom_byte_is_under_a_source_file_an_object_or_alignment_fill(arch):
    report = build_report(str(OUT / arch / "firmware.elf"), map_path=str(OUT / arch / "firmware.map"))
    rom = report.entries_for("rom")
    unexplained = sum(e.size for e in rom if e.path[0] in ("(no symbol)", "(no debug info)")
                      and not e.symbol.startswith("(fill)"))
    fill = sum(e.size for e in rom if e.symbol.startswith("(fill)"))
    assert sum(e.size for e in rom) == report.rom_total
    assert unexplained / report.rom_total < 0.005
    assert fill / report.rom_total < (0.03 if arch == "host-x86_64" else 0.005)  # x86-64 aligns functions to 16


def test_string_literals_land_under_the_file_that_holds_them():
    report = build_report(str(OUT / "cortex-m4/firmware.elf"), map_path=str(OUT / "cortex-m4/firmware.map"))
    literal_paths = {e.path for e in report.entries_for("rom") if e.symbol.endswith(".str1.1")}
    assert ("app", "main.cc") in literal_paths


def test_debug_comment_and_attribute_sections_at_address_0_own_no_input_sections():
    linker_map = read_map(str(OUT / "cortex-m4/firmware.map"))
    assert {s.output_section for s in linker_map.input_sections} == {
        ".isr_vector", ".text", ".rodata", ".ARM.exidx", ".init_array", ".data", ".bss", ".noinit"}
    debug = linker_map.output_section(".debug_info")
    assert debug is not None and debug.address == 0 and debug.size > 0


def test_output_sections_carry_their_load_address():
    linker_map = read_map(str(OUT / "cortex-m4/firmware.map"))
    data, text = linker_map.output_section(".data"), linker_map.output_section(".text")
    assert (data.address, data.load_address) == (0x20000000, 0x0800762C) and text.load_address is None
    assert linker_map.output_file == "firmware.elf"


def test_a_zephyr_map_gives_its_output_sections_load_addresses_and_object_pieces():
    linker_map = read_map(str(LAYOUTS / "zephyr-like" / "zephyr.map"))
    names = [s.name for s in linker_map.output_sections if s.size]
    assert names[:4] == ["rom_start", "text", ".ARM.exidx", "initlevel"]
    assert linker_map.output_section("device_area").load_address is not None
    assert linker_map.output_section("k_sem_area").size == 0  # an empty iterable section is listed, not in the ELF
    stacks = [s for s in linker_map.input_sections if s.name.startswith('.noinit."/zephyrproject/zephyr/kernel/init.c"')]
    assert len(stacks) == 3 and all(s.object_file.endswith("libkernel.a(init.c.obj)") for s in stacks)
    assert [r.name for r in linker_map.regions] == ["FLASH", "RAM", "SRAM0", "IDT_LIST"]


def test_a_map_cut_short_is_refused_at_every_point_before_its_output_line(tmp_path):
    text = (LAYOUTS / "zephyr-like" / "zephyr.map").read_text()
    cut_points = [len(text) // 8 * k for k in range(1, 8)] + [text.index("OUTPUT(") - 1]
    for cut in cut_points:
        if cut > text.index("OUTPUT("):
            continue
        truncated = tmp_path / "truncated.map"
        truncated.write_text(text[:cut])
        with pytest.raises(SizeToolError, match="truncated map file|not a GNU ld map file") as caught:
            read_map(str(truncated))
        assert str(truncated) in str(caught.value)


def test_windows_archive_members_are_paths_under_the_archive():
    member = "c:/ncs/toolchain/lib/gcc/arm-none-eabi/9.2.1/thumb/v7e-m/nofp\\libgcc.a(_udivmoddi4.o)"
    assert object_path(member) == ("(archives)", "libgcc.a", "_udivmoddi4.o")
    assert object_path("linker stubs") == ("(linker stubs)",)


_INCLUSIONS = """\
Archive member included to satisfy reference by file (symbol)

./libk.a(a.o)                 main.o (tflite::Register_A())
C:/Program Files (x86)/GNU Arm Embedded/lib/thumb/v6-m/nofp/libstdc++.a(eh_alloc.o)
                              C:/Program Files (x86)/GNU Arm Embedded/lib/thumb/v6-m/nofp/libstdc++.a(guard.o) (__cxa_allocate_exception)
/opt/lib/libm.a(s_sin.o)      obj/Program Files (1)/app.o (sin)

Discarded input sections

 .text          0x00000000        0x0 main.o

Memory Configuration

Name             Origin             Length             Attributes
FLASH            0x00000000         0x00010000         xr

Linker script and memory map

OUTPUT(app.elf elf32-littlearm)
"""


def test_the_map_says_which_file_and_symbol_took_each_archive_member(tmp_path):
    path = tmp_path / "app.map"
    path.write_text(_INCLUSIONS)
    taken = [(i.member, i.by_file, i.symbol) for i in read_map(str(path)).archive_inclusions]
    gnu = "C:/Program Files (x86)/GNU Arm Embedded/lib/thumb/v6-m/nofp/libstdc++.a"
    assert taken == [("./libk.a(a.o)", "main.o", "tflite::Register_A()"),
                     (f"{gnu}(eh_alloc.o)", f"{gnu}(guard.o)", "__cxa_allocate_exception"),
                     ("/opt/lib/libm.a(s_sin.o)", "obj/Program Files (1)/app.o", "sin")]


def test_flash_region_use_equals_the_rom_total():
    report = build_report(str(OUT / "cortex-m4/firmware.elf"), map_path=str(OUT / "cortex-m4/firmware.map"))
    flash = next(r for r in report.regions if r.name == "FLASH")
    assert flash.used == report.rom_total


def test_sizes_without_a_map_give_regions():
    report = build_report(str(OUT / "cortex-m4/firmware.elf"), flash_size=192 * 1024, ram_size=64 * 1024)
    assert [(r.name, r.length, r.used, r.memory) for r in report.regions] == [
        ("FLASH", 196608, report.rom_total, "rom"),
        ("RAM", 65536, report.ram_total, "ram"),
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
