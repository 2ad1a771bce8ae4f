"""The records the store returns and the rest of the bot reads: games, results, the
leaderboards, stats, the daily board, ratings, a server's settings (pure data).

Defined once, below everything that uses them: `db/` returns them (the `GameStore`
protocol), `bot/service` and the cogs pass them on, `bot/render` draws them. A game's
`state` is the match's snapshot, read only through `bot.match.Match`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

# A game at a channel's table, or one member's solo game of the day's dice (`day` set). A
# daily never blocks its channel, is loaded only by id, and its result goes to the daily
# tables instead of `results` (no wins, no rating, no history).
KINDS = ("table", "daily")
# The rating scope of every rule set together (beside one scope per rule set).
OVERALL = "*"


@dataclass(frozen=True)
class GameRecord:
    id: int
    guild_id: int | None
    channel_id: int
    rules: str
    status: str  # "lobby" | "playing" | "finished" | "cancelled"
    version: int  # bumped by every save of a change; custom_ids carry it
    state: dict[str, Any]  # the service's JSON snapshot
    created_at: datetime  # aware UTC
    updated_at: datetime
    deadline: datetime | None = None  # when the turn timer acts (an indexed column)
    kind: str = "table"  # "table" | "daily"
    day: date | None = None  # a daily's UTC day (None at a table)
    member_id: int | None = None  # a daily's member (a table's host is in its snapshot)


@dataclass(frozen=True)
class Shards:
    """The Discord shards a process holds: a guild's games belong to one of them.

    Discord puts guild g on shard `(g >> 22) % count`; direct messages are on shard 0.
    """

    count: int
    ids: frozenset[int]

    def holds(self, guild_id: int | None) -> bool:
        return shard_of(guild_id, self.count) in self.ids


def shard_of(guild_id: int | None, count: int) -> int:
    return 0 if guild_id is None else (guild_id >> 22) % count


# Ids come from Discord and from custom_ids: a row id is a positive signed 64-bit integer
# in both databases, and anything else is refused before it reaches a query.
ID_MAX = 2**63 - 1

METRICS = ("wins", "net", "average", "best", "skill", "daily", "rating", "tournaments")
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
    player_id: int  # a member; on the rating board a computer level's negative id too
    value: float  # the metric; skill lower is better
    games: int  # games (daily: days played; rating: rated games)
    name: str = ""  # the name the member last played under in this server
    extra: float | None = None  # daily: the best streak; rating: the spread (30 sigma)


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
class StoredRating:
    """A player's rating in one scope of a server: a rule set, or OVERALL."""

    rules: str
    player_id: int  # a member, or a computer level's negative id (bot.match.rated_id)
    mu: float
    sigma: float
    ordinal: float  # the shown value (bot.strategy.rating.ordinal), kept for the board
    games: int  # rated games so far: also the row's version (StaleRating)


@dataclass(frozen=True)
class RatingChange:
    """A rating after a game, computed from the stored one that had `games` rated games
    (0: none stored yet). `save` writes it only if that is still the stored count."""

    rules: str
    player_id: int
    mu: float
    sigma: float
    ordinal: float
    games: int


@dataclass(frozen=True)
class DailyLine:
    rank: int  # 1 + the members of the server with a strictly higher total that day
    position: int
    player_id: int
    name: str  # the name played under
    total: int
    streak: int  # days in a row this member played this rule set's daily here, up to it
    ev_loss: float | None  # points lost per decision, when analysed
    game_id: int


@dataclass(frozen=True)
class DailyBoard:
    guild_id: int
    rules: str
    day: date
    players: int  # members of the server who finished that day's daily
    lines: list[DailyLine]  # the first `limit`, best first
    me: DailyLine | None  # the asking member's, wherever it is


@dataclass(frozen=True)
class DailyStats:
    rules: str | None  # None: every rule set together
    played: int  # days
    wins: int  # days finished first in the server (a shared first place counts)
    best_streak: int
    best: int  # best total


@dataclass(frozen=True)
class DailyBest:
    """The hindsight optimum of a day's dice (the same for every member and server)."""

    score: int
    exact: bool


@dataclass(frozen=True)
class FinishedGame:
    game: GameRecord
    results: list[StoredResult]  # by seat

    @property
    def finished_at(self) -> datetime:
        """When it ended: its results' time (the game's last save, without any)."""
        return self.results[0].finished_at if self.results else self.game.updated_at


SCORECARDS = ("turn", "round", "end")  # when a game shows the table's scorecard


@dataclass(frozen=True)
class GuildSettings:
    """A server's settings; a server that never changed one has these defaults."""

    guild_id: int
    default_rules: str | None = None
    turn_timeout: int = TURN_TIMEOUT_DEFAULT  # seconds
    bots_allowed: bool = True
    hints_allowed: bool = True
    images: bool = False
    language: str | None = None
    scorecards: str = "turn"  # every turn, every round, or only the final standings
    season: str = "off"  # off | monthly | quarterly (bot.match.season)
    season_channel: int | None = None  # where a season's podium is posted (None: nowhere)
    season_since: datetime | None = None  # when `season` took its value (the store sets it)


SEASON_MODES = ("off", "monthly", "quarterly")


def season_scope(rules: str, since: datetime, until: datetime) -> str:
    """The rating scope of a season window [since, until) of a rule set or OVERALL:
    named by the window's months ("*@202612-202701"), so the store reads a season's ratings
    from the window the leaderboard is asked for, and a monthly and a quarterly season
    starting on one day never share a scope."""
    return f"{rules}@{since:%Y%m}-{until:%Y%m}"



# --- tournaments ------------------------------------------------------------------------

TOURNAMENT_STATUSES = ("signup", "playing", "finished", "cancelled")


@dataclass(frozen=True)
class TournamentRecord:
    """A tournament's row: its snapshot (`bot.match.tournament.Tournament.to_dict`), read
    only through `Tournament.from_snapshot`, and the version every change bumps."""

    id: int
    guild_id: int | None
    channel_id: int
    status: str  # TOURNAMENT_STATUSES
    version: int
    state: dict[str, Any]
    created_at: datetime
    updated_at: datetime
    finished_at: datetime | None = None


@dataclass(frozen=True)
class TournamentResult:
    """One member's outcome of a finished tournament (`bot.match.tournament.Outcome`),
    written with its last action: what `/poker stats` and the `tournaments` board count."""

    player_id: int
    name: str
    rounds: int
    final: bool
    place: int | None  # at the final table (None: not in it, or out before it ended)
    champion: bool


@dataclass(frozen=True)
class TournamentStats:
    """A member's tournaments in a server: played, won, final tables, best final place."""

    played: int
    wins: int
    finals: int
    best_place: int | None
