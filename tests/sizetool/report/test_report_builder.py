"""size-report's core: totals equal the `size` figures recorded at build time, and the entries add up to them."""

import json
import os

from pathlib import Path

import pytest

from sizetool.report.report_builder import build_report
from sizetool.report.report_model import build_tree

FIRMWARE = str(Path(__file__).resolve().parents[3] / "fixtures" / "firmware" / "out")
SIZES = json.load(open(f"{FIRMWARE}/sizes.json"))
FULL_BUILDS = sorted(k for k in SIZES if not k.startswith("variants/"))


RAM_ORIGIN = {"riscv32": 0x80000000, "riscv32-rodata-in-text": 0x80000000}  # of the fixture linker scripts;
#                                                                           0x20000000 on Cortex-M


def writable_sections_in_flash(elf: str) -> int:
    """Bytes of writable sections the fixture scripts keep below RAM, in FLASH (.init_array), read with pyelftools."""
    from elftools.elf.elffile import ELFFile

    ram_origin = RAM_ORIGIN.get(elf.split("/")[-2], 0x20000000)
    with open(elf, "rb") as stream:
        return sum(s["sh_size"] for s in ELFFile(stream).iter_sections()
                   if s["sh_flags"] & 3 == 3 and s["sh_type"] != "SHT_NOBITS" and s["sh_addr"] < ram_origin)


def code_in_iram(elf: str) -> int:
    """Bytes of the sections linker/lx106.ld places in iram1_0_seg (0x40100000, 32 KB), read with pyelftools."""
    from elftools.elf.elffile import ELFFile

    with open(elf, "rb") as stream:
        return sum(s["sh_size"] for s in ELFFile(stream).iter_sections()
                   if s["sh_flags"] & 2 and 0x40100000 <= s["sh_addr"] < 0x40108000)


def esp8266_writable_in_flash(elf: str) -> int:
    """Bytes of writable sections with contents in irom0_0_seg (flash from 0x40200000), read with pyelftools."""
    from elftools.elf.elffile import ELFFile

    with open(elf, "rb") as stream:
        return sum(s["sh_size"] for s in ELFFile(stream).iter_sections()
                   if s["sh_flags"] & 3 == 3 and s["sh_type"] != "SHT_NOBITS" and s["sh_addr"] >= 0x40200000)


@pytest.mark.parametrize("elf", FULL_BUILDS)
def test_totals_are_physical_beside_the_size_tools_figures_and_entries_add_up(elf):
    report = build_report(f"{FIRMWARE}/{elf}")
    recorded = SIZES[elf]
    assert report.rom_total == recorded["text"] + recorded["data"]  # every stored byte lies in flash
    hosted = "host-x86_64/" in elf  # a program for an OS: the file image's view, as `size` has it
    in_flash = 0 if hosted else writable_sections_in_flash(f"{FIRMWARE}/{elf}")
    if "lx106/" in elf:  # ESP8266 layout: IRAM code occupies RAM too; .irom0.rodata (writable: .ctors) is flash
        in_flash = esp8266_writable_in_flash(f"{FIRMWARE}/{elf}") - code_in_iram(f"{FIRMWARE}/{elf}")
    assert report.ram_total == recorded["data"] + recorded["bss"] - in_flash
    assert (report.berkeley.text, report.berkeley.data, report.berkeley.bss) == (
        recorded["text"], recorded["data"], recorded["bss"])
    for memory in ("rom", "ram"):
        assert sum(e.size for e in report.entries_for(memory)) == report.total(memory)
        assert build_tree(report.entries, memory).size == report.total(memory)


@pytest.mark.parametrize("arch", ["cortex-m4", "riscv32", "host-x86_64"])
def test_a_kernels_eval_lands_under_its_kernel_file(arch):
    report = build_report(f"{FIRMWARE}/{arch}/firmware.elf")
    evals = [e for e in report.entries_for("rom") if e.symbol.startswith("tflite::(anonymous namespace)::Eval(")]
    files = {e.path for e in evals}
    assert ("kernels", "fully_connected.cc") in files and ("kernels", "softmax.cc") in files


@pytest.mark.parametrize("arch", ["cortex-m4", "riscv32"])
def test_resolver_template_code_lands_under_its_header_or_its_unit(arch):
    elf = f"{FIRMWARE}/{arch}/firmware.elf"
    by_file = build_report(elf)
    by_unit = build_report(elf, group_by="cu")

    def paths(report):
        return {e.path for e in report.entries_for("rom") if "MicroMutableOpResolver<13u>::AddBuiltin" in e.symbol}

    assert paths(by_file) == {("micro", "micro_mutable_op_resolver.h")}
    assert paths(by_unit) == {("app", "main.cc")}


def test_bytes_no_symbol_covers_are_explicit_nodes():
    report = build_report(f"{FIRMWARE}/cortex-m4/firmware.elf")
    catch_alls = [e for e in report.entries_for("rom") if e.path == ("(no symbol)",)]
    assert any(e.section == ".isr_vector" or e.section == ".rodata" for e in catch_alls)
    assert all(e.symbol == f"(no symbol) {e.section}" for e in catch_alls)


def test_aliases_count_once():
    report = build_report(f"{FIRMWARE}/cortex-m4/firmware.elf")
    rom = report.entries_for("rom")
    addresses = [(e.section, e.address) for e in rom if not e.path == ("(no symbol)",)]
    assert len(addresses) == len(set(addresses))
    assert any(e.aliases for e in rom), "the fixture has weak *_Handler aliases of Default_Handler"


def test_stripped_elf_falls_back_to_sections_with_a_warning():
    report = build_report(f"{FIRMWARE}/cortex-m4/firmware-stripped.elf")
    assert any("stripped" in w for w in report.warnings)
    assert {e.path for e in report.entries} == {("(sections)",)}
    assert sum(e.size for e in report.entries_for("rom")) == report.rom_total


def test_elf_without_dwarf_puts_symbols_under_no_debug_info():
    report = build_report(f"{FIRMWARE}/cortex-m4/firmware-nodebug.elf")
    assert {e.path for e in report.entries} <= {("(no debug info)",), ("(no symbol)",)}
    assert any("no DWARF" in w for w in report.warnings)


def test_emit_relocs_build_reads_its_dwarf_without_warnings():
    report = build_report(f"{FIRMWARE}/cortex-m4-relocs/firmware.elf")
    assert report.warnings == []
    assert any(e.path == ("kernels", "conv.cc") for e in report.entries)


def test_statics_inside_inlined_functions_go_to_their_unit_via_the_file_symbol():
    report = build_report(f"{FIRMWARE}/cortex-m4/firmware.elf")
    statics = {e.symbol: e.path for e in report.entries_for("ram") if "SetupVisionModel()::" in e.symbol}
    assert statics and set(statics.values()) == {("app", "main.cc")}


def test_const_tables_without_a_dwarf_location_go_to_their_unit():
    report = build_report(f"{FIRMWARE}/cortex-m4/firmware.elf")
    tables = {e.symbol: e.path for e in report.entries_for("rom") if e.symbol.endswith("kSigmoidTable")}
    assert tables == {"tflite::(anonymous namespace)::kSigmoidTable": ("kernels", "logistic.cc")}


def test_workspace_option_roots_the_paths(tmp_path):
    report = build_report(f"{FIRMWARE}/cortex-m4/firmware.elf", workspace="/firmware/src/kernels")
    paths = {e.path for e in report.entries_for("rom")}
    assert ("fully_connected.cc",) in paths
    assert ("(outside workspace)", "firmware", "src", "app", "main.cc") in paths


def test_corrupt_dwarf_gives_the_symbol_report_and_a_warning(tmp_path):
    from sizetool.inputs.elf_reader import read_elf

    source = f"{FIRMWARE}/cortex-m4/firmware.elf"
    debug_info = read_elf(source).section_by_name(".debug_info")
    data = bytearray(Path(source).read_bytes())
    data[debug_info.offset : debug_info.offset + debug_info.size] = b"\xff" * debug_info.size
    broken = tmp_path / "broken-dwarf.elf"
    broken.write_bytes(bytes(data))
    report = build_report(str(broken))
    assert any("DWARF" in w for w in report.warnings)
    assert sum(e.size for e in report.entries_for("rom")) == report.rom_total == (
        SIZES["cortex-m4/firmware.elf"]["text"] + SIZES["cortex-m4/firmware.elf"]["data"])
    assert any(e.symbol == "tflite::Register_SOFTMAX()" for e in report.entries_for("rom"))


def test_archive_members_of_one_name_from_two_directories_are_told_apart_by_their_compile_units():
    """libtensorflow-microlite.a holds lite/kernels/kernel_util.o and lite/micro/kernels/kernel_util.o: the map names
    both `libtensorflow-microlite.a(kernel_util.o)`, but their code lies in two units; such a name is shared (its
    symbol-less bytes then go by what refers to them), one object's code in one unit is not."""
    from types import SimpleNamespace

    from sizetool.inputs.map_file import InputSection
    from sizetool.report.report_builder import shared_object_names

    units = [(0x100, 0x200, "tflite-micro/tensorflow/lite/kernels/kernel_util.cc"),
             (0x200, 0x300, "tflite-micro/tensorflow/lite/micro/kernels/kernel_util.cc"),
             (0x300, 0x400, "tflite-micro/tensorflow/lite/micro/micro_interpreter.cc")]
    index = SimpleNamespace(unit_covering=lambda a: next((u for lo, hi, u in units if lo <= a < hi), None))
    member = "libtensorflow-microlite.a(kernel_util.o)"
    pieces = [InputSection(".text.a", 0x100, 0x80, member), InputSection(".text.b", 0x200, 0x90, member),
              InputSection(".rodata.c", 0x1000, 0x40, member),
              InputSection(".text.d", 0x300, 0x80, "libtensorflow-microlite.a(micro_interpreter.o)"),
              InputSection(".text.e", 0x380, 0x10, "libtensorflow-microlite.a(micro_interpreter.o)")]
    assert shared_object_names(index, pieces) == {member}
    # One member with a little code of a header's inline function elsewhere keeps its name.
    pieces[1] = InputSection(".text.b", 0x200, 0x10, member)
    assert shared_object_names(index, pieces) == set()


class _Recorded:
    """BackgroundRead, with every read it starts kept (to see each one ended)."""

    def __init__(self, monkeypatch):
        from sizetool.inputs import background_read

        self.reads = []
        recorded = self

        class Recording(background_read.BackgroundRead):
            def __init__(self, *arguments, **options):
                super().__init__(*arguments, **options)
                recorded.reads.append(self)

        monkeypatch.setattr(background_read, "BackgroundRead", Recording)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork is not available on this platform")
@pytest.mark.parametrize("elf", ["cortex-m4/firmware.elf", "cortex-m4-tflm-speed/firmware.elf",
                                 "cortex-m4/firmware-nodebug.elf", "cortex-m4/firmware-stripped.elf"])
def test_dwarf_paths_read_beside_give_the_report_read_here(elf, monkeypatch, tmp_path):
    from sizetool.inputs import dwarf_paths
    from sizetool.report import report_builder
    from sizetool.report.report_model import report_to_dict

    monkeypatch.setenv("SIZETOOL_SERIAL", "1")
    here = report_to_dict(build_report(f"{FIRMWARE}/{elf}", use_cache=False))
    monkeypatch.delenv("SIZETOOL_SERIAL")
    monkeypatch.setattr(report_builder, "SECOND_PROCESS_FROM", 0)  # the fixtures are below 1 MiB
    readers = tmp_path / "readers"
    read = dwarf_paths.read_source_index

    def read_noting_where(path):
        with open(readers, "a") as note:
            note.write(f"{os.getpid()}\n")
        return read(path)

    monkeypatch.setattr(dwarf_paths, "read_source_index", read_noting_where)
    recorded = _Recorded(monkeypatch)
    beside = report_to_dict(build_report(f"{FIRMWARE}/{elf}", use_cache=False))
    assert beside == here
    assert recorded.reads and all(read.child is None for read in recorded.reads)  # each child ended
    # read in a child (where DWARF is asked for: an ELF without it or without symbols never waits for the read)
    read_in = readers.read_text().split() if readers.exists() else []
    assert str(os.getpid()) not in read_in
    assert read_in or "nodebug" in elf or "stripped" in elf


def test_corrupt_dwarf_read_beside_gives_the_same_warning(tmp_path, monkeypatch):
    from sizetool.inputs.elf_reader import read_elf
    from sizetool.report import report_builder

    source = f"{FIRMWARE}/cortex-m4/firmware.elf"
    debug_info = read_elf(source).section_by_name(".debug_info")
    data = bytearray(Path(source).read_bytes())
    data[debug_info.offset + 11 : debug_info.offset + debug_info.size] = b"\xfe" * (debug_info.size - 11)
    broken = tmp_path / "broken-dwarf.elf"
    broken.write_bytes(bytes(data))
    monkeypatch.setenv("SIZETOOL_SERIAL", "1")
    here = build_report(str(broken), use_cache=False)
    monkeypatch.delenv("SIZETOOL_SERIAL")
    monkeypatch.setattr(report_builder, "SECOND_PROCESS_FROM", 0)
    beside = build_report(str(broken), use_cache=False)
    assert beside.warnings == here.warnings and any("DWARF" in w for w in here.warnings)
    assert beside.entries == here.entries
