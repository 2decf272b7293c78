"""Reading the history: builds in series order, predecessors, deltas and movers, references, pruning.

A series is one branch with one label set; builds in a series are ordered by time (then by id), and a build's
predecessor is the one before it in its series. A build's stored changes were computed against its predecessor
when it was recorded; when that is no longer its predecessor (a build recorded later with an earlier time, or
pruned), the changes are computed again from the two stored reports.

Queries read what their command shows: `history show` the newest N builds (an index on the time) and one row per
series for their predecessors; the plot the summary columns, parts and changes of its builds; a report (the
large value, in its own table) only where a whole report is needed (diff, baselines, change repairs).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Iterable

from sizetool.errors import SizeToolError
from sizetool.history.schema import builds_table, reports_table
from sizetool.history.stored_report import changes_between, decode_json, decode_report
from sizetool.report.report_model import SizeReport

MOVERS = 3
STEP_BACK = re.compile(r"^(?P<branch>.+?)~(?P<back>\d+)$")


@dataclass(frozen=True)
class Build:
    """One recorded build without its report: the summary columns."""

    id: int
    commit: str
    branch: str
    labels_key: str
    built_at: datetime
    recorded_at: datetime
    source: str
    arch: str
    tool: str
    build_url: str
    rom_total: int
    ram_total: int
    min_symbol: int
    base_id: int | None
    labels: dict[str, str] = field(default_factory=dict, compare=False)

    @property
    def series(self) -> tuple[str, str]:
        return (self.branch, self.labels_key)

    @property
    def short(self) -> str:
        return self.commit[:10]

    def total(self, memory: str) -> int:
        return self.rom_total if memory == "rom" else self.ram_total

    def label_text(self) -> str:
        return ",".join(f"{key}={value}" for key, value in self.labels.items())

    def title(self) -> str:
        """How messages and diff headers name the build: its short commit, labels in brackets."""
        return self.short + (f"[{self.label_text()}]" if self.labels else "")


# The summary columns in the order of Build's fields, so a row becomes a Build positionally (10,000 rows for a plot).
SUMMARY_NAMES = ("id", "commit_sha", "branch", "labels", "built_at", "recorded_at", "source", "arch", "tool",
                 "build_url", "rom_total", "ram_total", "min_symbol", "base_id")
SUMMARY_COLUMNS = [builds_table.c[name] for name in SUMMARY_NAMES]


class DamagedRow(ValueError):
    """A stored value of the wrong type (SQLite keeps any type in any column, so a damaged file can hold anything);
    storage.HistoryDatabase turns it into one line naming the database."""


# The Python type each summary column reads back as (DateTime columns: datetime; base_id may be NULL).
SUMMARY_TYPES = (int, str, str, str, datetime, datetime, str, str, str, str, int, int, int, (int, type(None)))


def build_from_row(row, labels_cache: dict[str, dict[str, str]] | None = None) -> Build:
    """A Build from a row of SUMMARY_COLUMNS (or a mapping of the same names). Builds of one series share one label
    text, so a query reading many rows passes a cache and parses each label set once."""
    values = tuple(row[name] for name in SUMMARY_NAMES) if isinstance(row, dict) else tuple(row)
    for name, value, wanted in zip(SUMMARY_NAMES, values, SUMMARY_TYPES):
        if not isinstance(value, wanted) or isinstance(value, bool) or (type(value) is int and value < 0):
            raise DamagedRow(f"build {values[0]!r}: {name} holds {type(value).__name__} {str(value)[:40]!r}")
    text = values[3]
    labels = labels_cache.get(text) if labels_cache is not None else None
    if labels is None:
        labels = json.loads(text)
        if not isinstance(labels, dict) or not all(isinstance(v, str) for v in labels.values()):
            raise DamagedRow(f"build {values[0]}: labels are not a JSON object of strings")
        if labels_cache is not None:
            labels_cache[text] = labels
    return Build(*values, labels=dict(labels))


def check_changes(changes, build_id: int) -> dict:
    """A build's stored changes: {"rom"|"ram"|"ops": [[name, old bytes, new bytes], ...]}."""
    if not isinstance(changes, dict):
        raise DamagedRow(f"build {build_id}: its changes are not a JSON object")
    for kind, rows in changes.items():
        if not isinstance(rows, list) or not all(
                isinstance(row, list) and len(row) == 3 and isinstance(row[0], str)
                and all(type(v) is int for v in row[1:]) for row in rows):
            raise DamagedRow(f"build {build_id}: its {kind} changes are not [[name, old, new], ...]")
    return changes


def check_parts(parts, build_id: int) -> dict:
    """A build's parts column: {"rom"|"ram"|"ops": {name: bytes}} (NULL reads as empty)."""
    if parts is None:
        return {}
    if not isinstance(parts, dict):
        raise DamagedRow(f"build {build_id}: its parts are not a JSON object")
    for kind, sizes in parts.items():
        if not isinstance(sizes, dict) or not all(type(v) is int for v in sizes.values()):
            raise DamagedRow(f"build {build_id}: its {kind} parts are not {{name: bytes}}")
    return parts


def order_key(build: Build) -> tuple:
    return (build.built_at, build.id)


def list_builds(connection, branches: Iterable[str] | None = None, labels: dict[str, str] | None = None) -> list[Build]:
    """Every build (of these branches, carrying these labels), oldest first."""
    from sqlalchemy import select

    query = select(*SUMMARY_COLUMNS).order_by(builds_table.c.built_at, builds_table.c.id)
    branches = list(branches or [])
    if branches:
        query = query.where(builds_table.c.branch.in_(branches))
    cache: dict[str, dict[str, str]] = {}
    builds = [build_from_row(row, cache) for row in connection.execute(query).all()]
    if labels:
        builds = [b for b in builds if carries(b.labels, labels)]
    return builds


def carries(build_labels: dict[str, str], wanted: dict[str, str]) -> bool:
    """A build matches a --label filter when it carries every given label (it may carry more)."""
    return all(build_labels.get(key) == value for key, value in wanted.items())


def newest_builds(connection, limit: int, branches: Iterable[str] | None = None,
                  labels: dict[str, str] | None = None) -> tuple[list[Build], dict[int, Build | None]]:
    """The newest `limit` builds (of these branches, carrying these labels), newest first, and each one's
    predecessor in its series. Reads those rows and, per series, the row before its oldest shown build; the label
    filter picks among the distinct label sets (few) instead of reading every build."""
    from sqlalchemy import select

    c = builds_table.c
    branches = list(branches or [])
    query = select(*SUMMARY_COLUMNS).order_by(c.built_at.desc(), c.id.desc()).limit(limit)
    if branches:
        query = query.where(c.branch.in_(branches))
    if labels:
        label_sets = select(c.labels).distinct()
        if branches:
            label_sets = label_sets.where(c.branch.in_(branches))
        keys = [text for text in connection.execute(label_sets).scalars() if carries(json.loads(text), labels)]
        if not keys:
            return [], {}
        query = query.where(c.labels.in_(keys))
    cache: dict[str, dict[str, str]] = {}
    shown = [build_from_row(row, cache) for row in connection.execute(query).all()]
    previous: dict[int, Build | None] = {}
    last: dict[tuple[str, str], Build] = {}
    for build in reversed(shown):  # oldest first: each shown build follows the shown one before it in its series
        before = last.get(build.series)
        previous[build.id] = before if before is not None else neighbour(connection, build, before=True)
        last[build.series] = build
    return shown, previous


def series_builds(connection, branch: str, labels_key: str) -> list[Build]:
    from sqlalchemy import select

    query = (select(*SUMMARY_COLUMNS)
             .where(builds_table.c.branch == branch, builds_table.c.labels == labels_key)
             .order_by(builds_table.c.built_at, builds_table.c.id))
    return [build_from_row(row) for row in connection.execute(query)]


def neighbour(connection, build: Build, before: bool) -> Build | None:
    """The build just before (or after) this one in its series."""
    from sqlalchemy import and_, or_, select

    c = builds_table.c
    if before:
        position = or_(c.built_at < build.built_at, and_(c.built_at == build.built_at, c.id < build.id))
        order = (c.built_at.desc(), c.id.desc())
    else:
        position = or_(c.built_at > build.built_at, and_(c.built_at == build.built_at, c.id > build.id))
        order = (c.built_at, c.id)
    query = (select(*SUMMARY_COLUMNS).where(c.branch == build.branch, c.labels == build.labels_key, position)
             .order_by(*order).limit(1))
    row = connection.execute(query).first()
    return build_from_row(row) if row is not None else None


def predecessors(builds: list[Build]) -> dict[int, Build | None]:
    """Each build's predecessor in its series, for builds listed oldest first with whole series."""
    last: dict[tuple[str, str], Build] = {}
    out: dict[int, Build | None] = {}
    for build in builds:
        out[build.id] = last.get(build.series)
        last[build.series] = build
    return out


def build_report(connection, build: Build, source: str | None = None) -> SizeReport:
    """The stored report of a build, read back through report_from_dict."""
    from sqlalchemy import select

    blob = connection.execute(select(reports_table.c.report).where(reports_table.c.build_id == build.id)).scalar_one()
    try:
        return decode_report(blob, source or build.title())
    except SizeToolError as error:  # named after the build: the database's name comes with DamagedRow
        raise DamagedRow(f"build {build.id}: {error}") from None


CHUNK = 5000  # ids per IN (...) list: well under SQLite's and PostgreSQL's limits on bound parameters


def stored_columns(connection, ids: list[int], *names: str) -> dict[int, tuple]:
    """The named columns of size_builds per build id, read in chunks (a plot may ask for every build)."""
    from sqlalchemy import select

    columns = [builds_table.c[name] for name in names]
    out: dict[int, tuple] = {}
    for start in range(0, len(ids), CHUNK):
        query = select(builds_table.c.id, *columns).where(builds_table.c.id.in_(ids[start:start + CHUNK]))
        for build_id, *values in connection.execute(query).all():
            out[build_id] = tuple(values)
    return out


def changes_for(connection, builds: list[Build], previous: dict[int, Build | None],
                stored: dict[int, tuple] | None = None) -> dict[int, dict | None]:
    """The changes of each build against its predecessor (None for the first of a series). `stored` may hold each
    build's (base_id, changes) already read with other columns."""
    if stored is None:
        stored = stored_columns(connection, [b.id for b in builds if previous.get(b.id) is not None],
                                "base_id", "changes")
    out: dict[int, dict | None] = {}
    for build in builds:
        before = previous.get(build.id)
        if before is None:
            out[build.id] = None
            continue
        base_id, blob = stored.get(build.id, (None, None))[:2]
        if base_id == before.id and blob is not None:
            try:
                out[build.id] = check_changes(decode_json(blob, build.title), build.id)
            except SizeToolError as error:
                raise DamagedRow(f"build {build.id}: {error}") from None
        else:
            out[build.id] = changes_between(build_report(connection, before), build_report(connection, build))
    return out


def movers(changes: dict | None, kind: str = "rom", count: int = MOVERS) -> list[tuple[str, int]]:
    """The largest changes of one kind ("rom", "ram" or "ops") as (name, delta), largest first."""
    if not changes:
        return []
    return [(name, new - old) for name, old, new in changes.get(kind, [])[:count]]


# --- references: how a command names a build -------------------------------------------------------------------------


def resolve_reference(builds: list[Build], reference: str, database: str) -> Build:
    """A build named by `#ID`, `BRANCH` (its newest build), `BRANCH~N` (N builds before that), or a commit prefix.

    `builds` is what the command may choose from (already filtered by --label); ambiguity is an error that lists the
    candidates."""
    reference = reference.strip()
    if reference.startswith("#") and reference[1:].isdigit():
        found = [b for b in builds if b.id == int(reference[1:])]
        if not found:
            raise SizeToolError(f"{database}: no build {reference}")
        return found[0]
    step = STEP_BACK.match(reference)
    branch, back = (step.group("branch"), int(step.group("back"))) if step else (reference, 0)
    on_branch = [b for b in builds if b.branch == branch]
    if on_branch:
        series = {b.labels_key for b in on_branch}
        if len(series) > 1:
            raise SizeToolError(f"{database}: branch {branch} has builds with {len(series)} label sets; "
                                f"choose one with --label ({_label_sets(on_branch)})")
        if back >= len(on_branch):
            raise SizeToolError(f"{database}: branch {branch} has only {len(on_branch)} recorded builds")
        return on_branch[-1 - back]
    if re.fullmatch(r"[0-9a-fA-F]{4,64}", reference):
        found = [b for b in builds if b.commit.startswith(reference.lower())]
        if len(found) == 1:
            return found[0]
        if len(found) > 1:
            raise SizeToolError(f"{database}: {reference} names {len(found)} builds "
                                f"({', '.join(b.title() + ' on ' + (b.branch or '-') for b in found[:5])}); "
                                "give more of the commit or --label")
    raise SizeToolError(f"{database}: no recorded build matches {reference!r} (give a commit, a branch, BRANCH~N or "
                        "#ID; see size-report history show)")


def _label_sets(builds: list[Build]) -> str:
    sets = sorted({b.label_text() or "no labels" for b in builds})
    return "; ".join(sets[:5]) + ("; ..." if len(sets) > 5 else "")


# --- pruning ---------------------------------------------------------------------------------------------------------


def builds_to_prune(builds: list[Build], keep: int | None, older_than: datetime | None) -> list[Build]:
    """Builds beyond the `keep` newest of their series, and (with older_than) builds from before that time; the
    newest build of a series always stays, so a branch's baseline never disappears."""
    by_series: dict[tuple[str, str], list[Build]] = {}
    for build in builds:
        by_series.setdefault(build.series, []).append(build)
    doomed = []
    for series in by_series.values():
        series.sort(key=order_key)
        for index, build in enumerate(series):
            from_newest = len(series) - 1 - index
            if from_newest == 0:
                continue
            if (keep is not None and from_newest >= keep) or (older_than is not None and build.built_at < older_than):
                doomed.append(build)
    return doomed
