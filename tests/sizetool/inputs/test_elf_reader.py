"""Reading an ELF: the ROM/RAM rule, which symbols count, the Thumb bit, demangling and bad input."""

import json
from pathlib import Path

import pytest
from elftools.elf.elffile import ELFFile

from sizetool.inputs.elf_reader import demangle, read_elf
from sizetool.errors import SizeToolError

OUT = Path(__file__).resolve().parents[3] / "fixtures" / "firmware" / "out"
SIZES = json.loads((OUT / "sizes.json").read_text())


@pytest.mark.parametrize("elf", sorted(SIZES))
def test_rom_is_text_plus_data_and_ram_is_data_plus_bss(elf):
    image = read_elf(OUT / elf)
    assert image.rom_total == SIZES[elf]["text"] + SIZES[elf]["data"]
    assert image.ram_total == SIZES[elf]["data"] + SIZES[elf]["bss"]


def test_data_is_in_both_memories_and_bss_only_in_ram():
    image = read_elf(OUT / "cortex-m4/firmware.elf")
    data, bss, text = (image.section_by_name(n) for n in (".data", ".bss", ".text"))
    assert data.in_rom and data.in_ram and data.load_address != data.address  # stored in flash, run from RAM
    assert bss.in_ram and not bss.in_rom
    assert text.in_rom and not text.in_ram and text.is_code


def raw_symbols(path):
    with open(path, "rb") as stream:
        return [(s.name, s["st_value"], s["st_info"]["type"], s["st_shndx"]) for s in ELFFile(stream).get_section_by_name(".symtab").iter_symbols()]


def test_thumb_bit_is_cleared_on_functions_only():
    path = OUT / "cortex-m4/firmware.elf"
    image = read_elf(path)
    raw = [(name, value) for name, value, kind, shndx in raw_symbols(path) if kind == "STT_FUNC" and shndx != "SHN_UNDEF"]
    functions = [s for s in image.symbols if s.kind == "func"]
    assert raw and all(value & 1 for _, value in raw)
    assert sorted((s.mangled, s.address) for s in functions) == sorted((name, value & ~1) for name, value in raw)
    assert all(s.thumb and s.address % 2 == 0 for s in functions)
    assert all(not s.thumb for s in image.symbols if s.kind != "func")


def test_undefined_absolute_section_file_and_mapping_symbols_are_skipped():
    path = OUT / "cortex-m4/firmware.elf"
    image = read_elf(path)
    names = {s.mangled for s in image.symbols}
    for name, _, kind, shndx in raw_symbols(path):
        if shndx in ("SHN_UNDEF", "SHN_ABS", "SHN_COMMON") or kind in ("STT_SECTION", "STT_FILE"):
            assert name not in names or not name, name
    assert not any(n.startswith("$") for n in names)
    assert image.mapping_symbols, "ARM $t/$d markers are kept apart"


def test_local_symbols_remember_their_file_symbol():
    image = read_elf(OUT / "cortex-m4/firmware.elf")
    locals_with_file = [s for s in image.symbols if s.binding == "local" and s.file_symbol]
    assert any(s.file_symbol.endswith("main.cc") for s in locals_with_file)
    assert all(s.file_symbol == "" for s in image.symbols if s.binding == "global")


@pytest.mark.parametrize(
    "mangled,expected",
    [
        ("_ZN6tflite16Register_SOFTMAXEv", "tflite::Register_SOFTMAX()"),
        ("_ZN4demoL6ScaledEii.constprop.0", "demo::Scaled(int, int) [clone .constprop.0]"),
        ("main", "main"),
        ("_Znot_valid", "_Znot_valid"),
    ],
)
def test_demangling(mangled, expected):
    assert demangle(mangled) == expected


def test_stripped_and_nodebug_copies():
    stripped = read_elf(OUT / "cortex-m4/firmware-stripped.elf")
    nodebug = read_elf(OUT / "cortex-m4/firmware-nodebug.elf")
    assert not stripped.has_symtab and stripped.symbols == []
    assert nodebug.has_symtab and not nodebug.has_dwarf and nodebug.symbols
    assert read_elf(OUT / "cortex-m4/firmware.elf").has_dwarf


def test_section_data_reads_on_demand():
    image = read_elf(OUT / "cortex-m4/firmware.elf")
    assert len(image.section_data(image.section_by_name(".text"))) == image.section_by_name(".text").size
    assert image.section_data(image.section_by_name(".bss")) == b""


def corrupt_copies(tmp_path):
    original = (OUT / "cortex-m4/firmware.elf").read_bytes()
    cases = {"truncated.elf": original[:2000], "empty.elf": b"", "text.elf": b"hello world\n"}
    header = bytearray(original)
    header[0x30:0x32] = (0xFFFF).to_bytes(2, "little")  # e_shnum far larger than the table
    cases["many-sections.elf"] = bytes(header)
    symtab = read_elf(OUT / "cortex-m4/firmware.elf").section_by_name(".symtab")
    hostile = bytearray(original)
    for entry in range(symtab.offset, symtab.offset + symtab.size, 16):  # every name offset far outside .strtab
        hostile[entry : entry + 4] = (0x7FFFFFFF).to_bytes(4, "little")
    cases["hostile-name.elf"] = bytes(hostile)
    paths = []
    for name, data in cases.items():
        path = tmp_path / name
        path.write_bytes(data)
        paths.append(path)
    return paths + [tmp_path / "missing.elf", tmp_path]


def test_bad_input_is_one_size_tool_error_naming_the_file(tmp_path):
    for path in corrupt_copies(tmp_path):
        with pytest.raises(SizeToolError) as caught:
            read_elf(path)
        message = str(caught.value)
        assert str(path) in message and "\n" not in message, message


LAYOUTS = OUT.parent.parent / "layouts" / "out"
LAYOUT_SIZES = json.loads((LAYOUTS / "sizes.json").read_text())


@pytest.mark.parametrize("elf", sorted(LAYOUT_SIZES))
def test_berkeley_figures_equal_what_the_size_tool_printed(elf):
    berkeley = read_elf(LAYOUTS / elf).berkeley()
    recorded = LAYOUT_SIZES[elf]
    assert (berkeley.text, berkeley.data, berkeley.bss) == (recorded["text"], recorded["data"], recorded["bss"])


def test_an_object_file_is_refused_with_one_line_saying_what_it_is():
    path = LAYOUTS / "relocatable" / "add.o"
    with pytest.raises(SizeToolError) as caught:
        read_elf(path)
    message = str(caught.value)
    assert str(path) in message and "relocatable object" in message and "\n" not in message


def test_an_executable_without_program_headers_is_refused(tmp_path):
    data = bytearray((OUT / "cortex-m4/firmware.elf").read_bytes())
    data[0x2C:0x2E] = (0).to_bytes(2, "little")  # e_phnum
    path = tmp_path / "no-phdrs.elf"
    path.write_bytes(bytes(data))
    with pytest.raises(SizeToolError, match="no program headers"):
        read_elf(path)


def test_zephyr_kconfig_values_are_counted_from_the_absolute_symbols():
    from elftools.elf.elffile import ELFFile

    path = LAYOUTS / "zephyr-like" / "zephyr.elf"
    with open(path, "rb") as stream:
        expected = sum(1 for s in ELFFile(stream).get_section_by_name(".symtab").iter_symbols()
                       if s["st_shndx"] == "SHN_ABS" and s.name.startswith("CONFIG_"))
    assert expected > 0 and read_elf(path).kconfig_symbols == expected
    assert read_elf(OUT / "cortex-m4/firmware.elf").kconfig_symbols == 0


def test_mapping_symbols_of_sections_outside_the_image_are_left_out():
    # libgcc's ARMv6-M division routines are assembly whose .debug_frame carries `$d` markers; their values are
    # .debug_frame offsets, which in the Cortex-M0+ fixture (linked at 0) fall inside a kernel's Eval in .text.
    path = OUT / "cortex-m0plus/firmware.elf"
    image = read_elf(path)
    with open(path, "rb") as stream:
        elf = ELFFile(stream)
        names = [section.name for section in elf.iter_sections()]
        debug = [(value, shndx) for name, value, kind, shndx in raw_symbols(path)
                 if name == "$d" and isinstance(shndx, int) and names[shndx] == ".debug_frame"]
    text = image.section_by_name(".text")
    inside = [value for value, _ in debug if text.address <= value < text.address + text.size
              and any(s.kind == "func" and s.address <= value < s.address + s.size for s in image.symbols)]
    assert inside, "the fixture keeps the shape: a .debug_frame $d whose value lies inside a function"
    code_markers = {address for address, _ in image.mapping_symbols}
    assert not code_markers & set(inside)
    allocated = {s.index for s in image.sections if s.is_alloc}
    assert len(image.mapping_symbols) == sum(1 for name, _, _, shndx in raw_symbols(path)
                                             if name[:2] in ("$t", "$d", "$a") and shndx in allocated)
