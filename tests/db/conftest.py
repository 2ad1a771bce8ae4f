"""The store tests are one contract for both stores: `store` and `backend` are parametrized
over SQLite and PostgreSQL, so every behaviour test runs against each.

PostgreSQL comes from `TEST_DATABASE_URL` when it is set (a server of the developer's own:
every test gets a database of its own there, dropped afterwards), else from a throwaway
server this session starts (tests/pg.py) and exports in `TEST_DATABASE_URL` for the rest of
the run. With CI=true the PostgreSQL tests fail when no server can be had; elsewhere they
are skipped, saying why.

These fixtures need neither the bot nor a Discord double:
    python -m pytest --confcutdir=tests/db tests/db
"""

from __future__ import annotations

import itertools
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import urlsplit, urlunsplit

import asyncpg
import pytest

from db import GameStore, PostgresStore, SqliteStore, sqlite_url
from tests.pg import postgres_url  # noqa: F401 (the session's server, a fixture)

BACKENDS = ("sqlite", "postgres")


class Backend:
    """One test's database of one kind: `open()` opens a store on it (again and again, as
    a restart or another process would), `fresh()` makes another, empty one."""

    kind: ClassVar[str]
    url: str  # what open_store takes

    async def open(self) -> Any:
        raise NotImplementedError

    async def fresh(self) -> Backend:
        raise NotImplementedError

    async def scratch(self) -> Any:
        """A store on a new empty database, opened once (hypothesis examples)."""
        return await (await self.fresh()).open()

    async def close(self) -> None:
        """Drop what this backend made."""


class SqliteBackend(Backend):
    kind = "sqlite"

    def __init__(self, folder: Path, name: str = "test") -> None:
        self.folder = folder
        self.path = folder / "data" / f"{name}.sqlite3"
        self.url = sqlite_url(self.path)
        self._names = (f"{name}-{n}" for n in itertools.count(1))

    async def open(self) -> SqliteStore:
        return await SqliteStore.open(self.path)

    async def fresh(self) -> SqliteBackend:
        return SqliteBackend(self.folder, next(self._names))

    async def scratch(self) -> SqliteStore:
        return await SqliteStore.open(":memory:")  # no fsync per example


class PostgresBackend(Backend):
    kind = "postgres"
    _numbers = itertools.count(1)

    def __init__(self, server_url: str, url: str, database: str) -> None:
        self.server_url = server_url
        self.url = url
        self.database = database
        self._made: list[str] = [database]

    @classmethod
    async def create(cls, server_url: str) -> PostgresBackend:
        database = f"store_test_{os.getpid()}_{next(cls._numbers)}"
        admin = await asyncpg.connect(server_url)
        try:
            await admin.execute(f'CREATE DATABASE "{database}"')
        finally:
            await admin.close()
        parts = urlsplit(server_url)
        return cls(server_url, urlunsplit(parts._replace(path=f"/{database}")), database)

    async def open(self) -> PostgresStore:
        return await PostgresStore.open(self.url)

    async def fresh(self) -> PostgresBackend:
        other = await PostgresBackend.create(self.server_url)
        self._made.append(other.database)
        return other

    async def connect(self) -> asyncpg.Connection:
        """A plain connection, for what the store never does (raw writes, plans)."""
        return await asyncpg.connect(self.url)

    async def close(self) -> None:
        admin = await asyncpg.connect(self.server_url)
        try:
            for database in self._made:
                await admin.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
        finally:
            await admin.close()


@pytest.fixture(params=BACKENDS)
async def backend(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Backend]:
    if request.param == "sqlite":
        made: Backend = SqliteBackend(tmp_path)
    else:
        made = await PostgresBackend.create(request.getfixturevalue("postgres_url"))
    try:
        yield made
    finally:
        await made.close()


@pytest.fixture
async def pg(request: pytest.FixtureRequest) -> AsyncIterator[PostgresBackend]:
    """A PostgreSQL database only (the PostgreSQL-only tests)."""
    made = await PostgresBackend.create(request.getfixturevalue("postgres_url"))
    try:
        yield made
    finally:
        await made.close()


@pytest.fixture
async def store(backend: Backend) -> AsyncIterator[GameStore]:
    s = await backend.open()
    yield s
    await s.close()


@pytest.fixture
async def sqlite_store(tmp_path: Path) -> AsyncIterator[SqliteStore]:
    """The SQLite store only (tests of its pragmas and internals)."""
    s = await SqliteStore.open(tmp_path / "data" / "test.sqlite3")
    yield s
    await s.close()
