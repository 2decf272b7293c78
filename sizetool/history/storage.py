"""Opening a history database: a SQLite file by path, or a PostgreSQL server by URL.

open_history() checks, before it writes anything, that the database is ours (or empty), that its schema is not newer
than this tool knows, and that it can connect; each failure is one SizeToolError line naming the database (a URL's
password is never shown). An empty database, or one at an older schema version, is brought to the current version
by the Alembic revisions in migrations/, inside the same lock that serialises writers, so two CI jobs that start on
a fresh database at once create it once.

Writers (record, prune, upgrades) take a database-wide lock for their whole transaction: SQLite's BEGIN IMMEDIATE
(with a busy timeout, so the second writer waits instead of failing), PostgreSQL's transaction-level advisory lock.
Readers take no lock.
"""

from __future__ import annotations

import os
import sqlite3
import zlib
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Iterator

from sizetool.errors import SizeToolError

SQLITE_HEADER = b"SQLite format 3\x00"
BUSY_TIMEOUT_SECONDS = 120  # how long a writer waits for another (a CI job recording at the same time)
CONNECT_TIMEOUT_SECONDS = 10
ADVISORY_LOCK_KEY = 0x73697A65  # "size": the PostgreSQL advisory lock all history writers share
WRITE_OPTION = "sizetool_history_write"
MIGRATIONS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "migrations")
# What damaged rows raise while they are read: text that is not UTF-8, JSON columns that do not parse, a time that is
# not a time, a number column holding text (SQLite keeps any type in any column), a zlib blob that does not inflate.
DAMAGED_CONTENT = (UnicodeError, ValueError, TypeError, KeyError, IndexError, OverflowError, AttributeError,
                   RecursionError, sqlite3.Error, zlib.error)


@dataclass
class HistoryDatabase:
    """An open history database: its SQLAlchemy engine and the name to show in messages."""

    engine: object  # sqlalchemy.Engine
    name: str
    dialect: str  # "sqlite" or "postgresql"

    @contextmanager
    def reading(self) -> Iterator:
        """A connection for queries (one transaction, so a query sees one state of the database)."""
        with self._errors():
            with self.engine.connect() as connection:
                with connection.begin():
                    yield connection

    @contextmanager
    def writing(self) -> Iterator:
        """A transaction holding the writers' lock; committed when the block ends, rolled back on an error."""
        with self._errors():
            with self.engine.connect() as connection:
                connection = connection.execution_options(**{WRITE_OPTION: True})
                with connection.begin():
                    if self.dialect == "postgresql":
                        from sqlalchemy import func, select

                        connection.execute(select(func.pg_advisory_xact_lock(ADVISORY_LOCK_KEY)))
                    yield connection

    @contextmanager
    def _errors(self) -> Iterator:
        from sqlalchemy.exc import SQLAlchemyError

        try:
            yield
        except SQLAlchemyError as error:
            raise SizeToolError(f"{self.name}: {_describe(error)}") from None
        except DAMAGED_CONTENT as error:
            raise damaged(self.name, error) from None

    def close(self) -> None:
        self.engine.dispose()


def open_history(db: str, *, create: bool = False) -> HistoryDatabase:
    """Open (with create: make when missing) a history database; the caller closes it.

    Without create, a missing SQLite file or an empty database is an error: reading commands never make one."""
    from sqlalchemy.exc import SQLAlchemyError

    database, created_file = _engine(db, create)
    try:
        _prepare_schema(database, create)
    except SQLAlchemyError as error:
        database.close()
        _remove_created(created_file)
        raise SizeToolError(f"{database.name}: {_describe(error)}") from None
    except DAMAGED_CONTENT as error:
        database.close()
        raise damaged(database.name, error) from None
    except BaseException:
        database.close()
        _remove_created(created_file)
        raise
    return database


@contextmanager
def history_database(db: str, *, create: bool = False) -> Iterator[HistoryDatabase]:
    database = open_history(db, create=create)
    try:
        yield database
    finally:
        database.close()


def _engine(db: str, create: bool) -> tuple[HistoryDatabase, str | None]:
    """The engine for a path or URL, and the SQLite file this call is about to create (removed again on failure)."""
    from sqlalchemy import create_engine
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    if not db:
        raise SizeToolError("--db: give a SQLite file (sizes.db) or a postgresql:// URL")
    if "://" in db:
        try:
            url = make_url(db)
        except ArgumentError:
            raise SizeToolError(f"{db}: not a database URL (expected postgresql://USER@HOST/DATABASE)") from None
        name = url.render_as_string(hide_password=True)
        backend = url.get_backend_name()
        if backend == "sqlite":
            path = url.database or ""
            if not path or path == ":memory:":
                raise SizeToolError(f"{name}: give a SQLite file (an in-memory database keeps nothing)")
            return _sqlite(path, create, name)
        if backend != "postgresql":
            raise SizeToolError(f"{name}: unsupported database '{backend}' (use a SQLite file or a postgresql:// URL)")
        if url.drivername == "postgresql":
            url = url.set(drivername="postgresql+psycopg")
        try:
            engine = create_engine(url, connect_args={"connect_timeout": CONNECT_TIMEOUT_SECONDS},
                                   json_serializer=compact_json)
        except ModuleNotFoundError as error:
            raise SizeToolError(f"{name}: the PostgreSQL driver ({error.name}) is not installed: "
                                "pip install 'tflm-size-toolkit[postgresql]'") from None
        except ArgumentError as error:
            raise SizeToolError(f"{name}: {_first_line(error)}") from None
        return HistoryDatabase(engine, name, "postgresql"), None
    return _sqlite(db, create, db)


def compact_json(value) -> str:
    """How JSON columns (a build's parts) are written: no spaces, names as they are."""
    import json

    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _sqlite(path: str, create: bool, name: str) -> tuple[HistoryDatabase, str | None]:
    from sqlalchemy import create_engine, event

    created = None
    if os.path.isdir(path):
        raise SizeToolError(f"{name}: is a directory, not a history database")
    if os.path.exists(path):
        try:
            with open(path, "rb") as stream:
                header = stream.read(len(SQLITE_HEADER))
        except OSError as error:
            raise SizeToolError(f"{name}: cannot read ({error.strerror or error})") from None
        if header and header != SQLITE_HEADER:
            raise SizeToolError(f"{name}: not a size history database (not an SQLite file)")
    elif not create:
        raise SizeToolError(f"{name}: no such history database (record a build first: size-report history record)")
    else:
        directory = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(directory):
            raise SizeToolError(f"{name}: cannot create the database (no directory {directory})")
        created = path
    engine = create_engine(f"sqlite+pysqlite:///{os.path.abspath(path)}",
                           connect_args={"timeout": BUSY_TIMEOUT_SECONDS}, json_serializer=compact_json)

    @event.listens_for(engine, "connect")
    def _no_implicit_transactions(dbapi_connection, _record):
        dbapi_connection.isolation_level = None  # the "begin" listener below says how each transaction starts

    @event.listens_for(engine, "begin")
    def _begin(connection):
        # A writer takes the write lock at BEGIN, so two writers queue instead of one failing on a lock upgrade.
        immediate = connection.get_execution_options().get(WRITE_OPTION)
        connection.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")

    return HistoryDatabase(engine, name, "sqlite"), created


def _remove_created(path: str | None) -> None:
    if path:
        for leftover in (path, path + "-journal"):
            try:
                os.unlink(leftover)
            except OSError:
                pass


# --- schema state and upgrades ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SchemaState:
    empty: bool
    version: str | None  # the Alembic revision recorded in the database


def _prepare_schema(database: HistoryDatabase, create: bool) -> None:
    """Refuse a foreign or newer database; create or upgrade ours (under the writers' lock, re-checked there)."""
    from sizetool.history.schema import SCHEMA_VERSION

    with _connect(database) as connection:
        state = schema_state(connection, database.name)
    if state.empty and not create:
        raise SizeToolError(f"{database.name}: holds no size history yet (record a build first: "
                            "size-report history record)")
    if state.version == SCHEMA_VERSION:
        return
    with database.writing() as connection:
        state = schema_state(connection, database.name)
        if state.version != SCHEMA_VERSION:
            upgrade_schema(connection, state)


@contextmanager
def _connect(database: HistoryDatabase) -> Iterator:
    from sqlalchemy.exc import OperationalError, InterfaceError

    try:
        connection = database.engine.connect()
    except (OperationalError, InterfaceError) as error:
        raise SizeToolError(f"{database.name}: cannot connect ({_first_line(error)})") from None
    try:
        with connection.begin():
            yield connection
    finally:
        connection.close()


def schema_state(connection, name: str) -> SchemaState:
    """What the database holds: nothing, or our tables at some version. Anything else is a SizeToolError."""
    from sqlalchemy import inspect, select

    from sizetool.history.schema import APPLICATION, VERSION_TABLE, meta_table, version_table

    tables = set(inspect(connection).get_table_names())
    if not tables:
        return SchemaState(empty=True, version=None)
    if meta_table.name not in tables or VERSION_TABLE not in tables:
        listed = ", ".join(sorted(tables)[:5]) + (", ..." if len(tables) > 5 else "")
        raise SizeToolError(f"{name}: not a size history database (it holds other tables: {listed}); "
                            "give a new file or an empty database")
    application = connection.execute(
        select(meta_table.c.value).where(meta_table.c.key == "application")).scalar_one_or_none()
    if application != APPLICATION:
        raise SizeToolError(f"{name}: not a size history database (its {meta_table.name} says "
                            f"{application!r}, not {APPLICATION!r})")
    versions = [row[0] for row in connection.execute(select(version_table.c.version_num))]
    if len(versions) != 1:
        raise SizeToolError(f"{name}: damaged size history database ({len(versions)} schema versions recorded)")
    version = versions[0]
    if not isinstance(version, str) or not version.isdigit():
        raise SizeToolError(f"{name}: damaged size history database (schema version {str(version)[:20]!r})")
    if version not in known_versions():
        from sizetool.history.schema import SCHEMA_VERSION

        raise SizeToolError(f"{name}: schema version {version} is newer than this size-report knows "
                            f"({SCHEMA_VERSION}): upgrade tflm-size-toolkit")
    return SchemaState(empty=False, version=version)


def _alembic_config(connection=None):
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", MIGRATIONS_DIR)
    if connection is not None:
        config.attributes["connection"] = connection
    return config


def known_versions() -> set[str]:
    """The schema versions this tool has revisions for: the NNNN_*.py files of migrations/versions (read by name, so
    opening a database at the current version needs no Alembic import; a test checks Alembic agrees)."""
    directory = os.path.join(MIGRATIONS_DIR, "versions")
    return {name.split("_", 1)[0] for name in os.listdir(directory)
            if name.endswith(".py") and name[:4].isdigit() and "_" in name}


def upgrade_schema(connection, state: SchemaState) -> None:
    """Run the Alembic revisions up to the head on this connection (inside the caller's locked transaction)."""
    import logging

    from alembic import command
    from sqlalchemy import insert

    from sizetool import __version__
    from sizetool.history.schema import APPLICATION, meta_table

    logging.getLogger("alembic").setLevel(logging.WARNING)
    command.upgrade(_alembic_config(connection), "head")
    if state.empty:
        connection.execute(insert(meta_table), [
            {"key": "application", "value": APPLICATION},
            {"key": "created_by", "value": f"size-report {__version__}"},
        ])


# --- messages ----------------------------------------------------------------------------------------------------------


def _first_line(error: BaseException) -> str:
    original = getattr(error, "orig", None) or error
    text = str(original).strip().splitlines()
    return text[0].strip() if text else type(original).__name__


def _describe(error: BaseException) -> str:
    from sqlalchemy.exc import DatabaseError, InterfaceError, OperationalError

    text = _first_line(error)
    if isinstance(getattr(error, "orig", None), sqlite3.DatabaseError) and any(
            sign in text for sign in ("malformed", "not a database", "disk image", "Could not decode")):
        return f"damaged size history database ({text})"
    if isinstance(error, (OperationalError, InterfaceError)):
        return f"cannot use the database ({text})"
    if isinstance(error, DatabaseError) and isinstance(getattr(error, "orig", None), sqlite3.DatabaseError):
        return f"damaged size history database ({text})"
    return f"database error ({text})"


def damaged(name: str, error: BaseException) -> SizeToolError:
    """The one line for a row that cannot be read back (the database file or a row in it is damaged)."""
    text = _first_line(error)[:200]
    return SizeToolError(f"{name}: damaged size history database ({type(error).__name__}: {text})")
