"""Recording builds: one row per commit and label set (a re-run replaces it), changes against the predecessor kept
right when builds arrive out of order or are replaced, and two recorders at once losing nothing, on both backends."""

import json
import subprocess
import sys
import textwrap
from datetime import datetime

from history_helpers import REPO, info, with_symbol

from sizetool.history.queries import changes_for, list_builds, predecessors
from sizetool.history.record import record_report
from sizetool.history.storage import history_database
from sizetool.history.stored_report import changes_between, decode_json
from sizetool.report.report_model import report_to_dict


def recorded(db):
    with history_database(db) as database, database.reading() as connection:
        builds = list_builds(connection)
        return builds, predecessors(builds), changes_for(connection, builds, predecessors(builds))


def stored_bases(db) -> dict[str, str | None]:
    """commit -> the commit its stored changes were computed against."""
    from sqlalchemy import select

    from sizetool.history.schema import builds_table

    with history_database(db) as database, database.reading() as connection:
        rows = connection.execute(select(builds_table.c.id, builds_table.c.commit_sha, builds_table.c.base_id)).all()
    by_id = {row.id: row.commit_sha for row in rows}
    return {row.commit_sha: by_id.get(row.base_id) for row in rows}


def test_a_recorded_build_keeps_its_summary_and_its_changes_against_the_previous_one(db, fixture_report):
    grown = with_symbol(fixture_report, ("kernels", "conv.cc"), "tflite::Extra()", 256)
    with history_database(db, create=True) as database:
        first = record_report(database, fixture_report, info("a1", day=1, board="k64"), 64)
        second = record_report(database, grown, info("b2", day=2, board="k64"), 64)
    assert (first.replaced, first.previous) == (False, None)
    assert second.previous.commit == "a1" and second.previous.id == first.id
    builds, previous, changes = recorded(db)
    assert [(b.commit, b.branch, b.labels, b.rom_total, b.ram_total) for b in builds] == [
        ("a1", "main", {"board": "k64"}, fixture_report.rom_total, fixture_report.ram_total),
        ("b2", "main", {"board": "k64"}, fixture_report.rom_total + 256, fixture_report.ram_total)]
    assert builds[0].built_at == datetime(2024, 1, 1, 12) and builds[0].source == "firmware.elf"
    assert changes[builds[0].id] is None
    assert changes[builds[1].id]["rom"] == changes_between(fixture_report, grown)["rom"]
    assert sum(new - old for _, old, new in changes[builds[1].id]["rom"]) == 256


def test_recording_the_same_commit_and_labels_again_replaces_the_row(db, fixture_report):
    grown = with_symbol(fixture_report, ("app", "main.cc"), "g_table", 512, memory="ram")
    with history_database(db, create=True) as database:
        record_report(database, fixture_report, info("a1", board="k64"), 64)
        again = record_report(database, grown, info("a1", board="k64"), 64)
        other_board = record_report(database, fixture_report, info("a1", board="nrf52"), 64)
    assert again.replaced and not other_board.replaced
    builds, _, _ = recorded(db)
    assert sorted((b.commit, b.labels["board"], b.ram_total) for b in builds) == [
        ("a1", "k64", fixture_report.ram_total + 512), ("a1", "nrf52", fixture_report.ram_total)]


def test_a_build_recorded_late_with_an_earlier_time_slots_in_and_fixes_its_successor(db, fixture_report):
    sizes = {"c1": 0, "c2": 100, "c3": 300}
    reports = {c: with_symbol(fixture_report, ("gen", "x.c"), "x", size) if size else fixture_report
               for c, size in sizes.items()}
    with history_database(db, create=True) as database:
        record_report(database, reports["c1"], info("c1", day=1), 64)
        record_report(database, reports["c3"], info("c3", day=3), 64)
        late = record_report(database, reports["c2"], info("c2", day=2), 64)
    assert late.previous.commit == "c1"
    assert stored_bases(db) == {"c1": None, "c2": "c1", "c3": "c2"}
    builds, previous, changes = recorded(db)
    assert [b.commit for b in builds] == ["c1", "c2", "c3"]
    assert [sum(n - o for _, o, n in changes[b.id]["rom"]) if changes[b.id] else None for b in builds] == \
        [None, 100, 200]


def test_replacing_a_build_with_a_new_time_repairs_the_build_that_followed_it(db, fixture_report):
    reports = [with_symbol(fixture_report, ("gen", "x.c"), "x", size) for size in (10, 20, 40)]
    with history_database(db, create=True) as database:
        for day, (commit, report) in enumerate(zip(("d1", "d2", "d3"), reports), start=1):
            record_report(database, report, info(commit, day=day), 64)
        record_report(database, reports[1], info("d2", day=5), 64)  # re-run of d2, now with a later time
    assert stored_bases(db) == {"d1": None, "d3": "d1", "d2": "d3"}
    builds, _, changes = recorded(db)
    assert [b.commit for b in builds] == ["d1", "d3", "d2"]
    assert [sum(n - o for _, o, n in changes[b.id]["rom"]) if changes[b.id] else None for b in builds] == \
        [None, 30, -20]


WORKER = textwrap.dedent("""
    import json, os, sys, time
    from datetime import datetime, timedelta
    from sizetool.history.build_info import BuildInfo
    from sizetool.history.record import record_report
    from sizetool.history.storage import history_database
    from sizetool.report.report_model import report_from_dict, SizeEntry
    from dataclasses import replace

    db, worker, count, report_path = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    base = report_from_dict(json.load(open(report_path)), "firmware.elf")
    open(f"{report_path}.ready{worker}", "w").close()  # start together, so the two really overlap
    deadline = time.monotonic() + 60
    while not all(os.path.exists(f"{report_path}.ready{w}") for w in (0, 1)) and time.monotonic() < deadline:
        time.sleep(0.005)
    for index in range(count):
        size = 8 * (2 * index + worker + 1)
        entry = SizeEntry("rom", ("gen", "w.c"), "w", ".text", 0, size)
        report = replace(base, entries=base.entries + [entry], rom_total=base.rom_total + size)
        info = BuildInfo(commit=f"{worker:x}{index:07x}", branch="main",
                         built_at=datetime(2024, 1, 1) + timedelta(minutes=2 * index + worker))
        with history_database(db, create=True) as database:  # each record opens the database, as the CLI does
            record_report(database, report, info, 64)
""")


def test_two_recorders_at_once_lose_nothing(db, fixture_report, tmp_path):
    """Two processes record interleaved builds of one series into a database neither has created yet: every row
    arrives, and every build's changes were computed against its true predecessor."""
    report_path = tmp_path / "report.json"
    report_path.write_text(json.dumps(report_to_dict(fixture_report)))
    count = 20
    workers = [subprocess.Popen([sys.executable, "-c", WORKER, db, str(worker), str(count), str(report_path)],
                                cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
               for worker in (0, 1)]
    for worker in workers:
        _, errors = worker.communicate(timeout=240)
        assert worker.returncode == 0, errors[-2000:]
    builds, previous, changes = recorded(db)
    assert len(builds) == 2 * count
    assert {b.commit for b in builds} == {f"{w:x}{i:07x}" for w in (0, 1) for i in range(count)}
    bases = stored_bases(db)
    for build in builds:
        before = previous[build.id]
        assert bases[build.commit] == (before.commit if before else None), build.commit
        if before is not None:
            assert sum(n - o for _, o, n in changes[build.id]["rom"]) == build.rom_total - before.rom_total


def test_the_stored_changes_are_what_the_reports_say(db, fixture_report):
    """The changes blob is the changes_between of the two trimmed reports, byte for byte."""
    from sqlalchemy import select

    from sizetool.history.queries import build_report
    from sizetool.history.schema import builds_table

    grown = with_symbol(fixture_report, ("kernels", "add.cc"), "tflite::AddMore()", 1000)
    with history_database(db, create=True) as database:
        record_report(database, fixture_report, info("e1", day=1), 64)
        record_report(database, grown, info("e2", day=2), 64)
        with database.reading() as connection:
            builds = list_builds(connection)
            blob = connection.execute(select(builds_table.c.changes).where(builds_table.c.commit_sha == "e2")).scalar()
            expected = changes_between(build_report(connection, builds[0]), build_report(connection, builds[1]))
    assert decode_json(blob, "e2") == expected
