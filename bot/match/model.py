"""The table in a channel: lobby seats, the engine game once started, the turn's deadline.

A `Match` is immutable: every change returns a new one (`dataclasses.replace`), so a
refused or failed change leaves the cached match untouched. Each change says what it did
(`events`, and the engine `actions` it applied: the store appends them to the game's log)
and every rule of the table is here, not at the Discord edge: who may join, start, cancel,
add or remove a computer seat, remove a player; who hosts when the host leaves; when a
turn times out and what a timed-out turn does to the player's strikes.

Refusals are `GameError`s whose code is a catalog key (`errors.lobby_full`); the engine's
own refusals pass through unchanged.

`to_dict()` is the store's snapshot; `id`, `status` and `version` are the store's columns.
Message ids are where the match is shown (kept so that later changes edit those messages).

A daily (`kind` "daily") is one member's solo game of the day's fixed dice: in play from
its creation, with no turn timer, thrown only with that day's `DailyDice`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import date, datetime, timedelta
from typing import Any

from bot.engine import (
    MAX_PLAYERS,
    RULESETS,
    Action,
    DiceSource,
    Event,
    Game,
    GameError,
    Leave,
    Pass,
    Score,
    opening_throw,
)
from bot.engine.daily import DailyDice, utc_day
from bot.i18n import t
from bot.records import GameRecord, GuildSettings

MAX_SEATS = MAX_PLAYERS
ACTIVE = ("lobby", "playing")
LOBBY_TTL = timedelta(minutes=30)  # a lobby nobody starts closes
AWAY_AFTER = 3  # timed-out turns in a row before a player is marked away
OVERDUE_GRACE = timedelta(minutes=1)  # after a restart, an overdue turn's extra time
COMPUTER_LEVELS = ("easy", "normal", "perfect")  # bot.strategy.LEVELS
# A turn is at most a few throws and a record; the cap only stops a policy bug looping.
MAX_TURN_STEPS = 64
# The server setting `scorecards` "turn" (the default) shows the table's scorecard after
# every turn, but at a table of this many players after every round: eight pictures a
# round would fill a phone's screen many times over.
SCORECARD_ROUNDS_FROM = 5
DEFAULT_RULES = "classic"  # the rule set of a game, a daily or a rules card nobody chose


def known_rules(name: str) -> str:
    """`name`, if it is a rule set the bot plays; else the refusal listing them."""
    if name not in RULESETS:
        raise GameError("unknown_rules", rules=name, known=", ".join(RULESETS))
    return name


def rules_or_default(asked: str | None, server_default: str | None) -> str:
    """The rule set a new game or daily plays: the one asked for, else the server's
    default, else `DEFAULT_RULES`."""
    return known_rules(asked or server_default or DEFAULT_RULES)


@dataclass(frozen=True)
class Caller:
    """Who clicks or commands, and from where (the model decides what they may reach)."""

    user_id: int
    guild_id: int | None
    channel_id: int | None


@dataclass(frozen=True)
class Seat:
    user_id: int  # a Discord member; computer seats have negative ids (-1, -2, …)
    name: str  # the name shown, as the member had it when they sat down (raw text)
    is_bot: bool = False
    level: str | None = None  # a computer seat's level

    @property
    def player(self) -> str:
        """The engine's player name."""
        return str(self.user_id)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"user_id": self.user_id, "name": self.name}
        if self.is_bot:  # a human seat (the usual one) carries no defaults
            out.update(is_bot=True, level=self.level)
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Seat:
        return cls(
            int(data["user_id"]), data["name"], bool(data.get("is_bot", False)), data.get("level")
        )


def rated_id(seat: Seat) -> int:
    """Who a seat is to the ratings: the member, or its computer level (-1 easy, -2
    normal, -3 perfect: every computer player of a level is one rated player)."""
    if not seat.is_bot:
        return seat.user_id
    level = seat.level if seat.level in COMPUTER_LEVELS else "normal"
    return -1 - COMPUTER_LEVELS.index(level)


def rated_level(player_id: int) -> str | None:
    """The computer level a rated player id stands for (None: a member)."""
    index = -1 - player_id
    return COMPUTER_LEVELS[index] if 0 <= index < len(COMPUTER_LEVELS) else None


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


def _time(text: str | None) -> datetime | None:
    if not text:
        return None
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    return moment if moment.tzinfo else None


def _text(moment: datetime | None) -> str | None:
    return None if moment is None else moment.isoformat()


@dataclass(frozen=True)
class Match:
    id: int
    channel_id: int
    guild_id: int | None
    host_id: int
    rules: str
    status: str = "lobby"  # lobby | playing | finished | cancelled
    version: int = 0  # the store's: bumped by every change, carried by custom_ids
    lang: str = "en"  # the language of the match's public messages
    seats: tuple[Seat, ...] = ()
    game: Game | None = None
    opening: Opening | None = None
    lobby_message_id: int | None = None
    turn_message_id: int | None = None  # None while playing: not known (see the publisher)
    final_message_id: int | None = None  # the standings (the history's jump link)
    created_at: datetime | None = None
    started_at: datetime | None = None
    deadline: datetime | None = None  # the current turn's time-out
    # Consecutive turn time-outs per seat, (user id, count): the timer marks a seat away.
    strikes: tuple[tuple[int, int], ...] = ()
    kind: str = "table"  # "table" | "daily" (the store's column)
    day: date | None = None  # a daily's UTC day (the store's column)
    # The last `/poker resume` (it pings the player to move): kept with the snapshot, so a
    # restart does not open the door to another ping within the minute.
    reposted_at: datetime | None = None
    # What the last change did (not stored): its events and the engine actions it applied.
    events: tuple[Event, ...] = field(default=(), compare=False)
    actions: tuple[Action, ...] = field(default=(), compare=False)

    # --- queries -------------------------------------------------------------------

    @property
    def active(self) -> bool:
        return self.status in ACTIVE

    def seat(self, user_id: int) -> Seat | None:
        return next((s for s in self.seats if s.user_id == user_id), None)

    def name_of(self, player: str | int) -> str:
        try:
            seat = self.seat(int(player))
        except ValueError:
            return str(player)
        return seat.name if seat else str(player)

    @property
    def names(self) -> dict[str, str]:
        """Engine player name → the name shown."""
        return {s.player: s.name for s in self.seats}

    @property
    def current_id(self) -> int | None:
        """The member (or computer seat) to move."""
        if self.status != "playing" or self.game is None or self.game.finished:
            return None
        return int(self.game.player)

    @property
    def computer_to_move(self) -> Seat | None:
        current = self.current_id
        seat = self.seat(current) if current is not None else None
        return seat if seat is not None and seat.is_bot else None

    def plays(self, user_id: int) -> bool:
        """`user_id` has a card in this game and has not left it."""
        game = self.game
        if game is None:
            return False
        player = str(user_id)
        return any(c.name == player and not c.left for c in game.cards)

    def require_game(self) -> Game:
        if self.game is None:
            raise GameError("errors.not_started")
        return self.game

    def shows_scorecard(self, setting: str, *, round_over: bool) -> bool:
        """Whether the turn that just ended shows the table's scorecard, as the server's
        `scorecards` setting says: "turn" (every turn; every round from
        SCORECARD_ROUNDS_FROM players still playing), "round", or "end" (only with the
        final standings)."""
        game = self.game
        if game is None or game.finished or setting == "end":
            return False
        playing = sum(1 for c in game.cards if not c.left)
        if setting == "turn" and playing < SCORECARD_ROUNDS_FROM:
            return True
        return round_over

    @property
    def turn_ended(self) -> bool:
        """Did the last change end a turn (or the game)?"""
        return any(e.ends_turn for e in self.events) or (
            self.game is not None and self.game.finished and bool(self.events)
        )

    @property
    def daily(self) -> bool:
        return self.kind == "daily"

    def due_at(self) -> datetime | None:
        """When the timer acts: a lobby 30 minutes after it opened, a turn at its deadline
        (not on a computer seat's turn: it plays by itself); None when nothing is pending
        (always for a daily: it is played when it suits the member)."""
        if self.daily:
            return None
        if self.status == "lobby":
            return None if self.created_at is None else self.created_at + LOBBY_TTL
        if self.status == "playing" and self.computer_to_move is None:
            return self.deadline
        return None

    @property
    def link(self) -> str:
        """A jump link to the match's latest message: the final standings, else the turn
        or the lobby message (else its channel)."""
        message_id = self.final_message_id or self.turn_message_id or self.lobby_message_id
        guild = self.guild_id if self.guild_id is not None else "@me"
        base = f"https://discord.com/channels/{guild}/{self.channel_id}"
        return f"{base}/{message_id}" if message_id else base

    # --- who may do what ----------------------------------------------------------------

    def can_reach(self, caller: Caller) -> bool:
        """A click or command reaches a match only from its own server and, at a table, its
        own channel: a forged custom_id from another server reaches nothing."""
        if caller.guild_id != self.guild_id:
            return False
        return self.daily or caller.channel_id == self.channel_id

    def verify_reach(self, caller: Caller, today: date) -> None:
        """Refuses a click that may not touch this match: from elsewhere (out of date, as
        for a game that does not exist); a daily by anyone but its member, or after its
        day (once the day is over its cards are shown: its dice are no secret any more)."""
        if not self.can_reach(caller):
            raise GameError("errors.stale")
        if not self.daily:
            return
        if caller.user_id != self.host_id:
            raise GameError("daily.not_yours", name=self.name_of(self.host_id))
        if self.active and self.day != today:
            raise GameError("daily.over", day=self.day.isoformat() if self.day else "?")

    def verify_resume(self, user_id: int, *, manager: bool) -> None:
        """`/poker resume` (it pings the player to move) is for the game's players, its
        host and members who manage its server."""
        if self.seat(user_id) is None and user_id != self.host_id and not manager:
            raise GameError("resume.not_yours")

    def verify_export(self, user_id: int, today: date) -> None:
        """A daily's actions are its dice: only its member may export it until the day is
        over."""
        if self.day is not None and user_id != self.host_id and self.day >= today:
            raise GameError("export.daily_hidden", id=self.id, day=self.day.isoformat())

    def computers_allowed(self, settings: GuildSettings | None) -> bool:
        """Computer players may sit down unless the match's server turned them off."""
        return self.guild_id is None or settings is None or settings.bots_allowed

    def verify_computers(self, settings: GuildSettings | None) -> None:
        if not self.computers_allowed(settings):
            raise GameError("bots.not_allowed")

    def hint_offered(self, settings: GuildSettings | None) -> bool:
        """The turn message carries a Hint button: a member (not a computer seat) is to
        move and the server allows hints."""
        allowed = self.guild_id is None or settings is None or settings.hints_allowed
        return (
            allowed
            and self.status == "playing"
            and self.current_id is not None
            and self.computer_to_move is None
        )

    def verify_hint(self, user_id: int, settings: GuildSettings | None) -> Game:
        """A hint is for the player to move, where the server allows hints."""
        if self.status != "playing" or self.game is None:
            raise GameError("errors.stale")
        game = self.game
        if str(user_id) != game.player:
            raise GameError("hint.not_your_turn", name=self.name_of(game.player))
        if self.guild_id is not None and settings is not None and not settings.hints_allowed:
            raise GameError("hint.not_allowed")
        return game

    def card_player(self, user_id: int) -> str:
        """Whose full card a member's Scorecard button shows: their own, else the player to
        move's (the first player's once the game is over)."""
        game = self.require_game()
        player = str(user_id)
        if player in game.players:
            return player
        return game.player if not game.finished else game.players[0]

    # --- new matches ---------------------------------------------------------------------

    @classmethod
    def lobby(cls, host: Caller, name: str, *, rules: str, lang: str, now: datetime) -> Match:
        """A new lobby at the channel's table `host` opens it from, with the host seated
        under `name` (the store gives it its id)."""
        return cls(
            id=0,
            channel_id=host.channel_id or 0,
            guild_id=host.guild_id,
            host_id=host.user_id,
            rules=known_rules(rules),
            lang=lang,
            created_at=now,
            seats=(Seat(host.user_id, name),),
        )

    @classmethod
    def new_daily(
        cls, member: Caller, name: str, *, rules: str, lang: str, now: datetime
    ) -> Match:
        """A member's daily of the day it starts: a solo game, in play at once. `lang`: the
        server's (its one public line); its channel is where that line goes."""
        seat = Seat(member.user_id, name)
        return cls(
            id=0,
            channel_id=member.channel_id or 0,
            guild_id=member.guild_id,
            host_id=member.user_id,
            rules=known_rules(rules),
            status="playing",
            lang=lang,
            seats=(seat,),
            game=Game.new(rules, [seat.player]),
            created_at=now,
            started_at=now,
            kind="daily",
            day=utc_day(now),
        )

    # --- ratings -------------------------------------------------------------------------

    @property
    def rated(self) -> bool:
        """A finish changes ratings: a server's table game of two or more seats."""
        game = self.game
        in_server = not self.daily and self.guild_id is not None
        return in_server and game is not None and len(game.cards) >= 2

    def rated_players(self) -> list[int]:
        """Each engine seat's rated id (the member, or the computer seat's level), in
        seat order."""
        game = self.require_game()
        out = []
        for player in game.players:
            seat = self.seat(int(player))
            out.append(rated_id(seat) if seat is not None else int(player))
        return out

    # --- lobby ---------------------------------------------------------------------

    def _require_lobby(self) -> None:
        if self.status != "lobby":
            raise GameError("errors.stale")

    def _require_host(self, user_id: int, code: str) -> None:
        if user_id != self.host_id:
            raise GameError(code, name=self.name_of(self.host_id))

    def join(self, user_id: int, name: str) -> Match:
        self._require_lobby()
        if self.seat(user_id):
            raise GameError("errors.already_joined")
        if len(self.seats) >= MAX_SEATS:
            raise GameError("errors.lobby_full", n=MAX_SEATS)
        return self._changed(seats=(*self.seats, Seat(user_id, name)))

    def leave_lobby(self, user_id: int) -> Match:
        self._require_lobby()
        if user_id == self.host_id:
            raise GameError("errors.host_cannot_leave")
        if not self.seat(user_id):
            raise GameError("errors.not_in_lobby")
        return self._changed(seats=tuple(s for s in self.seats if s.user_id != user_id))

    def add_computer(self, user_id: int, level: str) -> Match:
        """One more computer seat (the host's choice of level), named in the match's language."""
        self._require_lobby()
        self._require_host(user_id, "bots.only_host")
        if level not in COMPUTER_LEVELS:
            raise GameError("errors.stale")
        if len(self.seats) >= MAX_SEATS:
            raise GameError("errors.lobby_full", n=MAX_SEATS)
        # A fresh seat id (the lobby's menu names the seat to remove by it, and its options
        # are not versioned: a stale one must not remove a newer seat); the name's number
        # is the seat's place among the computer seats.
        seat_id = min((s.user_id for s in self.seats if s.is_bot), default=0) - 1
        seat = Seat(seat_id, "", is_bot=True, level=level)
        return self._changed(seats=self._numbered((*self.seats, seat)))

    def remove_computer(self, user_id: int, seat_id: int) -> Match:
        self._require_lobby()
        self._require_host(user_id, "bots.only_host")
        seat = self.seat(seat_id)
        if seat is None or not seat.is_bot:
            raise GameError("errors.stale")
        return self._changed(
            seats=self._numbered(tuple(s for s in self.seats if s.user_id != seat_id))
        )

    def _numbered(self, seats: tuple[Seat, ...]) -> tuple[Seat, ...]:
        """The computer seats named "Bot 1", "Bot 2", … in the order they joined, in the
        match's language: removing one renumbers the rest (the lobby never reads "Bot 2"
        with no Bot 1)."""
        out, n = [], 0
        for seat in seats:
            if seat.is_bot:
                n += 1
                level = t(f"bots.level_{seat.level}", self.lang)
                out.append(replace(seat, name=t("bots.name", self.lang, n=n, level=level)))
            else:
                out.append(seat)
        return tuple(out)

    def start(self, user_id: int, dice: DiceSource, now: datetime) -> Match:
        self._require_lobby()
        self._require_host(user_id, "errors.only_host_start")
        if not self.seats:
            raise GameError("errors.no_players")
        throw = opening_throw([s.player for s in self.seats], dice)
        opening = Opening(
            tuple(tuple((int(p), d) for p, d in r) for r in throw.rounds), int(throw.starter)
        )
        game = Game.new(self.rules, throw.seats)
        return self._changed(status="playing", game=game, opening=opening, started_at=now)

    def cancel(self, user_id: int, *, manager: bool) -> Match:
        """The host, or a member who manages the match's server, closes it."""
        if not self.active:
            raise GameError("errors.stale")
        if user_id != self.host_id and not manager:
            raise GameError("errors.only_host_cancel", name=self.name_of(self.host_id))
        return self._changed(status="cancelled")

    def expire(self, now: datetime) -> Match:
        """The timer closes a lobby nobody started in time."""
        due = self.due_at()
        if self.status != "lobby" or due is None or due > now:
            raise GameError("errors.stale")
        return self._changed(status="cancelled")

    # --- removing a player (the host's /poker kick) ----------------------------------

    def check_kick(self, by: int, target: int) -> None:
        """Refuses unless `by` may remove `target` now."""
        if not self.active:
            raise GameError("errors.stale")
        self._require_host(by, "kick.only_host")
        if target == by:
            raise GameError("kick.self")
        name = self.name_of(target)
        if self.status == "lobby":
            if self.seat(target) is None:
                raise GameError("kick.not_seated", name=name)
        elif not self.plays(target):
            raise GameError("kick.not_seated", name=name)

    def kick(self, by: int, target: int) -> Match:
        """The host removes a player: out of the lobby, or the engine's Leave in a game."""
        self.check_kick(by, target)
        if self.status == "lobby":
            return self._changed(seats=tuple(s for s in self.seats if s.user_id != target))
        return self._leave(target)

    # --- play ----------------------------------------------------------------------

    def _require_turn(self, user_id: int) -> Game:
        """The game, if it is `user_id`'s turn; else the polite refusal."""
        if self.status != "playing" or self.game is None:
            raise GameError("errors.stale")
        game = self.game
        if game.player != str(user_id):  # named as the table knows them, not by id
            raise GameError("errors.not_your_turn", name=self.name_of(game.player))
        return game

    def roll(self, user_id: int, dice: DiceSource | DailyDice) -> Match:
        """Throw the dice not held: from `dice`, which for a daily must be its day's."""
        game = self._require_turn(user_id)
        if self.daily or isinstance(dice, DailyDice):
            if not (
                self.daily
                and isinstance(dice, DailyDice)
                and dice.day == self.day
                and dice.rules == self.rules
            ):
                raise ValueError(f"game {self.id} is thrown only with its own day's dice")
            return self._played(game, [dice.draw(game, game.player)])
        return self._played(game, [game.draw(game.player, dice)])

    def toggle_hold(self, user_id: int, position: int) -> Match:
        game = self._require_turn(user_id)
        return self._changed(game=game.toggle_hold(game.player, position))

    def score(self, user_id: int, row: str) -> Match:
        game = self._require_turn(user_id)
        return self._played(game, [Score(game.player, row)])

    def pass_turn(self, user_id: int) -> Match:
        game = self._require_turn(user_id)
        return self._played(game, [Pass(game.player)])

    def leave_game(self, user_id: int) -> Match:
        """A member leaves the game in play (their free rows are scratched)."""
        if self.status != "playing" or self.game is None:
            raise GameError("errors.stale")
        if not self.plays(user_id):
            raise GameError("errors.not_playing")
        return self._leave(user_id)

    def _leave(self, user_id: int) -> Match:
        game = self.require_game()
        after = self._played(game, [Leave(str(user_id))])
        if user_id == self.host_id:  # host powers pass to the next human still playing
            after = replace(after, host_id=after._next_host(user_id))
        return after

    def _next_host(self, leaving: int) -> int:
        order = [s.user_id for s in self.seats]
        start = order.index(leaving) if leaving in order else 0
        for k in range(1, len(order) + 1):
            candidate = self.seat(order[(start + k) % len(order)])
            if candidate and not candidate.is_bot and self.plays(candidate.user_id):
                return candidate.user_id
        return leaving  # nobody else: the host keeps the (finishing) game

    # --- the turn timer --------------------------------------------------------------

    def schedule(self, before: Match, now: datetime, timeout: timedelta) -> Match:
        """This change with its turn's deadline: a new one when a new turn began (the start
        too), none once the game is over; a player who acted by themselves is back (their
        run of time-outs starts again). Called for every change, before it is stored."""
        game = self.game
        if self.status != "playing" or game is None or game.finished or self.daily:
            return self if self.deadline is None else replace(self, deadline=None)
        after = self._clear_strikes(before)
        same_turn = (
            before.status == "playing" and before.game is not None
            and before.game.turn == game.turn
        )  # fmt: skip
        if same_turn and after.deadline is not None:
            return after
        return replace(after, deadline=now + timeout)

    def with_grace(self, now: datetime, grace: timedelta) -> Match:
        """After a restart an overdue turn gets `grace` more time (downtime is no strike)."""
        due = self.due_at()
        if self.status != "playing" or due is None or due > now:
            return self._changed()
        return self._changed(deadline=now + grace)

    def strikes_of(self, user_id: int) -> int:
        return dict(self.strikes).get(user_id, 0)

    def _with_strikes(self, user_id: int, count: int) -> Match:
        strikes = {**dict(self.strikes), user_id: count}
        return replace(self, strikes=tuple(sorted((u, n) for u, n in strikes.items() if n)))

    def _clear_strikes(self, before: Match) -> Match:
        if before.game is None or before.game.finished:
            return self
        was = int(before.game.player)
        count = before.strikes_of(was)
        if count == 0 or self.strikes_of(was) != count:  # none, or the timer's own change
            return self
        acted = bool(self.actions) or (self.game is not None and self.game.held != before.game.held)
        return self._with_strikes(was, 0) if acted else self

    def play_absent(self, now: datetime, next_action: Callable[[Game], Action]) -> Match:
        """The timer plays the due turn of an absent player to its end (`next_action`
        chooses each step); after AWAY_AFTER time-outs in a row the player is marked away."""
        due = self.due_at()
        if self.status != "playing" or self.game is None or due is None or due > now:
            raise GameError("errors.stale")
        game = self.game
        player = game.player
        turn = game.turn
        actions: list[Action] = []
        events: list[Event] = []
        for _ in range(MAX_TURN_STEPS):
            if game.finished or game.turn != turn:
                break
            action = next_action(game)
            game, event = game.apply(action)
            actions.append(action)
            events.append(event)
        else:  # pragma: no cover - a policy that never ends a turn
            raise RuntimeError("the absent player's policy did not finish the turn")
        user_id = int(player)
        out = self._with_strikes(user_id, self.strikes_of(user_id) + 1)
        if out.strikes_of(user_id) >= AWAY_AFTER and not game.finished:
            leave = Leave(player)
            game, event = game.apply(leave)
            actions.append(leave)
            events.append(event)
            if user_id == out.host_id:
                out = replace(out, host_id=replace(out, game=game)._next_host(user_id))
        return out._changed(
            game=game,
            status="finished" if game.finished else out.status,
            events=tuple(events),
            actions=tuple(actions),
        )

    def away(self, user_id: int) -> bool:
        """Was `user_id` marked away by the last change (their strikes ran out)?"""
        return self.strikes_of(user_id) >= AWAY_AFTER and any(
            isinstance(a, Leave) and a.player == str(user_id) for a in self.actions
        )

    # --- internals -----------------------------------------------------------------------

    def _changed(self, **changes: Any) -> Match:
        """A change that applies no engine action (`events`/`actions` say so unless given)."""
        changes.setdefault("events", ())
        changes.setdefault("actions", ())
        return replace(self, **changes)

    def _played(self, game: Game, actions: Sequence[Action]) -> Match:
        events = []
        for action in actions:
            game, event = game.apply(action)
            events.append(event)
        status = "finished" if game.finished else self.status
        return self._changed(game=game, status=status, events=tuple(events), actions=tuple(actions))

    # --- snapshots -------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        return {
            "lang": self.lang,
            "host_id": self.host_id,
            "seats": [s.to_dict() for s in self.seats],
            "game": self.game.to_dict() if self.game else None,
            # The opening throw is shown with the first turn only: kept until it is played.
            "opening": self.opening.to_dict()
            if self.opening and self.game is not None and self.game.seq == 0
            else None,
            "lobby_message_id": self.lobby_message_id,
            "turn_message_id": self.turn_message_id,
            "final_message_id": self.final_message_id,
            "created_at": _text(self.created_at),
            "started_at": _text(self.started_at),
            "deadline": _text(self.deadline),
            "strikes": [list(pair) for pair in self.strikes],
            "reposted_at": _text(self.reposted_at),
        }

    @classmethod
    def from_record(cls, record: GameRecord) -> Match:
        """The match a stored game holds: the store's columns and its `state` snapshot
        (the one reader of a snapshot: everything else asks the match). The host is the
        snapshot's: it passes on when the host leaves (0, nobody, in a snapshot no match
        wrote)."""
        s = record.state
        return cls(
            kind=record.kind,
            day=record.day,
            id=record.id,
            channel_id=record.channel_id,
            guild_id=record.guild_id,
            host_id=int(s.get("host_id", 0)),
            rules=record.rules,
            status=record.status,
            version=record.version,
            lang=s.get("lang", "en"),
            seats=tuple(Seat.from_dict(x) for x in s.get("seats", ())),
            game=Game.from_dict(s["game"]) if s.get("game") else None,
            opening=Opening.from_dict(s["opening"]) if s.get("opening") else None,
            lobby_message_id=s.get("lobby_message_id"),
            turn_message_id=s.get("turn_message_id"),
            final_message_id=s.get("final_message_id"),
            created_at=_time(s.get("created_at")),
            started_at=_time(s.get("started_at")),
            deadline=_time(s.get("deadline")),
            strikes=tuple((int(u), int(n)) for u, n in s.get("strikes", ())),
            reposted_at=_time(s.get("reposted_at")),
        )
