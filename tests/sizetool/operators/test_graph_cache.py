"""graph_cache.py: the operator graph is kept by ELF content, so a second question skips the disassembly."""

import shutil

import pytest

from sizetool.operators import graph_cache
from sizetool.operators.graph_cache import SUFFIX, from_plain, load_operator_graph, to_plain
from tests.conftest import FIXTURES

ELF = FIXTURES / "firmware" / "out" / "cortex-m4" / "firmware.elf"


def no_analysis(*_args, **_kwargs):
    raise AssertionError("analysed again although the cache holds this ELF")


def test_a_second_load_of_the_same_elf_comes_from_the_cache(monkeypatch, tmp_path):
    elf = tmp_path / "firmware.elf"
    shutil.copy(ELF, elf)
    first = load_operator_graph(str(elf))
    monkeypatch.setattr(graph_cache, "analyse_operators", no_analysis)
    second = load_operator_graph(str(elf))
    assert to_plain(second) == to_plain(first)
    assert second.everything == first.everything


def test_a_changed_elf_is_analysed_again(monkeypatch, tmp_path):
    elf = tmp_path / "firmware.elf"
    shutil.copy(ELF, elf)
    load_operator_graph(str(elf))
    shutil.copy(FIXTURES / "firmware/out/keep-only/cortex-m4/deprecated_codes.elf", elf)
    calls = []
    original = graph_cache.analyse_operators
    monkeypatch.setattr(graph_cache, "analyse_operators", lambda *a: calls.append(1) or original(*a))
    assert {o.op for o in load_operator_graph(str(elf)).operators} == {"CONV_2D", "CONV_2D_INT8", "SOFTMAX"}
    assert calls == [1]


@pytest.mark.parametrize("switch_off", ["argument", "environment"])
def test_the_cache_can_be_switched_off(monkeypatch, tmp_path, switch_off):
    load_operator_graph(str(ELF))
    monkeypatch.setattr(graph_cache, "analyse_operators", no_analysis)
    if switch_off == "environment":
        monkeypatch.setenv("SIZETOOL_NO_CACHE", "1")
    with pytest.raises(AssertionError, match="analysed again"):
        load_operator_graph(str(ELF), use_cache=switch_off != "argument")


def test_a_corrupt_cache_entry_is_ignored(tmp_path, monkeypatch):
    load_operator_graph(str(ELF))
    directory = tmp_path / "sizetool-cache"
    entries = [p for p in directory.iterdir() if p.name.endswith(SUFFIX)]
    assert len(entries) == 1
    entries[0].write_bytes(b"not marshal data")
    assert load_operator_graph(str(ELF)).operators  # analysed again, no error


def test_plain_form_round_trips():
    graph = load_operator_graph(str(ELF), use_cache=False)
    assert to_plain(from_plain(to_plain(graph))) == to_plain(graph)


def test_a_change_to_sizetools_code_is_a_new_key(monkeypatch):
    from sizetool.report import report_cache

    load_operator_graph(str(ELF))
    monkeypatch.setattr(report_cache, "tool_fingerprint", lambda: "other code")
    monkeypatch.setattr(graph_cache, "analyse_operators", no_analysis)
    with pytest.raises(AssertionError, match="analysed again"):
        load_operator_graph(str(ELF))


def test_the_operator_table_is_kept_per_report_options(monkeypatch):
    from sizetool.operators.graph_cache import load_operator_table
    from sizetool.report.report_builder import build_report

    report = build_report(str(ELF))
    graph = load_operator_graph(str(ELF))
    first = load_operator_table(str(ELF), None, report, graph, {"group_by": "file"})
    monkeypatch.setattr(graph_cache, "operator_table_for_graph", no_analysis)
    assert load_operator_table(str(ELF), None, report, graph, {"group_by": "file"}) == first
    with pytest.raises(AssertionError, match="analysed again"):  # other options name other files: computed again
        load_operator_table(str(ELF), None, report, graph, {"group_by": "cu"})
