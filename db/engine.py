"""How the store's statements reach each database, and the migrations at start-up.

Every store method is a plain function of one SQLAlchemy `Connection` (db/sql.py); a
`Database` runs it, in one of two ways, the only place where the drivers differ:

* SQLite: one connection (the stdlib driver, `sqlite+pysqlite`) on a thread of its own;
  a whole call is one trip to that thread, as a commit is ~0.25 ms of fsync and each trip
  ~0.1 ms of loop time (bench store: SQLAlchemy's aiosqlite adapter makes three or four
  trips per statement). WAL, foreign keys, synchronous=FULL.
* PostgreSQL: asyncpg under SQLAlchemy's asyncio engine and pool; a call runs on a pooled
  connection through `run_sync`, in autocommit unless it asks for a transaction (BEGIN
  and COMMIT are round trips). SQLAlchemy's pool arms no idle timer (asyncpg's own pool
  armed one at every release: commit 588a08e), and resets a connection for free when no
  transaction is open.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import unquote_plus

import asyncpg
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import URL, Connection, create_engine, event, inspect, pool, text
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from alembic import command

from .schema import dumps, metadata
from .store import StoreError

log = logging.getLogger(__name__)
T = TypeVar("T")
Work = Callable[[Connection], T]

# pg_advisory_xact_lock key of the migrations: any fixed number no other code locks.
_MIGRATION_LOCK = 0x6469_6365_706F_6B72  # "dicepokr"
BASELINE = "0008"  # the schema the migrations before Alembic ended at (their V8)


class SchemaError(StoreError):
    """The database's schema is one this code does not migrate; the message says why."""


class Database:
    dialect: str

    async def run(self, work: Work[T], *, transaction: bool = False, durable: bool = True) -> T:
        """`work` on a connection: in one transaction, or each statement on its own."""
        raise NotImplementedError

    async def close(self) -> None:
        raise NotImplementedError


class SqliteDatabase(Database):
    dialect = "sqlite"

    def __init__(self, thread: ThreadPoolExecutor, conn: Connection) -> None:
        self._thread, self._conn = thread, conn
        self._raw: sqlite3.Connection = conn.connection.driver_connection  # type: ignore[assignment]

    @classmethod
    async def open(cls, path: str) -> SqliteDatabase:
        if sqlite3.sqlite_version_info < (3, 35):
            raise SchemaError(f"SQLite {sqlite3.sqlite_version} is too old: 3.35 or newer")
        if path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        thread = ThreadPoolExecutor(1, thread_name_prefix="sqlite")

        def connect() -> Connection:
            engine = create_engine(URL.create("sqlite+pysqlite", database=path),
                                   poolclass=pool.StaticPool, isolation_level="AUTOCOMMIT",
                                   connect_args={"check_same_thread": False})  # fmt: skip
            event.listen(engine, "connect", _pragmas)
            return engine.connect()

        try:
            made = cls(thread, await asyncio.get_running_loop().run_in_executor(thread, connect))
            await made.run(_migrate, transaction=True)
        except BaseException:
            await asyncio.get_running_loop().run_in_executor(None, thread.shutdown)
            raise
        return made

    async def run(self, work: Work[T], *, transaction: bool = False, durable: bool = True) -> T:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._thread, self._in_thread, work, transaction,
                                          durable)  # fmt: skip

    def _in_thread(self, work: Work[T], transaction: bool, durable: bool) -> T:
        if not transaction:
            return work(self._conn)
        raw = self._raw
        if not durable:  # survives the process dying (WAL), not an OS crash before the next
            raw.execute("PRAGMA synchronous = NORMAL")  # durable commit: see save_messages
        try:
            raw.execute("BEGIN IMMEDIATE")
            try:
                result = work(self._conn)
            except BaseException:
                raw.execute("ROLLBACK")
                raise
            raw.execute("COMMIT")
        finally:
            if not durable:
                raw.execute("PRAGMA synchronous = FULL")
        return result

    async def close(self) -> None:
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(self._thread, self._conn.close)
        await loop.run_in_executor(None, self._thread.shutdown)


def _pragmas(raw: sqlite3.Connection, _record: object) -> None:
    for pragma in ("journal_mode = WAL", "foreign_keys = ON", "synchronous = FULL",
                   "busy_timeout = 5000"):  # fmt: skip
        raw.execute(f"PRAGMA {pragma}")


@dataclass(frozen=True)
class PoolOptions:
    min_size: int = 1  # connections opened at start
    max_size: int = 10  # pool size × processes must stay under the server's max_connections
    statement_cache_size: int = 100  # asyncpg's; 0 behind PgBouncer in transaction mode


_OPTIONS = {"pool_min_size": "min_size", "pool_max_size": "max_size",
            "statement_cache_size": "statement_cache_size"}  # fmt: skip


def split_options(url: str) -> tuple[str, PoolOptions]:
    """The URL without the store's own query options, and those options (asyncpg would
    send an unknown one to the server as a setting). The rest is kept as written."""
    base, mark, query = url.partition("?")
    kept, values = [], {}
    for item in query.split("&") if mark else ():
        key, _, value = item.partition("=")
        name = _OPTIONS.get(unquote_plus(key))
        if name is None:
            kept.append(item)
        elif not unquote_plus(value).isdigit():
            raise ValueError(f"{key} must be a whole number, not {unquote_plus(value)!r}")
        else:
            values[name] = int(unquote_plus(value))
    options = PoolOptions(**values)
    if not 0 <= options.min_size <= options.max_size or options.max_size < 1:
        raise ValueError("want 0 <= pool_min_size <= pool_max_size and pool_max_size >= 1")
    return base + ("?" + "&".join(kept) if kept else ""), options


class PostgresDatabase(Database):
    dialect = "postgresql"

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine  # autocommit
        self._transactions = engine.execution_options(isolation_level="READ COMMITTED")

    @classmethod
    async def open(cls, url: str) -> PostgresDatabase:
        dsn, options = split_options(url)
        cached = options.statement_cache_size

        def connect() -> Any:  # asyncpg parses the URL as it always did (libpq's forms)
            return engine.sync_engine.dialect.loaded_dbapi.connect(
                async_creator_fn=lambda: asyncpg.connect(dsn, statement_cache_size=cached),
                prepared_statement_cache_size=cached,
                # PgBouncer: a prepared statement must not outlive its transaction's name
                prepared_statement_name_func=None if cached else lambda: f"s{uuid.uuid4().hex}",
            )

        engine = create_async_engine(
            "postgresql+asyncpg://", creator=connect, pool_size=options.max_size,
            max_overflow=0, isolation_level="AUTOCOMMIT", json_serializer=dumps,
        )  # fmt: skip
        made = cls(engine)
        try:
            held = [await engine.connect() for _ in range(options.min_size)]
            for conn in held:
                await conn.close()
            await made.run(_migrate, transaction=True)
        except BaseException:
            await engine.dispose()
            raise
        return made

    async def run(self, work: Work[T], *, transaction: bool = False, durable: bool = True) -> T:
        if transaction:
            async with self._transactions.begin() as conn:
                return await conn.run_sync(work)
        async with self.engine.connect() as conn:
            return await conn.run_sync(work)

    async def close(self) -> None:
        await self.engine.dispose()


# --- migrations ------------------------------------------------------------------------------


def _config() -> Config:
    config = Config()
    config.set_main_option("script_location", str(Path(__file__).parent / "migrations"))
    return config


@cache
def _script() -> ScriptDirectory:
    return ScriptDirectory.from_config(_config())


def head() -> str:
    return str(_script().get_current_head())


def _migrate(conn: Connection) -> None:
    """Bring the database to the newest revision, in the caller's transaction: a new one
    is made from db/schema.py; one of the old migrations' V8 is taken up at BASELINE.
    PostgreSQL: under an advisory lock, so processes starting at once migrate once."""
    pg = conn.dialect.name == "postgresql"
    if pg:
        conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _MIGRATION_LOCK})
    script = _script()
    context = MigrationContext.configure(conn)
    tables = set(inspect(conn).get_table_names())
    if "alembic_version" not in tables and "games" not in tables:
        log.info("creating the schema at revision %s", head())
        metadata.create_all(conn)
        context.stamp(script, "head")
    elif "alembic_version" not in tables:
        old = _old_version(conn, pg)
        if old != 8:
            raise SchemaError(
                f"it is at schema version {old} of the migrations before Alembic: run "
                "`python -m bot migrate` with dicepoker 0.1.0 first (it brings it to "
                "version 8), then with this one"
            )
        log.info("taking up the schema V8 at revision %s", BASELINE)
        context.stamp(script, BASELINE)
    current = context.get_current_revision()
    if current != head():
        if current not in {r.revision for r in script.walk_revisions()}:
            raise SchemaError(f"its revision {current} is newer than this code's ({head()})")
        config = _config()  # (one per call: stores may open at once on other threads)
        config.attributes["connection"] = conn
        command.upgrade(config, "head")
    _fence(conn, pg)


def _fence(conn: Connection, pg: bool) -> None:
    """Make a bot from before Alembic refuse this database (its runner reads these)."""
    if not pg:
        conn.exec_driver_sql(f"PRAGMA user_version = {int(head()):d}")
    elif inspect(conn).has_table("schema_version"):
        conn.execute(text("INSERT INTO schema_version (version, name) VALUES (:v, 'alembic')"
                          " ON CONFLICT DO NOTHING"), {"v": int(head())})  # fmt: skip


def _old_version(conn: Connection, pg: bool) -> int:
    if not pg:
        return int(conn.exec_driver_sql("PRAGMA user_version").scalar_one())
    if not inspect(conn).has_table("schema_version"):
        return 0
    return int(conn.execute(text("SELECT max(version) FROM schema_version")).scalar_one() or 0)


def schema_version(conn: Connection) -> int:
    return int(MigrationContext.configure(conn).get_current_revision() or 0)
