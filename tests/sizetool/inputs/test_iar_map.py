"""IAR ILINK map files: placement parts, their sections and objects, the module summary and the totals."""

from pathlib import Path

import pytest

from sizetool.errors import SizeToolError
from sizetool.inputs.elf_reader import read_elf
from sizetool.inputs.iar_map import COMPRESSED_INITIALIZERS, LINKER_GENERATED, read_iar_map
from sizetool.inputs.map_file import FILL
from sizetool.inputs.map_layout import RAM, ROM

OUT = Path(__file__).resolve().parents[3] / "fixtures" / "toolchain_maps" / "out" / "iar"


def read():
    return read_iar_map(str(OUT / "firmware.map"), (OUT / "firmware.map").read_text())


def test_placements_are_areas_and_their_parts_blocks_at_the_elf_sections():
    linker_map = read()
    image = read_elf(str(OUT / "firmware.out"))
    sections = {s.name: s for s in image.sections if s.is_alloc}
    areas = {a.name: a for a in linker_map.layout.areas}
    assert [(a, areas[a].memory) for a in areas] == [("A0", ROM), ("P1", ROM), ("P2", RAM)]
    assert (areas["P1"].origin, areas["P1"].length) == (0x08000000, 1 << 20)  # from `place in [from .. to ..]`
    blocks = [(b.name, b.memory, b.address, b.size) for b in linker_map.layout.blocks]
    assert blocks == [
        (name, memory, sections[elf_name].address, sections[elf_name].size)
        for name, memory, elf_name in [("A0", ROM, "A0"), ("P1", ROM, "P1 ro"), ("P2 part 1", RAM, "P2 s0"),
                                       ("P2 part 2", RAM, "P2 zi"), ("P2 part 3", RAM, "P2 ui")]
    ]


def test_a_part_counts_up_to_the_end_of_its_last_section_not_its_tail_alignment():
    linker_map = read()
    init_block = next(b for b in linker_map.layout.blocks if b.name == "P2 part 1")
    data = [s for s in linker_map.input_sections if init_block.address <= s.address < init_block.address + init_block.size]
    assert init_block.counted == max(s.address + s.size for s in data) - init_block.address < init_block.size


def test_totals_are_readonly_code_and_data_for_rom_and_readwrite_data_for_ram():
    layout = read().layout
    image = read_elf(str(OUT / "firmware.out"))
    rom = sum(s.size for s in image.sections if s.name in ("A0", "P1 ro"))
    assert layout.rom_total == layout.summary["bytes of readonly code memory"] + layout.summary[
        "bytes of readonly data memory"] == rom
    assert layout.ram_total == layout.summary["bytes of readwrite data memory"] == sum(
        b.counted for b in layout.blocks if b.memory == RAM)


def test_objects_resolve_through_the_key_list_and_long_names_continue_on_the_next_line():
    sections = read().input_sections
    objects = {s.object_file for s in sections}
    assert "/firmware/build/Obj/main.o" in objects and "libtflm.a(add.o)" in objects
    wrapped = [s for s in sections if s.name.startswith(".text._ZN6tflite22MicroMutableOpResolverILj13EE10AddBuiltin")]
    assert len(wrapped) == 1 and wrapped[0].object_file == "/firmware/build/Obj/main.o"
    assert any(s.name == "CSTACK" and s.object_file == LINKER_GENERATED for s in sections)
    assert any(s.name == FILL for s in sections)  # the gaps IAR counts in its "Gaps" line


def test_copied_initializer_bytes_are_attributed_to_the_objects_whose_data_they_initialise():
    sections = read().input_sections
    init_block = [s for s in sections if s.address >= 0x20000000 and s.name.startswith(".data.")]
    stored = {s.name: s for s in sections if s.address < 0x20000000 and s.name.startswith(".data.")}
    assert init_block and all(stored[s.name].object_file == s.object_file and stored[s.name].size == s.size
                              for s in init_block)
    assert not any(s.object_file == COMPRESSED_INITIALIZERS for s in sections)


def test_the_module_summary_gives_each_object_and_library_member():
    layout = read().layout
    objects = {(o.name, o.library): o.sizes for o in layout.objects}
    assert objects[("add.o", "libtflm.a")]["ro code"] > 0 and ("main.o", "") in objects
    assert layout.summary["Grand Total ro code"] == layout.summary["bytes of readonly code memory"]


def test_digit_groups_may_be_separated_by_a_space_as_older_ilink_prints_them():
    text = (OUT / "firmware.map").read_text()
    code = read().layout.summary["bytes of readonly code memory"]
    spaced = text.replace(f"{code:,}".replace(",", "'") + " bytes of readonly", f"{code:,}".replace(",", " ")
                          + " bytes of readonly")
    assert spaced != text
    assert read_iar_map("spaced.map", spaced).layout.summary["bytes of readonly code memory"] == code


def test_packed_initializers_are_one_compressed_run():
    text = (OUT / "firmware.map").read_text()
    line = next(l for l in text.splitlines() if "<for P2 s0>" in l)
    packed = text.replace(line, line.replace(" " + line.split()[-4] + " ", " 0x10 "))
    sections = read_iar_map("packed.map", packed).input_sections
    runs = [s for s in sections if s.object_file == COMPRESSED_INITIALIZERS]
    assert [s.size for s in runs] == [0x10]


@pytest.mark.parametrize("fraction", [k / 10 for k in range(1, 10)])
def test_a_map_cut_short_is_refused_naming_the_file(fraction):
    text = (OUT / "firmware.map").read_text()
    with pytest.raises(SizeToolError, match="truncated map file|without a placement summary") as caught:
        read_iar_map("cut.map", text[: int(len(text) * fraction)])
    assert str(caught.value).startswith("cut.map: ")


TOOLCHAIN_OUT = OUT.parent


def read_shape(shape):
    path = TOOLCHAIN_OUT / shape / "firmware.map"
    return read_iar_map(str(path), path.read_text())


def test_an_ilink_9_part_starts_where_its_closing_line_says_before_an_over_aligned_first_section():
    # "P2 zi" starts where the init block ends; its first row is the 256-aligned ram vectors. ILINK 9 gives the part
    # the size from there, so the ELF section (which holds the gap) lies in it.
    linker_map = read_shape("iar9")
    image = read_elf(str(TOOLCHAIN_OUT / "iar9" / "firmware.out"))
    zero = next(s for s in image.sections if s.name == "P2 zi")
    part = next(b for b in linker_map.layout.blocks if b.name == "P2 part 2")
    first_row = min(s.address for s in linker_map.input_sections if s.name == ".bss.ram_vectors")
    assert (part.address, part.size) == (zero.address, zero.size) and first_row > part.address
    assert linker_map.layout.summary["Gaps rw data"] > 0 and part.uncounted == ()


def test_ilink_7_range_lists_span_lines_and_repeat():
    areas = {a.name: a for a in read_shape("iar7").layout.areas}
    assert (areas["P1"].origin, areas["P1"].length) == (0x08000000, 1 << 20)  # `[..] |` over two lines
    assert (areas["P2"].origin, areas["P2"].length) == (0x20000000, 2 * 0x10000)  # `repeat 2`


def ram_gaps(linker_map):
    """(counted, left out) alignment gaps of the RAM parts, as (address, size)."""
    counted, left_out = [], []
    for part in (b for b in linker_map.layout.blocks if b.memory == RAM):
        for gap in linker_map.input_sections:
            if gap.name == FILL and part.address <= gap.address < part.address + part.counted:
                (left_out if (gap.address, gap.size) in part.uncounted else counted).append((gap.address, gap.size))
    return counted, left_out


@pytest.mark.parametrize("shape", ["iar7", "iar9", "iar950"])
def test_a_gap_before_a_section_counts_but_not_one_before_a_block_nor_an_init_blocks_tail(shape):
    # ILINK's rule, the same from 6.30 to 9.70 on every public map checked: the Gaps row (rw data) is the gaps before
    # RAM sections; the alignment before CSTACK (64 here) and an init block's bytes past its last section are in no
    # total. The ILINK 7 fixture has all three in one part.
    linker_map = read_shape(shape)
    counted, left_out = ram_gaps(linker_map)
    assert sum(size for _, size in counted) == linker_map.layout.summary["Gaps rw data"] > 0
    stack = next(s for s in linker_map.input_sections if s.name == "CSTACK")
    assert any(address + size == stack.address and size >= 32 for address, size in left_out)
    init_block = next(b for b in linker_map.layout.blocks if b.memory == RAM)
    data_end = max(s.address + s.size for s in linker_map.input_sections if s.name.startswith(".data."))
    init_tail = [(a, n) for a, n in left_out if a == data_end]
    assert init_tail if shape == "iar7" else not init_tail and init_block.counted == data_end - init_block.address


# ILINK 9.50 adds an Alignment column between address and size: every placement form, as that version writes it.
def test_ilink_9_50_place_at_address_holds_the_vector_table():
    linker_map = read_shape("iar950")
    image = read_elf(str(TOOLCHAIN_OUT / "iar950" / "firmware.out"))
    vectors = next(s for s in image.sections if s.name == "A0")
    a0 = next(b for b in linker_map.layout.blocks if b.name == "A0")
    assert (a0.address, a0.counted) == (vectors.address, vectors.size) and a0.memory == ROM
    assert any(s.name == ".isr_vector" and s.size == vectors.size for s in linker_map.input_sections)


def test_ilink_9_50_place_in_range_lists_give_the_areas_size():
    areas = {a.name: a for a in read_shape("iar950").layout.areas}
    assert (areas["P1"].origin, areas["P1"].length) == (0x08000000, 1 << 20)
    assert areas["P1"].used == sum(b.counted for b in read_shape("iar950").layout.blocks if b.area == "P1") > 0


def test_ilink_9_50_parts_of_a_region_are_blocks_counting_their_sections():
    linker_map = read_shape("iar950")
    image = read_elf(str(TOOLCHAIN_OUT / "iar950" / "firmware.out"))
    sections = {s.name: s for s in image.sections}
    parts = {b.name: b for b in linker_map.layout.blocks if b.area == "P2"}
    assert list(parts) == ["P2 part 1", "P2 part 2", "P2 part 3"]
    for part, elf_name in zip(parts.values(), ("P2 rw", "P2 zi", "P2 ui")):
        assert (part.address, part.size) == (sections[elf_name].address, sections[elf_name].size)
        rows = [s for s in linker_map.input_sections if part.address <= s.address < part.address + part.size]
        assert part.counted == max(s.address + s.size for s in rows) - part.address


def test_ilink_9_50_blocks_and_block_tails_are_read_with_their_alignment():
    sections = read_shape("iar950").input_sections
    blocks = {s.name: s for s in sections if s.object_file == LINKER_GENERATED}
    assert (blocks["HEAP"].size, blocks["CSTACK"].size) == (0x400, 0x800) and blocks["CSTACK"].address % 64 == 0
    init_block_data = [s for s in sections if s.address >= 0x20000000 and s.name.startswith(".data.")]
    text = (TOOLCHAIN_OUT / "iar950" / "firmware.map").read_text()
    assert len(init_block_data) == text.count(" inited ") > 0  # the <Init block>'s children, indented under it


def test_ilink_9_50_initializer_bytes_for_p2_1_belong_to_the_objects_they_initialise():
    linker_map = read_shape("iar950")
    stored = {s.name: s for s in linker_map.input_sections if s.address < 0x20000000 and s.name.startswith(".data.")}
    running = {s.name: s for s in linker_map.input_sections if s.address >= 0x20000000 and s.name.startswith(".data.")}
    assert stored and stored.keys() == running.keys()
    assert all(stored[n].object_file == running[n].object_file and stored[n].size == running[n].size for n in stored)
    ((run, store, size),) = linker_map.layout.copies
    assert run == 0x20000000 and size == 0x68 and store == min(s.address for s in stored.values())
