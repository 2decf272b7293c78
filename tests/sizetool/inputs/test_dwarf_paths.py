"""DWARF source paths: declaring files for functions and objects, unit files, line-table file numbering, links
through DW_AT_specification/abstract_origin, DW_AT_ranges, and corrupt DWARF giving a warning instead of a crash."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from elftools.elf.elffile import ELFFile

from sizetool.inputs.dwarf_paths import read_source_index
from sizetool.inputs.elf_reader import read_elf
from sizetool.report.report_builder import build_report

OUT = Path(__file__).resolve().parents[3] / "fixtures" / "firmware" / "out"
ARCHES = ["cortex-m4", "riscv32", "host-x86_64"]


def reference_decl_files(path):
    """The slow, obvious answer: pyelftools walks every DIE; low_pc -> declaring file, links followed."""
    answers = {}
    with open(path, "rb") as stream:
        dwarf = ELFFile(stream).get_dwarf_info(relocate_dwarf_sections=False)
        for unit in dwarf.iter_CUs():
            program = dwarf.line_program_for_CU(unit)
            header = program.header
            version = header["version"]
            top = unit.get_top_DIE()
            comp_dir = top.attributes["DW_AT_comp_dir"].value.decode()
            dirs = [d.decode() for d in header["include_directory"]]
            if version < 5:
                dirs = [comp_dir] + dirs
            files = [] if version >= 5 else [None]
            for entry in header["file_entry"]:
                files.append(os.path.normpath(os.path.join(comp_dir, dirs[entry.dir_index], entry.name.decode())))
            for die in unit.iter_DIEs():
                if die.tag != "DW_TAG_subprogram" or "DW_AT_low_pc" not in die.attributes:
                    continue
                if die.get_parent().tag == "DW_TAG_subprogram" or die.attributes["DW_AT_low_pc"].value == 0:
                    continue  # function-local definitions are not read at scope level; 0 = discarded by --gc-sections
                target = die
                for _ in range(8):
                    if "DW_AT_decl_file" in target.attributes:
                        break
                    link = next((a for a in ("DW_AT_specification", "DW_AT_abstract_origin") if a in target.attributes), None)
                    if link is None:
                        break
                    target = target.get_DIE_from_attribute(link)
                if "DW_AT_decl_file" in target.attributes:
                    answers[die.attributes["DW_AT_low_pc"].value] = files[target.attributes["DW_AT_decl_file"].value]
    return answers


@pytest.mark.parametrize("arch", ARCHES)
def test_declaring_files_match_a_full_pyelftools_walk(arch):
    elf = str(OUT / arch / "firmware.elf")
    index = read_source_index(elf)
    expected = reference_decl_files(elf)
    assert expected, "the fixture has functions with DWARF"
    assert {address: index.decl_file.get(address) for address in expected} == expected


def test_line_table_versions_decide_file_numbering():
    # Debian's arm-none-eabi-gcc 12 writes DWARF 5 units whose line tables are version 3 (1-based file numbers);
    # the RV32 build is DWARF 4 throughout; the host build DWARF 5 (0-based). All three place the same kernel.
    versions = {arch: read_source_index(str(OUT / arch / "firmware.elf")).line_table_versions for arch in ARCHES}
    assert 3 in versions["cortex-m4"] and 5 in read_source_index(str(OUT / "cortex-m4/firmware.elf")).unit_versions
    assert 4 in versions["riscv32"]
    assert set(versions["host-x86_64"]) == {5}
    for arch in ARCHES:
        report = build_report(str(OUT / arch / "firmware.elf"), use_cache=False)
        (register,) = [e for e in report.entries_for("rom") if e.symbol == "tflite::Register_SOFTMAX()"]
        assert register.path == ("kernels", "softmax.cc")


def test_paths_are_joined_to_the_comp_dir_not_this_machine():
    index = read_source_index(str(OUT / "cortex-m4/firmware.elf"))
    assert index.comp_dirs.most_common(1)[0][0] == "/firmware/src"
    assert not Path("/firmware/src").exists(), "the build directory is not on the analysing machine"
    assert "/firmware/src/kernels/softmax.cc" in index.unit_files
    assert all(f.startswith("/") for f in index.decl_file.values())


def test_clones_and_class_scope_statics_are_placed():
    report = build_report(str(OUT / "cortex-m4/firmware.elf"), use_cache=False)
    by_symbol = {e.symbol: e.path for e in report.entries}
    clone = next(s for s in by_symbol if s.endswith("[clone .constprop.0]") and "RegisterVisionOps" in s)
    assert by_symbol[clone] == ("app", "main.cc")
    assert by_symbol["tflite::MicroInterpreter::live_instances_"] == ("micro", "micro_interpreter.cc")


def test_unit_ranges_give_the_unit_of_any_address():
    index = read_source_index(str(OUT / "riscv32/firmware.elf"))
    image = read_elf(str(OUT / "riscv32/firmware.elf"))
    (symbol,) = [s for s in image.symbols if s.name == "tflite::Register_SOFTMAX()"]
    assert index.unit_covering(symbol.address) == "/firmware/src/kernels/softmax.cc"
    assert index.unit_covering(symbol.address + 1) == "/firmware/src/kernels/softmax.cc"
    assert index.unit_covering(0xFFFFFFF0) is None


def test_corrupt_dwarf_is_a_warning(tmp_path):
    source = OUT / "riscv32/firmware.elf"
    info = read_elf(str(source)).section_by_name(".debug_info")
    data = bytearray(source.read_bytes())
    data[info.offset + 40 : info.offset + info.size] = b"\x7f" * (info.size - 40)
    broken = tmp_path / "broken.elf"
    broken.write_bytes(bytes(data))
    index = read_source_index(str(broken))
    assert index.warnings and "DWARF" in index.warnings[0] and str(broken) in index.warnings[0]


def test_no_dwarf_gives_an_empty_index():
    index = read_source_index(str(OUT / "cortex-m4/firmware-nodebug.elf"))
    assert index.decl_file == {} and index.warnings == []


SOURCE = """#include <cstdio>
#include <cstdlib>
#include "helpers.h"
namespace demo {
struct Registry { static int table[8]; };
int Registry::table[8] = {1, 2, 3};
__attribute__((noinline)) int Work(int x) {
  if (__builtin_expect(x == 12345, 0)) {
    for (int i = 0; i < x; ++i) std::printf("rare %d %d\\n", x, i * Registry::table[i & 7]);
    std::abort();
  }
  return x * 3 + Registry::table[x & 7];
}
static __attribute__((noinline)) int Scaled(int x, int k) { return Work(x) * k + k; }
}
int main(int argc, char**) { return demo::Scaled(argc, 7) + demo::Scaled(argc + 1, 7) + Twice<int>(argc); }
"""


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs the host g++")
@pytest.mark.parametrize("dwarf_version", [4, 5])
def test_host_build_hot_cold_split_clone_static_member_and_header_template(tmp_path, dwarf_version):
    (tmp_path / "helpers.h").write_text("template <typename T> __attribute__((noinline)) T Twice(T v) { return v + v; }\n")
    (tmp_path / "demo.cc").write_text(SOURCE)
    elf = tmp_path / "demo.elf"
    subprocess.run(["g++", "-O2", "-g", f"-gdwarf-{dwarf_version}", "demo.cc", "-o", str(elf)], cwd=tmp_path, check=True)
    index = read_source_index(str(elf))
    image = read_elf(str(elf))
    address = {s.mangled: s.address for s in image.symbols}
    assert index.unit_versions == {dwarf_version: index.unit_versions[dwarf_version]}
    demo, header = str(tmp_path / "demo.cc"), str(tmp_path / "helpers.h")
    assert index.decl_file[address["_ZN4demo4WorkEi"]] == demo
    if "_ZN4demo4WorkEi.cold" in address:  # the cold part is the second DW_AT_ranges entry of Work
        assert index.decl_file[address["_ZN4demo4WorkEi.cold"]] == demo
    assert index.decl_file[address["_ZN4demoL6ScaledEii.constprop.0"]] == demo  # DW_AT_abstract_origin
    assert index.decl_file[address["_ZN4demo8Registry5tableE"]] == demo  # DW_AT_specification
    assert index.decl_file[address["_Z5TwiceIiET_S0_"]] == header
    report = build_report(str(elf), use_cache=False, group_by="cu")
    (twice,) = [e for e in report.entries_for("rom") if e.mangled == "_Z5TwiceIiET_S0_"]
    assert twice.path == ("demo.cc",)


def _abbreviation_section(*entries: bytes) -> bytes:
    return b"".join(entries) + b"\0"


# (code, tag, children, (attribute, form[, implicit const]) pairs..., 0, 0) in ULEB128/SLEB128 bytes
SUBPROGRAM_WITH_SIBLING = b"\x01\x2e\x01" + b"\x01\x13" + b"\x03\x08" + b"\x3a\x21\x7f" + b"\x11\x01" + b"\x00\x00"
VARIABLE_WITH_LONG_FORM = b"\x82\x01\x34\x00" + b"\x03\x81\x3e" + b"\xb3\x42\x17" + b"\x02\x18" + b"\x00\x00"
MEMBER = b"\x03\x0d\x00" + b"\x03\x0e" + b"\x38\x0b" + b"\x00\x00"
OVERLONG_CODE = b"\x84\x00\x0d\x00\x03\x0e\x00\x00"  # code 4 written in two bytes


@pytest.mark.parametrize("entries", [
    (SUBPROGRAM_WITH_SIBLING, VARIABLE_WITH_LONG_FORM, MEMBER),
    (MEMBER, OVERLONG_CODE, SUBPROGRAM_WITH_SIBLING),  # not the canonical encoding: read byte by byte
])
def test_abbreviation_tables_read_by_pattern_match_a_byte_by_byte_decoding(entries):
    from sizetool.inputs.dwarf_abbreviations import AbbreviationTables
    from sizetool.inputs.dwarf_format import Unit

    data = b"\0\0" + _abbreviation_section(*entries)  # a table at offset 2
    tables = AbbreviationTables()
    decoded, encoded = tables.table(data, 2, 4, 4, 5)
    unit = Unit(0, 0, 5, 4, 4, decoded, 0)
    unit.bodies = encoded
    expected: dict = {}
    AbbreviationTables().decode_all(data, 2, 4, 4, 5, {}, expected)
    assert set(expected) >= {1, 3}
    assert {code: tables.abbrev(unit, code) for code in expected} == expected
    assert tables.abbrev(unit, 99) is None


def _numbered(code: int, entry: bytes) -> bytes:
    """entry (starting at its tag) under another code, as a ULEB128."""
    encoded = bytearray()
    while True:
        byte, code = code & 0x7F, code >> 7
        encoded.append(byte | (0x80 if code else 0))
        if not code:
            return bytes(encoded) + entry


@pytest.mark.parametrize("codes", [
    list(range(1, 201)),  # the compilers' numbering: one-byte codes, then two-byte ones from 128
    list(range(200, 0, -1)),  # out of order
    [1, 2, 3, 2, 300, 5],  # a code given twice: the later entry, as in a byte-by-byte decoding
])
@pytest.mark.parametrize("garbage", [False, True])  # bytes outside any table: each table framed on its own
def test_numbered_tables_in_a_section_match_a_byte_by_byte_decoding(codes, garbage):
    from sizetool.inputs.dwarf_abbreviations import AbbreviationTables
    from sizetool.inputs.dwarf_format import Unit

    bodies = [SUBPROGRAM_WITH_SIBLING[1:], VARIABLE_WITH_LONG_FORM[2:], MEMBER[1:]]
    first = _abbreviation_section(MEMBER, SUBPROGRAM_WITH_SIBLING)
    second = _abbreviation_section(*(_numbered(code, bodies[n % 3]) for n, code in enumerate(codes)))
    data = first + (b"\x80\x80" if garbage else b"") + second
    for offset in (0, 1, len(data) - len(second)):  # 1: inside an entry, framed from there
        tables = AbbreviationTables()
        decoded, encoded = tables.table(data, offset, 4, 4, 4)
        unit = Unit(0, 0, 4, 4, 4, decoded, 0)
        unit.bodies = encoded
        expected: dict = {}
        AbbreviationTables().decode_all(data, offset, 4, 4, 4, {}, expected)
        assert {code: tables.abbrev(unit, code) for code in expected} == expected
        assert tables.abbrev(unit, 400) is None


@pytest.mark.parametrize("codes", [(1, 2, 3), (5, 70000, 3), (3, 1, 2)])  # in order, a huge code, out of order
def test_a_units_abbreviation_numbering_does_not_change_what_the_scan_reads(codes):
    from sizetool.inputs.dwarf_paths import SourceIndex, _DwarfScanner

    unit_code, type_code, function_code = (_numbered(code, b"") for code in codes)
    abbrev = _abbreviation_section(unit_code + b"\x11\x01\x03\x08\x00\x00",  # compile unit: name (string)
                                   type_code + b"\x24\x00\x0b\x0b\x00\x00",  # base type: byte size (data1)
                                   function_code + b"\x2e\x00\x11\x01\x12\x06\x00\x00")  # low_pc, high_pc
    dies = unit_code + b"a.c\0" + (type_code + b"\x04") * 3 + function_code + b"\x00\x10\x00\x08\x20\x00\x00\x00"
    body = b"\x04\x00" + b"\x00\x00\x00\x00" + b"\x04" + dies + type_code + b"\x02" + b"\x00"
    index = SourceIndex()
    _DwarfScanner({".debug_info": len(body).to_bytes(4, "little") + body, ".debug_abbrev": abbrev}, True, index).scan()
    assert index.unit_of == {0x08001000: "a.c"} and index.unit_ranges == [] and index.warnings == []


@pytest.mark.parametrize("cut", [0, 1, 3])  # bytes of the last DIE's DW_AT_sibling left in the section
def test_a_sibling_past_the_end_of_the_section_is_corrupt_dwarf(cut):
    from sizetool.inputs.dwarf_format import CorruptDwarf
    from sizetool.inputs.dwarf_paths import SourceIndex, _DwarfScanner

    # a compile unit (name as a string), then a subroutine type with children whose DW_AT_sibling (ref4) the scan
    # jumps to without decoding the DIE, cut short at the end of .debug_info
    abbrev = _abbreviation_section(b"\x01\x11\x01\x03\x08\x00\x00", b"\x02\x15\x01\x01\x13\x0b\x0b\x00\x00")
    body = b"\x04\x00" + b"\x00\x00\x00\x00" + b"\x04" + b"\x01a.c\x00" + b"\x02" + b"\x20\x00\x00\x00"[:cut]
    info = len(body).to_bytes(4, "little") + body
    with pytest.raises(CorruptDwarf, match="runs past the end of its section"):
        _DwarfScanner({".debug_info": info, ".debug_abbrev": abbrev}, True, SourceIndex()).scan()


def test_gcc_units_are_told_apart_by_their_producer():
    from sizetool.inputs.dwarf_paths import GCC_PRODUCER

    for producer in ("GNU C17 12.2.1 20221205 -mcpu=cortex-m4", "GNU C++17 13.2.0 -O2", "GNU C99 4.9.3"):
        assert GCC_PRODUCER.match(producer)
    for producer in ("GNU GIMPLE 13.2.0 -flto", "GNU AS 2.40", "clang version 17.0.1", "ARM Compiler 6.21", ""):
        assert not GCC_PRODUCER.match(producer)
