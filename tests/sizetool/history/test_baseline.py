"""`check --baseline db:DB@BRANCH`: the merge-base build when git can tell it, else the branch's newest build."""

import json
import subprocess

import pytest
from history_helpers import CORTEX_M4, FIXTURE_OUT

from sizetool import cli
from sizetool.errors import SizeToolError
from sizetool.history.baseline import load_history_baseline, parse_baseline

VARIANTS = FIXTURE_OUT / "variants" / "cortex-m4"
ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid", "GIT_COMMITTER_NAME": "t",
       "GIT_COMMITTER_EMAIL": "t@example.invalid", "PATH": "/usr/bin:/bin"}


def git(path, *args) -> str:
    return subprocess.run(["git", *args], cwd=path, env=dict(ENV, HOME=str(path)), check=True, capture_output=True,
                          text=True).stdout.strip()


@pytest.fixture(scope="module")
def recorded_repo(tmp_path_factory):
    """main: m1 -> m2 -> m3 (each recorded, m3 the largest ROM); feature branches off m2; HEAD on feature. Built and
    recorded once per module (the times come from git, as in CI)."""
    root = tmp_path_factory.mktemp("baseline")
    repo = root / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    db = root / "sizes.db"
    commits = {}
    for step, variant in enumerate(("without_ADD", "without_MUL", "without_LOGISTIC"), start=1):
        (repo / "f.txt").write_text(str(step))
        git(repo, "add", "f.txt")
        git(repo, "commit", "-q", "-m", f"m{step}")
        commits[f"m{step}"] = git(repo, "rev-parse", "HEAD")
        if step == 2:
            git(repo, "branch", "feature")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(repo)
        for name, variant in zip(("m1", "m2", "m3"), ("without_ADD", "without_MUL", "without_LOGISTIC")):
            assert cli.main(["history", "record", str(VARIANTS / f"{variant}.elf"), "--db", str(db), "--commit",
                             commits[name], "--branch", "main"]) == 0
    git(repo, "checkout", "-q", "feature")
    (repo / "g.txt").write_text("feature work")
    git(repo, "add", "g.txt")
    git(repo, "commit", "-q", "-m", "feature")
    return root, commits


@pytest.fixture
def repo_with_history(recorded_repo, tmp_path, monkeypatch, capsys):
    """Each test's own copy of the repository and its history (tests move branches and check out)."""
    import shutil

    root, commits = recorded_repo
    shutil.copytree(root / "repo", tmp_path / "repo", symlinks=True)
    shutil.copyfile(root / "sizes.db", tmp_path / "sizes.db")
    monkeypatch.chdir(tmp_path / "repo")
    capsys.readouterr()
    return tmp_path / "repo", tmp_path / "sizes.db", commits


def rom_of(variant):
    sizes = json.loads((FIXTURE_OUT / "sizes.json").read_text())[f"variants/cortex-m4/{variant}.elf"]
    return sizes["text"] + sizes["data"]


def test_a_feature_branch_is_compared_with_the_build_at_its_merge_base(repo_with_history):
    repo, db, commits = repo_with_history
    base = load_history_baseline(f"db:{db}@main", cwd=str(repo))
    assert base.rom_total == rom_of("without_MUL")  # m2, not the newer m3
    assert commits["m2"][:10] in base.source and "(merge-base)" in base.source


def test_on_the_branch_itself_the_baseline_is_the_build_before_head(repo_with_history):
    repo, db, commits = repo_with_history
    git(repo, "checkout", "-q", "main")
    base = load_history_baseline(f"db:{db}@main", cwd=str(repo))
    assert base.rom_total == rom_of("without_MUL") and "merge-base ancestor" in base.source


def test_an_unrecorded_merge_base_falls_back_along_first_parents(repo_with_history, tmp_path):
    repo, db, commits = repo_with_history
    git(repo, "checkout", "-q", "-b", "from_m3", "main")
    (repo / "h.txt").write_text("x")
    git(repo, "add", "h.txt")
    git(repo, "commit", "-q", "-m", "unrecorded on main")
    git(repo, "branch", "-f", "main", "HEAD")  # main moved to a commit no CI run recorded
    git(repo, "checkout", "-q", "-b", "topic")
    (repo / "i.txt").write_text("y")
    git(repo, "add", "i.txt")
    git(repo, "commit", "-q", "-m", "topic")
    base = load_history_baseline(f"db:{db}@main", cwd=str(repo))
    assert base.rom_total == rom_of("without_LOGISTIC") and "merge-base ancestor" in base.source


def test_check_growth_rules_use_the_history_baseline(repo_with_history, capsys):
    repo, db, _ = repo_with_history
    budget = repo / "budget.toml"
    budget.write_text('[rom]\nmax_growth = "0"\n')
    status = cli.main(["check", str(VARIANTS / "without_MUL.elf"), "--budget", str(budget), "--baseline",
                       f"db:{db}@main"])
    assert status == 0  # the same ROM as m2, the merge-base build
    capsys.readouterr()
    status = cli.main(["check", str(CORTEX_M4), "--budget", str(budget), "--baseline", f"db:{db}@main",
                       "--format", "json"])
    out = capsys.readouterr().out
    growth = json.loads(out)["rules"][0]
    full = json.loads((FIXTURE_OUT / "sizes.json").read_text())["cortex-m4/firmware.elf"]
    assert status == 1 and growth["actual"] == full["text"] + full["data"] - rom_of("without_MUL")


def test_baseline_specs():
    assert parse_baseline("db:sizes.db@main") == ("sizes.db", "main", {})
    assert parse_baseline("db:postgresql://ci:pw@db.example/sizes@release/1.x,board=k64") == (
        "postgresql://ci:pw@db.example/sizes", "release/1.x", {"board": "k64"})
    for bad in ("db:sizes.db", "db:@main", "db:sizes.db@"):
        with pytest.raises(SizeToolError, match="expected db:DATABASE@BRANCH"):
            parse_baseline(bad)
