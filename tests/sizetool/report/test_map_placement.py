"""Placement by an armlink or IAR map: totals equal the map's own summary, every byte has a named owner, load and run
addresses as the map states them, and a map from another build is refused."""

from pathlib import Path

import pytest

from sizetool.errors import SizeToolError
from sizetool.inputs.elf_reader import read_elf
from sizetool.inputs.map_formats import read_linker_map
from sizetool.report.map_placement import place_by_map
from sizetool.report.report_builder import build_report
from sizetool.report.report_model import report_from_dict, report_to_dict

OUT = Path(__file__).resolve().parents[3] / "fixtures" / "toolchain_maps" / "out"
BUILDS = {"armlink": "firmware.axf", "armlink-compressed": "firmware.axf", "iar": "firmware.out"}
CATCH_ALLS = ("(no symbol)", "(no debug info)")


def report(name: str):
    return build_report(str(OUT / name / BUILDS[name]), map_path=str(OUT / name / "firmware.map"), use_cache=False)


@pytest.fixture(scope="module")
def reports():
    return {name: report(name) for name in BUILDS}


@pytest.mark.parametrize("name", list(BUILDS))
def test_rom_and_ram_equal_the_maps_own_summary(reports, name):
    layout = read_linker_map(str(OUT / name / "firmware.map")).layout
    size_report = reports[name]
    assert (size_report.rom_total, size_report.ram_total) == (layout.rom_total, layout.ram_total)
    assert (size_report.linker_map.rom_total, size_report.linker_map.ram_total) == (layout.rom_total, layout.ram_total)
    for memory in ("rom", "ram"):
        assert sum(e.size for e in size_report.entries_for(memory)) == size_report.total(memory)
        used = sum(r.used for r in size_report.regions_of(memory))
        assert used == size_report.total(memory)
    assert not size_report.warnings


@pytest.mark.parametrize("name", list(BUILDS))
def test_every_byte_but_alignment_sits_under_a_named_object_or_source_file(reports, name):
    unnamed = [e for e in reports[name].entries if e.path[0] in CATCH_ALLS and not e.symbol.startswith("(fill)")]
    assert unnamed == []


def entries_of(size_report, symbol_part):
    return [e for e in size_report.entries if symbol_part in e.symbol]


def test_armlink_rw_data_is_in_ram_and_stored_in_flash(reports):
    registration = entries_of(reports["armlink"], "Register_SINH()::registration")
    assert {e.memory for e in registration} == {"rom", "ram"}
    assert all(e.path[-1] == "sinh.cc" for e in registration)


def test_the_padding_after_the_rw_data_is_ram_only_as_arm_compiler_6_counts_it(reports):
    layout = read_linker_map(str(OUT / "armlink" / "firmware.map")).layout
    block = next(b for b in layout.blocks if b.name == "RW_IRAM1")
    stored_end = block.address + block.stored
    rom = [e for e in reports["armlink"].entries if e.memory == "rom" and e.section == "RW_IRAM1"]
    ram_padding = [e for e in reports["armlink"].entries if e.memory == "ram" and e.address >= stored_end
                   and e.address < block.address + block.initialised]
    assert rom and all(e.address + e.size <= stored_end for e in rom)
    assert sum(e.size for e in ram_padding) == block.initialised - block.stored


def test_compressed_rw_data_is_in_ram_uncompressed_and_in_flash_as_one_compressed_run(reports):
    compressed = reports["armlink-compressed"]
    layout = read_linker_map(str(OUT / "armlink-compressed" / "firmware.map")).layout
    block = next(b for b in layout.blocks if b.name == "RW_IRAM1")
    runs = [e for e in compressed.entries if e.path == ("(compressed RW data)",)]
    assert [(e.memory, e.size) for e in runs] == [("rom", block.stored)]
    assert {e.memory for e in entries_of(compressed, "Register_SINH()::registration")} == {"ram"}
    plain = reports["armlink"]
    plain_block = next(b for b in read_linker_map(str(OUT / "armlink" / "firmware.map")).layout.blocks
                       if b.name == "RW_IRAM1")
    assert compressed.ram_total == plain.ram_total
    assert plain.rom_total - compressed.rom_total == plain_block.stored - block.stored


def test_iar_init_data_runs_in_ram_and_its_initializer_bytes_are_its_objects_in_flash(reports):
    iar = reports["iar"]
    registration = entries_of(iar, "Register_SINH()::registration")
    assert [e.memory for e in registration] == ["ram"]
    stored = [e for e in iar.entries if e.memory == "rom" and "Register_SINHEvE12registration" in e.symbol]
    assert stored and all(e.path == registration[0].path for e in stored)
    assert sum(e.size for e in stored) == registration[0].size


def test_the_iar_init_blocks_tail_alignment_is_not_counted():
    image = read_elf(str(OUT / "iar" / "firmware.out"))
    linker_map = read_linker_map(str(OUT / "iar" / "firmware.map"))
    placement = place_by_map(image, linker_map)
    elf_ram = sum(s.size for s in image.sections if s.name.startswith("P2 "))
    uncounted = sum(b.size - b.counted for b in linker_map.layout.blocks if b.memory == "ram")
    assert uncounted > 0 and placement.ram_total == elf_ram - uncounted


@pytest.mark.parametrize("elf,map_dir,problem", [
    ("armlink/firmware.axf", "iar", "lies in no region of the map"),
    ("iar/firmware.out", "armlink", "lies in no region of the map"),
    ("armlink/firmware.axf", "armlink-compressed", "stores 88 bytes compressed in the map"),
    ("armlink-compressed/firmware.axf", "armlink", "holds 88"),
])
def test_a_map_of_another_build_is_refused_naming_both_files(elf, map_dir, problem):
    map_path = str(OUT / map_dir / "firmware.map")
    with pytest.raises(SizeToolError, match="does not belong to") as caught:
        build_report(str(OUT / elf), map_path=map_path, use_cache=False)
    assert str(caught.value).startswith(map_path) and str(OUT / elf) in str(caught.value) and problem in str(caught.value)


def test_a_map_of_the_same_layout_from_another_link_is_refused(tmp_path):
    # As if relinked with a bigger stack: the last row of RW_IRAM1 and the region grow, the ELF stays.
    text = (OUT / "armlink" / "firmware.map").read_text()
    head, _, rest = text.partition("Execution Region RW_IRAM1")
    size = int(rest.split("Size: ", 1)[1].split(",", 1)[0], 16)
    stack = next(line for line in rest.splitlines() if line.rstrip().endswith("reservations.o") and " STACK " in line)
    stack_size = stack.split()[2]
    bigger = stack.replace(stack_size, f"0x{int(stack_size, 16) + 0x100:08x}")
    rest = rest.replace(f"Size: 0x{size:08x}", f"Size: 0x{size + 0x100:08x}", 1).replace(stack, bigger)
    edited = tmp_path / "edited.map"
    edited.write_text(head + "Execution Region RW_IRAM1" + rest)
    with pytest.raises(SizeToolError, match="does not belong to.*execution region RW_IRAM1"):
        build_report(str(OUT / "armlink" / "firmware.axf"), map_path=str(edited), use_cache=False)


def test_a_map_whose_rows_overrun_its_region_is_inconsistent(tmp_path):
    text = (OUT / "armlink" / "firmware.map").read_text()
    head, _, rest = text.partition("Execution Region RW_IRAM1")
    size = rest.split("Size: ", 1)[1].split(",", 1)[0]
    edited = tmp_path / "edited.map"
    edited.write_text(head + "Execution Region RW_IRAM1" + rest.replace(f"Size: {size}", "Size: 0x00000010", 1))
    with pytest.raises(SizeToolError, match="inconsistent map file"):
        read_linker_map(str(edited))


def test_a_saved_report_keeps_the_map_it_read(reports):
    saved = report_to_dict(reports["iar"])
    assert saved["map"]["format"] == "iar" and saved["map"]["ram_total"] == reports["iar"].ram_total
    assert report_from_dict(saved, "saved.json").linker_map == reports["iar"].linker_map
