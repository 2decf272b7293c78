"""Who a build is: options first, then the CI system's variables, then git; times in UTC."""

import subprocess
from datetime import datetime, timezone

import pytest

from sizetool.errors import SizeToolError
from sizetool.history.build_info import labels_key, parse_labels, parse_time, resolve_build_info

SHA = "0123456789abcdef0123456789abcdef01234567"


@pytest.fixture
def checkout(tmp_path):
    """A git repository with one commit on branch 'feature/flash', committed at a known time."""
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.invalid", "GIT_COMMITTER_DATE": "2024-03-04T05:06:07+02:00",
           "GIT_AUTHOR_DATE": "2024-03-04T05:06:07+02:00", "HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}

    def git(*args):
        return subprocess.run(["git", *args], cwd=tmp_path, env=env, check=True, capture_output=True,
                              text=True).stdout.strip()

    git("init", "-q", "-b", "feature/flash")
    (tmp_path / "a.txt").write_text("a")
    git("add", "a.txt")
    git("commit", "-q", "-m", "first")
    return tmp_path, git("rev-parse", "HEAD")


def test_git_gives_commit_branch_and_the_commit_time_in_utc(checkout):
    path, head = checkout
    info = resolve_build_info(env={}, cwd=str(path))
    assert (info.commit, info.branch) == (head, "feature/flash")
    assert info.built_at == datetime(2024, 3, 4, 3, 6, 7)


def test_options_win_over_ci_and_git(checkout):
    path, _ = checkout
    env = {"GITHUB_ACTIONS": "true", "GITHUB_SHA": SHA, "GITHUB_REF_NAME": "main"}
    info = resolve_build_info(commit="ABCDEF12", branch="release", time="2024-05-01T12:00:00+02:00",
                              labels=["board=nrf52", "config=release"], env=env, cwd=str(path))
    assert (info.commit, info.branch, info.built_at) == ("abcdef12", "release", datetime(2024, 5, 1, 10))
    assert info.labels == {"board": "nrf52", "config": "release"}


def test_github_actions_push_and_pull_request(tmp_path):
    push = {"GITHUB_ACTIONS": "true", "GITHUB_SHA": SHA, "GITHUB_REF_NAME": "main", "GITHUB_REF_TYPE": "branch",
            "GITHUB_SERVER_URL": "https://github.com", "GITHUB_REPOSITORY": "acme/fw", "GITHUB_RUN_ID": "42"}
    now = datetime(2024, 6, 1, 8, 30, tzinfo=timezone.utc)
    info = resolve_build_info(env=push, cwd=str(tmp_path), now=now)
    assert (info.commit, info.branch) == (SHA, "main")
    assert info.build_url == "https://github.com/acme/fw/actions/runs/42"
    assert info.built_at == datetime(2024, 6, 1, 8, 30)  # no git checkout: the commit time is unknown, so now
    pull = dict(push, GITHUB_HEAD_REF="feature/x", GITHUB_REF_NAME="17/merge")
    assert resolve_build_info(env=pull, cwd=str(tmp_path), now=now).branch == "feature/x"
    tag = dict(push, GITHUB_REF_TYPE="tag", GITHUB_REF_NAME="v1.0")
    assert resolve_build_info(env=tag, cwd=str(tmp_path), now=now).branch == ""


def test_gitlab_ci_branch_merge_request_and_commit_time(tmp_path):
    env = {"GITLAB_CI": "true", "CI_COMMIT_SHA": SHA, "CI_COMMIT_BRANCH": "main",
           "CI_COMMIT_TIMESTAMP": "2024-02-03T04:05:06+01:00", "CI_JOB_URL": "https://gitlab.example/job/9"}
    info = resolve_build_info(env=env, cwd=str(tmp_path))
    assert (info.commit, info.branch, info.built_at) == (SHA, "main", datetime(2024, 2, 3, 3, 5, 6))
    assert info.build_url == "https://gitlab.example/job/9"
    merge_request = {k: v for k, v in env.items() if k != "CI_COMMIT_BRANCH"}
    merge_request["CI_MERGE_REQUEST_SOURCE_BRANCH_NAME"] = "feature/y"
    assert resolve_build_info(env=merge_request, cwd=str(tmp_path)).branch == "feature/y"


def test_jenkins_branch_names(tmp_path):
    now = datetime(2024, 1, 1, tzinfo=timezone.utc)
    env = {"JENKINS_URL": "https://ci.example/", "GIT_COMMIT": SHA, "GIT_BRANCH": "origin/main",
           "BUILD_URL": "https://ci.example/job/fw/7/"}
    info = resolve_build_info(env=env, cwd=str(tmp_path), now=now)
    assert (info.commit, info.branch, info.build_url) == (SHA, "main", "https://ci.example/job/fw/7/")
    assert resolve_build_info(env=dict(env, BRANCH_NAME="develop"), cwd=str(tmp_path), now=now).branch == "develop"
    assert resolve_build_info(env=dict(env, BRANCH_NAME="PR-5", CHANGE_BRANCH="feature/z"), cwd=str(tmp_path),
                              now=now).branch == "feature/z"


def test_ci_variables_count_only_inside_that_ci(tmp_path):
    with pytest.raises(SizeToolError, match="no commit: run inside a git checkout or a CI job, or pass --commit"):
        resolve_build_info(env={"GITHUB_SHA": SHA}, cwd=str(tmp_path))


def test_bad_commit_labels_and_times_are_errors():
    with pytest.raises(SizeToolError, match="expected a hexadecimal commit id"):
        resolve_build_info(commit="main", env={})
    for bad in (["board"], ["=x"], ["a b=c"]):
        with pytest.raises(SizeToolError, match="expected KEY=VALUE"):
            parse_labels(bad)
    with pytest.raises(SizeToolError, match="given twice"):
        parse_labels(["a=1", "a=2"])
    with pytest.raises(SizeToolError, match="not an ISO 8601 time"):
        parse_time("yesterday")


def test_times_without_a_zone_are_utc_and_label_order_does_not_matter():
    assert parse_time("2024-01-02") == datetime(2024, 1, 2)
    assert parse_time("2024-01-02T03:04:05Z") == datetime(2024, 1, 2, 3, 4, 5)
    assert labels_key({"b": "2", "a": "1"}) == labels_key({"a": "1", "b": "2"}) == '{"a":"1","b":"2"}'
