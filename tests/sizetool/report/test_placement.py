"""ROM and RAM by physical placement: on every layout fixture the totals and each region's use equal the table the
linker printed with --print-memory-usage when the fixture was built (fixtures/layouts/out/*/memory-usage.txt)."""

import json
import re
from pathlib import Path

import pytest
from elftools.elf.elffile import ELFFile

from sizetool.errors import SizeToolError
from sizetool.inputs.elf_reader import read_elf
from sizetool.inputs.map_file import MapRegion, read_map
from sizetool.report.placement import RAM, ROM, place, region_memory
from sizetool.report.report_builder import build_report
from sizetool.report.report_model import build_tree

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures"
LAYOUTS = FIXTURES / "layouts" / "out"
FIRMWARE = FIXTURES / "firmware" / "out"
# What each region of the layout scripts is (fixtures/layouts/linker/*.ld say why).
LAYOUT_REGIONS = {
    "flash0": {"FLASH": ROM, "RAM": RAM},
    "zephyr-like": {"FLASH": ROM, "RAM": RAM, "SRAM0": RAM, "IDT_LIST": RAM},
    "ram-only": {"RAM": RAM},
    "dtcm-itcm": {"ITCM": RAM, "FLASH": ROM, "DTCM": RAM, "SRAM": RAM},
    "cmsis-armcm4": {"FLASH": ROM, "RAM": RAM},
}
UNITS = {"B": 1, "KB": 1 << 10, "MB": 1 << 20, "GB": 1 << 30}


def elf_and_map(layout: str) -> tuple[str, str]:
    stem = "zephyr" if layout == "zephyr-like" else "firmware"
    return str(LAYOUTS / layout / f"{stem}.elf"), str(LAYOUTS / layout / f"{stem}.map")


def linker_usage(layout: str) -> dict[str, int]:
    """Region -> Used Size, from the table ld printed (its sizes are exact: KB only when divisible by 1024)."""
    usage = {}
    for line in (LAYOUTS / layout / "memory-usage.txt").read_text().splitlines()[1:]:
        match = re.match(r"\s*(\S+):\s+(\d+) (B|KB|MB|GB)\s", line)
        usage[match.group(1)] = int(match.group(2)) * UNITS[match.group(3)]
    return usage


def section_sizes(elf: str) -> dict[str, tuple[int, int]]:
    """name -> (address, size) as pyelftools reads the section headers."""
    with open(elf, "rb") as stream:
        return {s.name: (s["sh_addr"], s["sh_size"]) for s in ELFFile(stream).iter_sections()}


@pytest.mark.parametrize("layout", sorted(LAYOUT_REGIONS))
def test_with_the_map_every_region_uses_what_the_linker_printed_and_the_totals_are_their_sums(layout):
    elf, map_path = elf_and_map(layout)
    report = build_report(elf, map_path=map_path, use_cache=False)
    usage = linker_usage(layout)
    assert {r.name: r.used for r in report.regions} == usage
    assert {r.name: r.memory for r in report.regions} == LAYOUT_REGIONS[layout]
    for memory, total in ((ROM, report.rom_total), (RAM, report.ram_total)):
        assert total == sum(usage[name] for name, kind in LAYOUT_REGIONS[layout].items() if kind == memory)
        assert sum(e.size for e in report.entries_for(memory)) == total == build_tree(report.entries, memory).size


def test_zephyr_sections_count_where_they_physically_are():
    elf, map_path = elf_and_map("zephyr-like")
    placement = place(read_elf(elf), read_map(map_path))
    where = {p.section.name: (p.rom_area, p.ram_area) for p in placement.sections}
    # Writable by flag, kept in flash: the vector tables, the ISR table, the constructors table, the end marker.
    for name in ("rom_start", "sw_isr_table", "init_array", ".last_section"):
        assert where[name] == ("FLASH", None), name
    # Read-only by flag, copied to RAM: the device table; and the data Zephyr copies with it.
    for name in ("device_area", "datas", "device_states", "k_heap_area"):
        assert where[name] == ("FLASH", "RAM"), name
    for name in ("bss", "noinit"):
        assert where[name] == (None, "RAM"), name
    for name in ("text", "rodata", "initlevel", "log_const_area", ".ARM.exidx"):
        assert where[name] == ("FLASH", None), name


def test_a_ram_loaded_image_has_no_rom_and_says_so():
    elf, map_path = elf_and_map("ram-only")
    for report in (build_report(elf, map_path=map_path, use_cache=False), build_report(elf, use_cache=False)):
        assert report.rom_total == 0 and report.entries_for(ROM) == []
        assert report.ram_total == linker_usage("ram-only")["RAM"]
    from sizetool.render.tree import render_tree

    tree = render_tree(report, [ROM], 1)
    assert tree.startswith("ROM firmware.elf: 0 bytes (no ROM: the whole image is placed in RAM; what it stores is in "
                           "the RAM tree below)\n")
    # The default (ROM) tree of such an image goes on with the RAM tree: the bytes it stores are there.
    assert f"\nRAM firmware.elf: {report.ram_total} bytes" in tree and render_tree(report, [RAM], 1) in tree


def test_an_image_whose_bss_shares_the_code_segment_is_loaded_into_ram():
    # fixtures/real_builds' ram-image: one RAM region, no .data, .bss and .noinit in the segment with the code.
    elf = str(FIXTURES / "real_builds" / "out" / "ram-image" / "firmware.elf")
    image = read_elf(elf)
    assert all(s.size == 0 for s in image.sections if s.name == ".data")
    report = build_report(elf, use_cache=False)
    (load,) = [segment for segment in image.segments if segment.is_load]
    assert report.rom_total == 0 and report.ram_total == load.memory_size  # the one segment, zero-filled part too


def test_an_ambiq_layout_stores_its_code_in_mram_and_its_stack_is_ram_though_its_segment_has_file_bytes():
    # fixtures/real_builds' mram-layout, shaped like an Ambiq Apollo4 build (AmbiqAI/edgeimpulse-examples): the code
    # in a region named MCU_MRAM (non-volatile: ROM, though named RAM), and a NOLOAD .stack whose segment ld gives
    # file bytes because an empty .heap with contents follows it there. Before: ROM 0 with the map ("the whole image
    # is placed in RAM"), and without it the stack counted as flash and left out of RAM.
    elf = FIXTURES / "real_builds" / "out" / "mram-layout" / "firmware.elf"
    image = read_elf(str(elf))
    (stack,) = [s for s in image.sections if s.name == ".stack"]
    (segment,) = [seg for seg in image.segments if seg.is_load and seg.holds(stack)]
    assert stack.is_nobits and segment.file_size == stack.size  # the shape: file bytes no section stores
    stored = sum(s.size for s in image.sections if s.in_rom)  # arm-none-eabi-size's text + data
    writable = sum(s.size for s in image.sections if s.in_ram)  # its data + bss, the stack included
    without = build_report(str(elf), use_cache=False)
    fill = sum(e.size for e in without.entries_for(RAM) if "(fill)" in e.symbol)  # alignment before .noinit
    assert (without.rom_total, without.ram_total) == (stored, writable + fill) and fill < 16
    with_map = build_report(str(elf), map_path=str(elf.with_suffix(".map")), use_cache=False)
    assert [(r.name, r.memory) for r in with_map.regions] == [("MCU_MRAM", ROM), ("MCU_TCM", RAM)]
    assert with_map.rom_total == stored
    assert with_map.ram_total == writable + sum(e.size for e in with_map.entries_for(RAM) if "(fill)" in e.symbol)


def test_code_copied_to_itcm_is_flash_and_ram_and_each_ram_region_has_its_own_use():
    elf, map_path = elf_and_map("dtcm-itcm")
    report = build_report(elf, map_path=map_path, use_cache=False)
    itcm = [e for e in report.entries if e.section == ".itcm_text"]
    assert {e.memory for e in itcm} == {ROM, RAM}
    assert sum(e.size for e in itcm if e.memory == ROM) == sum(e.size for e in itcm if e.memory == RAM)
    assert any(e.path[-1] == "conv_common.cc" for e in itcm)
    usage = linker_usage("dtcm-itcm")
    assert [(r.name, r.used) for r in report.regions_of(RAM)] == [(n, usage[n]) for n in ("ITCM", "DTCM", "SRAM")]
    from sizetool.render.tree import render_tree

    title = next(line for line in render_tree(report, [RAM], 1).splitlines() if line.startswith("RAM "))
    assert title.startswith(f"RAM firmware.elf: {report.ram_total} bytes "
                            f"(ITCM {usage['ITCM']} + DTCM {usage['DTCM']} + SRAM {usage['SRAM']}); ")
    # Then each region's static data, reserved and free bytes: DTCM holds the heap and the stack.
    assert [part.split(":")[0] for part in title.split("; ")[1:]] == ["ITCM", "DTCM", "SRAM"]
    assert "DTCM: used 5888 / reserved 12288 / free 112896 of 131072" in title


@pytest.mark.parametrize("layout", ["zephyr-like", "dtcm-itcm", "ram-only"])
def test_without_a_map_the_program_headers_give_the_same_totals_when_nothing_lies_between_segments(layout):
    elf, map_path = elf_and_map(layout)
    with_map = build_report(elf, map_path=map_path, use_cache=False)
    without = build_report(elf, use_cache=False)
    assert (without.rom_total, without.ram_total) == (with_map.rom_total, with_map.ram_total)
    assert without.regions == []


def test_without_a_map_a_gap_between_segments_is_not_counted():
    # flash0 reserves the stack at the top of RAM, as CMSIS's ARMCM4_gcc.ld does; ld counts the free RAM between the
    # heap and the stack as used, the program headers do not say that it lies in one memory.
    elf, map_path = elf_and_map("flash0")
    sections = section_sizes(elf)
    heap_end = sections[".heap"][0] + sections[".heap"][1]
    gap = sections[".stack"][0] - heap_end
    without = build_report(elf, use_cache=False)
    assert without.ram_total == linker_usage("flash0")["RAM"] - gap
    assert without.rom_total == linker_usage("flash0")["FLASH"]
    with_map = build_report(elf, map_path=map_path, use_cache=False)
    free = [e for e in with_map.entries_for(RAM) if e.path == ("(free)",)]
    assert [(e.symbol, e.address, e.size) for e in free] == [("(free) RAM", heap_end, gap)]
    assert not [e for e in with_map.entries_for(RAM) if e.symbol == "(fill) RAM"]


def test_on_the_cmsis_layout_the_gap_below_the_stack_is_free_and_under_one_percent_of_ram_is_unnamed():
    # CMSIS's ARMCM4_gcc.ld: heap after .bss, stack at the top of RAM; ld's Used Size is the whole region.
    elf, map_path = elf_and_map("cmsis-armcm4")
    sections = section_sizes(elf)
    report = build_report(elf, map_path=map_path, use_cache=False)
    assert report.ram_total == linker_usage("cmsis-armcm4")["RAM"] == 128 * 1024
    heap_end = sections[".heap"][0] + sections[".heap"][1]
    free = [e for e in report.entries_for(RAM) if e.path == ("(free)",)]
    assert [(e.symbol, e.address, e.size) for e in free] == [("(free) RAM", heap_end, sections[".stack"][0] - heap_end)]
    unnamed = sum(e.size for e in report.entries_for(RAM) if e.path[0] in ("(no symbol)", "(no debug info)"))
    assert unnamed < 0.01 * report.ram_total
    # Alignment between .bss and .noinit stays fill: it is smaller than .noinit's alignment.
    fills = [e for e in report.entries_for(RAM) if e.symbol == "(fill) RAM"]
    assert fills and all(e.size < 16 for e in fills)


def test_heap_and_stack_reservations_are_named_after_their_sections():
    elf, map_path = elf_and_map("flash0")
    sections = section_sizes(elf)
    for report in (build_report(elf, map_path=map_path, use_cache=False), build_report(elf, use_cache=False)):
        reserved = {e.symbol: e.size for e in report.entries_for(RAM) if e.path == ("(reserved)",)}
        assert reserved[".heap"] == sections[".heap"][1] and reserved[".stack"] == sections[".stack"][1]


def test_zephyr_noinit_stacks_are_named_by_their_symbols_or_their_input_section():
    elf, map_path = elf_and_map("zephyr-like")
    report = build_report(elf, map_path=map_path, use_cache=False)
    noinit = {e.symbol: e for e in report.entries_for(RAM) if e.section == "noinit"}
    assert {"z_main_stack", "z_interrupt_stacks", "z_idle_stacks"} <= set(noinit)
    # The fault stack is reserved by assembler with no sized symbol: the map's input section names it.
    fault = noinit['.noinit."arch/arm/core/vector_table.S".0']
    assert fault.size == 512 and fault.path[0] != "(no symbol)"


def test_flash_at_address_0_gives_no_flash_bytes_to_debug_sections():
    elf, map_path = elf_and_map("flash0")
    report = build_report(elf, map_path=map_path, use_cache=False)
    allocated = {name for name, (address, size) in section_sizes(elf).items() if size and not name.startswith(".debug")}
    for entry in report.entries_for(ROM):
        assert entry.section in allocated | {""}
        assert ".debug" not in entry.symbol and ".comment" not in entry.symbol and "ARM.attributes" not in entry.symbol
    unnamed = sum(e.size for e in report.entries_for(ROM) if e.path[0] in ("(no symbol)", "(no debug info)")
                  and not e.symbol.startswith("(fill)"))
    assert unnamed / report.rom_total < 0.005


def test_a_map_from_another_build_is_refused():
    elf, _ = elf_and_map("flash0")
    _, other_map = elf_and_map("dtcm-itcm")
    with pytest.raises(SizeToolError, match="does not belong to"):
        build_report(elf, map_path=other_map, use_cache=False)
    _, zephyr_map = elf_and_map("zephyr-like")
    with pytest.raises(SizeToolError, match="is not in the map"):
        build_report(elf, map_path=zephyr_map, use_cache=False)


def test_programs_for_an_operating_system_keep_the_file_image_view():
    sizes = json.loads((FIRMWARE / "sizes.json").read_text())["host-x86_64/firmware.elf"]
    report = build_report(str(FIRMWARE / "host-x86_64" / "firmware.elf"), use_cache=False)
    assert report.rom_total == sizes["text"] + sizes["data"] and report.ram_total == sizes["data"] + sizes["bss"]


@pytest.mark.parametrize("arch,ram_origin", [("cortex-m4", 0x20000000), ("riscv32", 0x80000000)])
def test_the_fixture_firmware_rom_is_text_plus_data_and_its_ram_leaves_out_what_the_script_keeps_in_flash(
    arch, ram_origin
):
    # Both linker scripts keep the writable .init_array in FLASH: `size` counts it as data, it never occupies RAM.
    elf = FIRMWARE / arch / "firmware.elf"
    sizes = json.loads((FIRMWARE / "sizes.json").read_text())[f"{arch}/firmware.elf"]
    sections = section_sizes(str(elf))
    assert sections[".init_array"][0] < ram_origin
    without = build_report(str(elf), use_cache=False)
    assert without.rom_total == sizes["text"] + sizes["data"]
    assert without.ram_total == sizes["data"] + sizes["bss"] - sections[".init_array"][1]
    assert (without.berkeley.text, without.berkeley.data, without.berkeley.bss) == (
        sizes["text"], sizes["data"], sizes["bss"])
    # With the map, RAM is what ld counts: from the region's origin to the end of .noinit, the last section in it
    # (on RV32 that takes in the alignment before .noinit, which starts a segment of its own).
    with_map = build_report(str(elf), map_path=str(elf.with_suffix(".map")), use_cache=False)
    assert with_map.rom_total == sizes["text"] + sizes["data"]
    assert with_map.ram_total == sum(sections[".noinit"]) - ram_origin


@pytest.mark.parametrize(
    "name,attributes,expected",
    [("FLASH", "xr", ROM), ("RAM", "xrw", RAM), ("ITCM", "rx", RAM), ("m_text", "RX", ROM), ("m_data", "RW", RAM),
     ("PROGRAM_FLASH", "rx", ROM), ("iram0_0_seg", "RX", RAM), ("drom0_0_seg", "R", ROM), ("REGION_A", "", RAM),
     ("REGION_B", "", ROM), ("MCU_MRAM", "xr", ROM), ("FRAM", "rwx", ROM), ("SHARED_SRAM", "xrw", RAM),
     ("FRAMEBUFFER", "rw", RAM)],
)
def test_a_region_is_rom_or_ram_by_its_name_then_its_attributes_then_the_program_headers(name, attributes, expected):
    evidence = ROM if name == "REGION_B" else None
    assert region_memory(MapRegion(name, 0, 0x1000, attributes), evidence) == expected
