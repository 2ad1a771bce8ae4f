"""How the store's statements reach each database, and the migrations at start-up.

A store method is a function of one SQLAlchemy `Connection` (db/sql.py); a `Database` runs
it. Two fast paths, each measured by the save of one action and a snapshot (bench store;
medians of runs in one sitting on a shared machine; the stores before SQLAlchemy, 603e7e6:
0.33–0.53 ms on SQLite, 0.99–1.10 ms on PostgreSQL):

* SQLite: the stdlib driver on a thread of its own (`_Thread`), a whole call ONE trip
  there: 0.32–0.57 ms. SQLAlchemy's `sqlite+aiosqlite` makes trips a statement: 1.7–3.2
  ms, one connection held or not. (An executor instead of `_Thread`: +0.03 ms.)
* The click's statements (a save, its actions, a game, the settings) compiled by
  SQLAlchemy once and run on the driver (`direct`, `Database.fetch`). SQLAlchemy's
  execution layer, its compiled cache on, costs ~0.05 ms a statement on SQLite (a save
  0.45–0.61 ms) and ~0.3 ms of CPU a PostgreSQL save (0.88–1.45 ms instead of 0.61–1.03).

PostgreSQL otherwise: asyncpg under SQLAlchemy's asyncio engine and pool (`run_sync`), in
autocommit unless a call asks for a transaction.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
import uuid
from collections import namedtuple
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from queue import SimpleQueue
from threading import Thread
from typing import Any, TypeVar
from urllib.parse import unquote_plus

import asyncpg
from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import URL, Connection, Dialect, create_engine, event, exc, inspect, pool, text
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from .schema import dumps, metadata
from .store import StoreError

log = logging.getLogger(__name__)
T = TypeVar("T")
Work = Callable[[Connection], T]

_MIGRATION_LOCK = 0x6469_6365_706F_6B72  # pg_advisory_xact_lock's key: "dicepokr"
BASELINE = "0008"  # the schema the migrations before Alembic ended at (their V8)


class SchemaError(StoreError):
    """The database's schema is one this code will not migrate; the message says why."""


class _Compiled:
    """A statement compiled once for a dialect, with SQLAlchemy's conversions of its
    parameters and columns, for the driver to run (module docstring: why)."""

    def __init__(self, statement: Any, dialect: Dialect) -> None:
        compiled = statement.compile(dialect=dialect)
        self.sql = str(compiled)
        binds = [compiled.binds[name] for name in compiled.positiontup or ()]
        self.binds = [(b.key, b.type.dialect_impl(dialect).bind_processor(dialect), b.value)
                      for b in binds]
        columns = list(getattr(statement, "exported_columns", ()))
        self.row: Any = namedtuple("row", [c.key for c in columns])  # type: ignore[misc]
        self.results = [c.type.dialect_impl(dialect).result_processor(dialect, None)
                        for c in columns]

    def args(self, values: Mapping[str, Any]) -> list[Any]:
        return [p(values.get(k, d)) if p else values.get(k, d) for k, p, d in self.binds]

    def rows(self, found: Any) -> list[Any]:
        return [self.row._make([p(v) if p else v for p, v in zip(self.results, raw, strict=True)])
                for raw in found]


_COMPILED: dict[tuple[int, str], _Compiled] = {}


def _compiled(statement: Any, dialect: Dialect) -> _Compiled:
    """(Statements are module constants: compiled once per dialect.)"""
    key = (id(statement), dialect.name)
    if (made := _COMPILED.get(key)) is None:
        made = _COMPILED[key] = _Compiled(statement, dialect)
    return made


def direct(conn: Connection, statement: Any, values: Mapping[str, Any]) -> list[Any]:
    """`statement`'s rows, run on the driver's cursor of `conn` (in its transaction); a
    driver's error raised as SQLAlchemy raises it."""
    made = _compiled(statement, conn.dialect)
    args, dbapi = made.args(values), conn.dialect.loaded_dbapi
    cursor = conn.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
    try:
        cursor.execute(made.sql, args)
        return made.rows(cursor.fetchall() if cursor.description else ())
    except dbapi.Error as error:
        raise exc.DBAPIError.instance(made.sql, args, error, dbapi.Error) from error
    finally:
        cursor.close()


class Database:
    dialect: str

    async def run(self, work: Work[T], *, transaction: bool = False, durable: bool = True) -> T:
        """`work` on a connection: in one transaction, or each statement on its own;
        `durable=False`: SQLite commits it at synchronous=NORMAL."""
        raise NotImplementedError

    async def fetch(self, statement: Any, values: Mapping[str, Any], *,
                    durable: bool = True) -> list[Any]:
        """One statement's rows, committed on its own: `direct`."""
        return await self.run(lambda conn: direct(conn, statement, values), durable=durable)

    async def close(self) -> None:
        raise NotImplementedError


class _Thread:
    """A thread of its own for SQLite's connection: calls run there one after another, in
    the order they came, each answered on its caller's loop (a queue and a future: a third
    less loop time a call than an executor's)."""

    def __init__(self) -> None:
        self._calls: SimpleQueue[tuple[asyncio.Future[Any], Callable[[], Any]] | None]
        self._calls = SimpleQueue()
        self._thread = Thread(target=self._serve, name="sqlite")
        self._thread.start()

    def _serve(self) -> None:
        while (call := self._calls.get()) is not None:
            future, work = call
            try:
                answer: tuple[bool, Any] = (True, work())
            except BaseException as error:  # the caller's to handle
                answer = (False, error)
            with contextlib.suppress(RuntimeError):  # (its loop closed: nobody to answer)
                future.get_loop().call_soon_threadsafe(_answer, future, *answer)

    async def call(self, work: Callable[[], T]) -> T:
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        self._calls.put((future, work))
        return await future

    async def stop(self) -> None:
        """After the calls queued before (none is dropped: a commit in flight finishes)."""
        self._calls.put(None)
        await asyncio.get_running_loop().run_in_executor(None, self._thread.join)


def _answer(future: asyncio.Future[Any], ok: bool, value: Any) -> None:
    if not future.cancelled():
        future.set_result(value) if ok else future.set_exception(value)


class SqliteDatabase(Database):
    dialect = "sqlite"

    def __init__(self, thread: _Thread, conn: Connection) -> None:
        self._thread, self._conn = thread, conn
        self._raw: sqlite3.Connection = conn.connection.driver_connection  # type: ignore[assignment]

    @classmethod
    async def open(cls, path: str) -> SqliteDatabase:
        if sqlite3.sqlite_version_info < (3, 35):  # RETURNING, DROP COLUMN
            raise SchemaError(f"SQLite {sqlite3.sqlite_version} is too old: 3.35 or newer")
        if path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        thread = _Thread()

        def connect() -> Connection:
            engine = create_engine(
                URL.create("sqlite+pysqlite", database=path), poolclass=pool.StaticPool,
                isolation_level="AUTOCOMMIT", connect_args={"check_same_thread": False})
            event.listen(engine, "connect", _pragmas)
            return engine.connect()

        try:  # (the thread ends before the error is raised: nothing reports to a closed loop)
            made = cls(thread, await thread.call(connect))
            await made.run(_migrate, transaction=True)
        except BaseException:
            await thread.stop()
            raise
        return made

    async def run(self, work: Work[T], *, transaction: bool = False, durable: bool = True) -> T:
        return await self._thread.call(lambda: self._call(work, transaction, durable))

    def _call(self, work: Work[T], transaction: bool, durable: bool) -> T:
        raw = self._raw
        if not durable:  # survives the process dying (WAL); the next durable commit syncs it
            raw.execute("PRAGMA synchronous = NORMAL")
        try:
            if not transaction:
                return work(self._conn)
            raw.execute("BEGIN IMMEDIATE")
            try:
                result = work(self._conn)
            except BaseException:
                raw.execute("ROLLBACK")
                raise
            raw.execute("COMMIT")
            return result
        finally:
            if not durable:
                raw.execute("PRAGMA synchronous = FULL")

    async def close(self) -> None:
        try:
            await self._thread.call(self._conn.close)
        finally:
            await self._thread.stop()


def _pragmas(raw: sqlite3.Connection, _record: object) -> None:
    for pragma in ("journal_mode = WAL", "foreign_keys = ON", "synchronous = FULL",
                   "busy_timeout = 5000"):
        raw.execute(f"PRAGMA {pragma}")


@dataclass(frozen=True)
class PoolOptions:
    min_size: int = 1  # connections opened at start
    max_size: int = 10  # pool size × processes must stay under the server's max_connections
    statement_cache_size: int = 100  # asyncpg's; 0 behind PgBouncer in transaction mode


_OPTIONS = {"pool_min_size": "min_size", "pool_max_size": "max_size",
            "statement_cache_size": "statement_cache_size"}


def split_options(url: str) -> tuple[str, PoolOptions]:
    """The URL without the store's own query options, and those options (asyncpg would
    send an unknown one to the server as a setting). The rest is kept as written."""
    base, mark, query = url.partition("?")
    kept, values = [], {}
    for item in query.split("&") if mark else ():
        key, _, value = (unquote_plus(x) for x in item.partition("="))
        if key not in _OPTIONS:
            kept.append(item)
        elif not value.isdigit():
            raise ValueError(f"{key} must be a whole number, not {value!r}")
        else:
            values[_OPTIONS[key]] = int(value)
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

        def connect() -> Any:  # asyncpg reads the URL itself, as it always did (libpq's forms)
            return engine.sync_engine.dialect.loaded_dbapi.connect(
                async_creator_fn=lambda: asyncpg.connect(dsn, statement_cache_size=cached),
                prepared_statement_cache_size=cached,
                # PgBouncer: every statement prepared under a name of its own
                prepared_statement_name_func=None if cached else lambda: f"s{uuid.uuid4().hex}",
            )

        engine = create_async_engine(
            "postgresql+asyncpg://", creator=connect, pool_size=options.max_size,
            max_overflow=0, isolation_level="AUTOCOMMIT", json_serializer=dumps)
        made = cls(engine)
        try:
            for conn in [await engine.connect() for _ in range(options.min_size)]:
                await conn.close()
            await made.run(_migrate, transaction=True)
        except BaseException:
            await engine.dispose()
            raise
        return made

    async def run(self, work: Work[T], *, transaction: bool = False,
                  durable: bool = True) -> T:  # noqa: ARG002 (commits are durable here)
        async with (self._transactions.begin() if transaction else self.engine.connect()) as c:
            return await c.run_sync(work)

    async def fetch(self, statement: Any, values: Mapping[str, Any], *,
                    durable: bool = True) -> list[Any]:  # noqa: ARG002
        """On a pooled connection's asyncpg itself, no greenlet: the click's statements."""
        made = _compiled(statement, self.engine.dialect)
        args = made.args(values)
        pooled = await self.engine.raw_connection()  # (a third of `connect()`'s cost)
        try:
            return made.rows(await pooled.driver_connection.fetch(made.sql, *args))  # type: ignore[union-attr]
        except asyncpg.IntegrityConstraintViolationError as error:
            raise exc.IntegrityError(made.sql, args, error) from error
        finally:
            pooled.close()  # back to the pool

    async def close(self) -> None:
        await self.engine.dispose()


# --- migrations ------------------------------------------------------------------------------


def _config(conn: Connection | None = None) -> Config:
    config = Config()
    config.set_main_option("script_location", str(Path(__file__).parent / "migrations"))
    config.attributes["connection"] = conn
    return config


@cache
def _script() -> ScriptDirectory:
    return ScriptDirectory.from_config(_config())


def head() -> str:
    return str(_script().get_current_head())


def schema_version(conn: Connection) -> int:
    return int(conn.execute(text("SELECT version_num FROM alembic_version")).scalar_one())


def _stamp(conn: Connection, revision: str) -> None:
    MigrationContext.configure(conn, opts={"transactional_ddl": True}).stamp(_script(), revision)


def _migrate(conn: Connection) -> None:
    """Bring the database to the newest revision, in the caller's transaction: a new one is
    made from db/schema.py and stamped; a V8 one of the migrations before Alembic is
    stamped BASELINE first. PostgreSQL: under an advisory lock, so that processes starting
    at once queue and the later ones find nothing to do."""
    pg = conn.dialect.name == "postgresql"
    if pg:
        conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _MIGRATION_LOCK})
    tables = set(inspect(conn).get_table_names())
    current = f"{schema_version(conn):04d}" if "alembic_version" in tables else None
    if current == head():
        return
    if current is None and "games" not in tables:
        log.info("creating the schema at revision %s", head())
        metadata.create_all(conn)
        _stamp(conn, "head")
    else:
        if current is None:
            old = _old_version(conn, pg)
            if old != int(BASELINE):
                raise SchemaError(
                    f"it is at schema version {old} of the migrations before Alembic: run "
                    "`python -m bot migrate` with dicepoker 0.1.0 first (it brings it to "
                    "version 8), then with this one")
            _stamp(conn, BASELINE)
        elif current not in {r.revision for r in _script().walk_revisions()}:
            raise SchemaError(f"its revision {current} is newer than this code's ({head()})")
        command.upgrade(_config(conn), "head")  # (a Config a call: stores open on threads)
    # A bot from before Alembic reads these, and refuses a database newer than its own.
    if not pg:
        conn.exec_driver_sql(f"PRAGMA user_version = {int(head()):d}")
    elif "schema_version" in tables:
        conn.execute(text("INSERT INTO schema_version (version, name) VALUES (:v, 'alembic')"
                          " ON CONFLICT DO NOTHING"), {"v": int(head())})


def _old_version(conn: Connection, pg: bool) -> int:
    if not pg:
        return int(conn.exec_driver_sql("PRAGMA user_version").scalar_one())
    if not inspect(conn).has_table("schema_version"):
        return 0
    return int(conn.execute(text("SELECT max(version) FROM schema_version")).scalar_one() or 0)
