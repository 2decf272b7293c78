"""The fast DWARF type reader (dwarf_type_scan.py) gives exactly what pyelftools' generic DIE walk gave
(dwarf_structs.read_dwarf_types_pyelftools), on every fixture ELF with DWARF and on the DWARF-facts program built
here at other DWARF versions; a list kept to the arena's names gives the same arena facts as the whole list."""

import shutil
import subprocess

import pytest

from sizetool.errors import SizeToolError
from sizetool.fit.dwarf_facts import dwarf_facts, looked_up_names
from sizetool.inputs import dwarf_type_scan
from sizetool.inputs.dwarf_format import debug_sections
from sizetool.inputs.dwarf_structs import read_dwarf_types, read_dwarf_types_pyelftools
from sizetool.inputs.dwarf_type_scan import NotHandled, TypeScan
from tests.conftest import FIXTURES
from tflm_facts.build_sizes import MEMBER_STRUCTS
from tflm_facts.kernel_memory import KERNEL_OP_DATA, REFERENCE_OP_DATA


def _dwarf_elfs() -> list:
    found = []
    for path in sorted(FIXTURES.rglob("*")):
        if not path.is_file() or path.stat().st_size < 64 or path.suffix in (".c", ".cc", ".h", ".py", ".map"):
            continue
        with open(path, "rb") as stream:
            if stream.read(4) != b"\x7fELF":
                continue
            stream.seek(0)
            sections, _ = debug_sections(stream)
        if sections.get(".debug_info"):
            found.append(path)
    return found


DWARF_ELFS = _dwarf_elfs()


def _scan(path, names=None, members_of=MEMBER_STRUCTS):
    """The fast reader alone (no fallback to pyelftools)."""
    with open(path, "rb") as stream:
        sections, little_endian = debug_sections(stream)
    return TypeScan(sections, little_endian, names, members_of).scan()


def test_the_fixtures_hold_dwarf_of_every_kind_the_tests_name():
    names = {str(path.relative_to(FIXTURES)) for path in DWARF_ELFS}
    assert len(DWARF_ELFS) >= 40
    for part in ("dwarf_facts/", "esp32", "zephyr", "riscv32", "lx106", "iar", "armlink-compressed", "host-x86_64"):
        assert any(part in name for name in names), part


@pytest.mark.parametrize("path", DWARF_ELFS, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_fast_reader_lists_what_pyelftools_lists(path):
    reference = read_dwarf_types_pyelftools(path, MEMBER_STRUCTS)
    fast = [(t.unit, t.name, t.kind, t.byte_size, t.members) for t in reference]
    assert _scan(path) == fast  # the fast reader itself, not its fallback
    assert read_dwarf_types(path, MEMBER_STRUCTS) == reference
    names = looked_up_names()
    assert read_dwarf_types(path, MEMBER_STRUCTS, names) == read_dwarf_types_pyelftools(path, MEMBER_STRUCTS, names)


@pytest.mark.parametrize("path", [p for p in DWARF_ELFS if "dwarf_facts" in str(p) or "tflm" in str(p)],
                         ids=lambda p: str(p.relative_to(FIXTURES)))
def test_the_arena_names_alone_give_the_same_facts(path):
    whole = read_dwarf_types(path, MEMBER_STRUCTS)
    kept = read_dwarf_types(path, MEMBER_STRUCTS, looked_up_names())
    assert kept and set(kept) <= set(whole)
    ops = sorted(set(REFERENCE_OP_DATA) | {op for table in KERNEL_OP_DATA.values() for op in table})
    for kernels in ("reference", *KERNEL_OP_DATA):
        assert dwarf_facts(kept, kernels, ops, "x") == dwarf_facts(whole, kernels, ops, "x")


def test_a_construct_left_to_pyelftools_still_gives_the_same_list(monkeypatch):
    path = FIXTURES / "dwarf_facts" / "out" / "revision-b.elf"
    reference = read_dwarf_types_pyelftools(path, MEMBER_STRUCTS)

    def not_handled(self):
        raise NotHandled("test")

    monkeypatch.setattr(dwarf_type_scan.TypeScan, "scan", not_handled)
    assert read_dwarf_types(path, MEMBER_STRUCTS) == reference


SOURCES = FIXTURES / "dwarf_facts" / "src"


@pytest.fixture(scope="module")
def host_gxx():
    gxx = shutil.which("g++")
    if gxx is None:
        pytest.skip("host g++ is absent (Debian's g++ builds the DWARF variants)")
    return gxx


def _build(gxx, tmp_path, flags: list[str]):
    objects = []
    for source in sorted([*SOURCES.rglob("*.cc"), *SOURCES.rglob("*.cpp")]):
        relative = source.relative_to(SOURCES)
        target = tmp_path / (str(relative).replace("/", "_") + ".o")
        subprocess.run([gxx, "-x", "c++", "-std=c++17", "-O1", *flags, "-fno-exceptions", "-fno-rtti", "-I.",
                        "-DREVISION_B", "-c", str(relative), "-o", str(target)], cwd=SOURCES, check=True)
        objects.append(str(target))
    elf = tmp_path / "program.elf"
    subprocess.run([gxx, "-nostdlib", "-Wl,-e,_start", *flags, *objects, "-o", str(elf)], check=True)
    return elf


@pytest.mark.parametrize("flags", [["-gdwarf-2"], ["-gdwarf-4"], ["-gdwarf-5"], ["-gdwarf-5", "-gz"]],
                         ids=" ".join)
def test_other_dwarf_versions_read_alike(host_gxx, tmp_path, flags):
    elf = _build(host_gxx, tmp_path, flags)
    reference = read_dwarf_types_pyelftools(elf, MEMBER_STRUCTS)
    assert any(t.name == "tflite::OpDataReduce" and t.members for t in reference)
    assert _scan(elf) == [(t.unit, t.name, t.kind, t.byte_size, t.members) for t in reference]


def test_type_units_are_left_to_pyelftools(host_gxx, tmp_path):
    """DWARF 4 type units (.debug_types, DW_FORM_ref_sig8): the fast reader hands the ELF to pyelftools."""
    elf = _build(host_gxx, tmp_path, ["-gdwarf-4", "-fdebug-types-section"])
    with pytest.raises(NotHandled):
        _scan(elf)
    assert read_dwarf_types(elf, MEMBER_STRUCTS) == read_dwarf_types_pyelftools(elf, MEMBER_STRUCTS)


def test_dwarf5_type_units_fail_as_before(host_gxx, tmp_path):
    """DWARF 5 type units in .debug_info: pyelftools cannot follow their signatures, and the answer stays its error."""
    elf = _build(host_gxx, tmp_path, ["-gdwarf-5", "-fdebug-types-section"])
    with pytest.raises(SizeToolError, match="cannot read its DWARF"):
        read_dwarf_types(elf, MEMBER_STRUCTS)


def test_name_offsets_find_whole_strings_and_merged_tails():
    """The linker merges .debug_str: a DIE's name may start inside a longer string (OpData in LeakyReluOpData)."""
    from sizetool.inputs.dwarf_type_scan import name_offsets

    strings = b"\0LeakyReluOpData\0OpData\0OpDataX\0tflite\0OpDat\0"
    expected = {strings.index(b"OpData\0"), strings.index(b"OpData\0", strings.index(b"OpData\0") + 1)}
    assert name_offsets(strings, frozenset({"OpData", "Missing"})) == expected
    assert all(strings[at:].split(b"\0", 1)[0] == b"OpData" for at in expected)
    assert name_offsets(strings, frozenset({"tflite"})) == {strings.index(b"tflite")}
    assert name_offsets(b"", frozenset({"OpData"})) == set()


@pytest.mark.parametrize("path", DWARF_ELFS, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_fast_resolver_api_reads_what_pyelftools_reads(path):
    """dwarf_resolver_api's methods and registrations through the same decoder (dwarf_resolver_scan.py)."""
    from sizetool.inputs.dwarf_resolver_api import read_resolver_api, read_resolver_api_pyelftools
    from sizetool.inputs.dwarf_resolver_scan import ResolverScan

    with open(path, "rb") as stream:
        sections, little_endian = debug_sections(stream)
    methods, registrations, classes, types = ResolverScan(sections, little_endian).scan_api()  # no fallback
    reference = read_resolver_api_pyelftools(path)
    assert (methods if classes else None, frozenset(registrations), frozenset(types)) == (
        reference.methods, reference.registrations, reference.registration_types)
    assert read_resolver_api(path) == reference


def test_the_fixtures_hold_resolver_classes_of_both_kinds():
    from sizetool.inputs.dwarf_resolver_api import read_resolver_api

    kinds = {frozenset(read_resolver_api(path).registration_types) for path in DWARF_ELFS}
    assert frozenset({"TfLiteRegistration"}) in kinds and frozenset() in kinds
