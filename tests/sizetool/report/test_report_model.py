"""The report model: the size tree, Zephyr's JSON node shape, saved reports that read back, and atomic writes."""

import json

import pytest

from sizetool.errors import SizeToolError
from sizetool.report.report_model import (
    MemoryRegion, SizeEntry, SizeReport, build_tree, dump_json, dump_report_json, load_report, memory_to_dict,
    report_from_dict, report_to_dict, save_report, tree_to_dict,
)

ENTRIES = [
    SizeEntry("rom", ("kernels", "conv.cc"), "Eval", ".text", 0x100, 300, "_Z4Evalv"),
    SizeEntry("rom", ("kernels", "conv.cc"), "Prepare", ".text", 0x300, 100),
    SizeEntry("rom", ("kernels", "add.cc"), "Eval", ".text", 0x400, 200),
    SizeEntry("rom", ("(no symbol)",), "(no symbol) .text", ".text", 0x500, 8),
    SizeEntry("ram", ("app", "main.cc"), "arena", ".bss", 0x2000, 1024, aliases=("arena_alias",)),
]
REPORT = SizeReport("fw.elf", "arm", 608, 1024, ENTRIES, [MemoryRegion("FLASH", 0x8000000, 4096, 608)], warnings=["w"])


def test_tree_sums_and_sorts_largest_first():
    root = build_tree(ENTRIES, "rom")
    assert root.size == 608 and [c.name for c in root.children] == ["kernels", "(no symbol)"]
    kernels = root.children[0]
    assert [(c.name, c.size) for c in kernels.children] == [("conv.cc", 400), ("add.cc", 200)]
    assert [c.name for c in kernels.children[0].children] == ["Eval", "Prepare"]


def test_nodes_have_zephyrs_shape():
    data = tree_to_dict(build_tree(ENTRIES, "rom"))
    assert (data["name"], data["identifier"], data["size"]) == ("Root", "root", 608)
    leaf = data["children"][0]["children"][0]["children"][0]
    assert leaf == {"name": "Eval", "identifier": "kernels/conv.cc/Eval", "size": 300, "address": 0x100,
                    "section": ".text", "mangled": "_Z4Evalv"}
    assert memory_to_dict(REPORT, "ram")["total_size"] == 1024


def test_saved_report_round_trips(tmp_path):
    path = tmp_path / "report.json"
    save_report(REPORT, path)
    again = load_report(path)
    assert (again.rom_total, again.ram_total, again.arch, again.regions, again.warnings) == (608, 1024, "arm", REPORT.regions, ["w"])
    assert sorted(again.entries, key=lambda e: (e.memory, e.path, e.symbol)) == sorted(ENTRIES, key=lambda e: (e.memory, e.path, e.symbol))


def test_a_zephyr_rom_json_reads_as_a_report():
    zephyr = {"symbols": {"name": "Root", "identifier": "root", "size": 10, "children": [
        {"name": "kernel", "identifier": "kernel", "size": 10, "children": [
            {"name": "sched.c", "identifier": "kernel/sched.c", "size": 10, "children": [
                {"name": "z_swap", "identifier": "kernel/sched.c/z_swap", "size": 10, "address": 4, "section": "text"}]}]}]},
        "total_size": 10}
    report = report_from_dict(zephyr, "build/rom.json")
    assert report.rom_total == 10 and report.entries[0].path == ("kernel", "sched.c")


def test_fast_json_writer_gives_the_same_data_as_json_dumps():
    data = report_to_dict(REPORT)
    fast = dump_report_json(data)
    assert json.loads(fast) == json.loads(dump_json(data)) == data
    assert '{"name": "Eval", "identifier": "kernels/conv.cc/Eval"' in fast  # leaves on one line


@pytest.mark.parametrize("text", ["{", "[]", '{"rom": 1, "ram": 2}', '{"symbols": {}, "total_size": "x"}'])
def test_malformed_saved_reports_are_user_errors(tmp_path, text):
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(SizeToolError) as caught:
        load_report(path)
    assert str(path) in str(caught.value)


def test_a_failed_write_leaves_no_file(tmp_path):
    with pytest.raises(SizeToolError):
        save_report(REPORT, tmp_path / "missing-dir" / "report.json")
    assert list(tmp_path.iterdir()) == []


def test_a_saved_report_gets_the_mode_a_plain_write_would_give(tmp_path):
    import os

    previous = os.umask(0o022)
    try:
        save_report(REPORT, tmp_path / "new.json")
        assert (tmp_path / "new.json").stat().st_mode & 0o777 == 0o644  # not mkstemp's 0600
        existing = tmp_path / "kept.json"
        existing.write_text("{}")
        existing.chmod(0o640)
        save_report(REPORT, existing)
        assert existing.stat().st_mode & 0o777 == 0o640
    finally:
        os.umask(previous)


def test_a_version_1_saved_report_still_reads_and_a_newer_version_is_refused(tmp_path):
    data = report_to_dict(REPORT)
    data["schema_version"] = 1
    del data["berkeley"]
    for region in data["regions"]:
        del region["memory"]
    old = report_from_dict(data, "old.json")
    assert (old.rom_total, old.ram_total, old.berkeley) == (608, 1024, None)
    assert [(r.name, r.used, r.memory) for r in old.regions] == [("FLASH", 608, "")]
    data["schema_version"] = 99
    with pytest.raises(SizeToolError, match="schema version 99"):
        report_from_dict(data, "new.json")


def test_berkeley_figures_and_region_memories_round_trip(tmp_path):
    from dataclasses import replace

    from sizetool.report.report_model import Berkeley

    report = replace(REPORT, berkeley=Berkeley(600, 8, 1016),
                     regions=[MemoryRegion("FLASH", 0x8000000, 4096, 608, "xr", "rom")])
    path = tmp_path / "report.json"
    save_report(report, path)
    again = load_report(path)
    assert again.berkeley == Berkeley(600, 8, 1016) and again.regions == report.regions
