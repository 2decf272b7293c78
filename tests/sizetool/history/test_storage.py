"""Opening history databases: created and upgraded by the Alembic revisions, refused with one line when foreign,
newer, unreachable or missing, and nothing written then."""

import os
import sqlite3

import pytest

from sizetool.errors import SizeToolError
from sizetool.history import storage
from sizetool.history.schema import APPLICATION, SCHEMA_VERSION, VERSION_TABLE, metadata
from sizetool.history.storage import history_database, open_history


def table_names(database) -> set[str]:
    from sqlalchemy import inspect

    with database.reading() as connection:
        return set(inspect(connection).get_table_names())


def test_a_new_database_gets_every_table_at_the_current_version(db):
    with history_database(db, create=True) as database:
        assert table_names(database) == {t.name for t in metadata.sorted_tables} | {VERSION_TABLE}
        with database.reading() as connection:
            assert storage.schema_state(connection, database.name).version == SCHEMA_VERSION


def test_the_migrations_build_exactly_the_tables_the_code_queries(db):
    """schema.py and migrations/versions must agree (Alembic's own model comparison finds no difference)."""
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    with history_database(db, create=True) as database, database.reading() as connection:
        context = MigrationContext.configure(connection, opts={"version_table": VERSION_TABLE})
        assert compare_metadata(context, metadata) == []


def test_reading_commands_never_create_a_database(tmp_path):
    target = tmp_path / "missing.db"
    with pytest.raises(SizeToolError, match="no such history database"):
        open_history(str(target))
    assert not target.exists()


def test_an_empty_file_becomes_a_history_on_record_only(tmp_path):
    target = tmp_path / "empty.db"
    target.write_bytes(b"")
    with pytest.raises(SizeToolError, match="holds no size history yet"):
        open_history(str(target))
    assert target.read_bytes() == b""
    with history_database(str(target), create=True) as database:
        assert "size_builds" in table_names(database)


def test_a_sqlite_file_of_another_application_is_refused_untouched(tmp_path):
    target = tmp_path / "other.db"
    with sqlite3.connect(target) as connection:
        connection.execute("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)")
    before = target.read_bytes()
    with pytest.raises(SizeToolError, match=r"other.db: not a size history database \(it holds other tables: "
                                            r"customers\)"):
        open_history(str(target), create=True)
    assert target.read_bytes() == before


def test_a_file_that_is_not_sqlite_is_refused_untouched(tmp_path):
    target = tmp_path / "report.json"
    target.write_text('{"rom": {}}')
    with pytest.raises(SizeToolError, match="not a size history database \\(not an SQLite file\\)"):
        open_history(str(target), create=True)
    assert target.read_text() == '{"rom": {}}'


def test_a_meta_table_naming_another_application_is_refused(tmp_path):
    target = tmp_path / "sizes.db"
    with history_database(str(target), create=True):
        pass
    with sqlite3.connect(target) as connection:
        connection.execute("UPDATE size_history_meta SET value = 'something else' WHERE key = 'application'")
    with pytest.raises(SizeToolError, match=f"says 'something else', not '{APPLICATION}'"):
        open_history(str(target))


def test_a_newer_schema_is_refused_and_left_alone(db):
    from sqlalchemy import create_engine, text

    with history_database(db, create=True):
        pass
    url = db if "://" in db else f"sqlite:///{db}"
    engine = create_engine(url.replace("postgresql://", "postgresql+psycopg://"))
    with engine.begin() as connection:
        connection.execute(text(f"UPDATE {VERSION_TABLE} SET version_num = '0099'"))
    with pytest.raises(SizeToolError, match=f"schema version 0099 is newer than this size-report knows "
                                            f"\\({SCHEMA_VERSION}\\): upgrade tflm-size-toolkit"):
        open_history(db, create=True)
    with engine.connect() as connection:
        assert connection.execute(text(f"SELECT version_num FROM {VERSION_TABLE}")).scalar_one() == "0099"
    engine.dispose()


def test_an_older_schema_is_upgraded_in_place_on_open(tmp_path, monkeypatch, fixture_report):
    """A database at revision 0001 opened by a tool whose head is a later revision gets that revision applied, with
    its builds kept (here a test-only revision 0002 that adds a column)."""
    import shutil

    from history_helpers import info

    from sizetool.history import schema
    from sizetool.history.record import record_report

    target = tmp_path / "sizes.db"
    with history_database(str(target), create=True) as database:
        record_report(database, fixture_report, info("a1"), 64)
    migrations = tmp_path / "migrations"
    shutil.copytree(storage.MIGRATIONS_DIR, migrations)
    (migrations / "versions" / "0002_test.py").write_text(
        'import sqlalchemy as sa\nfrom alembic import op\nrevision = "0002"\ndown_revision = "0001"\n'
        'branch_labels = None\ndepends_on = None\n\n\ndef upgrade():\n'
        '    with op.batch_alter_table("size_builds") as batch:\n'
        '        batch.add_column(sa.Column("note", sa.String(20), nullable=False, server_default="kept"))\n')
    monkeypatch.setattr(storage, "MIGRATIONS_DIR", str(migrations))
    monkeypatch.setattr(schema, "SCHEMA_VERSION", "0002")
    with history_database(str(target)) as database, database.reading() as connection:
        assert storage.schema_state(connection, database.name).version == "0002"
    with sqlite3.connect(target) as connection:
        assert connection.execute("SELECT commit_sha, note FROM size_builds").fetchall() == [("a1", "kept")]


def test_unsupported_urls_and_unreachable_servers_are_one_line(tmp_path):
    with pytest.raises(SizeToolError, match="unsupported database 'mysql'"):
        open_history("mysql://user@127.0.0.1/sizes")
    port = _closed_port()
    with pytest.raises(SizeToolError) as error:
        open_history(f"postgresql://ci:s3cret@127.0.0.1:{port}/sizes")
    message = str(error.value)
    assert message.startswith(f"postgresql://ci:***@127.0.0.1:{port}/sizes: cannot connect (")
    assert "s3cret" not in message and "\n" not in message


def test_a_file_in_a_missing_directory_is_one_line_and_creates_nothing(tmp_path):
    target = tmp_path / "no" / "such" / "sizes.db"
    with pytest.raises(SizeToolError, match="cannot create the database"):
        open_history(str(target), create=True)
    assert not (tmp_path / "no").exists()


def _closed_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_database_files_are_plain_sqlite_without_side_files(tmp_path, fixture_report):
    """One file, safe to cache: no -wal/-shm or journal left beside it after a record."""
    from history_helpers import info

    from sizetool.history.record import record_report

    target = tmp_path / "sizes.db"
    with history_database(str(target), create=True) as database:
        record_report(database, fixture_report, info("a1"), 64)
    assert sorted(os.listdir(tmp_path)) == ["sizes.db"]
    assert target.read_bytes()[:16] == b"SQLite format 3\x00"


def test_the_versions_read_from_file_names_are_alembics_revisions():
    from alembic.script import ScriptDirectory

    revisions = {r.revision for r in ScriptDirectory.from_config(storage._alembic_config()).walk_revisions()}
    assert storage.known_versions() == revisions and SCHEMA_VERSION in revisions
    heads = ScriptDirectory.from_config(storage._alembic_config()).get_heads()
    assert heads == [SCHEMA_VERSION]
