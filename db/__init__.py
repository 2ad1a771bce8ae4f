"""The store: every SQL statement of the bot lives in this package.

`from db import Store, GameRecord, ChannelBusy, StaleVersion`; `Store` is the SQLite store,
`GameStore` the protocol a cog may type against (room for a PostgreSQL store later).
"""

from .base import (
    ActionConflict,
    ChannelBusy,
    GameNotFound,
    GameRecord,
    GameStore,
    StaleVersion,
    StoreError,
)
from .sqlite import SqliteStore

Store = SqliteStore

__all__ = [
    "ActionConflict",
    "ChannelBusy",
    "GameNotFound",
    "GameRecord",
    "GameStore",
    "SqliteStore",
    "StaleVersion",
    "Store",
    "StoreError",
]
