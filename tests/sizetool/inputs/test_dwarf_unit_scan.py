"""The own decoder's producers and constants (dwarf_unit_scan.py) are exactly what pyelftools' generic DIE walk gave
(build_facts.producer_of_pyelftools, dwarf_constants.read_dwarf_constants_pyelftools), on every fixture ELF with
DWARF and on the DWARF-facts program built here at other DWARF versions."""

import re

import pytest

from sizetool.fit.heap_arena import ARENA_SIZE_NAME
from sizetool.inputs import dwarf_unit_scan
from sizetool.inputs.dwarf_constants import read_dwarf_constants, read_dwarf_constants_pyelftools
from sizetool.inputs.dwarf_format import debug_sections
from sizetool.inputs.dwarf_type_scan import NotHandled
from sizetool.inputs.dwarf_unit_scan import UnitScan
from sizetool.profile.build_facts import producer_of, producer_of_pyelftools
from tests.conftest import FIXTURES
from tests.sizetool.inputs.test_dwarf_type_scan import DWARF_ELFS, _build, host_gxx  # noqa: F401 (a fixture)

EVERY_NAME = re.compile(r"\w")  # every named constant: the whole walk, not only the arena's names
PREFERRED = ("", "micro_interpreter", "no unit is named so")


def _fast_constants(path, pattern):
    """The fast reader alone (no fallback to pyelftools)."""
    with open(path, "rb") as stream:
        sections, little_endian = debug_sections(stream)
    return sorted(set(UnitScan(sections, little_endian).constants(pattern)), key=lambda c: (c[1], c[0], c[2]))


def _fast_producer(path, prefer):
    with open(path, "rb") as stream:
        sections, little_endian = debug_sections(stream)
    for unit_name, producer in UnitScan(sections, little_endian).producers():
        if producer is not None and (not prefer or prefer in unit_name):
            return producer
    return ""


@pytest.mark.parametrize("path", DWARF_ELFS, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_producers_and_constants_are_pyelftools(path):
    for prefer in PREFERRED:
        reference = producer_of_pyelftools(str(path), prefer)
        assert _fast_producer(path, prefer) == reference  # the fast reader itself, not its fallback
        assert producer_of(str(path), prefer) == reference
    for pattern in (ARENA_SIZE_NAME, EVERY_NAME):
        reference = read_dwarf_constants_pyelftools(path, pattern)
        assert _fast_constants(path, pattern) == [(c.unit, c.name, c.value) for c in reference]
        assert read_dwarf_constants(path, pattern) == reference


def test_the_fixtures_state_constants_and_producers():
    """Not a vacuous comparison: some fixtures name the arena's size, many state other constants and producers."""
    assert any(read_dwarf_constants(p, ARENA_SIZE_NAME) for p in DWARF_ELFS)
    assert sum(bool(read_dwarf_constants(p, EVERY_NAME)) for p in DWARF_ELFS) >= 5
    assert sum(bool(producer_of(str(p))) for p in DWARF_ELFS) >= 30
    assert any(producer_of(str(p), "micro_interpreter") for p in DWARF_ELFS)


def test_a_construct_left_to_pyelftools_still_gives_the_same_answer(monkeypatch):
    path = next(p for p in DWARF_ELFS if read_dwarf_constants(p, ARENA_SIZE_NAME))
    constants, producer = read_dwarf_constants_pyelftools(path, EVERY_NAME), producer_of_pyelftools(str(path))

    def not_handled(self, *args, **kwargs):
        raise NotHandled("test")

    monkeypatch.setattr(dwarf_unit_scan.UnitScan, "_iter_units", not_handled)
    assert read_dwarf_constants(path, EVERY_NAME) == constants
    assert producer_of(str(path)) == producer


@pytest.mark.parametrize("flags", [["-gdwarf-2"], ["-gdwarf-4"], ["-gdwarf-5"], ["-gdwarf-5", "-gz"]],
                         ids=" ".join)
def test_other_dwarf_versions_read_alike(host_gxx, tmp_path, flags):  # noqa: F811 (the fixture)
    elf = _build(host_gxx, tmp_path, flags)
    assert _fast_producer(elf, "") == producer_of_pyelftools(str(elf), "") != ""
    reference = read_dwarf_constants_pyelftools(elf, EVERY_NAME)
    assert _fast_constants(elf, EVERY_NAME) == [(c.unit, c.name, c.value) for c in reference]
