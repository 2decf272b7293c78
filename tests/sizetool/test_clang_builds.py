"""Firmware built with clang (fixtures/clang: the project's own TFLM-shaped sources compiled by clang 14, linked by GNU
ld and by ld.lld): every reader gives what the sources say, as on the GCC builds of the same sources.

clang's DWARF is not GCC's: DWARF 5 with DW_FORM_strx / .debug_str_offsets, DW_FORM_addrx / .debug_addr,
DW_FORM_rnglistx / .debug_rnglists, "clang version" producers, every class member function declared inside its class
(not at unit level), no DW_AT_decl_file on an out-of-line static member's definition, int-sized enums on Arm EABI.
ld.lld keeps no `$d` mapping symbol before the merged strings it puts at the start of `.rodata`."""

import hashlib
import posixpath
import shutil
import subprocess

import pytest
from elftools.elf.elffile import ELFFile

from sizetool.cli import main as size_report
from sizetool.fit.dwarf_facts import dwarf_facts
from sizetool.inputs.dwarf_paths import read_source_index
from sizetool.inputs.dwarf_resolver_api import read_resolver_api, read_resolver_api_pyelftools
from sizetool.inputs.dwarf_structs import read_dwarf_types
from sizetool.inputs.map_formats import read_linker_map
from sizetool.report.report_builder import build_report
from tests.conftest import FIXTURES
from tflm_facts.build_sizes import MEMBER_STRUCTS

CLANG = FIXTURES / "clang" / "out"
BUILDS = {"gnu-ld": 5, "lld": 5, "dwarf4": 4}  # fixtures/clang/out/firmware/<build>: DWARF version
GCC_ELF = FIXTURES / "firmware" / "out" / "cortex-m4" / "firmware.elf"  # the same sources, arm-none-eabi-g++
FACT_OPS = ["ADD", "MEAN", "CONCATENATION", "CONV_2D", "EQUAL"]


def elf_of(build: str):
    return CLANG / "firmware" / build / "firmware.elf"


def symbol_paths(elf) -> dict[tuple[str, str], set[tuple[str, ...]]]:
    """(memory, symbol) -> the file (last two path parts: the clang fixture's tree has one more root) of each entry."""
    paths: dict[tuple[str, str], set[tuple[str, ...]]] = {}
    for entry in build_report(str(elf), use_cache=False).entries:
        if not entry.symbol.startswith("("):
            paths.setdefault((entry.memory, entry.symbol), set()).add(entry.path[-2:])
    return paths


@pytest.mark.parametrize("build", sorted(BUILDS))
def test_the_fixture_is_clang_dwarf(build):
    with open(elf_of(build), "rb") as stream:
        elf = ELFFile(stream)
        dwarf = elf.get_dwarf_info()
        units = [(u.get_top_DIE().attributes["DW_AT_producer"].value.decode(), u) for u in dwarf.iter_CUs()]
        clang_units = [u for producer, u in units if "clang version" in producer]
        assert len(clang_units) == 25  # the sources; the others are libgcc's (GNU AS, GNU C17)
        assert {u.header["version"] for u in clang_units} == {BUILDS[build]}
        assert all(p.startswith("GNU ") for p, _ in units if "clang version" not in p)
        sections = {section.name for section in elf.iter_sections()}
    if BUILDS[build] == 5:  # the forms GCC's DWARF 5 does not use
        assert {".debug_str_offsets", ".debug_addr", ".debug_rnglists"} <= sections
    else:
        assert ".debug_str_offsets" not in sections and ".debug_ranges" in sections


@pytest.mark.parametrize("build", sorted(BUILDS))
def test_every_symbol_is_in_the_file_the_gcc_build_of_the_same_sources_gives(build):
    clang, gcc = symbol_paths(elf_of(build)), symbol_paths(GCC_ELF)
    common = set(clang) & set(gcc)
    assert len(common) >= 140
    assert {key: clang[key] for key in common} == {key: gcc[key] for key in common}
    # defined in micro_interpreter.cc, declared in micro_interpreter.h: clang's definition DIE names no file
    assert clang[("ram", "tflite::MicroInterpreter::live_instances_")] == {("micro", "micro_interpreter.cc")}
    # and what only clang emits out of line is where its source is
    assert clang[("rom", "tflite::QuantizeMultiplier(float, int*, int*)")] == {("kernels", "kernel_util.cc")}
    report = build_report(str(elf_of(build)), use_cache=False)
    assert not [e for e in report.entries if e.path == ("(no debug info)",)]


@pytest.mark.parametrize("build", sorted(BUILDS))
def test_static_members_are_where_they_are_defined(build):
    """clang names no file on a static member's definition: a strong one is defined once, in its unit (statics.cc);
    an inline or template one is weak and defined in the header (fixtures/clang/src/statics.h)."""
    paths = symbol_paths(elf_of(build))
    assert paths[("ram", "Counters::defined_in_cc")] == {("clang/src", "statics.cc")}
    assert paths[("ram", "Counters::defined_in_header")] == {("clang/src", "statics.h")}
    assert paths[("ram", "Counters::Scaled<5>::value")] == {("clang/src", "statics.h")}


@pytest.mark.parametrize("build", sorted(BUILDS))
def test_declaring_files_match_a_full_pyelftools_walk(build):
    """Every function with code: the file its DIE (or the declaration it links to) names, by pyelftools, which
    resolves DW_FORM_addrx through .debug_addr and DW_FORM_strx through .debug_str_offsets itself."""
    elf = str(elf_of(build))
    expected = {}
    with open(elf, "rb") as stream:
        dwarf = ELFFile(stream).get_dwarf_info()
        for unit in dwarf.iter_CUs():
            files = dwarf.line_program_for_CU(unit).header["file_entry"]
            directories = dwarf.line_program_for_CU(unit).header["include_directory"]
            version = dwarf.line_program_for_CU(unit).header["version"]
            comp_dir = unit.get_top_DIE().attributes["DW_AT_comp_dir"].value.decode()
            for die in unit.iter_DIEs():
                low = die.attributes.get("DW_AT_low_pc")  # pyelftools looks DW_FORM_addrx up in .debug_addr
                if die.tag != "DW_TAG_subprogram" or low is None or low.value == 0:
                    continue  # 0: a function --gc-sections dropped
                address = low.value
                target = die
                for _ in range(8):
                    link = next((a for a in ("DW_AT_specification", "DW_AT_abstract_origin") if a in target.attributes),
                                None)
                    if "DW_AT_decl_file" in target.attributes or link is None:
                        break
                    target = target.get_DIE_from_attribute(link)
                if "DW_AT_decl_file" not in target.attributes:
                    continue  # artificial: a unit's static initialiser
                number = target.attributes["DW_AT_decl_file"].value
                entry = files[number if version >= 5 else number - 1]
                directory = directories[entry.dir_index if version >= 5 else entry.dir_index - 1].decode() \
                    if version >= 5 or entry.dir_index else ""
                expected[address & ~1] = posixpath.normpath(posixpath.join(comp_dir, directory, entry.name.decode()))
    index = read_source_index(elf)
    assert len(expected) >= 100
    assert {address: posixpath.normpath(index.decl_file.get(address, "")) for address in expected} == expected


def test_lld_layout_places_every_string_by_the_code_that_refers_to_it():
    """ld.lld puts the merged string sections first in .rodata with no `$d` before them; the last `$t` of .text
    must not make them code (they were 3,381 B of "(no symbol)" before)."""
    lld = build_report(str(elf_of("lld")), use_cache=False)
    gnu = build_report(str(elf_of("gnu-ld")), use_cache=False)
    unplaced = sum(e.size for e in lld.entries_for("rom") if e.path == ("(no symbol)",) and ".rodata" in e.symbol)
    assert unplaced <= 8

    def by_file(report):
        totals: dict[tuple[str, ...], int] = {}
        for entry in report.entries_for("rom"):
            totals[entry.path[-2:]] = totals.get(entry.path[-2:], 0) + entry.size
        return totals

    lld_files, gnu_files = by_file(lld), by_file(gnu)
    for path in (("micro", "string_util.cc"), ("micro", "micro_interpreter.cc"), ("app", "main.cc")):
        assert abs(lld_files[path] - gnu_files[path]) <= 16, path  # the two links' strings land in the same files


def test_totals_are_the_section_headers_and_the_map(capsys):
    for build in BUILDS:
        with open(elf_of(build), "rb") as stream:
            stored = sum(s["sh_size"] for s in ELFFile(stream).iter_sections()
                         if s["sh_flags"] & 2 and s["sh_type"] != "SHT_NOBITS")
        report = build_report(str(elf_of(build)), use_cache=False)
        gaps = sum(e.size for e in report.entries_for("rom") if e.symbol.startswith("(fill)"))
        assert report.rom_total == stored + gaps
    mapped = build_report(str(elf_of("gnu-ld")), map_path=str(elf_of("gnu-ld").with_suffix(".map")), use_cache=False)
    assert {r.name: r.used for r in mapped.regions} == {"FLASH": mapped.rom_total, "RAM": mapped.ram_total}
    assert mapped.rom_total == build_report(str(elf_of("gnu-ld")), use_cache=False).rom_total


def test_the_lld_map_lists_the_elf_sections_and_their_objects():
    elf_path = elf_of("lld")
    linker_map = read_linker_map(str(elf_path.with_suffix(".map")))
    assert (linker_map.format, linker_map.regions) == ("lld", [])  # ld.lld writes no MEMORY regions
    with open(elf_path, "rb") as stream:
        headers = {s.name: (s["sh_addr"], s["sh_size"]) for s in ELFFile(stream).iter_sections()
                   if s["sh_flags"] & 2 and s["sh_size"]}
    assert {o.name: (o.address, o.size) for o in linker_map.output_sections if o.size} == headers
    data = linker_map.output_section(".data")
    assert data.load_address is not None and data.load_address != data.address  # stored in flash, run in RAM
    for output in linker_map.output_sections:
        pieces = [p for p in linker_map.input_sections if p.output_section == output.name]
        for before, after in zip(pieces, pieces[1:]):
            assert before.address + before.size == after.address  # padding listed as fill: no gap, no overlap
        assert all(output.address <= p.address and p.address + p.size <= output.address + output.size for p in pieces)
    objects = {p.object_file for p in linker_map.input_sections}
    assert "obj/kernels/conv.o" in objects and "(merged by the linker)" in objects
    assert any(o.endswith("libgcc.a(_udivmoddi4.o)") for o in objects)


def test_a_report_with_the_lld_map_places_what_gnu_ld_and_its_map_place(capsys):
    elf_path = elf_of("lld")
    alone = build_report(str(elf_path), use_cache=False)
    mapped = build_report(str(elf_path), map_path=str(elf_path.with_suffix(".map")), use_cache=False)
    gnu = build_report(str(elf_of("gnu-ld")), map_path=str(elf_of("gnu-ld").with_suffix(".map")), use_cache=False)
    assert (mapped.rom_total, mapped.ram_total) == (alone.rom_total, alone.ram_total)
    named = {(e.memory, e.symbol): e.path for e in mapped.entries if not e.symbol.startswith("(")}
    gnu_named = {(e.memory, e.symbol): e.path for e in gnu.entries if not e.symbol.startswith("(")}
    common = set(named) & set(gnu_named)
    assert len(common) >= 150 and {k: named[k] for k in common} == {k: gnu_named[k] for k in common}
    # the merged strings go to the code that refers to them; the bytes between input sections are fill
    merged = sum(e.size for e in mapped.entries if e.path == ("(merged by the linker)",))
    assert merged <= 16 and mapped.linker_map.merged_strings[0] > 2000
    assert not [e for e in mapped.entries if e.path == ("(reserved)",)]
    assert size_report([str(elf_path), "--map", str(elf_path.with_suffix(".map")), "--depth", "1"]) == 0
    assert capsys.readouterr().out.startswith("map: ld.lld firmware.map")


def test_a_broken_lld_map_is_one_line(tmp_path, capsys):
    text = elf_of("lld").with_suffix(".map").read_text()
    broken = tmp_path / "firmware.map"
    broken.write_text(text[: len(text) // 2] + "\n this is no row\n")
    assert size_report([str(elf_of("lld")), "--map", str(broken)]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "not an ld.lld map row" in error


@pytest.mark.parametrize("revision", ["a", "b"])
@pytest.mark.parametrize("kernels", ["reference", "cmsis_nn"])
def test_arena_facts_from_clang_dwarf_are_the_sources_sizes(revision, kernels):
    def facts(directory):
        types = read_dwarf_types(directory / f"revision-{revision}.elf", MEMBER_STRUCTS)
        return dwarf_facts(types, kernels, FACT_OPS, "fixture DWARF")

    clang, gcc = facts(CLANG / "dwarf_facts"), facts(FIXTURES / "dwarf_facts" / "out")
    assert clang.sizes.enum_bytes == 4 and gcc.sizes.enum_bytes == 1  # clang: int-sized enums on Arm EABI
    assert clang.sizes.op_data == gcc.sizes.op_data and clang.sizes.params == gcc.sizes.params
    read_by_clang = clang.sizes.structs
    assert read_by_clang == {name: size for name, size in gcc.sizes.structs.items() if name in read_by_clang}
    # clang describes no type it need not: an unused variable of an anonymous-namespace struct is dropped, and a
    # struct only pointed to stays a declaration. Those two keep tflm_facts' default (equal here) and say so.
    assert set(gcc.sizes.structs) - set(read_by_clang) == {"MicroBuiltinDataAllocator", "TfLiteIntArray"}
    assert {"MicroBuiltinDataAllocator", "TfLiteIntArray"} <= set(clang.defaults)


def test_resolver_api_from_clang_dwarf_is_the_sources():
    clang = read_resolver_api(elf_of("gnu-ld"))
    assert clang == read_resolver_api_pyelftools(elf_of("gnu-ld"))
    gcc = read_resolver_api(GCC_ELF)
    assert clang.methods == gcc.methods and clang.registration_types == gcc.registration_types
    assert {"AddConv2D", "AddWindow", "AddCustom"} <= set(clang.methods)
    # clang declares no function the unit only calls: Register_X() of the kernels' own units only
    assert clang.registrations <= gcc.registrations


@pytest.mark.skipif(not all(shutil.which(tool) for tool in ("clang++", "ld.lld", "arm-none-eabi-g++")),
                    reason="fixtures/clang/build.sh needs clang, lld and gcc-arm-none-eabi (Debian packages)")
def test_the_fixture_rebuilds_byte_for_byte(tmp_path):
    tree = tmp_path / "fixtures"
    for part in ("clang", "firmware/src", "firmware/linker", "dwarf_facts/src"):
        shutil.copytree(FIXTURES / part, tree / part, ignore=shutil.ignore_patterns("out"))
    subprocess.run(["bash", str(tree / "clang" / "build.sh")], check=True, capture_output=True)
    rebuilt = sorted(p.relative_to(tree / "clang" / "out") for p in (tree / "clang" / "out").rglob("*") if p.is_file())
    committed = sorted(p.relative_to(CLANG) for p in CLANG.rglob("*") if p.is_file())
    assert rebuilt == committed
    for path in committed:
        assert hashlib.sha256((tree / "clang" / "out" / path).read_bytes()).digest() == \
            hashlib.sha256((CLANG / path).read_bytes()).digest(), path
