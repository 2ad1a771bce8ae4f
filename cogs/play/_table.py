"""The per-channel table: lobby seats, the engine game once started, message ids.

A `Table` is immutable: every change returns a new one (`dataclasses.replace`), so a
failed commit leaves the cached table untouched. Its `to_dict()` is the store's `state`
JSON; `id`, `status` and `store_version` come from the store's record.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from bot.engine import DiceSource, Event, Game, GameError, opening_throw

MAX_SEATS = 8
ACTIVE = ("lobby", "playing")


class Refusal(Exception):  # noqa: N818 - a refusal is an answer, not an error
    """An action the table does not allow: `key` names the catalog message to show."""

    def __init__(self, key: str, **values: Any) -> None:
        super().__init__(key)
        self.key = key
        self.values = values


@dataclass(frozen=True)
class Seat:
    user_id: int
    name: str
    is_bot: bool = False  # computer seats (strategy work) play through the same service
    level: str | None = None

    @property
    def player(self) -> str:
        """The engine's player name."""
        return str(self.user_id)

    def to_dict(self) -> dict[str, Any]:
        return {
            "user_id": self.user_id,
            "name": self.name,
            "is_bot": self.is_bot,
            "level": self.level,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Seat:
        return cls(
            int(data["user_id"]), data["name"], bool(data.get("is_bot", False)), data.get("level")
        )


@dataclass(frozen=True)
class Opening:
    """The opening throw, kept to show it again (each round: (user id, dice))."""

    rounds: tuple[tuple[tuple[int, tuple[int, ...]], ...], ...]
    starter: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "rounds": [[[u, list(d)] for u, d in r] for r in self.rounds],
            "starter": self.starter,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Opening:
        rounds = tuple(tuple((int(u), tuple(d)) for u, d in r) for r in data["rounds"])
        return cls(rounds, int(data["starter"]))


@dataclass(frozen=True)
class Table:
    id: int
    channel_id: int
    guild_id: int | None
    host_id: int
    rules: str
    status: str = "lobby"
    store_version: int = 0  # the store's optimistic-concurrency counter
    version: int = 0  # what custom_ids carry: bumped by every player-visible change
    lang: str = "en"
    seats: tuple[Seat, ...] = ()
    game: Game | None = None
    opening: Opening | None = None
    lobby_message_id: int | None = None
    turn_message_id: int | None = None
    final_message_id: int | None = None  # the standings (the history's jump link)
    created_at: str | None = None  # ISO, UTC
    started_at: str | None = None
    deadline: str | None = None  # the current turn's deadline (cogs/play/_timers.py)
    # Consecutive turn timeouts per seat, (user id, count): the timer marks a seat away.
    strikes: tuple[tuple[int, int], ...] = ()
    events: tuple[Event, ...] = field(default=(), compare=False)  # of the last change only

    # --- queries -------------------------------------------------------------------

    @property
    def active(self) -> bool:
        return self.status in ACTIVE

    def seat(self, user_id: int) -> Seat | None:
        return next((s for s in self.seats if s.user_id == user_id), None)

    def name_of(self, player: str | int) -> str:
        seat = self.seat(int(player))
        return seat.name if seat else str(player)

    @property
    def names(self) -> dict[str, str]:
        """Engine player name → display name."""
        return {s.player: s.name for s in self.seats}

    @property
    def current_id(self) -> int | None:
        if self.game is None or self.game.finished:
            return None
        return int(self.game.player)

    def require_game(self) -> Game:
        if self.game is None:
            raise Refusal("errors.not_started")
        return self.game

    # --- lobby ---------------------------------------------------------------------

    def join(self, user_id: int, name: str) -> Table:
        self._require_lobby()
        if self.seat(user_id):
            raise Refusal("errors.already_joined")
        if len(self.seats) >= MAX_SEATS:
            raise Refusal("errors.lobby_full", max=MAX_SEATS)
        return replace(self, seats=(*self.seats, Seat(user_id, name)))

    def leave_lobby(self, user_id: int) -> Table:
        self._require_lobby()
        if user_id == self.host_id:
            raise Refusal("errors.host_cannot_leave")
        if not self.seat(user_id):
            raise Refusal("errors.not_in_lobby")
        return replace(self, seats=tuple(s for s in self.seats if s.user_id != user_id))

    def start(self, user_id: int, dice: DiceSource, now: str) -> Table:
        self._require_lobby()
        if user_id != self.host_id:
            raise Refusal("errors.only_host_start", name=self.name_of(self.host_id))
        if not self.seats:
            raise Refusal("errors.no_players")
        throw = opening_throw([s.player for s in self.seats], dice)
        opening = Opening(
            tuple(tuple((int(p), d) for p, d in r) for r in throw.rounds), int(throw.starter)
        )
        game = Game.new(self.rules, throw.seats)
        return replace(self, status="playing", game=game, opening=opening, started_at=now)

    def cancel(self, user_id: int, *, manager: bool) -> Table:
        if not self.active:
            raise Refusal("errors.stale")
        if user_id != self.host_id and not manager:
            raise Refusal("errors.only_host_cancel", name=self.name_of(self.host_id))
        return replace(self, status="cancelled", events=())

    def _require_lobby(self) -> None:
        if self.status != "lobby":
            raise Refusal("errors.stale")

    # --- play ----------------------------------------------------------------------

    def require_turn(self, user_id: int) -> Game:
        """The game, if it is `user_id`'s turn; else the polite refusal."""
        if self.status != "playing" or self.game is None:
            raise Refusal("errors.stale")
        game = self.game
        if self.seat(user_id) is None or str(user_id) not in game.players:
            raise Refusal("errors.not_your_turn", name=self.name_of(game.player))
        if game.player != str(user_id):
            raise Refusal("errors.not_your_turn", name=self.name_of(game.player))
        return game

    def roll(self, user_id: int, dice: DiceSource) -> Table:
        game = self.require_turn(user_id)
        return self._with(*_engine(lambda: game.apply(game.draw(game.player, dice))))

    def toggle_hold(self, user_id: int, position: int) -> Table:
        game = self.require_turn(user_id)
        new = _engine(lambda: game.toggle_hold(game.player, position))
        return replace(self, game=new, events=())

    def score(self, user_id: int, row: str) -> Table:
        game = self.require_turn(user_id)
        return self._with(*_engine(lambda: game.score(game.player, row)))

    def pass_turn(self, user_id: int) -> Table:
        game = self.require_turn(user_id)
        return self._with(*_engine(lambda: game.pass_turn(game.player)))

    def leave_game(self, user_id: int) -> Table:
        if self.status != "playing" or self.game is None:
            raise Refusal("errors.stale")
        game = self.game
        if str(user_id) not in game.players or game.card_of(str(user_id)).left:
            raise Refusal("errors.not_playing")
        return self._with(*_engine(lambda: game.leave(str(user_id))))

    def _with(self, game: Game, event: Event) -> Table:
        status = "finished" if game.finished else self.status
        return replace(self, game=game, status=status, events=(event,))

    # --- snapshots -------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        return {
            "lang": self.lang,
            "version": self.version,
            "seats": [s.to_dict() for s in self.seats],
            "game": self.game.to_dict() if self.game else None,
            "opening": self.opening.to_dict() if self.opening else None,
            "lobby_message_id": self.lobby_message_id,
            "turn_message_id": self.turn_message_id,
            "final_message_id": self.final_message_id,
            "created_at": self.created_at,
            "started_at": self.started_at,
            "deadline": self.deadline,
            "strikes": [list(pair) for pair in self.strikes],
        }

    @classmethod
    def from_record(cls, record: Any) -> Table:
        """A table from the store's `GameRecord`."""
        s = record.state
        return cls(
            id=record.id,
            channel_id=record.channel_id,
            guild_id=record.guild_id,
            host_id=record.host_id,
            rules=record.rules,
            status=record.status,
            store_version=record.version,
            version=int(s.get("version", 0)),
            lang=s.get("lang", "en"),
            seats=tuple(Seat.from_dict(x) for x in s.get("seats", ())),
            game=Game.from_dict(s["game"]) if s.get("game") else None,
            opening=Opening.from_dict(s["opening"]) if s.get("opening") else None,
            lobby_message_id=s.get("lobby_message_id"),
            turn_message_id=s.get("turn_message_id"),
            final_message_id=s.get("final_message_id"),
            created_at=s.get("created_at"),
            started_at=s.get("started_at"),
            deadline=s.get("deadline"),
            strikes=tuple((int(u), int(n)) for u, n in s.get("strikes", ())),
        )


def new_actions(before: Table, after: Table) -> list[tuple[int, dict[str, Any]]]:
    """The engine actions `after` adds to `before`, as the store's (seq, JSON) pairs."""
    if after.game is None:
        return []
    old: Sequence[Any] = before.game.history if before.game else ()
    return [(i, a.to_json()) for i, a in enumerate(after.game.history) if i >= len(old)]


def _engine(step: Any) -> Any:
    """Run an engine step; a rule the UI did not prevent becomes a polite refusal."""
    try:
        return step()
    except GameError as exc:
        raise Refusal("errors.illegal", reason=str(exc)) from None
