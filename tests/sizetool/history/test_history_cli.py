"""`size-report history ...` and `check --baseline db:...` as a CI job runs them: one-line records, show formats,
diff output identical to `size-report diff`, pruning, and bad input as one line, exit 2, nothing written."""

import csv
import io
import json
import os
import shutil
import sqlite3
import zlib

import pytest
from history_helpers import CORTEX_M4, CORTEX_M4_MAP, FIXTURE_OUT

from sizetool import cli

VARIANTS = FIXTURE_OUT / "variants" / "cortex-m4"
# Leave-one-out builds of the fixture firmware, recorded as successive commits on main: real ELFs whose flash moves.
HISTORY = [("without_ADD", "c0000001"), ("without_SOFTMAX", "c0000002"), ("without_MUL", "c0000003")]


# A commit no repository has: a short one ("ab12") is looked up with git, and in a repository where some object's id
# starts with it, git prints that object instead of failing
COMMIT = "ab12cd34ef56ab12cd34ef56ab12cd34ef56ab12"

def run(capsys, *argv):
    status = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture(scope="module")
def recorded_history(tmp_path_factory):
    """sizes.db with three main builds (variants), the full firmware as a fourth, and one feature-branch build,
    recorded once per module through the command."""
    db = tmp_path_factory.mktemp("history") / "sizes.db"
    for day, (variant, commit) in enumerate(HISTORY, start=1):
        assert cli.main(["history", "record", str(VARIANTS / f"{variant}.elf"), "--db", str(db), "--commit", commit,
                         "--branch", "main", "--time", f"2024-01-0{day}T10:00:00Z"]) == 0
    assert cli.main(["history", "record", str(CORTEX_M4), "--map", str(CORTEX_M4_MAP), "--db", str(db), "--commit",
                     "c0000004", "--branch", "main", "--time", "2024-01-04T10:00:00Z"]) == 0
    assert cli.main(["history", "record", str(CORTEX_M4), "--db", str(db), "--commit", "fe000001", "--branch",
                     "feature/x", "--time", "2024-01-05T10:00:00Z", "--label", "board=k64"]) == 0
    return db


@pytest.fixture
def history(recorded_history, tmp_path, capsys):
    """Each test's own copy of the recorded history (tests record into it, prune it and compare its bytes)."""
    db = tmp_path / "sizes.db"
    shutil.copyfile(recorded_history, db)
    capsys.readouterr()
    return db


def sizes(name):
    """(ROM, RAM) of a fixture ELF as size-report measures them (physical placement: see docs/size-report.md)."""
    from sizetool.report.report_builder import build_report

    report = build_report(str(FIXTURE_OUT / name), use_cache=False)
    return report.rom_total, report.ram_total


def test_record_prints_one_line_with_the_delta_against_the_previous_build(tmp_path, capsys, history):
    rom3, _ = sizes("variants/cortex-m4/without_MUL.elf")  # c0000003, the build before
    status, out, err = run(capsys, "history", "record", CORTEX_M4, "--db", history, "--commit", "c0000004",
                           "--branch", "main", "--time", "2024-01-04T10:00:00Z")
    rom, ram = sizes("cortex-m4/firmware.elf")
    assert status == 0 and err == ""
    assert out.startswith(f"replaced c0000004 on main: ROM {rom}, RAM {ram} (")
    assert out.rstrip().endswith(f"({rom - rom3:+d} / +0 vs c0000003) in {history}")


def test_show_json_lists_builds_newest_first_with_deltas_and_movers(capsys, history):
    status, out, err = run(capsys, "history", "show", "--db", history, "--format", "json", "--branch", "main")
    assert status == 0
    builds = json.loads(out)["builds"]
    assert [b["commit"] for b in builds] == ["c0000004", "c0000003", "c0000002", "c0000001"]
    rom, ram = sizes("cortex-m4/firmware.elf")
    assert (builds[0]["rom"], builds[0]["ram"]) == (rom, ram)
    for newer, older in zip(builds, builds[1:]):
        assert newer["previous"] == older["commit"]
        assert newer["rom_delta"] == newer["rom"] - older["rom"]
        assert newer["ram_delta"] == newer["ram"] - older["ram"]
    assert builds[-1]["previous"] is None and builds[-1]["rom_delta"] is None
    movers = builds[0]["movers"]["rom"]
    assert 0 < len(movers) <= 3
    assert abs(movers[0]["delta"]) >= max(abs(m["delta"]) for m in movers)
    assert builds[0]["time"] == "2024-01-04T10:00:00Z"


def test_show_table_csv_and_markdown(capsys, history):
    status, table, _ = run(capsys, "history", "show", "--db", history, "--limit", "2")
    assert status == 0
    assert "fe000001" in table and "c0000004" in table and "c0000003" not in table
    assert "Top movers (ROM)" in table and "board=k64" in table
    status, text, _ = run(capsys, "history", "show", "--db", history, "--format", "csv", "--limit", "0")
    rows = list(csv.DictReader(io.StringIO(text)))
    assert [r["commit"] for r in rows] == ["fe000001", "c0000004", "c0000003", "c0000002", "c0000001"]
    assert rows[0]["labels"] == "board=k64" and rows[0]["rom_delta"] == ""  # first build of its series
    assert int(rows[1]["rom"]) - int(rows[2]["rom"]) == int(rows[1]["rom_delta"])
    status, markdown, _ = run(capsys, "history", "show", "--db", history, "--format", "markdown", "--label", "board=k64")
    assert markdown.count("\n| `") == 1 and "`fe000001`" in markdown


def test_history_diff_prints_what_size_report_diff_prints_for_the_same_builds(tmp_path, capsys, history):
    """Two recorded builds give the same output as `size-report diff` of the two reports the history stored."""
    for fmt in ("tree", "json", "markdown", "csv"):
        status, from_history, err = run(capsys, "history", "diff", "main~1", "main", "--db", history, "--format", fmt)
        assert status == 0, err
        saved = []
        for reference in ("c0000003", "c0000004"):
            path = tmp_path / f"{reference}.json"
            with sqlite3.connect(history) as connection:
                blob, = connection.execute("SELECT r.report FROM size_builds b JOIN size_build_reports r "
                                           "ON r.build_id = b.id WHERE b.commit_sha = ?", (reference,)).fetchone()
            path.write_bytes(zlib.decompress(blob))
            saved.append(path)
        status, direct, _ = run(capsys, "diff", saved[0], saved[1], "--format", fmt)
        direct = direct.replace("c0000003.json", "c0000003").replace("c0000004.json", "c0000004")
        assert from_history == direct
    status, out, _ = run(capsys, "history", "diff", "c0000001", "#4", "--db", history, "--format", "json", "--ram")
    assert json.loads(out)["memory"] == "ram"


def test_history_diff_total_is_the_difference_of_the_recorded_totals(capsys, history):
    status, out, _ = run(capsys, "history", "diff", "c0000002", "c0000004", "--db", history, "--format", "json")
    data = json.loads(out)
    rom_new, _ = sizes("cortex-m4/firmware.elf")
    assert data["new_total"] == rom_new and data["delta"] == rom_new - data["old_total"]
    assert sum(row["delta"] for row in data["symbols"]) == data["delta"]


def test_prune_keeps_the_newest_builds_of_each_series(capsys, history):
    status, out, _ = run(capsys, "history", "prune", "--db", history, "--keep", "2", "--dry-run")
    assert (status, out.strip()) == (0, f"would drop 2 builds; 3 remain in {history}")
    status, out, _ = run(capsys, "history", "prune", "--db", history, "--keep", "2")
    assert (status, out.strip()) == (0, f"dropped 2 builds; 3 remain in {history}")
    status, out, _ = run(capsys, "history", "show", "--db", history, "--format", "json")
    builds = json.loads(out)["builds"]
    assert [b["commit"] for b in builds] == ["fe000001", "c0000004", "c0000003"]
    assert builds[2]["previous"] is None  # its predecessor is gone
    status, out, _ = run(capsys, "history", "prune", "--db", history, "--older-than", "1")
    assert out.startswith("dropped 1 builds; 2 remain")  # everything is old, but each series keeps its newest


def test_check_takes_its_baseline_from_the_newest_build_of_a_branch(tmp_path, capsys, history, monkeypatch):
    monkeypatch.chdir(tmp_path)  # not a git checkout: no merge-base, so the newest build of main
    budget = tmp_path / "size-budget.toml"
    budget.write_text('[rom]\nmax_growth = "0"\n')
    status, out, err = run(capsys, "check", CORTEX_M4, "--budget", budget, "--baseline", f"db:{history}@main",
                           "--format", "json")
    assert status == 0, err
    growth = next(r for r in json.loads(out)["rules"] if r["rule"] == "rom.max_growth")
    assert growth["actual"] == 0  # c0000004 is this very ELF
    budget.write_text('[rom]\nmax_growth = "100"\n')
    small = VARIANTS / "without_ADD.elf"
    status, out, err = run(capsys, "check", CORTEX_M4, "--budget", budget, "--baseline",
                           f"db:{history}@feature/x,board=k64", "--format", "json")
    assert status == 0, err  # the feature branch's only build is this ELF too
    status, out, _ = run(capsys, "check", CORTEX_M4, "--budget", budget, "--baseline", f"db:{history}@main~1")
    assert status == 2  # a baseline names a branch, not a build
    status, _, err = run(capsys, "check", small, "--budget", budget, "--baseline", f"db:{history}@release")
    assert status == 2 and err.strip() == f"size-report check: error: {history}: no recorded build of branch release"


def test_bad_input_is_one_line_exit_2_and_writes_nothing(tmp_path, capsys, history):
    before = history.read_bytes()
    not_ours = tmp_path / "other.db"
    with sqlite3.connect(not_ours) as connection:
        connection.execute("CREATE TABLE t (x)")
    other_before = not_ours.read_bytes()
    zephyr = tmp_path / "rom.json"
    zephyr.write_text('{"symbols": {"name": "Root", "children": []}, "total_size": 0}')
    cases = [
        (["history", "record", CORTEX_M4, "--db", not_ours, "--commit", COMMIT], "not a size history database"),
        (["history", "record", zephyr, "--db", history, "--commit", COMMIT], "not a report saved by size-report"),
        (["history", "record", tmp_path / "none.elf", "--db", history, "--commit", COMMIT], "no such file"),
        (["history", "record", CORTEX_M4, "--db", history, "--commit", COMMIT, "--time", "soon"], "not an ISO 8601"),
        (["history", "record", CORTEX_M4, "--db", history, "--commit", COMMIT, "--label", "x"], "expected KEY=VALUE"),
        (["history", "show", "--db", tmp_path / "missing.db"], "no such history database"),
        (["history", "show", "--db", history, "--format", "xml"], "unknown --format"),
        (["history", "diff", "c0000001", "deadbeef", "--db", history], "no recorded build matches 'deadbeef'"),
        (["history", "plot", "--db", history, "-o", tmp_path / "p.pdf"], "by the file's extension"),
        (["history", "prune", "--db", history], "give --keep N and/or --older-than DAYS"),
        (["history", "record", CORTEX_M4, "--db", "postgresql://ci:pw@127.0.0.1:1/x", "--commit", COMMIT],
         "cannot connect"),
    ]
    for argv, reason in cases:
        status, out, err = run(capsys, *argv)
        assert status == 2, (argv, out, err)
        assert err.startswith("size-report history: error: ") and err.count("\n") == 1 and reason in err, (argv, err)
        assert "pw@" not in err
    assert history.read_bytes() == before and not_ours.read_bytes() == other_before
    assert not (tmp_path / "missing.db").exists() and not (tmp_path / "p.pdf").exists()


def test_record_defaults_come_from_ci_variables(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name in list(os.environ):
        if name.startswith(("GITHUB_", "GITLAB", "CI_", "JENKINS")):
            monkeypatch.delenv(name)
    monkeypatch.setenv("GITLAB_CI", "true")
    monkeypatch.setenv("CI_COMMIT_SHA", "abcdef0123456789abcdef0123456789abcdef01")
    monkeypatch.setenv("CI_COMMIT_BRANCH", "main")
    monkeypatch.setenv("CI_COMMIT_TIMESTAMP", "2024-04-05T06:07:08Z")
    monkeypatch.setenv("SIZE_HISTORY_DB", str(tmp_path / "ci.db"))
    status, out, err = run(capsys, "history", "record", CORTEX_M4)
    assert status == 0, err
    assert out.startswith("recorded abcdef0123 on main: ")
    status, out, _ = run(capsys, "history", "show", "--format", "json")
    assert json.loads(out)["builds"][0]["time"] == "2024-04-05T06:07:08Z"


def test_a_saved_report_records_like_its_elf(tmp_path, capsys):
    saved = tmp_path / "report.json"
    assert cli.main([str(CORTEX_M4), "--ops", "--save", str(saved), "-o", str(tmp_path / "ops.txt")]) == 0
    capsys.readouterr()
    db = tmp_path / "s.db"
    status, out, err = run(capsys, "history", "record", saved, "--db", db, "--commit", "aa01", "--branch", "main")
    assert status == 0, err
    status, out, err = run(capsys, "history", "record", CORTEX_M4, "--ops", "--db", db, "--commit", "aa02",
                           "--branch", "main")
    assert status == 0 and "(+0 / +0 vs aa01)" in out
    status, out, _ = run(capsys, "history", "diff", "aa01", "aa02", "--db", db, "--format", "json")
    data = json.loads(out)
    assert data["delta"] == 0 and data["symbols"] == [] and data["operators"] == []
