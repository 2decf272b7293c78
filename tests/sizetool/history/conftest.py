"""Real databases for the history tests: SQLite files, and a PostgreSQL server from Debian's `postgresql` package.

The server is started once per test session on a temporary data directory and a free port on 127.0.0.1 (trust
authentication, no Unix socket), as the `postgres` user (or `nobody`) when the tests run as root, since initdb and
postgres refuse root. Each test gets its own empty database. Where the binaries are missing or the server cannot
start, the PostgreSQL half of each test skips and says why (`.ci/run` installs the package when it can).
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import uuid
from pathlib import Path

import pytest

from history_helpers import CORTEX_M4, CORTEX_M4_MAP, REPO  # noqa: F401
SERVER_START_SECONDS = 60
INSTALL_HINT = "apt-get install postgresql (Debian) to run the PostgreSQL half of the history tests"


def _postgres_bindir() -> str | None:
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                        key=lambda p: int(p.split("/")[4]) if p.split("/")[4].isdigit() else 0)
    if candidates:
        return os.path.dirname(candidates[-1])
    initdb = shutil.which("initdb")
    return os.path.dirname(initdb) if initdb else None


def _unprivileged_user() -> str | None:
    for name in ("postgres", "nobody"):
        try:
            pwd.getpwnam(name)
            return name
        except KeyError:
            continue
    return None


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class PostgresServer:
    """A throw-away PostgreSQL cluster: initdb, postgres on 127.0.0.1:port, stopped and removed at the end."""

    def __init__(self, bindir: str):
        self.bindir = bindir
        self.root = tempfile.mkdtemp(prefix="sizetool-pg-")
        self.data = os.path.join(self.root, "data")
        self.port = _free_port()
        self.user = None
        self.process: subprocess.Popen | None = None
        self.log = os.path.join(self.root, "server.log")

    def _identity(self) -> dict:
        """Popen arguments that run a child as the unprivileged user (the server process itself, no wrapper, so
        signals reach it)."""
        if self.user is None:
            return {}
        entry = pwd.getpwnam(self.user)
        return {"user": entry.pw_uid, "group": entry.pw_gid, "extra_groups": [], "env": dict(os.environ, HOME=self.root)}

    def start(self) -> None:
        if os.geteuid() == 0:
            self.user = _unprivileged_user()
            if self.user is None:
                raise RuntimeError("running as root and no 'postgres' or 'nobody' user to run the server as")
            os.chmod(self.root, 0o755)
            entry = pwd.getpwnam(self.user)
            os.makedirs(self.data)
            os.chown(self.data, entry.pw_uid, entry.pw_gid)
            open(self.log, "w").close()
            os.chown(self.log, entry.pw_uid, entry.pw_gid)
        result = subprocess.run(
            [os.path.join(self.bindir, "initdb"), "-D", self.data, "-U", "sizetool", "--auth=trust",
             "--encoding=UTF8", "--locale=C", "--no-sync"],
            capture_output=True, text=True, timeout=120, cwd=self.root, **self._identity())
        if result.returncode != 0:
            raise RuntimeError(f"initdb failed: {(result.stderr or result.stdout).strip()[-300:]}")
        with open(self.log, "a") as log:
            self.process = subprocess.Popen(
                [os.path.join(self.bindir, "postgres"), "-D", self.data, "-p", str(self.port),
                 "-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=", "-c", "fsync=off",
                 "-c", "synchronous_commit=off", "-c", "full_page_writes=off", "-c", "max_connections=40"],
                stdout=log, stderr=subprocess.STDOUT, start_new_session=True, cwd=self.root, **self._identity())
        deadline = time.monotonic() + SERVER_START_SECONDS
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"postgres exited: {Path(self.log).read_text()[-300:]}")
            try:
                self.execute("SELECT 1")
                return
            except Exception:  # noqa: BLE001 - not accepting connections yet
                time.sleep(0.2)
        raise RuntimeError(f"postgres did not accept connections within {SERVER_START_SECONDS} s")

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://sizetool@127.0.0.1:{self.port}/{database}"

    def execute(self, statement: str) -> None:
        import psycopg

        with psycopg.connect(f"host=127.0.0.1 port={self.port} user=sizetool dbname=postgres", autocommit=True,
                             connect_timeout=5) as connection:
            connection.execute(statement)

    def new_database(self) -> str:
        name = "t_" + uuid.uuid4().hex[:12]
        self.execute(f"CREATE DATABASE {name}")
        return self.url(name)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)  # fast shutdown
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self.root, ignore_errors=True)


@pytest.fixture(scope="session")
def postgres_server():
    try:
        import psycopg  # noqa: F401
    except ModuleNotFoundError:
        pytest.skip("psycopg is not installed: pip install 'tflm-size-toolkit[test]' to run the PostgreSQL tests")
    bindir = _postgres_bindir()
    if bindir is None:
        pytest.skip(f"PostgreSQL server binaries (initdb) not found: {INSTALL_HINT}")
    server = PostgresServer(bindir)
    try:
        server.start()
    except (RuntimeError, OSError, subprocess.SubprocessError) as error:
        server.stop()
        pytest.skip(f"PostgreSQL ({bindir}) cannot start here: {error}")
    yield server
    server.stop()


@pytest.fixture(params=["sqlite", "postgresql"])
def db(request, tmp_path) -> str:
    """An empty history database of each backend: a SQLite path that does not exist yet, or a new PostgreSQL DB."""
    if request.param == "sqlite":
        return str(tmp_path / "sizes.db")
    return request.getfixturevalue("postgres_server").new_database()


@pytest.fixture(scope="session")
def fixture_report():
    """The Cortex-M4 fixture firmware's report, with its operator table (built once)."""
    from sizetool.operators.graph_cache import operator_table
    from sizetool.report.report_builder import build_report

    report = build_report(str(CORTEX_M4), map_path=str(CORTEX_M4_MAP), use_cache=False)
    report.operators = operator_table(str(CORTEX_M4), report, map_path=str(CORTEX_M4_MAP))
    return report
