"""The store: every SQL statement of the bot lives in this package.

Everything above `db/` types against the `GameStore` protocol (db/store.py) and opens the
store with `open_store(DATABASE_URL)`: one implementation (db/sql.py) over SQLAlchemy, on
SQLite (the embedded default) or PostgreSQL (several processes on one database).
`migrate(DATABASE_URL)` only brings the schema up to date (`python -m bot migrate`).
"""

from __future__ import annotations

import sqlalchemy.exc

from bot.records import (  # isort: skip (the names, not one a line)
    ID_MAX, KINDS, METRICS, OVERALL, SCORECARDS, SKILL_MIN_GAMES, TURN_TIMEOUT_DEFAULT,
    TURN_TIMEOUT_MAX, TURN_TIMEOUT_MIN, BoardLine, BoardPage, DailyBest, DailyBoard, DailyLine,
    DailyStats, FinishedGame, GameRecord, GuildSettings, MemberStats, RatingChange, SeatResult,
    Shards, StoredRating, StoredResult, shard_of,
)

from .store import (  # isort: skip
    ActionConflict, ChannelBusy, DailyTaken, GameNotFound, GameStore, StaleRating, StaleVersion,
    StoreError, check_ids,
)
from .engine import SchemaError, head
from .sql import PostgresStore, SqliteStore
from .url import DEFAULT_URL, DatabaseUrlError, parse, sqlite_url


class DatabaseUnavailable(StoreError):  # noqa: N818 (named like the other refusals)
    """The database cannot be opened or reached; the message is the first line of why."""


async def open_store(url: str = DEFAULT_URL) -> GameStore:
    """Open (and migrate) the store `url` names: DatabaseUrlError for a URL we cannot use,
    DatabaseUnavailable for a database we cannot open, SchemaError for one we will not."""
    where = parse(url)
    try:
        if where.dialect == "sqlite":
            return await SqliteStore.open(where.target)
        return await PostgresStore.open(where.target)
    except (OSError, sqlalchemy.exc.DBAPIError) as exc:
        why = exc.orig if isinstance(exc, sqlalchemy.exc.DBAPIError) else exc
        text = str(why).strip().splitlines()
        raise DatabaseUnavailable(text[0] if text else type(why).__name__) from exc


def latest_version() -> int:
    """The schema version this code migrates to (its newest revision)."""
    return int(head())


async def migrate(url: str = DEFAULT_URL) -> int:
    """Bring the database `url` names up to date (a deploy step); its schema version."""
    store = await open_store(url)
    try:
        return await store.schema_version()
    finally:
        await store.close()


__all__ = [
    "DEFAULT_URL", "ID_MAX", "KINDS", "METRICS", "OVERALL", "SCORECARDS", "SKILL_MIN_GAMES",
    "TURN_TIMEOUT_DEFAULT", "TURN_TIMEOUT_MAX", "TURN_TIMEOUT_MIN", "ActionConflict",
    "BoardLine", "BoardPage", "ChannelBusy", "DailyBest", "DailyBoard", "DailyLine",
    "DailyStats", "DailyTaken", "DatabaseUnavailable", "DatabaseUrlError", "FinishedGame",
    "GameNotFound", "GameRecord", "GameStore", "GuildSettings", "MemberStats",
    "PostgresStore", "RatingChange", "SchemaError", "SeatResult", "Shards", "SqliteStore",
    "StaleRating", "StaleVersion", "StoreError", "StoredRating", "StoredResult", "check_ids",
    "latest_version", "migrate", "open_store", "parse", "shard_of", "sqlite_url",
]
