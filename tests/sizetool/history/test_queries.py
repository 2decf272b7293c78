"""Naming builds (#ID, BRANCH, BRANCH~N, commit prefix) and choosing what retention drops."""

from datetime import datetime, timedelta

import pytest

from sizetool.errors import SizeToolError
from sizetool.history.build_info import labels_key
from sizetool.history.queries import Build, builds_to_prune, predecessors, resolve_reference


def build(id, commit, branch="main", day=1, **labels):
    return Build(id=id, commit=commit, branch=branch, labels_key=labels_key(labels), built_at=datetime(2024, 1, day),
                 recorded_at=datetime(2024, 1, day), source="fw.elf", arch="arm", tool="t", build_url="",
                 rom_total=100 * id, ram_total=10 * id, min_symbol=64, base_id=None, labels=labels)


BUILDS = [build(1, "aaaa1111", day=1), build(2, "bbbb2222", day=2), build(3, "aaaa3333", "feature/x", day=3),
          build(4, "cccc4444", day=4)]


def test_references_name_builds():
    assert resolve_reference(BUILDS, "main", "db").id == 4
    assert resolve_reference(BUILDS, "main~2", "db").id == 1
    assert resolve_reference(BUILDS, "feature/x", "db").id == 3
    assert resolve_reference(BUILDS, "#2", "db").id == 2
    assert resolve_reference(BUILDS, "bbbb", "db").id == 2
    assert resolve_reference(BUILDS, "AAAA3", "db").id == 3


def test_ambiguous_or_unknown_references_are_errors():
    with pytest.raises(SizeToolError, match="aaaa names 2 builds"):
        resolve_reference(BUILDS, "aaaa", "db")
    with pytest.raises(SizeToolError, match="branch main has only 3 recorded builds"):
        resolve_reference(BUILDS, "main~3", "db")
    with pytest.raises(SizeToolError, match="no build #9"):
        resolve_reference(BUILDS, "#9", "db")
    boards = [build(5, "dddd5555", "rel", board="a"), build(6, "eeee6666", "rel", board="b")]
    with pytest.raises(SizeToolError, match="branch rel has builds with 2 label sets; choose one with --label "
                                            r"\(board=a; board=b\)"):
        resolve_reference(boards, "rel", "db")


def test_predecessors_are_per_series():
    boards = BUILDS + [build(5, "dddd5555", "main", day=5, board="a")]
    previous = predecessors(boards)
    assert previous[1] is None and previous[2].id == 1 and previous[4].id == 2
    assert previous[3] is None and previous[5] is None  # another branch; another label set


def test_prune_keeps_the_newest_of_each_series_and_drops_by_count_or_age():
    many = [build(i, f"{i:08x}", "main", day=i) for i in range(1, 11)] + [build(20, "f" * 8, "old", day=1)]
    assert [b.id for b in builds_to_prune(many, keep=3, older_than=None)] == [1, 2, 3, 4, 5, 6, 7]
    cutoff = datetime(2024, 1, 1) + timedelta(days=7)
    assert [b.id for b in builds_to_prune(many, keep=None, older_than=cutoff)] == [1, 2, 3, 4, 5, 6, 7]
    assert builds_to_prune(many, keep=None, older_than=datetime(2030, 1, 1))[-1].id == 9  # 10 and 20 stay
    assert 20 not in [b.id for b in builds_to_prune(many, keep=1, older_than=datetime(2030, 1, 1))]


# --- the newest builds, read without listing the whole history ------------------------------------------------------


def test_the_newest_builds_are_the_head_of_the_full_listing_with_the_same_predecessors(db, fixture_report):
    """`history show --limit N` reads only N rows (and one row per series before them); it must show what listing
    every build would: the same builds, newest first, with the same predecessor for each, for any filter."""
    from history_helpers import info, with_symbol

    from sizetool.history.queries import list_builds, newest_builds
    from sizetool.history.record import record_report
    from sizetool.history.storage import history_database

    plan = [("a1", "main", 1, "k64"), ("b1", "main", 1, "nrf52"), ("a2", "main", 3, "k64"), ("f1", "feature/x", 4, "k64"),
            ("b2", "main", 5, "nrf52"), ("a3", "main", 6, "k64"), ("a0", "main", 2, "k64"), ("f2", "feature/x", 7, "k64")]
    with history_database(db, create=True) as database:
        for size, (commit, branch, day, board) in enumerate(plan, start=1):  # a0 arrives late with an early time
            report = with_symbol(fixture_report, ("gen", "x.c"), "x", 16 * size)
            record_report(database, report, info(commit, branch, day=day, board=board), 64)
        with database.reading() as connection:
            for branches, labels in ((None, None), (["main"], None), (None, {"board": "k64"}),
                                     (["main"], {"board": "nrf52"}), (["release"], None), (None, {"board": "x"})):
                everything = list_builds(connection, branches, labels)
                previous = predecessors(everything)
                for limit in (1, 2, 3, 5, 100):
                    shown, before = newest_builds(connection, limit, branches, labels)
                    assert [b.commit for b in shown] == [b.commit for b in everything[::-1][:limit]], (branches, labels)
                    assert {b.id: before[b.id] and before[b.id].id for b in shown} == \
                        {b.id: previous[b.id] and previous[b.id].id for b in shown}, (branches, labels, limit)
            shown, before = newest_builds(connection, 3, ["main"], {"board": "k64"})
            assert [b.commit for b in shown] == ["a3", "a2", "a0"] and before[shown[-1].id].commit == "a1"
