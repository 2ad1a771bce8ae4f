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


METRICS = ("wins", "net", "average", "best", "skill")
# Skill is only ranked for members with this many analysed games.
SKILL_MIN_GAMES = 5
TURN_TIMEOUT_MIN, TURN_TIMEOUT_MAX, TURN_TIMEOUT_DEFAULT = 30, 86400, 300


@dataclass(frozen=True)
class SeatResult:
    """One seat's result, written with the game's last action (`Store.save(results=…)`)."""

    seat: int
    player_id: int | None  # the Discord member; None only for a bot seat
    name: str  # the name played under (display name at the time)
    is_bot: bool
    total: int
    rank: int  # 1 = won (ties share it)
    settlement: float  # total − the table's average
    ev_loss: float | None = None  # expected points lost per decision, when analysed


@dataclass(frozen=True)
class StoredResult:
    game_id: int
    seat: int
    guild_id: int | None
    rules: str
    player_id: int | None
    name: str
    is_bot: bool
    total: int
    rank: int
    settlement: float
    ev_loss: float | None
    duration_s: float
    finished_at: datetime


@dataclass(frozen=True)
class BoardLine:
    rank: int  # fair: equal values share a rank (1, 2, 2, 4)
    position: int  # 1-based place in the ordering (ties broken by member id)
    player_id: int
    value: float  # the metric; skill lower is better
    games: int


@dataclass(frozen=True)
class BoardPage:
    metric: str
    rules: str | None
    page: int  # 0-based, clamped to the pages there are
    pages: int  # at least 1
    ranked: int  # members on the board
    lines: list[BoardLine]
    me: BoardLine | None  # the asking member's line, on this page or not
    has_games: bool = True  # any finished game in scope (a skill board may still be empty)


@dataclass(frozen=True)
class MemberStats:
    rules: str | None  # None: every rule set together
    games: int
    wins: int
    average: float
    best: int
    net: float
    skill: float | None  # mean points lost per decision over analysed games
    analysed: int

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0


@dataclass(frozen=True)
class FinishedGame:
    game: GameRecord
    results: list[StoredResult]  # by seat


@dataclass(frozen=True)
class GuildSettings:
    guild_id: int
    default_rules: str | None = None
    turn_timeout: int = TURN_TIMEOUT_DEFAULT  # seconds
    bots_allowed: bool = True
    hints_allowed: bool = True
    images: bool = False
    language: str | None = None


SETTINGS_FIELDS = (
    "default_rules",
    "turn_timeout",
    "bots_allowed",
    "hints_allowed",
    "images",
    "language",
)


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
        results: Sequence[SeatResult] = (),
        now: datetime | None = None,
    ) -> GameRecord: ...

    async def save_ids(
        self,
        game_id: int,
        *,
        expect_version: int,
        state: dict[str, Any],
        now: datetime | None = None,
    ) -> GameRecord: ...

    async def actions(self, game_id: int) -> list[dict[str, Any]]: ...

    async def results(self, game_id: int) -> list[StoredResult]: ...

    async def leaderboard(
        self,
        guild_id: int,
        *,
        metric: str = "wins",
        rules: str | None = None,
        page: int = 0,
        per_page: int = 10,
        member_id: int | None = None,
    ) -> BoardPage: ...

    async def member_stats(self, guild_id: int, member_id: int) -> list[MemberStats]: ...

    async def recent_scores(
        self, guild_id: int, member_id: int, limit: int = 20
    ) -> list[StoredResult]: ...

    async def history(
        self, guild_id: int, *, limit: int = 10, offset: int = 0
    ) -> list[FinishedGame]: ...

    async def finished_count(self, guild_id: int) -> int: ...

    async def guild_settings(self, guild_id: int) -> GuildSettings: ...

    async def update_settings(
        self, guild_id: int, changes: dict[str, Any], *, now: datetime | None = None
    ) -> GuildSettings: ...
