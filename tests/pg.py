"""A throwaway PostgreSQL server for tests and benchmarks.

    server = ThrowawayPostgres.start()   # initdb + pg_ctl start in a private temporary folder
    server.url("postgres")               # postgresql://postgres@/postgres?host=/dev/shm/…
    server.stop()                        # pg_ctl stop, folder removed

The server keeps its data in memory (/dev/shm) where there is a tmpfs, runs with
`fsync=off` (a test database is never worth an fsync) and listens on a unix socket inside
its own folder only (`-k DIR -c listen_addresses=`): no port to find free, nothing
reachable from outside. `initdb` refuses to run as root, so
as root (CI) every server command runs as the unprivileged `postgres` user through
`runuser`; as a normal user, directly. Where no `initdb` is installed, root installs
Debian's `postgresql` package.

In pytest, import the session fixture into a conftest.py (`from tests.pg import
postgres_url`): it yields the URL of a database the tests may create databases from, using
the server in `TEST_DATABASE_URL` when that is set, else starting one and exporting it
there for the rest of the run (so conftests that each import the fixture share one
server). With CI=true it fails when no server can be had; elsewhere it skips, saying why.

`await create_database(server_url)` makes an empty database on that server and returns its
URL (`drop_database(url)` removes it): one per test, when several bots share it.

`python -m tests.pg run -- CMD …` runs CMD with `TEST_DATABASE_URL` pointing at a fresh
server, then stops it (for suites that do not use the pytest fixture). Imports neither the
bot nor the store.
"""

from __future__ import annotations

import atexit
import contextlib
import itertools
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote, urlsplit, urlunsplit

import asyncpg
import pytest

# Other suites find the server here; set by the tests/db session fixture (or by the
# developer, to use a server of their own: then none is started).
URL_VARIABLE = "TEST_DATABASE_URL"
SUPERUSER = "postgres"  # the role initdb creates, whoever runs it
_RUN_AS = ("postgres", "nobody")  # the unprivileged account a root caller runs the server as
_START_TIMEOUT_S = 60


class PostgresUnavailableError(RuntimeError):
    """No PostgreSQL server could be installed or started; the message says why."""


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


def _server_binaries() -> Path | None:
    """The folder holding initdb and pg_ctl: on the PATH, else the newest Debian one."""
    initdb = shutil.which("initdb")
    if initdb and shutil.which("pg_ctl"):
        return Path(initdb).resolve().parent
    found = sorted(
        Path("/usr/lib/postgresql").glob("*/bin/initdb"),
        key=lambda p: int(p.parts[-3]) if p.parts[-3].isdigit() else 0,
    )
    return found[-1].parent if found else None


def _install() -> None:
    if os.geteuid() != 0:
        raise PostgresUnavailableError(
            "initdb and pg_ctl are not installed and only root can install them "
            "(apt-get install postgresql)"
        )
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    install = ["apt-get", "install", "-y", "-q", "--no-install-recommends", "postgresql"]
    if subprocess.run(install, env=env, capture_output=True, check=False).returncode != 0:
        # A fresh machine may have no package lists yet.
        subprocess.run(["apt-get", "update", "-q"], env=env, capture_output=True, check=False)
        done = subprocess.run(install, env=env, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise PostgresUnavailableError(
                f"apt-get install postgresql failed: {done.stderr[-2000:]}"
            )


def find_binaries(*, install: bool = True) -> Path:
    """initdb's folder, installing Debian's package first where it is missing (as root)."""
    found = _server_binaries()
    if found is None and install:
        _install()
        found = _server_binaries()
    if found is None:
        raise PostgresUnavailableError(
            "no initdb/pg_ctl on PATH nor under /usr/lib/postgresql/*/bin"
        )
    return found


def _unprivileged_account() -> str | None:
    """Who runs the server: None (ourselves) unless we are root, whom initdb refuses."""
    if os.geteuid() != 0:
        return None
    for name in _RUN_AS:
        with contextlib.suppress(KeyError):
            pwd.getpwnam(name)
            return name
    raise PostgresUnavailableError("running as root and there is no 'postgres' or 'nobody' account")


def _scratch() -> str:
    """Memory when there is a tmpfs (CREATE DATABASE takes ~7 ms there, ~250 ms on this
    machine's disk even with fsync off), else /tmp; both keep the socket's path short (it is
    limited to ~100 bytes)."""
    shm = Path("/dev/shm")
    return str(shm) if shm.is_dir() and os.access(shm, os.W_OK) else "/tmp"


@dataclass
class ThrowawayPostgres:
    folder: Path  # holds data/, the log and the socket
    binaries: Path
    account: str | None  # the account the server runs as (None: this process's own)
    started_s: float = 0.0  # seconds initdb + start took
    _stopped: bool = field(default=False, repr=False)

    @classmethod
    def start(cls, *, durable: bool = False, where: str | None = None) -> ThrowawayPostgres:
        """initdb and start a server; PostgresUnavailableError (with its log) if it cannot.

        `durable` keeps PostgreSQL's own defaults (fsync, synchronous_commit, full-page
        writes), as a production server has them: for benchmarks. `where` is the folder to
        make the server's folder in (default: /dev/shm when there is one, else /tmp)."""
        began = time.perf_counter()
        binaries = find_binaries()
        account = _unprivileged_account()
        folder = Path(tempfile.mkdtemp(prefix="dicepoker-pg-", dir=where or _scratch()))
        server = cls(folder, binaries, account)
        atexit.register(server.stop)  # also when the test run is interrupted
        try:
            if account is not None:
                shutil.chown(folder, user=account)
            server._run(
                "initdb", "--auth=trust", f"--username={SUPERUSER}", "--encoding=UTF8",
                "--locale=C", "--no-sync", "--no-instructions", f"--pgdata={server.data}",
            )
            options = f"-k {folder} -c listen_addresses= -c max_connections=200"
            if not durable:
                options += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
            server._run(
                "pg_ctl", "start", "-w", f"-t{_START_TIMEOUT_S}", f"-D{server.data}",
                f"-l{folder / 'server.log'}", "-o", options,
            )
        except BaseException:
            server.stop()
            raise
        server.started_s = time.perf_counter() - began
        return server

    @property
    def data(self) -> Path:
        return self.folder / "data"

    def url(self, database: str = "postgres") -> str:
        """The DSN of one of the server's databases (the superuser, over the socket)."""
        return f"postgresql://{SUPERUSER}@/{quote(database)}?host={quote(str(self.folder))}"

    def stop(self) -> None:
        if self._stopped:
            return
        self._stopped = True
        if (self.data / "postmaster.pid").exists():
            # Immediate: nothing in a throwaway database is worth a shutdown checkpoint.
            with contextlib.suppress(PostgresUnavailableError):
                self._run("pg_ctl", "stop", "-w", "-m", "immediate", f"-D{self.data}")
        shutil.rmtree(self.folder, ignore_errors=True)

    def _run(self, tool: str, *args: str) -> None:
        command = [str(self.binaries / tool), *args]
        if self.account is not None:
            command = ["runuser", "-u", self.account, "--", *command]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            log = self.folder / "server.log"
            tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
            raise PostgresUnavailableError(
                f"{tool} failed ({done.returncode}): {done.stderr.strip()[-2000:]}\n{tail}"
            )


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """The URL of a database on a server this run may create databases on."""
    given = os.environ.get(URL_VARIABLE)
    if given:
        yield given
        return
    try:
        server = ThrowawayPostgres.start()
    except PostgresUnavailableError as error:
        if in_ci():
            pytest.fail(f"CI runs the PostgreSQL tests, but: {error}", pytrace=False)
        pytest.skip(f"no PostgreSQL server could be installed or started: {error}")
    os.environ[URL_VARIABLE] = server.url()
    try:
        yield server.url()
    finally:
        os.environ.pop(URL_VARIABLE, None)
        server.stop()


_databases = itertools.count(1)


async def create_database(server_url: str, prefix: str = "test") -> str:
    """A new empty database on the server `server_url` reaches; its URL."""
    name = f"{prefix}_{os.getpid()}_{next(_databases)}"
    admin = await asyncpg.connect(server_url)
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
    finally:
        await admin.close()
    return urlunsplit(urlsplit(server_url)._replace(path=f"/{quote(name)}"))


async def drop_database(server_url: str, url: str) -> None:
    """Drop the database `url` names (its connections are ended first)."""
    name = urlsplit(url).path.lstrip("/")
    admin = await asyncpg.connect(server_url)
    try:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await admin.close()


def main(argv: list[str]) -> int:
    if len(argv) < 2 or argv[0] != "run" or "--" not in argv:
        print("usage: python -m tests.pg run -- COMMAND [ARGS…]", file=sys.stderr)
        return 2
    command = argv[argv.index("--") + 1 :]
    server = ThrowawayPostgres.start()
    try:
        env = {**os.environ, URL_VARIABLE: server.url()}
        return subprocess.run(command, env=env, check=False).returncode
    finally:
        server.stop()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
