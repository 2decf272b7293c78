"""`history prune`: retention. Drops builds beyond the newest N of each series and/or older than some days, under
the writers' lock, repairs the changes of the builds that lost their predecessor, then gives the space back
(SQLite VACUUM, so a cached database file shrinks; PostgreSQL's autovacuum does this on its own)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from sizetool.history.queries import builds_to_prune, list_builds
from sizetool.history.schema import builds_table
from sizetool.history.storage import HistoryDatabase

CHUNK = 500


def prune_history(database: HistoryDatabase, keep: int | None, older_than_days: int | None,
                  branches: list[str] | None = None, dry_run: bool = False,
                  now: datetime | None = None) -> tuple[int, int]:
    """(builds dropped, builds remaining)."""
    from sqlalchemy import func, select

    from sizetool.history.record import delete_builds, repair_orphans

    cutoff = None
    if older_than_days is not None:
        cutoff = (now or datetime.now(timezone.utc)).astimezone(timezone.utc).replace(tzinfo=None) \
            - timedelta(days=older_than_days)
    with database.writing() as connection:
        builds = list_builds(connection, branches)
        doomed = builds_to_prune(builds, keep, cutoff)
        total = connection.execute(select(func.count()).select_from(builds_table)).scalar_one()
        if dry_run or not doomed:
            return len(doomed), total - len(doomed)
        ids = [b.id for b in doomed]
        for start in range(0, len(ids), CHUNK):
            delete_builds(connection, ids[start:start + CHUNK])
        repair_orphans(connection)
    if database.dialect == "sqlite":
        raw = database.engine.raw_connection()  # VACUUM cannot run inside a transaction; raw pysqlite autocommits
        try:
            raw.execute("VACUUM")
        finally:
            raw.close()
    return len(doomed), total - len(doomed)
