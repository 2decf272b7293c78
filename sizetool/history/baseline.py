"""`size-report check BUILD --baseline db:DB@BRANCH[,KEY=VALUE...]`: the baseline report from the size history.

The baseline is the build of BRANCH at the merge-base of HEAD and BRANCH when git can tell it (the nearest
recorded commit on its first-parent line, so a commit that never had a CI run is skipped), else the newest recorded
build of BRANCH. When HEAD is itself on BRANCH (a push to main), HEAD's own build is skipped: the baseline is the
build before it. Labels pick one series when BRANCH has builds of several label sets (boards, configurations).
The DB part is a SQLite path or a postgresql:// URL; the branch follows the last '@'.
"""

from __future__ import annotations

from sizetool.errors import SizeToolError
from sizetool.history.build_info import git, parse_labels
from sizetool.report.report_model import SizeReport

PREFIX = "db:"
FIRST_PARENT_DEPTH = 500  # how far back from the merge-base to look for a recorded commit


def is_history_baseline(spec: str) -> bool:
    return spec.startswith(PREFIX)


def parse_baseline(spec: str) -> tuple[str, str, dict[str, str]]:
    """(database, branch, labels) of `db:DB@BRANCH[,KEY=VALUE...]`."""
    body = spec[len(PREFIX):]
    database, at, rest = body.rpartition("@")
    if not at or not database or not rest:
        raise SizeToolError(f"--baseline {spec!r}: expected db:DATABASE@BRANCH (e.g. db:sizes.db@main)")
    branch, *labels = rest.split(",")
    if not branch:
        raise SizeToolError(f"--baseline {spec!r}: no branch after '@'")
    return database, branch, parse_labels(labels)


def load_history_baseline(spec: str, cwd: str | None = None) -> SizeReport:
    from sizetool.history.queries import build_report, list_builds
    from sizetool.history.storage import history_database

    database_spec, branch, labels = parse_baseline(spec)
    with history_database(database_spec) as database, database.reading() as connection:
        builds = list_builds(connection, [branch], labels)
        if not builds:
            raise SizeToolError(f"{database.name}: no recorded build of branch {branch}"
                                + (f" with labels {','.join(f'{k}={v}' for k, v in labels.items())}" if labels else ""))
        series = {b.labels_key for b in builds}
        if len(series) > 1:
            choices = sorted({b.label_text() or "(no labels)" for b in builds})
            raise SizeToolError(f"{database.name}: branch {branch} has builds of {len(series)} label sets "
                                f"({'; '.join(choices[:5])}): add them to the baseline, e.g. "
                                f"db:{database_spec}@{branch},{choices[0] if '=' in choices[0] else 'KEY=VALUE'}")
        chosen, how = choose_baseline(builds, branch, cwd)
        return build_report(connection, chosen, source=f"{database.name}@{branch} {chosen.title()} ({how})")


def choose_baseline(builds, branch: str, cwd: str | None = None):
    """The build to compare against and how it was chosen ("merge-base" or "newest on BRANCH")."""
    head = git(["rev-parse", "HEAD"], cwd)
    by_commit = {b.commit: b for b in builds}
    base = ""
    for ref in (f"origin/{branch}", branch):
        if head and git(["rev-parse", "--verify", "--quiet", ref + "^{commit}"], cwd):
            base = git(["merge-base", "HEAD", ref], cwd)
            if base:
                break
    if base:
        line = git(["rev-list", f"--max-count={FIRST_PARENT_DEPTH}", "--first-parent", base], cwd).split()
        for commit in line:
            if commit != head and commit in by_commit:
                return by_commit[commit], "merge-base" if commit == base else "merge-base ancestor"
    newest = [b for b in builds if b.commit != head] or builds
    return newest[-1], f"newest on {branch}"
