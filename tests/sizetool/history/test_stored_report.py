"""What the history keeps of a report: exact sums after trimming, a faithful round trip, parts and changes."""

import json
from collections import defaultdict
from dataclasses import replace

import pytest
from history_helpers import with_symbol

from sizetool.errors import SizeToolError
from sizetool.history import stored_report
from sizetool.history.stored_report import (
    SMALLER_SYMBOLS,
    changes_between,
    decode_report,
    encode_report,
    report_parts,
    require_saved_report,
    trim_report,
)
from sizetool.report.report_model import report_to_dict


def file_totals(report, memory):
    sums = defaultdict(int)
    for entry in report.entries_for(memory):
        sums[entry.path] += entry.size
    return dict(sums)


def test_trimming_folds_small_symbols_per_file_and_keeps_every_sum(fixture_report):
    trimmed = trim_report(fixture_report, 64)
    for memory in ("rom", "ram"):
        assert file_totals(trimmed, memory) == file_totals(fixture_report, memory)
        assert sum(e.size for e in trimmed.entries_for(memory)) == fixture_report.total(memory)
    small = [e for e in fixture_report.entries if e.size < 64]
    assert small, "the fixture has small symbols to fold"
    assert all(e.size >= 64 or e.symbol == SMALLER_SYMBOLS for e in trimmed.entries)
    assert len(trimmed.entries) < len(fixture_report.entries)
    assert trim_report(fixture_report, 0).entries == [replace(e, mangled="") for e in fixture_report.entries]


def test_the_stored_report_reads_back_through_report_from_dict(fixture_report):
    trimmed = trim_report(fixture_report, 64)
    back = decode_report(encode_report(trimmed), "sizes.db")
    assert report_to_dict(back) == report_to_dict(replace(trimmed, source="sizes.db"))
    assert back.operators == fixture_report.operators and back.regions == fixture_report.regions
    with pytest.raises(SizeToolError, match="sizes.db: damaged stored report"):
        decode_report(b"not zlib", "sizes.db")


def test_parts_split_each_memory_by_path_prefix_and_the_rom_by_operator(fixture_report):
    columns = report_parts(fixture_report)
    assert set(columns) == {"parts", "parts_depth2"}
    top, depth2 = columns["parts"], columns["parts_depth2"]
    assert set(top) == {"rom", "ram", "ops"} and set(depth2) == {"rom", "ram"}
    for memory in ("rom", "ram"):
        for parts in (top, depth2):  # every depth adds up: shorter paths and pathless entries count as themselves
            assert sum(parts[memory].values()) == fixture_report.total(memory), memory
        kernels = sum(e.size for e in fixture_report.entries_for(memory) if e.path[:1] == ("kernels",))
        assert top[memory].get("kernels", 0) == kernels
    assert depth2["rom"]["kernels/conv.cc"] == sum(e.size for e in fixture_report.entries_for("rom")
                                                   if e.path[:2] == ("kernels", "conv.cc"))
    ops = top["ops"]
    assert sum(ops.values()) == fixture_report.rom_total
    assert all(ops[o.op] == o.exclusive_bytes for o in fixture_report.operators.operators if o.exclusive_bytes)
    assert report_parts(replace(fixture_report, operators=None))["parts"]["ops"] == {}
    assert list(depth2["rom"]) == sorted(depth2["rom"])  # stored in name order: the same report gives the same JSON


def test_changes_list_each_changed_file_and_sum_to_the_total_delta(fixture_report):
    grown = with_symbol(fixture_report, ("kernels", "conv.cc"), "tflite::NewHelper()", 300)
    grown = with_symbol(grown, ("app", "main.cc"), "g_buffer", 128, memory="ram")
    changes = changes_between(fixture_report, grown)
    assert changes["rom"] == [["kernels/conv.cc", file_totals(fixture_report, "rom")[("kernels", "conv.cc")],
                               file_totals(fixture_report, "rom")[("kernels", "conv.cc")] + 300]]
    assert [row[0] for row in changes["ram"]] == ["app/main.cc"]
    assert changes["ops"] == []  # same operator table on both sides
    assert changes_between(fixture_report, fixture_report) == {"rom": [], "ram": [], "ops": []}


def test_many_changed_files_are_capped_with_a_remainder_row(fixture_report, monkeypatch):
    monkeypatch.setattr(stored_report, "MAX_CHANGED_FILES", 5)
    grown = fixture_report
    for index in range(12):
        grown = with_symbol(grown, ("gen", f"f{index:02d}.c"), "x", 10 + index)
    rows = changes_between(fixture_report, grown)["rom"]
    assert len(rows) == 5 and rows[-1][0] == "(8 more files)"
    assert sum(new - old for _, old, new in rows) == grown.rom_total - fixture_report.rom_total
    assert [r[0] for r in rows[:4]] == ["gen/f11.c", "gen/f10.c", "gen/f09.c", "gen/f08.c"]


def test_only_reports_saved_by_size_report_are_recorded(fixture_report):
    require_saved_report(json.loads(json.dumps(report_to_dict(fixture_report))), "r.json")
    zephyr_rom = {"symbols": {"name": "Root", "children": []}, "total_size": 0}
    for other in (zephyr_rom, {"schema": "bloaty"}, [1, 2]):
        with pytest.raises(SizeToolError, match="r.json: not a report saved by size-report"):
            require_saved_report(other, "r.json")
