"""The history database's tables, as SQLAlchemy Core metadata: what the code queries and what the migrations build.

A change to these tables needs a new Alembic revision in migrations/versions/ (and SCHEMA_VERSION moves to it): the
tables here must always equal what the newest revision creates (tests/sizetool/history/test_storage.py checks that).

- size_history_meta: key/value rows; `application` marks the database as ours.
- size_builds: one row per recorded build, unique per (commit, label set): the summary columns that the table, plot
  and baseline queries filter and order by; what the plot stacks as JSON objects, one value per build instead of
  ~25 rows (`parts`: ROM and RAM by top-level path and ROM by operator; `parts_depth2`: by two path levels, read only
  for `--depth 2`); and the changes against the build's predecessor in its series (branch + labels), computed when
  it was recorded.
- size_build_reports: the trimmed saved-report JSON (zlib) of each build, kept out of size_builds so that listing,
  plotting and ordering builds never reads the large reports (only diff, baselines and change repairs do).
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Column,
    DateTime,
    JSON,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    UniqueConstraint,
)

SCHEMA_VERSION = "0001"  # the Alembic head revision the code is written for
VERSION_TABLE = "size_history_version"  # not "alembic_version", which a shared database may use for its own schema
APPLICATION = "size-report history"

metadata = MetaData()

# Alembic's own table, read without importing Alembic (opening a database at the current version needs no migration
# machinery); not part of `metadata`, since Alembic creates and owns it.
version_table = Table(VERSION_TABLE, MetaData(), Column("version_num", String(32), primary_key=True))

meta_table = Table(
    "size_history_meta",
    metadata,
    Column("key", String(64), primary_key=True),
    Column("value", String(255), nullable=False),
)

builds_table = Table(
    "size_builds",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("commit_sha", String(64), nullable=False),
    Column("branch", String(255), nullable=False),
    Column("labels", String(1000), nullable=False),  # canonical JSON object, sorted keys; "{}" without labels
    Column("built_at", DateTime(), nullable=False),  # UTC
    Column("recorded_at", DateTime(), nullable=False),  # UTC
    Column("source", String(255), nullable=False),
    Column("arch", String(64), nullable=False),
    Column("tool", String(64), nullable=False),
    Column("build_url", String(1000), nullable=False),
    Column("rom_total", BigInteger, nullable=False),
    Column("ram_total", BigInteger, nullable=False),
    Column("min_symbol", Integer, nullable=False),  # symbols below this many bytes are folded per file
    Column("base_id", Integer, nullable=True),  # the build `changes` was computed against
    Column("parts", JSON, nullable=False),  # {"rom": {top-level path: bytes}, "ram": {...}, "ops": {operator: bytes}}
    Column("parts_depth2", JSON, nullable=False),  # {"rom": {"dir/sub": bytes}, "ram": {...}}
    Column("changes", LargeBinary, nullable=True),  # zlib-compressed JSON: per-file and per-operator deltas
    UniqueConstraint("commit_sha", "labels", name="uq_size_builds_commit_labels"),
    Index("ix_size_builds_series", "branch", "labels", "built_at"),
    Index("ix_size_builds_time", "built_at", "id"),  # `history show`: the newest N builds without a full scan
    sqlite_autoincrement=True,  # ids are never reused, so a stored base_id never names a newer build
)

reports_table = Table(
    "size_build_reports",
    metadata,
    Column("build_id", Integer, ForeignKey("size_builds.id", ondelete="CASCADE"), primary_key=True),
    Column("report", LargeBinary, nullable=False),  # zlib-compressed saved-report JSON (report_to_dict)
)
