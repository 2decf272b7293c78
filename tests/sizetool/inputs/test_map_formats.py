"""Which linker wrote a map, told by its content: GNU ld, armlink, IAR ILINK, or none of them."""

import shutil
from pathlib import Path

import pytest

from sizetool.errors import SizeToolError
from sizetool.inputs.map_formats import describe, detect_map_format, is_toolchain_library, read_linker_map

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures"
GNU = FIXTURES / "firmware" / "out" / "cortex-m4" / "firmware.map"
ARMLINK = FIXTURES / "toolchain_maps" / "out" / "armlink" / "firmware.map"
IAR = FIXTURES / "toolchain_maps" / "out" / "iar" / "firmware.map"


@pytest.mark.parametrize("source,expected", [(GNU, "gnu"), (ARMLINK, "armlink"), (IAR, "iar")])
def test_the_format_is_read_from_the_content_whatever_the_file_is_called(tmp_path, source, expected):
    renamed = tmp_path / "listing.txt"
    shutil.copyfile(source, renamed)
    assert detect_map_format(source.read_text()) == expected
    linker_map = read_linker_map(str(renamed))
    assert linker_map.format == expected and linker_map.input_sections


@pytest.mark.parametrize("text,expected", [
    ("Archive member included\nMemory Configuration\n\nName Origin", "gnu"),
    ("Memory Configuration\r\nName Origin", "gnu"),  # Windows line ends
    ("header\fMemory Configuration", "gnu"),  # any break str.splitlines() knows, at the end of the text
    ("see the Memory Configuration below\n", None),  # the heading only inside a line
    ("Memory Configurations\n", None),
])
def test_a_gnu_map_has_the_memory_configuration_heading_as_a_line_of_its_own(text, expected):
    assert detect_map_format(text) == expected


def test_the_report_names_the_format_and_the_toolchain_that_wrote_it():
    assert describe(read_linker_map(str(ARMLINK))) == "armlink (Arm Compiler for Embedded 6.22)"
    assert describe(read_linker_map(str(IAR))) == "IAR ILINK (IAR ELF Linker V9.30.1.335/LNX)"
    assert describe(read_linker_map(str(GNU))) == "GNU ld"


@pytest.mark.parametrize("content", [b"hello\n", b"", b"\x7fELF\x01\x01\x01\0\0\0\0\0\0\0\0\0"])
def test_anything_else_is_refused_naming_the_file(tmp_path, content):
    bogus = tmp_path / "x.map"
    bogus.write_bytes(content)
    with pytest.raises(SizeToolError, match="not a linker map file") as caught:
        read_linker_map(str(bogus))
    assert str(caught.value).startswith(str(bogus))


@pytest.mark.parametrize("name,expected", [
    ("c_w.l", True), ("m_ws.l", True), ("fz_ws.l", True), ("mc_p.l", True), ("cpprt_w.l", True),
    ("C:\\Keil_v5\\ARM\\ARMCLANG\\lib\\armlib\\h_w.l", True),
    ("dl7M_tln.a", True), ("rt7M_tl.a", True), ("m7M_tls.a", True), ("shb_l.a", True),
    ("libtflm.a", False), ("driverlib.a", False), ("cmsis_nn.lib", False),
])
def test_arm_and_iar_run_time_libraries_are_told_by_name(name, expected):
    # They go under (toolchain) in the report, as libgcc and newlib do for GNU builds.
    assert is_toolchain_library(name) is expected


def test_an_unchanged_map_is_read_once_per_process_and_a_rewritten_one_again(tmp_path):
    """The report and the operator graph of one run both need the map: the second gets the map already read."""
    path = tmp_path / "firmware.map"
    shutil.copyfile(GNU, path)
    first = read_linker_map(str(path))
    assert read_linker_map(str(path)) is first
    path.write_text(path.read_text().replace("firmware.elf", "renamed.elf"))
    again = read_linker_map(str(path))
    assert again is not first and again.input_sections == first.input_sections
    path.unlink()
    with pytest.raises(SizeToolError, match="firmware.map"):
        read_linker_map(str(path))
