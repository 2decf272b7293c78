"""The DWARF types of the arena facts kept in the report cache: a second read of an unchanged ELF takes them from there
(the DWARF is not walked again) and gives the same list; a changed ELF, --no-cache or an unreadable entry reads the
DWARF again."""

import shutil

import pytest

from sizetool.fit import dwarf_types_cache
from sizetool.fit.dwarf_facts import MEMBERS_READ, looked_up_names
from sizetool.fit.dwarf_types_cache import SUFFIX, load_dwarf_types
from sizetool.inputs.dwarf_structs import read_dwarf_types_pyelftools
from tests.conftest import FIXTURES

ELF = FIXTURES / "dwarf_facts" / "out" / "revision-b.elf"


def _entries(tmp_path):
    return list((tmp_path / "sizetool-cache").glob(f"*{SUFFIX}"))


def _no_walk(monkeypatch):
    def refuse(*_args, **_kwargs):
        raise AssertionError("the DWARF was walked again")

    monkeypatch.setattr(dwarf_types_cache, "read_dwarf_types", refuse)


def test_a_second_read_comes_from_the_cache(tmp_path, monkeypatch):
    first = load_dwarf_types(str(ELF))
    assert first == read_dwarf_types_pyelftools(ELF, MEMBERS_READ, looked_up_names())
    assert any(t.members for t in first)  # OpDataReduce's members are kept too
    assert len(_entries(tmp_path)) == 1
    _no_walk(monkeypatch)
    assert load_dwarf_types(str(ELF)) == first


def test_a_changed_elf_or_no_cache_reads_the_dwarf_again(tmp_path, monkeypatch):
    elf = tmp_path / "firmware.elf"
    shutil.copy(ELF, elf)
    load_dwarf_types(str(elf))
    shutil.copy(FIXTURES / "dwarf_facts" / "out" / "revision-a.elf", elf)
    assert load_dwarf_types(str(elf)) == read_dwarf_types_pyelftools(elf, MEMBERS_READ, looked_up_names())
    assert len(_entries(tmp_path)) == 2
    _no_walk(monkeypatch)
    with pytest.raises(AssertionError, match="walked again"):  # --no-cache: the DWARF, not the entry
        load_dwarf_types(str(elf), use_cache=False)


def test_an_unreadable_entry_is_read_afresh(tmp_path):
    first = load_dwarf_types(str(ELF))
    for entry in _entries(tmp_path):
        entry.write_bytes(b"not marshal")
    assert load_dwarf_types(str(ELF)) == first
