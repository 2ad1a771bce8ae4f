"""A tournament: players seeded into tables, the best of each table going on, until one
table is left, the final, whose winner is the champion (pure).

A `Tournament` is the fold of its actions (`Open`, `Join`, `AddComputer`, `Leave`,
`Start`, `OpenTable`, `Result`, `Advance`, `Cancel`), like an engine `Game`: every change
returns a new, immutable tournament and says what it did (`events`, and the `actions` it
applied, which the store appends to the tournament's log), and `Tournament.replay` of
the log rebuilds it exactly. What is random (the draw that orders equal ratings, a
roll-off's dice) is drawn by the high-level methods and written into the action, so the
fold itself is deterministic; so is what comes from outside (the ratings used to seed a
round, a table's standings, the time). The permission checks (host, Manage Server) are
the high-level methods'; `apply` checks everything the state decides.

Decisions (the issue leaves them to us):

- Sign-up: the host is the first player and cannot leave it (they cancel instead);
  2 to 64 players, computer players included; a sign-up nobody starts closes after
  `SIGNUP_TTL`. The host keeps the host's powers after being knocked out or leaving.
- Seeding (each round): rated players by their conservative rating (mu - 3 sigma, best
  first), then unrated players; equal values by the random draw made at the start and
  stored with it. Seeds are dealt into tables in snake order (1..k, then k..1, ...), so
  each table gets one player of every "row" of k seeds and the tables are as strong as
  seeds allow (equal sums of seed numbers after every two rows).
- Tables: a round of n players has ceil(n / table_size) tables (one table, the final,
  once n <= table_size); the snake makes their sizes differ by at most one. Only with
  tables of 2 and an odd n is a table left with one player: that is a bye, and the snake
  gives it to the best seed, who goes on without playing.
- Advancing: a table of m players sends on min(advance, m - 1) (every table knocks
  someone out, so the tournament always ends); the final sends on one, the champion.
  Players are ranked by place, then by settlement (a tie in place is a tie in total, and
  so in settlement, when the standings come from one engine game: there it decides
  nothing, but it is the rule); a tie across the last place that goes on is settled by
  one roll-off throw of five dice for each tied player (highest sum; equal sums by seed).
- Leaving: a player who leaves or is removed is out: never advances, never champion.
  Their table goes on without them (the edge applies the engine's leave there). A table
  whose every human left finishes with its computer players, who play it out as any
  table; a table with nobody left (no computer players) has finished by itself, and
  nobody goes on from it. If nobody is left in the tournament, it finishes with no
  champion; if one player is left when a round is done, they are champion (no final).
- Cancelling: every table not yet finished is cancelled (the edge cancels their games,
  which are then not rated); the tournament counts for nobody in the league. Finished
  tables stay the games they were.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any

from bot.engine import DICE, RULESETS, DiceSource, Game, GameError
from bot.i18n import LANGUAGES, t
from bot.strategy.rating import Rating, conservative

from .model import COMPUTER_LEVELS, MAX_SEATS, Seat, rated_id

MIN_PLAYERS = 2
MAX_PLAYERS = 64
TABLE_SIZES = range(2, MAX_SEATS + 1)
DEFAULT_TABLE_SIZE = 4
DEFAULT_ADVANCE = 1
SIGNUP_TTL = timedelta(hours=24)

SIGNUP, PLAYING, FINISHED, CANCELLED = "signup", "playing", "finished", "cancelled"
ACTIVE = (SIGNUP, PLAYING)
# A table: formed (its game not yet opened), in play, done, a bye, or cancelled.
WAITING, OPEN, DONE, BYE = "waiting", "playing", "finished", "bye"
TABLE_OVER = (DONE, BYE, CANCELLED)
# Why a player went on: by place, by settlement (tied on place), by the roll-off's sum,
# by seed (an equal roll-off sum), or a bye.
WHY = ("place", "settlement", "rolloff", "seed", "bye")
OUT_REASONS = ("left", "removed")


# --- records ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Entrant:
    """A player of the tournament: a member, or a computer player (negative id)."""

    id: int
    name: str  # as the member had it when they joined (raw text)
    is_bot: bool = False
    level: str | None = None  # a computer player's level
    draw: int = 0  # place in the start's random draw: orders equal ratings
    out: str | None = None  # None, or why they are out: "left" | "removed"
    out_round: int = 0  # the round they went out in (0: before the start)

    @property
    def seat(self) -> Seat:
        """The seat at a table's game."""
        return Seat(self.id, self.name, self.is_bot, self.level)

    @property
    def rated_id(self) -> int:
        """Who the entrant is to the ratings (a computer player: its level)."""
        return rated_id(self.seat)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "name": self.name}
        if self.is_bot:
            out.update(is_bot=True, level=self.level)
        if self.draw:
            out["draw"] = self.draw
        if self.out:
            out.update(out=self.out, out_round=self.out_round)
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Entrant:
        return cls(
            int(data["id"]),
            str(data["name"]),
            bool(data.get("is_bot", False)),
            data.get("level"),
            int(data.get("draw", 0)),
            data.get("out"),
            int(data.get("out_round", 0)),
        )


@dataclass(frozen=True)
class Placing:
    """One player's final standing at a table: what the table's game says of them."""

    player: int
    place: int  # 1 = best; ties share it
    total: int
    settlement: float  # total - the table's average
    left: bool = False  # left the table's game (so is out)

    def to_json(self) -> list[Any]:
        return [self.player, self.place, self.total, self.settlement, self.left]

    @classmethod
    def from_json(cls, raw: Sequence[Any]) -> Placing:
        player, place, total, settlement, left = raw
        return cls(int(player), int(place), int(total), float(settlement), bool(left))


def placings_of(game: Game) -> tuple[Placing, ...]:
    """A finished table game's standings as the tournament takes them (seat order)."""
    cards = {c.name: c for c in game.cards}
    return tuple(
        Placing(int(s.name), s.rank, s.totals.total, s.settlement, cards[s.name].left)
        for s in game.standings()
    )


@dataclass(frozen=True)
class Table:
    round: int
    no: int  # 1-based within its round
    seats: tuple[int, ...]  # entrant ids as dealt, best seed first
    advance: int  # how many go on from here (the final: 1, the champion)
    status: str = WAITING
    game_id: int | None = None
    thread_id: int | None = None
    players: tuple[int, ...] = ()  # who sat down when its game opened
    placings: tuple[Placing, ...] = ()
    advanced: tuple[tuple[int, str], ...] = ()  # (entrant id, why), best first
    rolloff: tuple[tuple[int, tuple[int, ...]], ...] = ()  # (entrant id, five dice)

    @property
    def over(self) -> bool:
        return self.status in TABLE_OVER

    @property
    def went_on(self) -> tuple[int, ...]:
        return tuple(p for p, _ in self.advanced)

    def why(self, player: int) -> str | None:
        return dict(self.advanced).get(player)

    def by_place(self, seeds: Sequence[int]) -> tuple[Placing, ...]:
        """The placings as shown: by place, then settlement, who went on before those
        tied with them who did not, then seed (`seeds`: the round's seed order)."""
        went = set(self.went_on)
        return tuple(
            sorted(self.placings, key=lambda p: (_key(p), p.player not in went,
                                                 seeds.index(p.player)))
        )  # fmt: skip

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"seats": list(self.seats), "advance": self.advance}
        out["status"] = self.status
        if self.game_id is not None:
            out["game"] = self.game_id
        if self.thread_id is not None:
            out["thread"] = self.thread_id
        if self.players:
            out["players"] = list(self.players)
        if self.placings:
            out["placings"] = [p.to_json() for p in self.placings]
        if self.advanced:
            out["advanced"] = [list(a) for a in self.advanced]
        if self.rolloff:
            out["rolloff"] = [[p, list(d)] for p, d in self.rolloff]
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], round_no: int, no: int) -> Table:
        return cls(
            round_no,
            no,
            tuple(int(s) for s in data["seats"]),
            int(data["advance"]),
            str(data["status"]),
            data.get("game"),
            data.get("thread"),
            tuple(int(p) for p in data.get("players", ())),
            tuple(Placing.from_json(p) for p in data.get("placings", ())),
            tuple((int(p), str(w)) for p, w in data.get("advanced", ())),
            tuple((int(p), tuple(int(x) for x in d)) for p, d in data.get("rolloff", ())),
        )


@dataclass(frozen=True)
class Round:
    no: int  # 1-based
    # Everyone in the round in seed order, with the conservative rating that seeded them.
    seeding: tuple[tuple[int, float | None], ...]
    tables: tuple[Table, ...]

    @property
    def final(self) -> bool:
        return len(self.tables) == 1

    @property
    def done(self) -> bool:
        return all(tb.over for tb in self.tables)

    @property
    def seeds(self) -> tuple[int, ...]:
        return tuple(p for p, _ in self.seeding)

    def seed_of(self, player: int) -> int:
        """1-based seed in this round."""
        return self.seeds.index(player) + 1

    def table_of(self, player: int) -> Table | None:
        return next((tb for tb in self.tables if player in tb.seats), None)

    def to_dict(self) -> dict[str, Any]:
        return {
            "seeding": [[p, r] for p, r in self.seeding],
            "tables": [tb.to_dict() for tb in self.tables],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], no: int) -> Round:
        return cls(
            no,
            tuple((int(p), None if r is None else float(r)) for p, r in data["seeding"]),
            tuple(Table.from_dict(tb, no, i) for i, tb in enumerate(data["tables"], 1)),
        )


# --- actions (the log: JSON objects of one key, as the replay file has them) -------------


def _time(text: str | None) -> datetime | None:
    if not text:
        return None
    moment = datetime.fromisoformat(text)
    if moment.tzinfo is None:
        raise GameError("tournament.bad_action", field="at")
    return moment


def _iso(moment: datetime | None) -> str | None:
    return None if moment is None else moment.isoformat()


def _aware(moment: datetime) -> datetime:
    if moment.tzinfo is None:
        raise ValueError("a tournament's times are timezone-aware")
    return moment


@dataclass(frozen=True)
class Open:
    host: int
    name: str
    rules: str
    table_size: int
    advance: int
    lang: str
    at: datetime

    def to_json(self) -> dict[str, Any]:
        return {"open": {"host": self.host, "name": self.name, "rules": self.rules,
                         "table_size": self.table_size, "advance": self.advance,
                         "lang": self.lang, "at": _iso(self.at)}}  # fmt: skip


@dataclass(frozen=True)
class Join:
    player: int
    name: str

    def to_json(self) -> dict[str, Any]:
        return {"join": {"player": self.player, "name": self.name}}


@dataclass(frozen=True)
class AddComputer:
    player: int  # negative
    name: str  # in the tournament's language, as it was when added
    level: str

    def to_json(self) -> dict[str, Any]:
        return {"computer": {"player": self.player, "name": self.name, "level": self.level}}


@dataclass(frozen=True)
class Leave:
    """Before the start: off the sign-up; after it: out of the tournament."""

    player: int
    reason: str = "left"  # "left" | "removed"

    def to_json(self) -> dict[str, Any]:
        return {"leave": {"player": self.player, "reason": self.reason}}


@dataclass(frozen=True)
class Start:
    at: datetime
    draw: tuple[int, ...]  # every entrant, in the random draw's order
    ratings: tuple[tuple[int, float | None], ...]  # (entrant id, conservative rating)

    def to_json(self) -> dict[str, Any]:
        return {"start": {"at": _iso(self.at), "draw": list(self.draw),
                          "ratings": [list(r) for r in self.ratings]}}  # fmt: skip


@dataclass(frozen=True)
class OpenTable:
    round: int
    table: int
    game: int
    thread: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {"table": {"round": self.round, "table": self.table, "game": self.game,
                          "thread": self.thread}}  # fmt: skip


@dataclass(frozen=True)
class Result:
    round: int
    table: int
    placings: tuple[Placing, ...]
    rolloff: tuple[tuple[int, tuple[int, ...]], ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"result": {"round": self.round, "table": self.table,
                           "placings": [p.to_json() for p in self.placings],
                           "rolloff": [[p, list(d)] for p, d in self.rolloff]}}  # fmt: skip


@dataclass(frozen=True)
class Advance:
    at: datetime
    ratings: tuple[tuple[int, float | None], ...]  # of the players going on

    def to_json(self) -> dict[str, Any]:
        return {"advance": {"at": _iso(self.at), "ratings": [list(r) for r in self.ratings]}}


@dataclass(frozen=True)
class Cancel:
    by: int | None  # None: the sign-up expired
    at: datetime

    def to_json(self) -> dict[str, Any]:
        return {"cancel": {"by": self.by, "at": _iso(self.at)}}


TournamentAction = Open | Join | AddComputer | Leave | Start | OpenTable | Result | Advance | Cancel


def _ratings(raw: Iterable[Sequence[Any]]) -> tuple[tuple[int, float | None], ...]:
    return tuple((int(p), None if r is None else float(r)) for p, r in raw)


def parse_action(raw: Any) -> TournamentAction:  # noqa: PLR0911 - one answer per kind of action
    """An action from its JSON (the store's log, an export); GameError if malformed."""
    try:
        ((kind, body),) = raw.items()
        match kind:
            case "open":
                return Open(int(body["host"]), str(body["name"]), str(body["rules"]),
                            int(body["table_size"]), int(body["advance"]), str(body["lang"]),
                            _aware_time(body["at"]))  # fmt: skip
            case "join":
                return Join(int(body["player"]), str(body["name"]))
            case "computer":
                return AddComputer(int(body["player"]), str(body["name"]), str(body["level"]))
            case "leave":
                return Leave(int(body["player"]), str(body["reason"]))
            case "start":
                draw = tuple(int(p) for p in body["draw"])
                return Start(_aware_time(body["at"]), draw, _ratings(body["ratings"]))
            case "table":
                thread = body.get("thread")
                return OpenTable(int(body["round"]), int(body["table"]), int(body["game"]),
                                 None if thread is None else int(thread))  # fmt: skip
            case "result":
                placings = tuple(Placing.from_json(p) for p in body["placings"])
                rolloff = tuple(
                    (int(p), tuple(int(x) for x in d)) for p, d in body.get("rolloff", ())
                )
                return Result(int(body["round"]), int(body["table"]), placings, rolloff)
            case "advance":
                return Advance(_aware_time(body["at"]), _ratings(body["ratings"]))
            case "cancel":
                by = body.get("by")
                return Cancel(None if by is None else int(by), _aware_time(body["at"]))
    except (AttributeError, KeyError, TypeError, ValueError) as error:
        if isinstance(error, GameError):
            raise
        raise GameError("tournament.bad_action", field=str(raw)[:80]) from error
    raise GameError("tournament.bad_action", field=str(kind)[:80])


def _aware_time(text: Any) -> datetime:
    moment = _time(str(text))
    if moment is None:
        raise GameError("tournament.bad_action", field="at")
    return moment


# --- events: what a change did, for the service and the publisher ---------------------


@dataclass(frozen=True)
class Formed:
    """A round's tables were formed: open a thread and a game for each waiting table."""

    round: int


@dataclass(frozen=True)
class Out:
    """A player is out; `game_id`: the table game in which the edge applies their leave."""

    player: int
    reason: str
    game_id: int | None


@dataclass(frozen=True)
class TableDone:
    round: int
    table: int
    advanced: tuple[tuple[int, str], ...]


@dataclass(frozen=True)
class RoundDone:
    """Every table of the round is done: the service calls `advance` (once)."""

    round: int


@dataclass(frozen=True)
class Finished:
    champion: int | None


@dataclass(frozen=True)
class Cancelled:
    games: tuple[int, ...]  # the table games in play, to cancel


TournamentEvent = Formed | Out | TableDone | RoundDone | Finished | Cancelled


# --- forming a round -------------------------------------------------------------------


def table_count(players: int, table_size: int) -> int:
    """How many tables a round of `players` has: one (the final) when they fit one."""
    return max(1, math.ceil(players / table_size))


def snake(order: Sequence[int], tables: int) -> list[list[int]]:
    """`order` (best seed first) dealt into `tables` tables: seeds 1..k to tables 1..k,
    k+1..2k to tables k..1, and so on. Sizes differ by at most one."""
    out: list[list[int]] = [[] for _ in range(tables)]
    for i, player in enumerate(order):
        row, col = divmod(i, tables)
        out[col if row % 2 == 0 else tables - 1 - col].append(player)
    return out


def seed(
    players: Iterable[Entrant], ratings: Mapping[int, float | None]
) -> tuple[tuple[int, float | None], ...]:
    """Players in seed order: rated ones by conservative rating (best first), then the
    unrated; equal values by the start's draw."""

    def key(e: Entrant) -> tuple[bool, float, int]:
        value = ratings.get(e.id)
        return (value is None, -(value or 0.0), e.draw)

    return tuple((e.id, ratings.get(e.id)) for e in sorted(players, key=key))


def form_round(
    no: int,
    seeding: tuple[tuple[int, float | None], ...],
    table_size: int,
    advance: int,
) -> Round:
    """Round `no` of the players of `seeding` (seed order): its tables, snake-dealt."""
    order = [p for p, _ in seeding]
    count = table_count(len(order), table_size)
    tables = []
    for i, seats in enumerate(snake(order, count), 1):
        if len(seats) == 1:  # tables of two and an odd number: the best seed sits out
            tables.append(Table(no, i, tuple(seats), 1, BYE, advanced=((seats[0], "bye"),)))
            continue
        goes_on = 1 if count == 1 else min(advance, len(seats) - 1)
        tables.append(Table(no, i, tuple(seats), goes_on))
    return Round(no, seeding, tuple(tables))


def _key(p: Placing) -> tuple[int, float]:
    # Rounded so float noise (thirds of points) cannot split a real tie.
    return (p.place, -round(p.settlement, 6))


def decide(
    table: Table,
    placings: Sequence[Placing],
    eligible: Iterable[int],
    seeds: Sequence[int],
    rolloff: Mapping[int, Sequence[int]],
) -> tuple[tuple[int, str], ...] | None:
    """Who goes on from `table`: its best `advance` eligible players by place, then
    settlement; a tie across the last place that goes on by the `rolloff` dice (sum,
    then seed). None when a roll-off is needed and `rolloff` does not hold exactly the
    tied players' throws."""
    can = set(eligible)
    ranked = sorted((p for p in placings if p.player in can),
                    key=lambda p: (_key(p), seeds.index(p.player)))  # fmt: skip
    n = min(table.advance, len(ranked))
    if n == 0:
        return () if not rolloff else None
    cut = _key(ranked[n - 1])
    ahead = [p for p in ranked if _key(p) < cut]
    tied = [p for p in ranked if _key(p) == cut]
    behind_places = {p.place for p in ranked[n:]}

    def reason(p: Placing) -> str:
        return "settlement" if p.place in behind_places else "place"

    chosen = [(p.player, reason(p)) for p in ahead]
    spots = n - len(ahead)
    if spots == len(tied):
        if rolloff:
            return None
        return tuple(chosen + [(p.player, reason(p)) for p in tied])
    if set(rolloff) != {p.player for p in tied} or any(
        len(d) != DICE or any(x not in range(1, 7) for x in d) for d in rolloff.values()
    ):
        return None
    order = sorted(tied, key=lambda p: (-sum(rolloff[p.player]), seeds.index(p.player)))
    sums = [sum(rolloff[p.player]) for p in order]
    for i, p in enumerate(order[:spots]):
        # Decided by seed when the next one threw the same sum and did not go on.
        by_seed = i == spots - 1 and sums[i] == sums[spots]
        chosen.append((p.player, "seed" if by_seed else "rolloff"))
    return tuple(chosen)


def needs_rolloff(
    table: Table, placings: Sequence[Placing], eligible: Iterable[int]
) -> tuple[int, ...]:
    """The players who throw off for the last place(s) that go on (empty: none needed)."""
    can = set(eligible)
    ranked = sorted((p for p in placings if p.player in can), key=_key)
    n = min(table.advance, len(ranked))
    if n == 0 or n == len(ranked):
        return ()
    cut = _key(ranked[n - 1])
    if _key(ranked[n]) != cut:
        return ()
    return tuple(p.player for p in ranked if _key(p) == cut)


# --- the tournament ---------------------------------------------------------------------


@dataclass(frozen=True)
class Tournament:
    id: int
    channel_id: int
    guild_id: int | None
    host_id: int
    rules: str
    table_size: int = DEFAULT_TABLE_SIZE
    advance: int = DEFAULT_ADVANCE
    lang: str = "en"
    status: str = SIGNUP
    version: int = 0  # the store's: bumped by every change, carried by custom_ids
    entrants: tuple[Entrant, ...] = ()
    rounds: tuple[Round, ...] = ()
    champion: int | None = None
    cancelled_by: int | None = None
    message_id: int | None = None  # the one tournament message in the channel
    created_at: datetime | None = None
    started_at: datetime | None = None
    finished_at: datetime | None = None
    # What the last change did (not stored): its events and the actions it applied.
    events: tuple[TournamentEvent, ...] = field(default=(), compare=False)
    actions: tuple[TournamentAction, ...] = field(default=(), compare=False)

    # --- construction -------------------------------------------------------------------

    @classmethod
    def new(  # noqa: PLR0913 - keyword-only: a tournament's settings
        cls,
        *,
        id: int,
        channel_id: int,
        guild_id: int | None,
        host_id: int,
        host_name: str,
        rules: str,
        now: datetime,
        table_size: int = DEFAULT_TABLE_SIZE,
        advance: int = DEFAULT_ADVANCE,
        lang: str = "en",
    ) -> Tournament:
        """A sign-up opened by `host_id`, who is its first player."""
        verify_options(rules, table_size, advance, lang)
        blank = cls(id=id, channel_id=channel_id, guild_id=guild_id, host_id=host_id,
                    rules=rules)  # fmt: skip
        action = Open(host_id, host_name, rules, table_size, advance, lang, _aware(now))
        return blank.apply(action)

    @classmethod
    def replay(
        cls,
        actions: Iterable[TournamentAction | Mapping[str, Any]],
        *,
        id: int,
        channel_id: int,
        guild_id: int | None,
    ) -> Tournament:
        """The tournament its log of actions (objects or their JSON) makes."""
        state: Tournament | None = None
        for raw in actions:
            action = raw if not isinstance(raw, Mapping) else parse_action(raw)
            if state is None:
                if not isinstance(action, Open):
                    raise GameError("tournament.bad_action", field="open")
                state = cls(id=id, channel_id=channel_id, guild_id=guild_id,
                            host_id=action.host, rules=action.rules)  # fmt: skip
            state = state.apply(action)
        if state is None:
            raise GameError("tournament.bad_action", field="open")
        return state._did((), ())

    # --- queries ------------------------------------------------------------------------

    @property
    def active(self) -> bool:
        return self.status in ACTIVE

    def entrant(self, player: int) -> Entrant | None:
        return next((e for e in self.entrants if e.id == player), None)

    def name_of(self, player: int) -> str:
        e = self.entrant(player)
        return e.name if e else str(player)

    @property
    def current(self) -> Round | None:
        return self.rounds[-1] if self.rounds else None

    def table(self, round_no: int, no: int) -> Table:
        if not 1 <= round_no <= len(self.rounds):
            raise GameError("errors.stale")
        tables = self.rounds[round_no - 1].tables
        if not 1 <= no <= len(tables):
            raise GameError("errors.stale")
        return tables[no - 1]

    def table_of_game(self, game_id: int) -> Table | None:
        """The table whose game is `game_id` (the service hears of finished games so)."""
        for rnd in self.rounds:
            for tb in rnd.tables:
                if tb.game_id == game_id:
                    return tb
        return None

    @property
    def to_open(self) -> tuple[Table, ...]:
        """The current round's tables waiting for their game and thread."""
        rnd = self.current
        if self.status != PLAYING or rnd is None:
            return ()
        return tuple(tb for tb in rnd.tables if tb.status == WAITING)

    def seats_for(self, table: Table) -> tuple[Seat, ...]:
        """The seats of a table's game: its players still in, best seed first."""
        return tuple(e.seat for p in table.seats if (e := self.entrant(p)) and not e.out)

    def still_in(self, player: int) -> bool:
        """`player` has not left, been removed or been knocked out."""
        e = self.entrant(player)
        if e is None or e.out or not self.active:
            return False
        rnd = self.current
        if rnd is None:
            return True
        table = rnd.table_of(player)
        return table is not None and (not table.over or player in table.went_on)

    @property
    def awaiting_advance(self) -> bool:
        """Every table of the current round is done: the next round (or the end) is due."""
        rnd = self.current
        return self.status == PLAYING and rnd is not None and rnd.done

    @property
    def final(self) -> Table | None:
        """The final table, once it is formed."""
        rnd = self.current
        return rnd.tables[0] if rnd is not None and rnd.final else None

    def due_at(self) -> datetime | None:
        """When the timer closes a sign-up nobody started."""
        if self.status != SIGNUP or self.created_at is None:
            return None
        return self.created_at + SIGNUP_TTL

    # --- sign-up ------------------------------------------------------------------------

    def _require(self, status: str) -> None:
        if self.status != status:
            raise GameError("errors.stale")

    def _require_host(self, by: int, manager: bool, code: str) -> None:
        if by != self.host_id and not manager:
            raise GameError(code, name=self.name_of(self.host_id))

    def verify_join(self, player: int) -> None:
        self._require(SIGNUP)
        if self.entrant(player):
            raise GameError("errors.already_joined")
        if len(self.entrants) >= MAX_PLAYERS:
            raise GameError("tournament.full", n=MAX_PLAYERS)

    def can_join(self, player: int) -> bool:
        return _ok(self.verify_join, player)

    def join(self, player: int, name: str) -> Tournament:
        return self.apply(Join(player, name))

    def verify_add_computer(self, by: int, level: str, *, allowed: bool = True) -> None:
        self._require(SIGNUP)
        if not allowed:
            raise GameError("bots.not_allowed")
        if by != self.host_id:
            raise GameError("bots.only_host", name=self.name_of(self.host_id))
        if level not in COMPUTER_LEVELS:
            raise GameError("errors.stale")
        if len(self.entrants) >= MAX_PLAYERS:
            raise GameError("tournament.full", n=MAX_PLAYERS)

    def can_add_computer(self, by: int, level: str = "normal", *, allowed: bool = True) -> bool:
        return _ok(self.verify_add_computer, by, level, allowed=allowed)

    def add_computer(self, by: int, level: str, *, allowed: bool = True) -> Tournament:
        """One more computer player (the host's choice of level), named in the
        tournament's language."""
        self.verify_add_computer(by, level, allowed=allowed)
        player = min((e.id for e in self.entrants if e.is_bot), default=0) - 1
        name = t("bots.name", self.lang, n=-player, level=t(f"bots.level_{level}", self.lang))
        return self.apply(AddComputer(player, name, level))

    def verify_leave(self, player: int) -> None:
        """`player` leaves: off the sign-up, or out of the tournament once it started."""
        if not self.active:
            raise GameError("errors.stale")
        entrant = self.entrant(player)
        if self.status == SIGNUP:
            if player == self.host_id:
                raise GameError("tournament.host_cannot_leave")
            if entrant is None:
                raise GameError("tournament.not_signed_up")
        elif not self.still_in(player):
            raise GameError("tournament.not_in")

    def can_leave(self, player: int) -> bool:
        return _ok(self.verify_leave, player)

    def leave(self, player: int) -> Tournament:
        return self.apply(Leave(player, "left"))

    def verify_remove(self, by: int, target: int, *, manager: bool = False) -> None:
        """The host (or a member who manages the server) removes a player."""
        if not self.active:
            raise GameError("errors.stale")
        self._require_host(by, manager, "tournament.only_host_remove")
        if target == by:
            raise GameError("tournament.remove_self")
        if target == self.host_id and self.status == SIGNUP:
            raise GameError("tournament.host_cannot_leave")
        if self.status == SIGNUP and self.entrant(target) is None:
            raise GameError("tournament.not_playing", name=self.name_of(target))
        if self.status == PLAYING and not self.still_in(target):
            raise GameError("tournament.not_playing", name=self.name_of(target))

    def remove(self, by: int, target: int, *, manager: bool = False) -> Tournament:
        self.verify_remove(by, target, manager=manager)
        return self.apply(Leave(target, "removed"))

    def verify_start(self, by: int, *, manager: bool = False) -> None:
        self._require(SIGNUP)
        self._require_host(by, manager, "tournament.only_host_start")
        if len(self.entrants) < MIN_PLAYERS:
            raise GameError("tournament.too_few", n=MIN_PLAYERS)

    def can_start(self, by: int, *, manager: bool = False) -> bool:
        return _ok(self.verify_start, by, manager=manager)

    def start(
        self,
        by: int,
        ratings: Mapping[int, Rating],
        dice: DiceSource,
        now: datetime,
        *,
        manager: bool = False,
    ) -> Tournament:
        """Seeds the players into the first round's tables. `ratings` holds the server's
        ratings by rated id (a member's id, a computer level's: `rated_id`); a player
        without one is unrated. `dice` draws the order of equal ratings (stored)."""
        self.verify_start(by, manager=manager)
        draw = [e.id for e in self.entrants]
        for i in range(len(draw) - 1, 0, -1):  # Fisher-Yates, from the injected source
            j = dice.randint(0, i)
            draw[i], draw[j] = draw[j], draw[i]
        return self.apply(Start(_aware(now), tuple(draw), self._values(self.entrants, ratings)))

    def verify_cancel(self, by: int, *, manager: bool = False) -> None:
        if not self.active:
            raise GameError("errors.stale")
        self._require_host(by, manager, "tournament.only_host_cancel")

    def can_cancel(self, by: int, *, manager: bool = False) -> bool:
        return _ok(self.verify_cancel, by, manager=manager)

    def cancel(self, by: int, now: datetime, *, manager: bool = False) -> Tournament:
        self.verify_cancel(by, manager=manager)
        return self.apply(Cancel(by, _aware(now)))

    def expire(self, now: datetime) -> Tournament:
        """The timer closes a sign-up nobody started in time."""
        due = self.due_at()
        if due is None or due > now:
            raise GameError("errors.stale")
        return self.apply(Cancel(None, _aware(now)))

    # --- tables -------------------------------------------------------------------------

    def open_table(
        self, round_no: int, no: int, game_id: int, thread_id: int | None = None
    ) -> Tournament:
        """A waiting table's game (and thread) exist: it is in play."""
        return self.apply(OpenTable(round_no, no, game_id, thread_id))

    def record(
        self, round_no: int, no: int, placings: Sequence[Placing], dice: DiceSource
    ) -> Tournament:
        """A table's game finished with `placings`: who goes on is decided (with one
        roll-off throw from `dice` when a tie crosses the last place that goes on)."""
        table = self.table(round_no, no)
        self._verify_result(table, placings)
        tied = needs_rolloff(table, placings, self._eligible(placings))
        throws = tuple((p, tuple(dice.randint(1, 6) for _ in range(DICE))) for p in tied)
        return self.apply(Result(round_no, no, tuple(placings), throws))

    def record_game(self, game_id: int, game: Game, dice: DiceSource) -> Tournament:
        """`record` for the table whose game `game_id` finished as `game`."""
        table = self.table_of_game(game_id)
        if table is None or not game.finished:
            raise GameError("errors.stale")
        return self.record(table.round, table.no, placings_of(game), dice)

    def advance_round(self, ratings: Mapping[int, Rating], now: datetime) -> Tournament:
        """Every table of the round is done: the next round's tables are formed the same
        way (seeded afresh by `ratings`), or the tournament ends with its champion."""
        self._verify_advance()
        going = self._going_on()
        return self.apply(Advance(_aware(now), self._values(going, ratings)))

    def can_advance(self) -> bool:
        return _ok(self._verify_advance)

    def _verify_advance(self) -> None:
        if not self.awaiting_advance:
            raise GameError("errors.stale")

    # --- the fold -----------------------------------------------------------------------

    def apply(self, action: TournamentAction) -> Tournament:  # noqa: PLR0911 - one case per kind of action
        """The tournament after `action` (GameError, and nothing changed, if the state
        does not allow it)."""
        match action:
            case Open():
                return self._open(action)
            case Join():
                self.verify_join(action.player)
                entrant = Entrant(action.player, action.name)
                return self._did([action], (), entrants=(*self.entrants, entrant))
            case AddComputer():
                self._require(SIGNUP)
                if (
                    action.level not in COMPUTER_LEVELS
                    or action.player >= 0
                    or self.entrant(action.player)
                ):
                    raise GameError("tournament.bad_action", field="computer")
                if len(self.entrants) >= MAX_PLAYERS:
                    raise GameError("tournament.full", n=MAX_PLAYERS)
                bot = Entrant(action.player, action.name, is_bot=True, level=action.level)
                return self._did([action], (), entrants=(*self.entrants, bot))
            case Leave():
                return self._leave(action)
            case Start():
                return self._start(action)
            case OpenTable():
                return self._open_table(action)
            case Result():
                return self._result(action)
            case Advance():
                return self._advance(action)
            case Cancel():
                return self._cancel(action)
        raise GameError("tournament.bad_action", field=type(action).__name__)

    def _open(self, action: Open) -> Tournament:
        if self.entrants or self.created_at is not None:
            raise GameError("tournament.bad_action", field="open")
        verify_options(action.rules, action.table_size, action.advance, action.lang)
        return self._did(
            [action],
            (),
            host_id=action.host,
            rules=action.rules,
            table_size=action.table_size,
            advance=action.advance,
            lang=action.lang,
            entrants=(Entrant(action.host, action.name),),
            created_at=action.at,
            status=SIGNUP,
        )

    def _leave(self, action: Leave) -> Tournament:
        if action.reason not in OUT_REASONS:
            raise GameError("tournament.bad_action", field="reason")
        player = action.player
        self.verify_leave(player)
        if self.status == SIGNUP:
            kept = tuple(e for e in self.entrants if e.id != player)
            return self._did([action], (), entrants=kept)
        rnd = self.current
        assert rnd is not None  # playing: a round exists
        entrants = tuple(
            replace(e, out=action.reason, out_round=rnd.no) if e.id == player else e
            for e in self.entrants
        )
        after = replace(self, entrants=entrants)
        table = rnd.table_of(player)
        events: list[TournamentEvent] = []
        if table is not None and table.status == OPEN:
            events.append(Out(player, action.reason, table.game_id))
        else:
            events.append(Out(player, action.reason, None))
        if table is not None and table.status == WAITING and not after.seats_for(table):
            # Everyone of a table not yet opened is out: it is done, nobody goes on.
            after = after._with_table(replace(table, status=DONE))
            events.append(TableDone(table.round, table.no, ()))
            if after.awaiting_advance:
                events.append(RoundDone(rnd.no))
        return after._did([action], events)

    def _start(self, action: Start) -> Tournament:
        self._require(SIGNUP)
        if len(self.entrants) < MIN_PLAYERS:
            raise GameError("tournament.too_few", n=MIN_PLAYERS)
        ids = [e.id for e in self.entrants]
        if sorted(action.draw) != sorted(ids) or sorted(p for p, _ in action.ratings) != sorted(
            ids
        ):
            raise GameError("tournament.bad_action", field="start")
        position = {p: i for i, p in enumerate(action.draw)}
        entrants = tuple(replace(e, draw=position[e.id]) for e in self.entrants)
        values = dict(action.ratings)
        first = form_round(1, seed(entrants, values), self.table_size, self.advance)
        after = replace(self, entrants=entrants, status=PLAYING, started_at=action.at)
        after = replace(after, rounds=(first,))
        return after._did([action], after._formed_events(first))

    def _formed_events(self, rnd: Round) -> list[TournamentEvent]:
        events: list[TournamentEvent] = [Formed(rnd.no)]
        events += [TableDone(rnd.no, tb.no, tb.advanced) for tb in rnd.tables if tb.status == BYE]
        return events

    def _open_table(self, action: OpenTable) -> Tournament:
        self._require(PLAYING)
        table = self.table(action.round, action.table)
        if table.status != WAITING or self.current is None or action.round != self.current.no:
            raise GameError("errors.stale")
        players = tuple(s.user_id for s in self.seats_for(table))
        opened = replace(table, status=OPEN, game_id=action.game, thread_id=action.thread,
                         players=players)  # fmt: skip
        return self._with_table(opened)._did([action], ())

    def _verify_result(self, table: Table, placings: Sequence[Placing]) -> None:
        if self.status != PLAYING or table.status != OPEN:
            raise GameError("errors.stale")
        ids = [p.player for p in placings]
        if sorted(ids) != sorted(table.players):
            raise GameError("tournament.bad_action", field="placings")

    def _eligible(self, placings: Sequence[Placing]) -> list[int]:
        return [
            p.player
            for p in placings
            if not p.left and (e := self.entrant(p.player)) is not None and not e.out
        ]

    def _result(self, action: Result) -> Tournament:
        table = self.table(action.round, action.table)
        self._verify_result(table, action.placings)
        rnd = self.rounds[action.round - 1]
        advanced = decide(
            table,
            action.placings,
            self._eligible(action.placings),
            rnd.seeds,
            dict(action.rolloff),
        )
        if advanced is None:
            raise GameError("tournament.bad_action", field="rolloff")
        # A player who left the table's game is out of the tournament too.
        left = {p.player for p in action.placings if p.left}
        entrants = tuple(
            replace(e, out="left", out_round=rnd.no) if e.id in left and not e.out else e
            for e in self.entrants
        )
        done = replace(table, status=DONE, placings=action.placings, advanced=advanced,
                       rolloff=action.rolloff)  # fmt: skip
        after = replace(self, entrants=entrants)._with_table(done)
        events: list[TournamentEvent] = [TableDone(table.round, table.no, advanced)]
        if after.awaiting_advance:
            events.append(RoundDone(rnd.no))
        return after._did([action], events)

    def _going_on(self) -> tuple[Entrant, ...]:
        rnd = self.current
        assert rnd is not None
        ids = [p for tb in rnd.tables for p in tb.went_on]
        return tuple(e for p in ids if (e := self.entrant(p)) is not None and not e.out)

    def _advance(self, action: Advance) -> Tournament:
        self._verify_advance()
        rnd = self.current
        assert rnd is not None
        going = self._going_on()
        if sorted(p for p, _ in action.ratings) != sorted(e.id for e in going):
            raise GameError("tournament.bad_action", field="ratings")
        if rnd.final or len(going) <= 1:
            champion = going[0].id if going else None
            after = replace(self, status=FINISHED, champion=champion, finished_at=action.at)
            return after._did([action], [Finished(champion)])
        values = dict(action.ratings)
        nxt = form_round(rnd.no + 1, seed(going, values), self.table_size, self.advance)
        after = replace(self, rounds=(*self.rounds, nxt))
        return after._did([action], after._formed_events(nxt))

    def _cancel(self, action: Cancel) -> Tournament:
        if not self.active:
            raise GameError("errors.stale")
        games = tuple(
            tb.game_id
            for rnd in self.rounds
            for tb in rnd.tables
            if tb.status == OPEN and tb.game_id is not None
        )
        rounds = tuple(
            replace(
                rnd,
                tables=tuple(tb if tb.over else replace(tb, status=CANCELLED) for tb in rnd.tables),
            )
            for rnd in self.rounds
        )
        after = replace(self, status=CANCELLED, rounds=rounds, cancelled_by=action.by,
                        finished_at=action.at)  # fmt: skip
        return after._did([action], [Cancelled(games)])

    # --- internals ------------------------------------------------------------------------

    def _values(
        self, players: Iterable[Entrant], ratings: Mapping[int, Rating]
    ) -> tuple[tuple[int, float | None], ...]:
        """Each player's conservative rating (None: unrated), rounded for the log."""
        out = []
        for e in players:
            rating = ratings.get(e.rated_id)
            out.append((e.id, None if rating is None else round(conservative(rating), 6)))
        return tuple(out)

    def _with_table(self, table: Table) -> Tournament:
        rnd = self.rounds[table.round - 1]
        tables = tuple(table if tb.no == table.no else tb for tb in rnd.tables)
        rounds = list(self.rounds)
        rounds[table.round - 1] = replace(rnd, tables=tables)
        return replace(self, rounds=tuple(rounds))

    def _did(
        self,
        actions: Sequence[TournamentAction],
        events: Sequence[TournamentEvent],
        **changes: Any,
    ) -> Tournament:
        return replace(self, events=tuple(events), actions=tuple(actions), **changes)

    # --- snapshots ------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The store's snapshot (`id`, `channel_id`, `guild_id`, `status` and `version`
        are its columns)."""
        return {
            "host_id": self.host_id,
            "rules": self.rules,
            "table_size": self.table_size,
            "advance": self.advance,
            "lang": self.lang,
            "entrants": [e.to_dict() for e in self.entrants],
            "rounds": [r.to_dict() for r in self.rounds],
            "champion": self.champion,
            "cancelled_by": self.cancelled_by,
            "message_id": self.message_id,
            "created_at": _iso(self.created_at),
            "started_at": _iso(self.started_at),
            "finished_at": _iso(self.finished_at),
        }

    @classmethod
    def from_snapshot(  # noqa: PLR0913 - the store's columns, by keyword
        cls,
        state: Mapping[str, Any],
        *,
        id: int,
        channel_id: int,
        guild_id: int | None,
        status: str,
        version: int,
    ) -> Tournament:
        s = state
        return cls(
            id=id,
            channel_id=channel_id,
            guild_id=guild_id,
            host_id=int(s["host_id"]),
            rules=str(s["rules"]),
            table_size=int(s["table_size"]),
            advance=int(s["advance"]),
            lang=str(s.get("lang", "en")),
            status=status,
            version=version,
            entrants=tuple(Entrant.from_dict(e) for e in s.get("entrants", ())),
            rounds=tuple(Round.from_dict(r, i) for i, r in enumerate(s.get("rounds", ()), 1)),
            champion=s.get("champion"),
            cancelled_by=s.get("cancelled_by"),
            message_id=s.get("message_id"),
            created_at=_time(s.get("created_at")),
            started_at=_time(s.get("started_at")),
            finished_at=_time(s.get("finished_at")),
        )


def verify_options(rules: str, table_size: int, advance: int, lang: str) -> None:
    """A sign-up's options, each refused with a reason a person can read."""
    if rules not in RULESETS:
        raise GameError("errors.unknown_rules", rules=rules, known=", ".join(RULESETS))
    if table_size not in TABLE_SIZES:
        raise GameError("tournament.bad_table_size", low=TABLE_SIZES[0], high=TABLE_SIZES[-1])
    if not 1 <= advance <= table_size - 1:
        raise GameError("tournament.bad_advance", high=table_size - 1)
    if lang not in LANGUAGES:
        raise GameError("tournament.bad_action", field="lang")


def _ok(check: Any, *args: Any, **kwargs: Any) -> bool:
    try:
        check(*args, **kwargs)
    except GameError:
        return False
    return True


# --- what a tournament counts for in the league -------------------------------------------


@dataclass(frozen=True)
class Outcome:
    """What a finished tournament counts for one player in the league (`/poker stats`,
    the `tournaments` board and the season podium: wins, then finals)."""

    player: int  # a member, or a computer player's id in this tournament
    name: str
    is_bot: bool
    rounds: int  # rounds they sat at a table in (a bye counts)
    final: bool  # they sat at the final table
    place: int | None  # their place at the final (None: not in it, or out before it ended)
    champion: bool


def outcomes(tn: Tournament) -> tuple[Outcome, ...]:
    """Every player's outcome of a finished tournament, in sign-up order; nothing for a
    tournament that did not finish (a cancelled one counts for nobody)."""
    if tn.status != FINISHED:
        return ()
    final = tn.final
    places = {p.player: p.place for p in final.placings} if final is not None else {}
    out = []
    for e in tn.entrants:
        rounds = sum(1 for rnd in tn.rounds if e.id in rnd.seeds)
        at_final = final is not None and e.id in final.seats
        place = places.get(e.id) if at_final and not e.out else None
        out.append(Outcome(e.id, e.name, e.is_bot, rounds, at_final, place,
                           e.id == tn.champion))  # fmt: skip
    return tuple(out)


# --- the export (`/poker export` of a tournament) -----------------------------------------


def export(tournament: Tournament, actions: Iterable[TournamentAction] = ()) -> dict[str, Any]:
    """The tournament as JSON: its players, rounds and tables, who went on and why (with
    each table's game id, which `python -m bot replay` checks as any game), and its log of
    actions, from which `Tournament.replay` rebuilds it."""
    tn = tournament

    def who(player: int) -> dict[str, Any]:
        e = tn.entrant(player)
        out: dict[str, Any] = {"id": player, "name": tn.name_of(player)}
        if e is not None and e.is_bot:
            out["computer"] = e.level
        return out

    rounds = []
    for rnd in tn.rounds:
        tables = []
        for tb in rnd.tables:
            placings = []
            for p in tb.by_place(rnd.seeds):
                entry = {**who(p.player), "place": p.place, "total": p.total,
                         "settlement": p.settlement}  # fmt: skip
                why = tb.why(p.player)
                entry["advanced"] = why is not None
                entry["why"] = why or ("out" if p.left or _out_by(tn, p.player, rnd.no) else
                                       "place")  # fmt: skip
                placings.append(entry)
            tables.append(
                {
                    "table": tb.no,
                    "status": tb.status,
                    "game": tb.game_id,
                    "seats": [who(p) for p in tb.seats],
                    "goes_on": tb.advance,
                    "placings": placings,
                    "advanced": [{**who(p), "why": why} for p, why in tb.advanced],
                    "rolloff": [{**who(p), "dice": list(d), "sum": sum(d)} for p, d in tb.rolloff],
                }
            )
        rounds.append(
            {
                "round": rnd.no,
                "final": rnd.final,
                "seeding": [
                    {**who(p), "seed": i, "rating": r} for i, (p, r) in enumerate(rnd.seeding, 1)
                ],
                "tables": tables,
            }
        )
    return {
        "tournament": tn.id,
        "rules": tn.rules,
        "table_size": tn.table_size,
        "advance": tn.advance,
        "status": tn.status,
        "host": who(tn.host_id),
        "players": [
            {**who(e.id), **({"out": e.out, "out_round": e.out_round} if e.out else {})}
            for e in tn.entrants
        ],
        "rounds": rounds,
        "champion": None if tn.champion is None else who(tn.champion),
        "actions": [a.to_json() for a in actions],
    }


def _out_by(tn: Tournament, player: int, round_no: int) -> bool:
    e = tn.entrant(player)
    return e is not None and e.out is not None and e.out_round == round_no
