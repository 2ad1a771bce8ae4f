"""The store's interface: what the cogs depend on, whatever database is behind it.

`SqliteStore` (db/sqlite.py) is the implementation shipped; a PostgreSQL store would
implement the same `GameStore` protocol and raise the same errors.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

ACTIVE_STATUSES = ("lobby", "playing")
STATUSES = ("lobby", "playing", "finished", "cancelled")


class StoreError(Exception):
    """Base class of the store's domain errors."""


class ChannelBusy(StoreError):  # noqa: N818 (the agreed interface)
    """The channel already has a lobby or a game in play."""

    def __init__(self, game_id: int) -> None:
        super().__init__(f"channel already has active game {game_id}")
        self.game_id = game_id


class StaleVersion(StoreError):  # noqa: N818 (the agreed interface)
    """The caller's snapshot is out of date: someone saved in between."""

    def __init__(self, game_id: int, expected: int, actual: int) -> None:
        super().__init__(f"game {game_id} is at version {actual}, not {expected}")
        self.game_id = game_id
        self.expected = expected
        self.actual = actual


class GameNotFound(StoreError, LookupError):  # noqa: N818 (the agreed interface)
    def __init__(self, game_id: int) -> None:
        super().__init__(f"no game {game_id}")
        self.game_id = game_id


class ActionConflict(StoreError):  # noqa: N818 (the agreed interface)
    """A different action was already stored at this sequence number."""

    def __init__(self, game_id: int, seq: int) -> None:
        super().__init__(f"game {game_id} already has a different action at seq {seq}")
        self.game_id = game_id
        self.seq = seq


@dataclass(frozen=True)
class GameRecord:
    id: int
    guild_id: int | None
    channel_id: int
    host_id: int
    rules: str
    status: str  # "lobby" | "playing" | "finished" | "cancelled"
    version: int  # bumped by every save; the cog puts it in custom_ids
    state: dict[str, Any]  # the cog's JSON snapshot
    created_at: datetime  # aware UTC
    updated_at: datetime


class GameStore(Protocol):
    async def close(self) -> None: ...

    async def create_game(
        self,
        *,
        guild_id: int | None,
        channel_id: int,
        host_id: int,
        rules: str,
        state: dict[str, Any],
        now: datetime | None = None,
    ) -> GameRecord: ...

    async def get_game(self, game_id: int) -> GameRecord | None: ...

    async def active_game(self, channel_id: int) -> GameRecord | None: ...

    async def active_games(self) -> list[GameRecord]: ...

    async def save(
        self,
        game_id: int,
        *,
        expect_version: int,
        state: dict[str, Any],
        status: str | None = None,
        actions: Sequence[tuple[int, dict[str, Any]]] = (),
        now: datetime | None = None,
    ) -> GameRecord: ...

    async def actions(self, game_id: int) -> list[dict[str, Any]]: ...
