"""A damaged history database (pages overwritten, a row holding bytes that are not UTF-8, JSON that does not parse, a
string in a number column, a report blob that does not inflate) is one line naming the database and exit 2 in every
command that reads it: history show, diff, plot, record and check --baseline db:."""

import shutil
import sqlite3

import pytest
from history_helpers import CORTEX_M4, VARIANTS

from sizetool import cli

COMMANDS = {
    "show": ["history", "show", "--db", "{db}"],
    "show all": ["history", "show", "--db", "{db}", "--limit", "0", "-f", "json"],
    "diff": ["history", "diff", "main~1", "main", "--db", "{db}"],
    "plot": ["history", "plot", "--db", "{db}", "-o", "{tmp}/plot.html"],
    "record": ["history", "record", "{report}", "--db", "{db}", "--commit", "c" * 40, "--branch", "main",
               "--time", "2024-01-09"],
    "baseline": ["check", "{report}", "--budget", "{budget}", "--baseline", "db:{db}@main"],
}


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """A good database of two main builds, a saved report and a budget."""
    folder = tmp_path_factory.mktemp("damaged")
    db, report = folder / "sizes.db", folder / "report.json"
    for day, (elf, commit) in enumerate([(VARIANTS / "without_ADD.elf", "a1"), (CORTEX_M4, "a2")], start=1):
        assert cli.main(["history", "record", str(elf), "--ops", "--db", str(db), "--commit", commit * 20,
                         "--branch", "main", "--time", f"2024-01-0{day}"]) == 0
    assert cli.main([str(CORTEX_M4), "--save", str(report), "-o", str(folder / "tree.txt")]) == 0
    budget = folder / "budget.toml"
    budget.write_text('[rom]\ntotal = "1M"\nmax_growth = "10%"\n')
    return db, report, budget


def damaged_copy(recorded, tmp_path, sql: str | None = None, damage=None):
    db = tmp_path / "damaged.db"
    shutil.copyfile(recorded[0], db)
    if sql:
        connection = sqlite3.connect(db)
        connection.execute(sql)
        connection.commit()
        connection.close()
    if damage:
        data = bytearray(db.read_bytes())
        damage(data)
        db.write_bytes(bytes(data))
    return db


def run(command, db, recorded, tmp_path, capsys):
    argv = [part.format(db=db, tmp=tmp_path, report=recorded[1], budget=recorded[2]) for part in COMMANDS[command]]
    status = cli.main(argv)
    return status, capsys.readouterr().err


def assert_one_line_naming(db, status, err):
    assert status == 2, err
    assert err.count("\n") == 1 and str(db) in err, err
    assert "internal error" not in err and "Traceback" not in err


def _page_size(data) -> int:
    return int.from_bytes(data[16:18], "big")


DAMAGE = {
    # SQLite's own checks: "file is not a database", "database disk image is malformed"
    "header": lambda data: data.__setitem__(slice(16, 24), b"\xff" * 8),
    "schema page zeroed": lambda data: data.__setitem__(slice(100, _page_size(data)), bytes(_page_size(data) - 100)),
    "every page scribbled": lambda data: [data.__setitem__(slice(start + 8, start + 40), b"\xa5" * 32)
                                          for start in range(_page_size(data), len(data), _page_size(data))],
    "truncated": lambda data: data.__delitem__(slice(len(data) // 2, None)),
}
ROWS = {
    # values SQLite stores happily in any column, which the reader cannot use
    "branch not UTF-8": "UPDATE size_builds SET branch = CAST(X'ff80fe' AS TEXT)",
    "labels not JSON": "UPDATE size_builds SET labels = '{'",
    "parts not JSON": "UPDATE size_builds SET parts = 'not json'",
    "parts of strings": "UPDATE size_builds SET parts = '{\"rom\": {\"a\": \"b\"}}'",
    "rom_total text": "UPDATE size_builds SET rom_total = 'x'",
    "built_at not a time": "UPDATE size_builds SET built_at = 'not a time'",
    "changes not zlib": "UPDATE size_builds SET changes = X'00ff'",
    "report not zlib": "UPDATE size_build_reports SET report = X'789c'",
    "report text": "UPDATE size_build_reports SET report = 'abc'",
}


@pytest.mark.parametrize("command", list(COMMANDS))
@pytest.mark.parametrize("damage", list(DAMAGE))
def test_damaged_pages_are_one_line_and_exit_2(recorded, tmp_path, capsys, command, damage):
    db = damaged_copy(recorded, tmp_path, damage=DAMAGE[damage])
    status, err = run(command, db, recorded, tmp_path, capsys)
    assert_one_line_naming(db, status, err)


@pytest.mark.parametrize("command", list(COMMANDS))
@pytest.mark.parametrize("row", list(ROWS))
def test_damaged_rows_never_crash(recorded, tmp_path, capsys, command, row):
    """A damaged value the command reads is exit 2 naming the database; one it does not read leaves it working."""
    db = damaged_copy(recorded, tmp_path, sql=ROWS[row])
    status, err = run(command, db, recorded, tmp_path, capsys)
    if status == 2:
        assert_one_line_naming(db, status, err)  # "damaged ...", or what the damage made it ("no build of main")
    else:
        assert status in (0, 1) and err == "", err


def test_text_that_is_not_utf8_is_reported_as_damage(recorded, tmp_path, capsys):
    db = damaged_copy(recorded, tmp_path, sql=ROWS["branch not UTF-8"])
    status, err = run("show", db, recorded, tmp_path, capsys)
    assert_one_line_naming(db, status, err)
    assert "damaged size history database" in err and "UTF-8" in err.replace("utf-8", "UTF-8")
