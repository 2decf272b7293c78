"""Who a build is: commit, branch, time, labels and a link to the CI job, so `history record BUILD --db DB` is one line.

Each value comes from the first of: the command-line option; the CI system's variables (GitHub Actions, GitLab CI,
Jenkins); git in the current directory. Time defaults to the commit's committer time (stable when a job is re-run,
and in commit order), then to now. All times are stored in UTC.

    GitHub Actions  GITHUB_SHA; GITHUB_HEAD_REF (pull requests) or GITHUB_REF_NAME; the run's URL
    GitLab CI       CI_COMMIT_SHA; CI_COMMIT_BRANCH or CI_MERGE_REQUEST_SOURCE_BRANCH_NAME; CI_COMMIT_TIMESTAMP;
                    CI_JOB_URL
    Jenkins         GIT_COMMIT; CHANGE_BRANCH (pull requests), BRANCH_NAME or GIT_BRANCH (origin/ dropped); BUILD_URL
"""

from __future__ import annotations

import json
import re
import subprocess
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Mapping

from sizetool.errors import SizeToolError

LABEL_KEY = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
COMMIT = re.compile(r"^[0-9a-fA-F]{4,64}$")
GIT_TIMEOUT_SECONDS = 20


@dataclass(frozen=True)
class BuildInfo:
    commit: str
    branch: str
    built_at: datetime  # UTC, naive (what the database stores)
    labels: dict[str, str] = field(default_factory=dict)
    build_url: str = ""

    @property
    def labels_key(self) -> str:
        return labels_key(self.labels)


def labels_key(labels: Mapping[str, str]) -> str:
    """The canonical text of a label set: a build is unique per commit and this text."""
    return json.dumps(dict(sorted(labels.items())), separators=(",", ":"), ensure_ascii=False)


def parse_labels(items: list[str] | None) -> dict[str, str]:
    labels: dict[str, str] = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not LABEL_KEY.match(key):
            raise SizeToolError(f"--label {item!r}: expected KEY=VALUE (KEY: letters, digits, '_', '-', '.')")
        if key in labels:
            raise SizeToolError(f"--label {key}: given twice")
        labels[key] = value.strip()
    return labels


def parse_time(text: str, what: str = "--time") -> datetime:
    """An ISO 8601 time (a date alone is midnight; no zone means UTC) as naive UTC."""
    try:
        value = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise SizeToolError(f"{what} {text!r}: not an ISO 8601 time (e.g. 2024-05-01T12:30:00Z)") from None
    return to_utc(value)


def to_utc(value: datetime) -> datetime:
    if value.tzinfo is not None:
        value = value.astimezone(timezone.utc).replace(tzinfo=None)
    return value.replace(microsecond=0)


def resolve_build_info(
    commit: str | None = None,
    branch: str | None = None,
    time: str | None = None,
    labels: list[str] | None = None,
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
    now: datetime | None = None,
) -> BuildInfo:
    """The build's identity from options, then CI variables, then git; SizeToolError when no commit can be found."""
    import os

    env = os.environ if env is None else env
    ci = ci_values(env)
    commit = commit or ci.get("commit") or git(["rev-parse", "HEAD"], cwd)
    if not commit:
        raise SizeToolError("no commit: run inside a git checkout or a CI job, or pass --commit SHA")
    commit = commit.strip()
    if not COMMIT.match(commit):
        raise SizeToolError(f"--commit {commit!r}: expected a hexadecimal commit id")
    commit = commit.lower()
    if branch is None:
        branch = ci.get("branch") or _git_branch(cwd)
    if time:
        built_at = parse_time(time)
    elif ci.get("time"):
        built_at = parse_time(ci["time"], "CI_COMMIT_TIMESTAMP")
    else:
        committed = git(["show", "-s", "--format=%cI", commit + "^{commit}"], cwd)  # a tree or blob id is no commit
        built_at = parse_time(committed, "git commit time") if committed else to_utc(now or datetime.now(timezone.utc))
    return BuildInfo(commit=commit, branch=branch.strip(), built_at=built_at, labels=parse_labels(labels),
                     build_url=ci.get("url", ""))


def ci_values(env: Mapping[str, str]) -> dict[str, str]:
    """Commit, branch, time and job URL from the CI system's variables (empty when not in a known CI)."""
    if env.get("GITHUB_ACTIONS") == "true":
        branch = env.get("GITHUB_HEAD_REF") or (
            env.get("GITHUB_REF_NAME", "") if env.get("GITHUB_REF_TYPE", "branch") == "branch" else "")
        url = ""
        if env.get("GITHUB_SERVER_URL") and env.get("GITHUB_REPOSITORY") and env.get("GITHUB_RUN_ID"):
            url = f"{env['GITHUB_SERVER_URL']}/{env['GITHUB_REPOSITORY']}/actions/runs/{env['GITHUB_RUN_ID']}"
        return _present(commit=env.get("GITHUB_SHA", ""), branch=branch, url=url)
    if env.get("GITLAB_CI") == "true":
        branch = env.get("CI_COMMIT_BRANCH") or env.get("CI_MERGE_REQUEST_SOURCE_BRANCH_NAME", "")
        return _present(commit=env.get("CI_COMMIT_SHA", ""), branch=branch, time=env.get("CI_COMMIT_TIMESTAMP", ""),
                        url=env.get("CI_JOB_URL", ""))
    if env.get("JENKINS_URL") or env.get("JENKINS_HOME"):
        branch = env.get("CHANGE_BRANCH") or env.get("BRANCH_NAME") or env.get("GIT_BRANCH", "")
        branch = re.sub(r"^(refs/heads/|origin/)", "", branch)
        return _present(commit=env.get("GIT_COMMIT", ""), branch=branch, url=env.get("BUILD_URL", ""))
    return {}


def _present(**values: str) -> dict[str, str]:
    return {key: value for key, value in values.items() if value}


def _git_branch(cwd: str | None) -> str:
    name = git(["rev-parse", "--abbrev-ref", "HEAD"], cwd)
    return "" if not name or name == "HEAD" else name  # "HEAD": a detached checkout has no branch


def git(arguments: list[str], cwd: str | None = None) -> str:
    """git's answer, stripped, or "" when git is missing, this is not a checkout, or git says no."""
    try:
        result = subprocess.run(["git", *arguments], cwd=cwd, capture_output=True, text=True,
                                timeout=GIT_TIMEOUT_SECONDS)
    except (OSError, subprocess.SubprocessError):
        return ""
    return result.stdout.strip() if result.returncode == 0 else ""
