"""armlink map files: load and execution regions, input sections, the size tables and the image totals."""

from pathlib import Path

import pytest

from sizetool.errors import SizeToolError
from sizetool.inputs.armlink_map import COMPRESSED_RW, LINKER_GENERATED, read_armlink_map
from sizetool.inputs.elf_reader import read_elf
from sizetool.inputs.map_file import FILL
from sizetool.inputs.map_layout import RAM, ROM

OUT = Path(__file__).resolve().parents[3] / "fixtures" / "toolchain_maps" / "out"


def read(name: str):
    path = OUT / name / "firmware.map"
    return read_armlink_map(str(path), path.read_text())


def sections_named(image, name):
    return [s for s in image.sections if s.name == name and s.is_alloc]


def test_regions_are_the_load_region_in_rom_and_the_ram_execution_region():
    layout = read("armlink").layout
    areas = {a.name: a for a in layout.areas}
    assert set(areas) == {"LR_IROM1", "RW_IRAM1"}
    assert (areas["LR_IROM1"].memory, areas["LR_IROM1"].origin, areas["LR_IROM1"].length) == (ROM, 0x08000000, 1 << 20)
    assert (areas["RW_IRAM1"].memory, areas["RW_IRAM1"].origin, areas["RW_IRAM1"].length) == (RAM, 0x20000000, 128 << 10)


def test_execution_regions_say_where_they_run_and_where_their_initial_values_are_stored():
    image = read_elf(str(OUT / "armlink" / "firmware.axf"))
    blocks = {b.name: b for b in read("armlink").layout.blocks}
    code, ram = blocks["ER_IROM1"], blocks["RW_IRAM1"]
    (er_irom1,) = sections_named(image, "ER_IROM1")
    rw_data, zi_data = sorted(sections_named(image, "RW_IRAM1"), key=lambda s: s.address)
    assert (code.memory, code.area, code.address, code.size) == (ROM, "LR_IROM1", er_irom1.address, er_irom1.size)
    assert (ram.memory, ram.load_area, ram.address) == (RAM, "LR_IROM1", rw_data.address)
    assert ram.load_address == er_irom1.end  # the RW data is stored right after the code, as armlink lays it out
    assert ram.initialised == rw_data.size and ram.size == zi_data.end - rw_data.address
    assert not ram.compressed
    # The padding after the last RW row is in the ELF's RW section, but Arm Compiler 6 counts it with the ZI data.
    rows = read("armlink").input_sections
    rw_rows = [r for r in rows if r.output_section == "RW_IRAM1" and r.address < 0x20000000 + ram.initialised]
    assert ram.stored == sum(r.size for r in rw_rows if r.name != FILL) < ram.initialised


def test_totals_are_the_maps_own_and_equal_the_image():
    linker_map = read("armlink")
    image = read_elf(str(OUT / "armlink" / "firmware.axf"))
    code = sections_named(image, "ER_IROM1")[0]
    rw = sections_named(image, "RW_IRAM1")
    summary = linker_map.layout.summary
    assert summary["Total RO Size (Code + RO Data)"] == code.size
    ram = next(b for b in linker_map.layout.blocks if b.name == "RW_IRAM1")
    assert linker_map.layout.rom_total == summary["Total ROM Size (Code + RO Data + RW Data)"] == code.size + ram.stored
    assert summary["ROM Totals RW Data"] == ram.stored
    assert linker_map.layout.ram_total == summary["Total RW Size (RW Data + ZI Data)"] == max(s.end for s in rw) - 0x20000000
    assert summary["Grand Totals Code"] + summary["Grand Totals RO Data"] == code.size


def test_input_sections_name_objects_library_members_and_padding():
    linker_map = read("armlink")
    by_object = {s.object_file for s in linker_map.input_sections}
    assert {"main.o", "startup.o", "libtflm.a(add.o)", "libgcc.a(_udivmoddi4.o)"} <= by_object
    assert any(s.name == FILL and s.object_file == "" for s in linker_map.input_sections)
    entry = [s for s in linker_map.input_sections if s.name == ".isr_vector"]
    assert entry and entry[0].object_file == "startup.o" and entry[0].address == 0x08000000
    # Every byte of each execution region is a row: the rows of RW_IRAM1 add up to its size.
    ram = next(b for b in linker_map.layout.blocks if b.name == "RW_IRAM1")
    rows = [s for s in linker_map.input_sections if s.output_section == "RW_IRAM1" and s.object_file != COMPRESSED_RW]
    assert sum(s.size for s in rows) == ram.size


def test_the_size_tables_list_objects_and_library_members_with_their_columns():
    layout = read("armlink").layout
    objects = {(o.name, o.library): o.sizes for o in layout.objects}
    main = objects[("main.o", "")]
    assert set(main) == {"Code", "(inc. data)", "RO Data", "RW Data", "ZI Data", "Debug"} and main["Code"] > 0
    assert ("add.o", "(library member)") in objects and ("libtflm.a", "(library)") in objects
    library = objects[("libtflm.a", "(library)")]
    members = [s for (name, kind), s in objects.items() if kind == "(library member)" and not name.startswith("_")]
    assert library["Code"] == sum(m["Code"] for m in members)


def test_padding_after_the_rw_data_counts_as_stored_when_the_maps_totals_count_it_so():
    # Arm Compiler 5.06 counts the padding after the last RW row with the RW data (so in Total ROM Size), 6.19 and
    # later with the ZI data: the ROM Totals row says which, and the reader follows it.
    text = (OUT / "armlink" / "firmware.map").read_text()
    plain = read_armlink_map("ac6.map", text).layout
    block = next(b for b in plain.blocks if b.name == "RW_IRAM1")
    padding = block.initialised - block.stored
    rom_row = next(line for line in text.splitlines() if line.rstrip().endswith("ROM Totals"))
    figures = rom_row.split()
    figures[3] = str(int(figures[3]) + padding)  # Code, (inc. data), RO Data, RW Data, ...
    total = next(line for line in text.splitlines() if line.strip().startswith("Total ROM Size"))
    ac5 = text.replace(rom_row, "    " + "".join(f"{v:>10} " for v in figures[:6]) + "  ROM Totals").replace(
        total, total.replace(str(plain.rom_total), str(plain.rom_total + padding)))
    layout = read_armlink_map("ac5.map", ac5).layout
    assert next(b for b in layout.blocks if b.name == "RW_IRAM1").stored == block.initialised
    assert layout.rom_total == plain.rom_total + padding


def test_compressed_rw_data_is_stored_at_its_compressed_size():
    linker_map = read("armlink-compressed")
    image = read_elf(str(OUT / "armlink-compressed" / "firmware.axf"))
    ram = next(b for b in linker_map.layout.blocks if b.name == "RW_IRAM1")
    stored = min(sections_named(image, "RW_IRAM1"), key=lambda s: s.address)
    assert ram.compressed and ram.stored == stored.size < ram.initialised
    pieces = [s for s in linker_map.input_sections if s.object_file == COMPRESSED_RW]
    assert [(p.address, p.size) for p in pieces] == [(ram.load_address, ram.stored)]
    assert linker_map.layout.rom_total == linker_map.layout.summary["Total RO Size (Code + RO Data)"] + ram.stored
    lr = next(a for a in linker_map.layout.areas if a.name == "LR_IROM1")
    assert lr.used == linker_map.layout.rom_total  # the load region's COMPRESSED[...] size


ARM_COMPILER_5_LAYOUT = """\
Component: ARM Compiler 5.06 update 6 (build 750) Tool: armlink [4d35ed]

==============================================================================

Memory Map of the image

  Image Entry point : 0x000000c1

  Load Region LR_1 (Base: 0x00000000, Size: 0x00000120, Max: 0x00010000, ABSOLUTE)

    Execution Region ER_RO (Base: 0x00000000, Size: 0x00000100, Max: 0xffffffff, ABSOLUTE)

    Base Addr    Size         Type   Attr      Idx    E Section Name        Object

    0x00000000   0x000000c0   Data   RO            3    RESET               startup.o
    0x000000c0   0x00000030   Code   RO            8  * !!!main             c_w.l(__main.o)
    0x000000f0   0x00000010   Data   RO           40    Region$$Table       anon$$obj.o

    Execution Region ER_RW (Base: 0x20000000, Size: 0x00000040, Max: 0xffffffff, ABSOLUTE)

    Base Addr    Size         Type   Attr      Idx    E Section Name        Object

    0x20000000   0x00000020   Data   RW           12    .data               main.o
    0x20000020   0x00000020   Zero   RW           13    .bss                main.o

==============================================================================

Image component sizes

      Code (inc. data)   RO Data    RW Data    ZI Data      Debug   Object Name

        48          0        208         32         32          0   main.o

==============================================================================

    Total RO  Size (Code + RO Data)                  256 (   0.25kB)
    Total RW  Size (RW Data + ZI Data)                64 (   0.06kB)
    Total ROM Size (Code + RO Data + RW Data)        288 (   0.28kB)

==============================================================================
"""


def test_the_older_arm_compiler_5_layout_lays_load_addresses_out_in_region_order():
    linker_map = read_armlink_map("old.map", ARM_COMPILER_5_LAYOUT)
    blocks = {b.name: b for b in linker_map.layout.blocks}
    assert linker_map.toolchain == "ARM Compiler 5.06 update 6 (build 750)"
    assert (blocks["ER_RO"].memory, blocks["ER_RW"].memory) == (ROM, RAM)
    assert blocks["ER_RW"].load_address == 0x100 and blocks["ER_RW"].stored == 0x20
    assert (linker_map.layout.rom_total, linker_map.layout.ram_total) == (288, 64)
    assert {s.object_file for s in linker_map.input_sections} == {"startup.o", "c_w.l(__main.o)", LINKER_GENERATED,
                                                                  "main.o"}


def test_a_map_cut_short_anywhere_is_refused_naming_the_file():
    text = (OUT / "armlink" / "firmware.map").read_text()
    start = text.index("Memory Map of the image")
    for cut in [start + (len(text) - start) * k // 10 for k in range(1, 10)]:
        with pytest.raises(SizeToolError, match="truncated map file") as caught:
            read_armlink_map("cut.map", text[:cut])
        assert str(caught.value).startswith("cut.map: ")


def test_a_map_without_a_memory_map_says_how_to_get_one():
    with pytest.raises(SizeToolError, match="without a memory map.*--map"):
        read_armlink_map("x.map", "Component: Arm Compiler for Embedded 6.22 Tool: armlink [5ee90200]\n\n"
                                  "Image component sizes\n")


def test_an_empty_region_without_rows_is_a_reservation_not_a_truncation():
    stack = """
    Execution Region ARM_LIB_STACK (Exec base: 0x20001000, Load base: 0x00000120, Size: 0x00000400, Max: 0x00000400, ABSOLUTE, EMPTY)

    **** No section assigned to this execution region ****

==============================================================================
"""
    text = ARM_COMPILER_5_LAYOUT.replace("\n==============================================================================\n\nImage component sizes",
                                         stack + "\nImage component sizes", 1)
    assert "ARM_LIB_STACK" in text
    blocks = {b.name: b for b in read_armlink_map("stack.map", text).layout.blocks}
    assert blocks["ARM_LIB_STACK"].reserved and blocks["ARM_LIB_STACK"].size == 0x400
    with pytest.raises(SizeToolError, match="truncated map file"):
        read_armlink_map("cut.map", text.replace(", EMPTY)", ")"))


def test_a_row_cut_after_its_type_is_refused_naming_the_file():
    # found by benchmarks/fuzz_inputs.py: a Code row whose section name and object are gone
    path = OUT / "armlink" / "firmware.map"
    text = path.read_text()
    row = next(line for line in text.splitlines() if "   Code   RO " in line)
    cut = text.replace(row, row[: row.index("Code") + 5], 1)
    with pytest.raises(SizeToolError, match=r"firmware\.map: inconsistent map file \(the Code row at 0x"):
        read_armlink_map(str(path), cut)
