"""Recording a build: one transaction under the writers' lock, so parallel CI jobs lose nothing.

Steps: drop the row of the same commit and label set if there is one (a re-run job replaces its build), insert the
build (summary columns and parts) and its trimmed report, compute its changes against its predecessor in its series, and
recompute the changes of the builds whose predecessor this insertion changed (its successor, and the successor of
the replaced row).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone

from sizetool import __version__
from sizetool.history.build_info import BuildInfo, to_utc
from sizetool.history.queries import Build, build_from_row, build_report, neighbour
from sizetool.history.schema import builds_table, reports_table
from sizetool.history.storage import HistoryDatabase
from sizetool.history.stored_report import changes_between, encode_json, encode_report, report_parts, trim_report
from sizetool.report.report_model import SizeReport


@dataclass(frozen=True)
class RecordOutcome:
    id: int
    replaced: bool
    previous: Build | None  # the build's predecessor in its series
    stored_bytes: int  # compressed report + changes


def record_report(database: HistoryDatabase, report: SizeReport, info: BuildInfo, min_symbol: int,
                  recorded_at: datetime | None = None) -> RecordOutcome:
    import os

    from sqlalchemy import insert, select

    trimmed = trim_report(report, min_symbol)
    blob = encode_report(trimmed)
    row = {
        "commit_sha": info.commit,
        "branch": info.branch,
        "labels": info.labels_key,
        "built_at": info.built_at,
        "recorded_at": to_utc(recorded_at or datetime.now(timezone.utc)),
        "source": os.path.basename(report.source)[:255],
        "arch": report.arch[:64],
        "tool": f"size-report {__version__}"[:64],
        "build_url": info.build_url[:1000],
        "rom_total": report.rom_total,
        "ram_total": report.ram_total,
        "min_symbol": min_symbol,
        "base_id": None,
        "changes": None,
        **report_parts(trimmed),
    }
    with database.writing() as connection:
        old_id = connection.execute(select(builds_table.c.id).where(
            builds_table.c.commit_sha == info.commit, builds_table.c.labels == info.labels_key)).scalar_one_or_none()
        if old_id is not None:
            delete_builds(connection, [old_id])
        new_id = connection.execute(insert(builds_table).values(**row)).inserted_primary_key[0]
        connection.execute(insert(reports_table).values(build_id=new_id, report=blob))
        build = build_from_row(dict(row, id=new_id))
        previous, following = neighbour(connection, build, before=True), neighbour(connection, build, before=False)
        changes_size = 0
        if previous is not None:
            changes_size = _store_changes(connection, new_id, previous, build_report(connection, previous), trimmed)
        if following is not None:
            _store_changes(connection, following.id, build, trimmed, build_report(connection, following))
        if old_id is not None:
            repair_orphans(connection)
    return RecordOutcome(id=new_id, replaced=old_id is not None, previous=previous,
                         stored_bytes=len(blob) + changes_size)


def delete_builds(connection, ids: list[int]) -> None:
    """Drop builds with their reports (explicitly: SQLite enforces no foreign keys unless asked per connection)."""
    from sqlalchemy import delete

    connection.execute(delete(reports_table).where(reports_table.c.build_id.in_(ids)))
    connection.execute(delete(builds_table).where(builds_table.c.id.in_(ids)))


def _store_changes(connection, build_id: int, base: Build, old: SizeReport, new: SizeReport) -> int:
    from sqlalchemy import update

    blob = encode_json(changes_between(old, new))
    connection.execute(update(builds_table).where(builds_table.c.id == build_id).values(base_id=base.id, changes=blob))
    return len(blob)


def repair_orphans(connection) -> None:
    """Builds whose changes were computed against a build that is gone (replaced or pruned): recomputed against
    their predecessor now, or cleared when they have none."""
    from sqlalchemy import select, update

    from sizetool.history.queries import SUMMARY_COLUMNS, build_from_row

    existing = select(builds_table.c.id)
    orphans = [build_from_row(row) for row in connection.execute(
        select(*SUMMARY_COLUMNS).where(builds_table.c.base_id.is_not(None), builds_table.c.base_id.not_in(existing)))]
    for orphan in orphans:
        previous = neighbour(connection, orphan, before=True)
        if previous is not None:
            _store_changes(connection, orphan.id, previous, build_report(connection, previous),
                           build_report(connection, orphan))
        else:
            connection.execute(update(builds_table).where(builds_table.c.id == orphan.id).values(
                base_id=None, changes=None))
