"""The store: every SQL statement of the bot lives in this package.

Everything above `db/` types against the `GameStore` protocol and opens the store with
`open_store(DATABASE_URL)`; `db.sqlite` (the embedded default) and `db.postgres` (several
processes on one database) implement it. `migrate(DATABASE_URL)` only brings the schema up
to date (what `python -m bot migrate` calls).
"""

from __future__ import annotations

from .postgres import PostgresStore
from .sqlite import SqliteStore
from .store import (
    ID_MAX,
    KINDS,
    METRICS,
    OVERALL,
    SCORECARDS,
    SKILL_MIN_GAMES,
    TURN_TIMEOUT_DEFAULT,
    TURN_TIMEOUT_MAX,
    TURN_TIMEOUT_MIN,
    ActionConflict,
    BoardLine,
    BoardPage,
    ChannelBusy,
    DailyBest,
    DailyBoard,
    DailyLine,
    DailyStats,
    DailyTaken,
    FinishedGame,
    GameNotFound,
    GameRecord,
    GameStore,
    GuildSettings,
    MemberStats,
    RatingChange,
    SeatResult,
    Shards,
    StaleRating,
    StaleVersion,
    StoredRating,
    StoredResult,
    StoreError,
    check_ids,
    shard_of,
)
from .url import DEFAULT_URL, DatabaseUrlError, parse, sqlite_url


async def open_store(url: str = DEFAULT_URL) -> GameStore:
    """Open (and migrate) the store `url` names; DatabaseUrlError for one we cannot open."""
    where = parse(url)
    if where.dialect == "sqlite":
        return await SqliteStore.open(where.target)
    return await PostgresStore.open(where.target)


async def migrate(url: str = DEFAULT_URL) -> int:
    """Bring the database `url` names up to date (a deploy step); its schema version."""
    store = await open_store(url)
    try:
        return await store.schema_version()
    finally:
        await store.close()


__all__ = [
    "DEFAULT_URL",
    "ID_MAX",
    "KINDS",
    "METRICS",
    "OVERALL",
    "SCORECARDS",
    "SKILL_MIN_GAMES",
    "TURN_TIMEOUT_DEFAULT",
    "TURN_TIMEOUT_MAX",
    "TURN_TIMEOUT_MIN",
    "ActionConflict",
    "BoardLine",
    "BoardPage",
    "ChannelBusy",
    "DailyBest",
    "DailyBoard",
    "DailyLine",
    "DailyStats",
    "DailyTaken",
    "DatabaseUrlError",
    "FinishedGame",
    "GameNotFound",
    "GameRecord",
    "GameStore",
    "GuildSettings",
    "MemberStats",
    "PostgresStore",
    "RatingChange",
    "SeatResult",
    "Shards",
    "SqliteStore",
    "StaleRating",
    "StaleVersion",
    "StoreError",
    "StoredRating",
    "StoredResult",
    "check_ids",
    "migrate",
    "open_store",
    "parse",
    "shard_of",
    "sqlite_url",
]
