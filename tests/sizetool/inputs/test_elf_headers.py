"""elf_headers.py: the headers read with struct equal pyelftools' reading, field by field and name by name, on every
ELF of the fixtures; anything outside the common case is left to pyelftools (None)."""

from pathlib import Path

import pytest
from elftools.elf.elffile import ELFFile

from sizetool.inputs.elf_headers import read_headers

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures"
ELFS = sorted(path for path in FIXTURES.rglob("*") if path.is_file() and path.read_bytes()[:4] == b"\x7fELF")


def test_there_are_elfs_of_each_machine():
    machines = set()
    for path in ELFS:
        with open(path, "rb") as stream:
            machines.add(ELFFile(stream)["e_machine"])
    assert {"EM_ARM", "EM_RISCV", "EM_XTENSA", "EM_X86_64"} <= machines


@pytest.mark.parametrize("path", ELFS, ids=lambda path: str(path.relative_to(FIXTURES)))
def test_the_headers_equal_pyelftools_reading(path):
    with open(path, "rb") as stream:
        headers = read_headers(stream, path.stat().st_size)
        elf = ELFFile(stream)
        if elf["e_type"] == "ET_REL":
            assert headers is None  # refused by elf_reader's pyelftools path, worded there
            return
        assert headers is not None
        assert (headers.elf_class, headers.little_endian) == (elf.elfclass, elf.little_endian)
        assert headers.header == {key: elf.header[key] for key in headers.header}
        assert headers.segments == [{key: segment[key] for key in headers.segments[0]} for segment in elf.iter_segments()]
        expected = [dict({key: section[key] for key in headers.sections[0] if key != "name"}, name=section.name)
                    for section in elf.iter_sections()]
        assert headers.sections == expected


def test_anything_unusual_is_left_to_pyelftools(tmp_path):
    source = (FIXTURES / "firmware" / "out" / "cortex-m4" / "firmware.elf").read_bytes()
    odd_machine = bytearray(source)
    odd_machine[18:20] = (0x1234).to_bytes(2, "little")
    no_sections = bytearray(source)
    no_sections[48:50] = (0).to_bytes(2, "little")  # e_shnum
    for name, data in (("machine", odd_machine), ("sections", no_sections), ("truncated", source[: len(source) // 2])):
        path = tmp_path / name
        path.write_bytes(bytes(data))
        with open(path, "rb") as stream:
            assert read_headers(stream, len(data)) is None, name


@pytest.mark.parametrize("path", [path for path in ELFS if ".debug_info" in path.read_bytes().decode("latin-1")],
                         ids=lambda path: str(path.relative_to(FIXTURES)))
def test_the_debug_sections_read_by_their_headers_equal_pyelftools_data(path):
    from sizetool.inputs.dwarf_format import DEBUG_SECTIONS, debug_sections

    with open(path, "rb") as stream:
        sections, little_endian = debug_sections(stream)
        elf = ELFFile(stream)
        expected = {name: elf.get_section_by_name(name).data() for name in DEBUG_SECTIONS
                    if elf.get_section_by_name(name) is not None}
    assert sections == expected and little_endian == elf.little_endian and ".debug_info" in sections


def test_compressed_debug_sections_are_decompressed_by_pyelftools(tmp_path):
    import shutil
    import subprocess

    from sizetool.inputs.dwarf_format import debug_sections

    objcopy = shutil.which("objcopy")
    if objcopy is None:
        pytest.skip("binutils objcopy is not installed (it compresses the debug sections)")
    source = FIXTURES / "firmware" / "out" / "host-x86_64" / "firmware.elf"
    compressed = tmp_path / "compressed.elf"
    subprocess.run([objcopy, "--compress-debug-sections=zlib", str(source), str(compressed)], check=True)
    with open(source, "rb") as plain, open(compressed, "rb") as packed:
        assert debug_sections(packed) == debug_sections(plain)
