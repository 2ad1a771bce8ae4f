"""The store's interface: what everything above `db/` depends on, whatever database is
behind it.

`GameStore` is the protocol; `db.sql.Store` implements it once for both databases
(`SqliteStore`, the embedded default, and `PostgresStore`). A game is a `games` row
holding the current snapshot (`state`, JSON, opaque to the store; the host is in it) and
its `version`, plus the append-only `actions` log; a snapshot holds the state, never the
history.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date, datetime, timedelta
from typing import Any, Protocol

# The records are defined once, below the store and everything above it (bot/records.py);
# the stores import them from here as before.
from bot.records import (  # noqa: F401  # isort: skip (re-exported)
    ID_MAX, KINDS, METRICS, OVERALL, SCORECARDS, SEASON_MODES, SKILL_MIN_GAMES,
    TURN_TIMEOUT_DEFAULT, TURN_TIMEOUT_MAX, TURN_TIMEOUT_MIN, BoardLine, BoardPage, DailyBest,
    DailyBoard, DailyLine, DailyStats, FinishedGame, GameRecord, GuildSettings, MemberStats,
    RatingChange, SeatResult, Shards, StoredRating, StoredResult, TOURNAMENT_STATUSES,
    TournamentRecord, TournamentResult, TournamentStats, season_scope, shard_of,
)

ACTIVE_STATUSES = ("lobby", "playing")
STATUSES = ("lobby", "playing", "finished", "cancelled")


class StoreError(Exception):
    """Base class of the store's domain errors."""


class _GameError(StoreError):
    """A refusal about one game; `said` is its message, formatted with the arguments."""

    said = ""

    def __init__(self, game_id: int) -> None:
        super().__init__(self.said.format(game_id))
        self.game_id = game_id


class ChannelBusy(_GameError):  # noqa: N818 (the agreed interface)
    """The channel already has a lobby or a game in play."""

    said = "channel already has active game {}"


class StaleVersion(StoreError):  # noqa: N818 (the agreed interface)
    """The caller's snapshot is out of date: someone saved in between."""

    def __init__(self, game_id: int, expected: int, actual: int) -> None:
        super().__init__(f"game {game_id} is at version {actual}, not {expected}")
        self.game_id, self.expected, self.actual = game_id, expected, actual


class DailyTaken(_GameError):  # noqa: N818 (named like the other refusals)
    """The member already has a daily game of this rule set on this day."""

    said = "the member already has daily game {}"


class StaleRating(_GameError):  # noqa: N818 (named like StaleVersion)
    """A rating changed since it was read (another game of the player finished first):
    nothing was written; read the ratings again and recompute."""

    said = "game {}: a player's rating changed since it was read"


class GameNotFound(_GameError, LookupError):  # noqa: N818 (the agreed interface)
    said = "no game {}"


class ActionConflict(StoreError):  # noqa: N818 (the agreed interface)
    """A different action was already stored at this sequence number."""

    def __init__(self, game_id: int, seq: int) -> None:
        super().__init__(f"game {game_id} already has a different action at seq {seq}")
        self.game_id, self.seq = game_id, seq


def check_ids(**ids: int | None) -> None:
    """ValueError unless each given id (None: absent) fits a signed 64-bit column and is
    not negative. Both stores check before any query, so a number from a forged custom_id
    gets the same clear error from either (SQLite would raise OverflowError, asyncpg its
    own)."""
    for name, value in ids.items():
        if value is not None and not 0 <= value <= ID_MAX:
            raise ValueError(f"{name} {value} is out of range (0 to 2**63 - 1)")


NAME_MAX = 32  # a rule set's name, a rating scope


def check_names(**names: str) -> None:
    """ValueError unless each name (a rule set, a scope) is short text."""
    for key, value in names.items():
        if not isinstance(value, str) or not 0 < len(value) <= NAME_MAX:
            raise ValueError(f"{key} must be a name of 1 to {NAME_MAX} characters")


def check_counts(**counts: int) -> None:
    """ValueError unless each count (a limit, an offset, a sequence number) is 0 to ID_MAX."""
    for name, value in counts.items():
        if not 0 <= value <= ID_MAX:
            raise ValueError(f"{name} must be 0 to 2**63 - 1, not {value}")


SETTINGS_FIELDS = ("default_rules", "turn_timeout", "bots_allowed", "hints_allowed", "images",
                   "language", "scorecards", "season", "season_channel")


def check_settings(changes: dict[str, Any]) -> None:
    """ValueError unless `changes` are known settings with values a store may keep."""
    unknown = set(changes) - set(SETTINGS_FIELDS)
    if unknown:
        raise ValueError(f"unknown setting {sorted(unknown)[0]!r}")
    timeout = changes.get("turn_timeout")
    if timeout is not None and not (
        isinstance(timeout, int) and TURN_TIMEOUT_MIN <= timeout <= TURN_TIMEOUT_MAX
    ):
        raise ValueError(f"turn_timeout must be {TURN_TIMEOUT_MIN}–{TURN_TIMEOUT_MAX} seconds")
    if "scorecards" in changes and changes["scorecards"] not in SCORECARDS:
        raise ValueError(f"scorecards must be one of {', '.join(SCORECARDS)}")
    for name in ("bots_allowed", "hints_allowed", "images"):
        if name in changes and not isinstance(changes[name], bool):
            raise ValueError(f"{name} must be true or false")
    if "season" in changes and changes["season"] not in SEASON_MODES:
        raise ValueError(f"season must be one of {', '.join(SEASON_MODES)}")
    channel = changes.get("season_channel")
    if channel is not None and not (isinstance(channel, int) and 0 < channel <= ID_MAX):
        raise ValueError("season_channel must be a channel id or empty")
    for name in ("default_rules", "language"):
        if not isinstance(changes.get(name, ""), str | None):
            raise ValueError(f"{name} must be a name or empty")


class GameStore(Protocol):
    """Everything the bot stores. Every write is one transaction; a change's actions, its
    snapshot and (at a game's end) its results are committed together or not at all."""

    async def close(self) -> None: ...

    async def schema_version(self) -> int: ...

    # --- games ----------------------------------------------------------------------

    async def create_game(
        self, *, guild_id: int | None, channel_id: int, host_id: int, rules: str,
        state: dict[str, Any], deadline: datetime | None = None, now: datetime | None = None,
        day: date | None = None,
    ) -> GameRecord:
        """A new game at version 0: a lobby at a table; ChannelBusy if the channel has an
        active game. With `day`, the host's daily of that day, in play at once (`kind`
        "daily"); DailyTaken if they already have that day's daily of these rules."""
        ...

    async def get_game(self, game_id: int) -> GameRecord | None: ...

    async def daily_game(self, player_id: int, rules: str, day: date) -> GameRecord | None:
        """The member's daily of `rules` on `day`, wherever they started it."""
        ...

    async def active_game(self, channel_id: int) -> GameRecord | None:
        """The channel's lobby or game in play at its table (never a daily)."""
        ...

    async def active_games(self, *, shards: Shards | None = None) -> list[GameRecord]:
        """Every lobby and game in play at a table (of the guilds on `shards`), oldest
        first. Dailies are not among them: they have no timer and are loaded by id."""
        ...

    async def due_games(
        self, now: datetime, *, shards: Shards | None = None, limit: int = 100,
    ) -> list[int]:
        """Ids of active games whose deadline has passed, most overdue first."""
        ...

    async def claim_due(
        self, now: datetime, *, lease: timedelta, shards: Shards | None = None,
        ids: Sequence[int] | None = None, limit: int = 100,
    ) -> list[int]:
        """Claim active games whose deadline has passed and whose last claim (if any) ran
        out, until `now + lease`; their ids, most overdue first. `ids`: only among these.
        Two processes claiming at once never get the same game. A claim holds for the
        version it saw: any `save` ends it, so the next deadline is claimable once due."""
        ...

    async def active_versions(self, *, shards: Shards | None = None) -> dict[int, int]:
        """Every lobby and game in play (of the guilds on `shards`): id → version. What a
        process compares its cache with, to learn of changes another process made."""
        ...

    async def save(
        self, game_id: int, *, expect_version: int, state: dict[str, Any],
        status: str | None = None, actions: Sequence[tuple[int, dict[str, Any]]] = (),
        results: Sequence[SeatResult] = (), deadline: datetime | None = None,
        now: datetime | None = None, ratings: Sequence[RatingChange] = (),
    ) -> GameRecord:
        """Append `actions` (seq, JSON), replace the snapshot and the deadline, bump the
        version: one transaction. StaleVersion (nothing written) unless the stored version
        is `expect_version`; re-appending an identical action is a no-op, a different one
        ActionConflict; `results` only with the game's finish (a daily's one seat goes to
        the daily results, with its streak). `ratings` (only with results) are written in
        the same transaction; StaleRating, and nothing written, if one of them was
        computed from a rating that is no longer the stored one."""
        ...

    async def save_messages(
        self, game_id: int, *, expect_version: int, state: dict[str, Any],
        now: datetime | None = None,
    ) -> GameRecord:
        """Replace the snapshot of a change already saved (a posted message's id) WITHOUT
        bumping the version: the message just posted carries this version in its ids."""
        ...

    async def actions(self, game_id: int) -> list[dict[str, Any]]:
        """The game's log in order (the replay format's actions)."""
        ...

    # --- results, leaderboards, stats, history ----------------------------------------

    async def results(self, game_id: int) -> list[StoredResult]: ...

    async def record_analysis(self, game_id: int, losses: Mapping[int, float]) -> int:
        """Fill in the expected points lost per decision (seat → value) of a finished
        game's seats not analysed yet (a daily's seat 0 too); the standings follow.
        Returns the seats written."""
        ...

    async def ratings(
        self, guild_id: int, players: Sequence[int], rules: Sequence[str] | None = None,
    ) -> list[StoredRating]:
        """The stored ratings of `players` in the scopes `rules` (rule sets or OVERALL;
        None: every scope), ordered by scope (OVERALL first) and player."""
        ...

    # --- the daily dice ------------------------------------------------------------------

    async def daily_board(
        self, guild_id: int, rules: str, day: date, *, limit: int = 10,
        member_id: int | None = None,
    ) -> DailyBoard:
        """The server's ranking of a day's daily of `rules`: the first `limit` and the
        member's own line."""
        ...

    async def daily_stats(self, guild_id: int, member_id: int) -> list[DailyStats]:
        """The member's dailies here: every rule set together first, then each; empty
        when they played none."""
        ...

    async def daily_best(self, dice: str, rules: str, day: date) -> DailyBest | None:
        """The cached hindsight optimum of the dice `dice` (the secret's fingerprint)."""
        ...

    async def put_daily_best(
        self, dice: str, rules: str, day: date, best: DailyBest, *, now: datetime | None = None,
    ) -> None:
        """Cache a hindsight optimum (the first one written stays: they are all equal)."""
        ...

    async def deployment_secret(
        self, name: str, candidate: bytes, *, now: datetime | None = None,
    ) -> bytes:
        """The secret stored under `name`, storing `candidate` first if there is none
        (every process of the deployment gets the same one)."""
        ...

    async def leaderboard(
        self, guild_id: int, *, metric: str = "wins", rules: str | None = None, page: int = 0,
        per_page: int = 10, member_id: int | None = None, since: datetime | None = None,
        until: datetime | None = None,
    ) -> BoardPage:
        """With `since`/`until`: the board of the results that finished in [since, until)
        (a season); the rating board then needs both ends (the season's rating scope)."""
        ...

    async def member_stats(
        self, guild_id: int, member_id: int, *, since: datetime | None = None,
        until: datetime | None = None,
    ) -> list[MemberStats]: ...

    async def recent_scores(
        self, guild_id: int, member_id: int, limit: int = 20,
    ) -> list[StoredResult]: ...

    async def history(
        self, guild_id: int, *, limit: int = 10, offset: int = 0,
    ) -> list[FinishedGame]: ...

    async def finished_count(self, guild_id: int) -> int: ...

    # --- per-server settings -------------------------------------------------------------

    async def guild_settings(self, guild_id: int) -> GuildSettings:
        """The server's settings, the defaults for a server that set none."""
        ...

    async def update_settings(
        self, guild_id: int, changes: dict[str, Any], *, now: datetime | None = None,
    ) -> GuildSettings:
        """Change some settings (the others keep their value); ValueError on a bad one."""
        ...

    # --- tournaments (bot.match.tournament: the snapshot and log are opaque here) ---------

    async def create_tournament(
        self, *, guild_id: int | None, channel_id: int, state: dict[str, Any],
        actions: Sequence[dict[str, Any]], now: datetime | None = None,
    ) -> TournamentRecord:
        """A new sign-up with its first actions (the log's seq 0, 1, …)."""
        ...

    async def get_tournament(self, tournament_id: int) -> TournamentRecord | None: ...

    async def active_tournaments(self) -> list[TournamentRecord]:
        """Every sign-up and tournament in play (start-up)."""
        ...

    async def tournament_of_game(self, game_id: int) -> int | None:
        """The tournament whose table `game_id` is (None: an ordinary game)."""
        ...

    async def save_tournament(
        self, tournament_id: int, *, expect_version: int, state: dict[str, Any],
        status: str | None = None, actions: Sequence[dict[str, Any]] = (),
        games: Sequence[int] = (), results: Sequence[TournamentResult] = (),
        now: datetime | None = None,
    ) -> TournamentRecord:
        """One change: actions appended, snapshot replaced, version bumped, the table games
        it opened noted, and at the finish the members' results; StaleVersion when another
        change was saved first (nothing written)."""
        ...

    async def tournament_actions(self, tournament_id: int) -> list[dict[str, Any]]: ...

    async def tournament_stats(
        self, guild_id: int, member_id: int, *, since: datetime | None = None,
        until: datetime | None = None,
    ) -> TournamentStats:
        """The member's finished tournaments here (finished in [since, until) if given)."""
        ...

    # --- seasons ---------------------------------------------------------------------------

    async def first_result(self, guild_id: int) -> datetime | None:
        """When the server's first table game finished."""
        ...

    async def season_guilds(self) -> list[GuildSettings]:
        """The settings of every server with seasons on."""
        ...

    async def last_podium(self, guild_id: int, mode: str) -> int | None:
        """The last season of `mode` whose podium was posted in this server."""
        ...

    async def claim_podium(
        self, guild_id: int, mode: str, number: int, *, now: datetime, lease: timedelta,
    ) -> str:
        """"mine" (post it, then `podium_posted`), "posted" or "busy": one claimer wins."""
        ...

    async def podium_posted(
        self, guild_id: int, mode: str, number: int, *, message_id: int | None,
        now: datetime | None = None,
    ) -> None: ...
