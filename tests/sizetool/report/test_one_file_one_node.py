"""One source file, one node: an object's string literals, vtables, literal data and padding go under the source
file of its DWARF compilation unit, found by where the object's code lies, even when nothing in the object's name
says which source it is (the archive fixture names its members kernels_conv.o, micro_micro_interpreter.o, ...)."""

from pathlib import Path

import pytest

from sizetool.inputs.dwarf_paths import read_source_index
from sizetool.inputs.map_file import read_map
from sizetool.report.report_builder import build_report, object_compile_units

OUT = Path(__file__).resolve().parents[3] / "fixtures" / "firmware" / "out"
ARCHIVE = OUT / "cortex-m4-archive"
OBJECT_SUFFIXES = (".o", ".obj")


def under_objects(report, memory="rom") -> int:
    return sum(e.size for e in report.entries_for(memory)
               if e.path and (e.path[0] in ("(objects)", "(archives)") or e.path[-1].endswith(OBJECT_SUFFIXES)))


def test_each_archive_member_is_matched_to_its_compile_unit_by_its_code():
    index = read_source_index(str(ARCHIVE / "firmware.elf"))
    pieces = read_map(str(ARCHIVE / "firmware.map")).input_sections
    units = object_compile_units(index, pieces)
    members = {o.rpartition("(")[2].rstrip(")"): u for o, u in units.items() if "libtflm.a(" in o}
    linked = {p.object_file.rpartition("(")[2].rstrip(")") for p in pieces if "libtflm.a(" in p.object_file}
    assert members.keys() == linked and len(linked) >= 15  # every member the link kept
    for member, unit in members.items():  # members/kernels_conv.o -> .../kernels/conv.cc
        directory, _, stem = member.rpartition("/")[2].removesuffix(".o").partition("_")
        assert unit.endswith(f"{directory}/{stem}.cc"), (member, unit)
    libgcc = {o.rpartition("(")[2].rstrip(")"): u for o, u in units.items() if "libgcc.a(" in o}
    assert libgcc["_udivmoddi4.o"].endswith("libgcc/libgcc2.c")  # Debian's libgcc carries DWARF too


def test_objects_without_dwarf_keep_their_object_node():
    """The same link without DWARF (strip --strip-debug): nothing says which source an object is, so its bytes stay
    under the object."""
    report = build_report(str(OUT / "cortex-m4" / "firmware-nodebug.elf"),
                          map_path=str(OUT / "cortex-m4" / "firmware.map"), use_cache=False)
    objects = {e.path for e in report.entries_for("rom") if e.path[0] == "(objects)"}
    assert ("(objects)", "obj", "micro", "micro_interpreter.o") in objects
    assert not [e for e in report.entries_for("rom") if e.path[-1].endswith(".cc")]


def test_with_the_map_an_archive_members_bytes_are_under_its_source_file():
    report = build_report(str(ARCHIVE / "firmware.elf"), map_path=str(ARCHIVE / "firmware.map"), use_cache=False)
    assert not [e for e in report.entries if e.path and e.path[0] == "(archives)"]
    strings = [e for e in report.entries_for("rom") if e.symbol.startswith("(no symbol) .rodata")
               and e.path[-1].endswith(".cc")]
    assert {e.path[-2:] for e in strings} >= {("micro", "micro_interpreter.cc"), ("micro", "string_util.cc")}
    assert under_objects(report) == 0  # libgcc's members have DWARF here too
    fill = sum(e.size for e in report.entries_for("rom") if e.symbol.startswith("(fill)"))
    assert sum(e.size for e in report.entries_for("rom")) == report.rom_total
    assert fill < 0.005 * report.rom_total  # everything else is under a source file


@pytest.mark.parametrize("build", ["cortex-m4", "cortex-m4-archive"])
def test_the_archive_and_the_plain_link_give_the_same_files(build):
    """The same objects linked plainly or from an archive: the same bytes per source file (within the few bytes the
    two links align differently)."""
    plain = build_report(str(OUT / "cortex-m4" / "firmware.elf"), map_path=str(OUT / "cortex-m4" / "firmware.map"))
    other = build_report(str(OUT / build / "firmware.elf"), map_path=str(OUT / build / "firmware.map"))

    def files(report):
        sizes = {}
        for entry in report.entries_for("rom"):
            if entry.path and not entry.path[0].startswith("("):
                sizes[entry.path] = sizes.get(entry.path, 0) + entry.size
        return sizes

    a, b = files(plain), files(other)
    assert a.keys() == b.keys()
    assert sum(abs(a[k] - b[k]) for k in a) <= 16


def test_without_a_map_padding_between_functions_of_one_unit_goes_to_its_file():
    elf = str(OUT / "cortex-m4" / "firmware.elf")
    report = build_report(elf, use_cache=False)
    index = read_source_index(elf)
    gaps = [e for e in report.entries_for("rom") if e.symbol == "(no symbol) .text" and not e.path[0].startswith("(")]
    assert gaps, "some padding lies between two functions of one unit"
    for gap in gaps:  # the units on both sides of the gap's first run are one, and the gap is under its file
        unit = index.unit_covering(gap.address - 1)
        assert unit is not None and unit.endswith("/".join(gap.path))
    left = [e for e in report.entries_for("rom") if e.symbol == "(no symbol) .text" and e.path == ("(no symbol)",)]
    assert all(index.unit_covering(e.address - 1) != index.unit_covering(e.address + e.size) or
               index.unit_covering(e.address - 1) is None for e in left)
    assert sum(e.size for e in report.entries_for("rom")) == report.rom_total
