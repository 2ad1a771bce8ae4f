"""The store: every SQL statement of the bot lives in this package.

`from db import Store, GameRecord, ChannelBusy, StaleVersion`; `Store` is the SQLite store,
`GameStore` the protocol a cog may type against (room for a PostgreSQL store later).
"""

from .base import (
    METRICS,
    SKILL_MIN_GAMES,
    TURN_TIMEOUT_DEFAULT,
    TURN_TIMEOUT_MAX,
    TURN_TIMEOUT_MIN,
    ActionConflict,
    BoardLine,
    BoardPage,
    ChannelBusy,
    FinishedGame,
    GameNotFound,
    GameRecord,
    GameStore,
    GuildSettings,
    MemberStats,
    SeatResult,
    StaleVersion,
    StoredResult,
    StoreError,
)
from .sqlite import SqliteStore

Store = SqliteStore

__all__ = [
    "METRICS",
    "SKILL_MIN_GAMES",
    "TURN_TIMEOUT_DEFAULT",
    "TURN_TIMEOUT_MAX",
    "TURN_TIMEOUT_MIN",
    "ActionConflict",
    "BoardLine",
    "BoardPage",
    "ChannelBusy",
    "FinishedGame",
    "GameNotFound",
    "GameRecord",
    "GameStore",
    "GuildSettings",
    "MemberStats",
    "SeatResult",
    "SqliteStore",
    "StaleVersion",
    "Store",
    "StoreError",
    "StoredResult",
]
