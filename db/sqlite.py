"""The SQLite store: one aiosqlite connection, WAL, every write in one explicit transaction."""

from __future__ import annotations

import asyncio
import json
import logging
import re
import sqlite3
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import Any, Self

import aiosqlite

from .base import (
    ACTIVE_STATUSES,
    STATUSES,
    ActionConflict,
    ChannelBusy,
    GameNotFound,
    GameRecord,
    StaleVersion,
)

log = logging.getLogger(__name__)

_MIGRATION_NAME = re.compile(r"V(\d+)__\w+\.sql")
# Fixed width, so text order is time order (isoformat drops zero microseconds).
_TIME_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"


def migrations() -> list[tuple[int, str, str]]:
    """(version, file name, SQL) of every migration shipped in db/migrations, in order."""
    folder = resources.files(__package__).joinpath("migrations")
    found = []
    for entry in folder.iterdir():
        match = _MIGRATION_NAME.fullmatch(entry.name)
        if match:
            found.append((int(match.group(1)), entry.name, entry.read_text(encoding="utf-8")))
    found.sort()
    versions = [v for v, _, _ in found]
    if versions != list(range(1, len(found) + 1)):
        raise RuntimeError(f"migrations must be numbered 1, 2, 3 … without gaps: {versions}")
    return found


def to_text(moment: datetime) -> str:
    if moment.tzinfo is None:
        raise ValueError("times must be timezone-aware")
    return moment.astimezone(UTC).strftime(_TIME_FORMAT)


def from_text(text: str) -> datetime:
    return datetime.strptime(text, _TIME_FORMAT).replace(tzinfo=UTC)


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def _utcnow() -> datetime:
    return datetime.now(UTC)


class SqliteStore:
    """The default store. Use `await SqliteStore.open(path)`; `":memory:"` works too."""

    def __init__(self, conn: aiosqlite.Connection) -> None:
        self._conn = conn
        # One connection is shared by every coroutine: a transaction must not interleave
        # with another coroutine's statements, and reads must not see a half-done write.
        self._lock = asyncio.Lock()

    # --- life cycle -------------------------------------------------------------

    @classmethod
    async def open(cls, path: str | Path, *, upto: int | None = None) -> Self:
        """Open (creating the folder and file) and migrate; `upto` stops at an older
        schema version (for tests of upgrades)."""
        if str(path) != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        # isolation_level=None: no implicit transactions; we issue BEGIN ourselves.
        conn = await aiosqlite.connect(str(path), isolation_level=None)
        try:
            conn.row_factory = aiosqlite.Row
            await conn.execute("PRAGMA journal_mode = WAL")
            await conn.execute("PRAGMA foreign_keys = ON")
            await conn.execute("PRAGMA synchronous = FULL")
            await conn.execute("PRAGMA busy_timeout = 5000")
            await _migrate(conn, upto)
        except BaseException:
            await conn.close()
            raise
        return cls(conn)

    async def close(self) -> None:
        async with self._lock:
            await self._conn.close()

    async def schema_version(self) -> int:
        async with self._lock:
            return await _user_version(self._conn)

    @asynccontextmanager
    async def _transaction(self) -> AsyncIterator[aiosqlite.Connection]:
        """BEGIN IMMEDIATE … COMMIT under the lock; ROLLBACK on any error."""
        async with self._lock:
            await self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                await self._conn.execute("ROLLBACK")
                raise
            await self._conn.execute("COMMIT")

    async def _fetchone(self, sql: str, params: Sequence[Any] = ()) -> aiosqlite.Row | None:
        async with self._lock, self._conn.execute(sql, params) as cur:
            return await cur.fetchone()

    async def _fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[aiosqlite.Row]:
        async with self._lock, self._conn.execute(sql, params) as cur:
            return list(await cur.fetchall())

    # --- games ------------------------------------------------------------------

    async def create_game(
        self,
        *,
        guild_id: int | None,
        channel_id: int,
        host_id: int,
        rules: str,
        state: dict[str, Any],
        now: datetime | None = None,
    ) -> GameRecord:
        """A new lobby (version 0); ChannelBusy if the channel has an active game."""
        stamp = to_text(now or _utcnow())
        async with self._transaction() as conn:
            try:
                cur = await conn.execute(
                    "INSERT INTO games (guild_id, channel_id, host_id, rules, status, version,"
                    " state, created_at, updated_at) VALUES (?, ?, ?, ?, 'lobby', 0, ?, ?, ?)"
                    " RETURNING *",
                    (guild_id, channel_id, host_id, rules, _json(state), stamp, stamp),
                )
                row = await cur.fetchone()
                await cur.close()
            except sqlite3.IntegrityError:
                busy = await _active_id(conn, channel_id)
                if busy is None:
                    raise
                raise ChannelBusy(busy) from None
        assert row is not None
        return _record(row)

    async def get_game(self, game_id: int) -> GameRecord | None:
        row = await self._fetchone("SELECT * FROM games WHERE id = ?", (game_id,))
        return _record(row) if row else None

    async def active_game(self, channel_id: int) -> GameRecord | None:
        row = await self._fetchone(
            "SELECT * FROM games WHERE channel_id = ? AND status IN ('lobby', 'playing')",
            (channel_id,),
        )
        return _record(row) if row else None

    async def active_games(self) -> list[GameRecord]:
        rows = await self._fetchall(
            "SELECT * FROM games WHERE status IN ('lobby', 'playing') ORDER BY id"
        )
        return [_record(r) for r in rows]

    async def save(
        self,
        game_id: int,
        *,
        expect_version: int,
        state: dict[str, Any],
        status: str | None = None,
        actions: Sequence[tuple[int, dict[str, Any]]] = (),
        now: datetime | None = None,
    ) -> GameRecord:
        """Append `actions`, replace the snapshot, bump the version: one transaction.

        StaleVersion (nothing written) unless the stored version is `expect_version`;
        re-appending an identical (seq, action) is a no-op, a different one ActionConflict.
        """
        if status is not None and status not in STATUSES:
            raise ValueError(f"unknown status {status!r}")
        stamp = to_text(now or _utcnow())
        state_text = _json(state)
        payloads = [(seq, _json(action)) for seq, action in actions]
        async with self._transaction() as conn:
            try:
                cur = await conn.execute(
                    "UPDATE games SET state = ?, status = COALESCE(?, status),"
                    " version = version + 1, updated_at = ? WHERE id = ? AND version = ?"
                    " RETURNING *",
                    (state_text, status, stamp, game_id, expect_version),
                )
                row = await cur.fetchone()
                await cur.close()
            except sqlite3.IntegrityError:
                # Only the one-active-game index can fail here: a cancelled or finished
                # game brought back to life in a channel that has a new one.
                async with conn.execute(
                    "SELECT channel_id FROM games WHERE id = ?", (game_id,)
                ) as c:
                    channel = await c.fetchone()
                busy = await _active_id(conn, channel[0]) if channel else None
                if busy is None:
                    raise
                raise ChannelBusy(busy) from None
            if row is None:
                async with conn.execute("SELECT version FROM games WHERE id = ?", (game_id,)) as c:
                    found = await c.fetchone()
                if found is None:
                    raise GameNotFound(game_id)
                raise StaleVersion(game_id, expect_version, found[0])
            for seq, payload in payloads:
                await _append(conn, game_id, seq, payload, stamp)
        return _record(row)

    async def actions(self, game_id: int) -> list[dict[str, Any]]:
        rows = await self._fetchall(
            "SELECT payload FROM actions WHERE game_id = ? ORDER BY seq", (game_id,)
        )
        return [json.loads(r[0]) for r in rows]


async def _append(
    conn: aiosqlite.Connection, game_id: int, seq: int, payload: str, stamp: str
) -> None:
    cur = await conn.execute(
        "INSERT INTO actions (game_id, seq, payload, created_at) VALUES (?, ?, ?, ?)"
        " ON CONFLICT (game_id, seq) DO NOTHING",
        (game_id, seq, payload, stamp),
    )
    inserted = cur.rowcount
    await cur.close()
    if inserted:
        return
    async with conn.execute(
        "SELECT payload FROM actions WHERE game_id = ? AND seq = ?", (game_id, seq)
    ) as c:
        stored = await c.fetchone()
    # Compare parsed JSON: the same action may have been serialised with another key order.
    if stored is None or json.loads(stored[0]) != json.loads(payload):
        raise ActionConflict(game_id, seq)


async def _active_id(conn: aiosqlite.Connection, channel_id: int) -> int | None:
    async with conn.execute(
        "SELECT id FROM games WHERE channel_id = ? AND status IN (?, ?)",
        (channel_id, *ACTIVE_STATUSES),
    ) as cur:
        row = await cur.fetchone()
    return int(row[0]) if row else None


def _record(row: aiosqlite.Row | sqlite3.Row) -> GameRecord:
    return GameRecord(
        id=row["id"],
        guild_id=row["guild_id"],
        channel_id=row["channel_id"],
        host_id=row["host_id"],
        rules=row["rules"],
        status=row["status"],
        version=row["version"],
        state=json.loads(row["state"]),
        created_at=from_text(row["created_at"]),
        updated_at=from_text(row["updated_at"]),
    )


async def _user_version(conn: aiosqlite.Connection) -> int:
    async with conn.execute("PRAGMA user_version") as cur:
        row = await cur.fetchone()
    return int(row[0]) if row else 0


async def _migrate(conn: aiosqlite.Connection, upto: int | None = None) -> None:
    """Apply every migration newer than PRAGMA user_version, each in its own transaction."""
    known = migrations()
    current = await _user_version(conn)
    if current > len(known):
        raise RuntimeError(
            f"the database is at schema version {current}, newer than this code ({len(known)})"
        )
    for version, name, sql in known:
        if version <= current or (upto is not None and version > upto):
            continue
        log.info("applying migration %s", name)
        # user_version is part of the database header, so it commits with the schema.
        script = f"BEGIN IMMEDIATE;\n{sql}\n;PRAGMA user_version = {version:d};\nCOMMIT;"
        try:
            await conn.executescript(script)
        except BaseException:
            if conn.in_transaction:
                await conn.execute("ROLLBACK")
            raise
