"""The history database's tables, as SQLAlchemy Core metadata: what the code queries and what the migrations build.

A change to these tables needs a new Alembic revision in migrations/versions/ (and SCHEMA_VERSION moves to it): the
tables here must always equal what the newest revision creates (tests/sizetool/history/test_storage.py checks that).

- size_history_meta: key/value rows; `application` marks the database as ours.
- size_builds: one row per recorded build, unique per (commit, label set): the summary columns that the table, plot
  and baseline queries filter and order by, the trimmed saved-report JSON (zlib), and the changes against the
  build's predecessor in its series (branch + labels), computed when it was recorded.
- size_build_parts: the build's ROM and RAM by path prefix (depth 1 and 2) and its operators' exclusive bytes: what
  the plot stacks, readable with plain SQL by a dashboard.
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Column,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    SmallInteger,
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
    Column("report", LargeBinary, nullable=False),  # zlib-compressed saved-report JSON (report_to_dict)
    Column("base_id", Integer, nullable=True),  # the build `changes` was computed against
    Column("changes", LargeBinary, nullable=True),  # zlib-compressed JSON: per-file and per-operator deltas
    UniqueConstraint("commit_sha", "labels", name="uq_size_builds_commit_labels"),
    Index("ix_size_builds_series", "branch", "labels", "built_at"),
    sqlite_autoincrement=True,  # ids are never reused, so a stored base_id never names a newer build
)

parts_table = Table(
    "size_build_parts",
    metadata,
    Column("build_id", Integer, ForeignKey("size_builds.id", ondelete="CASCADE"), primary_key=True),
    Column("kind", String(8), primary_key=True),  # "rom", "ram" (by path) or "op" (exclusive bytes per operator)
    Column("name", String(1000), primary_key=True),
    Column("depth", SmallInteger, nullable=False),  # path depth (1 or 2); 1 for operators
    Column("bytes", BigInteger, nullable=False),
)
