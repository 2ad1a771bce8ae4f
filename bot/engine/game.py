"""A game is the fold of its actions over a rule set.

Every action has `verify_*` (raises `GameError` with a reason a player can read),
`can_*` (a bool for enabling buttons) and the action itself, which returns the
next `Game` and an event. States are immutable: an illegal action changes nothing.

Decisions where RULES.md is silent (binding for the bot, the store and the solver):

- Any number >= 1 of distinct players (the bot caps games at 8).
- ``{"player": p, "leave": true}`` is an extension action, legal at any time before
  the end and for any player (not only the one to play). The leaver's free rows are
  scratched at once: classic upper rows get the value with no dice (-3f), every
  other row 0. In `banked` the rows stay empty and take their penalties when the
  game ends. The game goes on without the leaver; it ends when every card is
  complete (banked: as usual) or when everyone has left.
- A roll's ``hold`` may be empty or absent on a turn's first throw, never
  non-empty; holding all five dice later is allowed (an empty roll, the throw counts).
- In `banked` a pass is allowed at any throw count, even 0; it spends
  max(0, t - 3) banked throws. Recording after t throws changes the bank by 3 - t.
- Joker (yatzy: only while poker holds 50; yahtzee: once poker is filled, +100 only
  if it holds 50): the throw must go in the matching upper row if free, else in any
  free lower row where every lower row counts as made, else 0 in any free upper row.
- The yatzy/yahtzee/scandinavian bonus is granted as soon as the upper sum reaches
  63; classic's +50 once all six upper rows are filled (subtotal >= 0).
- `banked` ends at the end of the round (seat order, first player first) in which
  someone completes all 15 figures, or after 40 rounds.
- Dice are JSON integers 1-6: ``true`` and ``3.0`` are not dice; unknown keys in an
  action are malformed.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from .errors import GameError
from .rules import FACE, RuleSet, counts_of, get_rules

DICE = 5


class DiceSource(Protocol):
    """Anything with `randint` (random.Random, secrets.SystemRandom)."""

    def randint(self, a: int, b: int) -> int: ...


# --- actions (exactly the replay format of RULES.md, plus `leave`) -------------------


@dataclass(frozen=True)
class Roll:
    player: str
    values: tuple[int, ...]
    hold: tuple[int, ...] = ()

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"player": self.player}
        if self.hold:
            out["hold"] = list(self.hold)
        out["roll"] = list(self.values)
        return out


@dataclass(frozen=True)
class Score:
    player: str
    row: str

    def to_json(self) -> dict[str, Any]:
        return {"player": self.player, "score": self.row}


@dataclass(frozen=True)
class Pass:
    player: str

    def to_json(self) -> dict[str, Any]:
        return {"player": self.player, "pass": True}


@dataclass(frozen=True)
class Leave:
    """A player leaves (or is marked away): their free rows are scratched."""

    player: str

    def to_json(self) -> dict[str, Any]:
        return {"player": self.player, "leave": True}


Action = Roll | Score | Pass | Leave


def parse_action(raw: Any) -> Action:
    """One action object of the replay format (`leave` is the bot's extension)."""
    if not isinstance(raw, dict):
        raise GameError("an action must be an object")
    player = raw.get("player")
    if not isinstance(player, str):
        raise GameError("an action needs a player name")
    keys = set(raw) - {"player"}
    unknown = keys - {"roll", "hold", "score", "pass", "leave"}
    if unknown:
        raise GameError(f"unknown field {sorted(unknown)[0]!r} in an action")
    if keys in ({"roll"}, {"roll", "hold"}):
        values = raw["roll"]
        hold = raw.get("hold", [])
        if not isinstance(values, list) or not isinstance(hold, list):
            raise GameError("roll and hold must be lists")
        if any(type(v) is not int for v in values) or any(type(p) is not int for p in hold):
            raise GameError("dice and held positions must be whole numbers")
        return Roll(player, tuple(values), tuple(hold))
    if keys == {"score"}:
        if not isinstance(raw["score"], str):
            raise GameError("score must name a row")
        return Score(player, raw["score"])
    if keys == {"pass"}:
        if raw["pass"] is not True:
            raise GameError('a pass is written "pass": true')
        return Pass(player)
    if keys == {"leave"}:
        if raw["leave"] is not True:
            raise GameError('a leave is written "leave": true')
        return Leave(player)
    raise GameError("an action is one of roll (with optional hold), score, pass or leave")


# --- events -------------------------------------------------------------------------


@dataclass(frozen=True)
class Rolled:
    player: str
    dice: tuple[int, ...]
    throw: int


@dataclass(frozen=True)
class Scored:
    player: str
    row: str
    points: int
    made: bool
    doubled: bool
    joker_bonus: int
    throws: int


@dataclass(frozen=True)
class Passed:
    player: str
    spent: int


@dataclass(frozen=True)
class Left:
    player: str


Event = Rolled | Scored | Passed | Left


# --- state --------------------------------------------------------------------------


@dataclass(frozen=True)
class Card:
    """One player's scorecard."""

    name: str
    rows: dict[str, int | None]
    extra: int = 0  # yatzy/yahtzee +100 poker bonuses
    bank: int = 0  # banked throws left
    turns: int = 0
    left: bool = False

    def free(self, rows: Iterable[str]) -> list[str]:
        return [r for r in rows if self.rows[r] is None]

    @property
    def complete(self) -> bool:
        return all(v is not None for v in self.rows.values())


@dataclass(frozen=True)
class Option:
    """A row the current player may record now and what it gives."""

    row: str
    points: int  # premium included, joker bonus excluded
    made: bool  # False = a scratch ("—")
    doubled: bool = False
    joker_bonus: int = 0
    joker: bool = False


@dataclass(frozen=True)
class Totals:
    upper: int
    bonus: int
    lower: int
    extra: int
    banked: int
    total: int


@dataclass(frozen=True)
class Standing:
    name: str
    totals: Totals
    settlement: float
    rank: int


@dataclass(frozen=True)
class Game:
    rules: RuleSet
    cards: tuple[Card, ...]
    current: int = 0
    dice: tuple[int, ...] = ()  # empty before the turn's first throw
    throws: int = 0
    held: frozenset[int] = frozenset()  # positions the player marked to keep
    round: int = 1
    ending: bool = False  # banked: someone completed every figure this round
    finished: bool = False
    version: int = 0  # bumped by every change, holds included
    history: tuple[Action, ...] = field(default=(), compare=False)

    # --- construction -----------------------------------------------------------

    @classmethod
    def new(cls, rules: RuleSet | str, players: Sequence[str]) -> Game:
        rs = get_rules(rules) if isinstance(rules, str) else rules
        if not players:
            raise GameError("a game needs at least one player")
        if len(set(players)) != len(players):
            raise GameError("player names must be different")
        cards = tuple(Card(name=p, rows=dict.fromkeys(rs.rows)) for p in players)
        return cls(rules=rs, cards=cards)

    @classmethod
    def replay(
        cls, rules: RuleSet | str, players: Sequence[str], actions: Iterable[Action]
    ) -> Game:
        game = cls.new(rules, players)
        for action in actions:
            game, _ = game.apply(action)
        return game

    # --- snapshots (what the store keeps beside the action log) ----------------------

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able snapshot; `from_dict` restores it exactly (history included)."""
        return {
            "rules": self.rules.name,
            "cards": [
                {
                    "name": c.name,
                    "rows": dict(c.rows),  # a copy: the snapshot must not alias the state
                    "extra": c.extra,
                    "bank": c.bank,
                    "turns": c.turns,
                    "left": c.left,
                }
                for c in self.cards
            ],
            "current": self.current,
            "dice": list(self.dice),
            "throws": self.throws,
            "held": sorted(self.held),
            "round": self.round,
            "ending": self.ending,
            "finished": self.finished,
            "version": self.version,
            "history": [a.to_json() for a in self.history],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Game:
        return cls(
            rules=get_rules(data["rules"]),
            cards=tuple(
                Card(c["name"], dict(c["rows"]), c["extra"], c["bank"], c["turns"], c["left"])
                for c in data["cards"]
            ),
            current=data["current"],
            dice=tuple(data["dice"]),
            throws=data["throws"],
            held=frozenset(data["held"]),
            round=data["round"],
            ending=data["ending"],
            finished=data["finished"],
            version=data["version"],
            history=tuple(parse_action(a) for a in data["history"]),
        )

    # --- queries ----------------------------------------------------------------

    @property
    def players(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.cards)

    @property
    def player(self) -> str:
        return self.cards[self.current].name

    @property
    def card(self) -> Card:
        return self.cards[self.current]

    def card_of(self, player: str) -> Card:
        for c in self.cards:
            if c.name == player:
                return c
        raise GameError(f"{player} is not playing in this game")

    def throw_limit(self) -> int:
        return self.rules.throws + (self.card.bank if self.rules.banked else 0)

    def throws_left(self) -> int:
        return max(0, self.throw_limit() - self.throws)

    def totals(self, player: str) -> Totals:
        return totals_of(self.rules, self.card_of(player))

    def standings(self) -> list[Standing]:
        return standings_of(self.rules, self.cards)

    # --- roll ---------------------------------------------------------------------

    def _check_turn(self, player: str) -> None:
        if self.finished:
            raise GameError("the game is over")
        if player not in self.players:
            raise GameError(f"{player} is not playing in this game")
        if player != self.player:
            raise GameError(f"it is {self.player}'s turn")

    def verify_roll(
        self, player: str, hold: Sequence[int] = (), values: Sequence[int] | None = None
    ) -> None:
        self._check_turn(player)
        if self.throws >= self.throw_limit():
            raise GameError(
                "no throws left: record a row" + (" or pass" if self.rules.banked else "")
            )
        if any(type(p) is not int or not 0 <= p < DICE for p in hold):
            raise GameError("held dice are positions 0–4")
        if len(set(hold)) != len(hold):
            raise GameError("a die is held twice")
        if hold and not self.dice:
            raise GameError("nothing to hold before the first throw")
        if values is not None:
            if len(values) != DICE - len(hold):
                raise GameError(f"expected {DICE - len(hold)} dice, got {len(values)}")
            if any(type(v) is not int or not 1 <= v <= 6 for v in values):
                raise GameError("a die shows 1 to 6")

    def can_roll(self, player: str) -> bool:
        return _ok(self.verify_roll, player)

    def draw(self, player: str, source: DiceSource) -> Roll:
        """The next throw for `player` with the held dice kept, values from `source`."""
        hold = tuple(sorted(self.held)) if self.dice else ()
        self.verify_roll(player, hold)
        return Roll(player, tuple(source.randint(1, 6) for _ in range(DICE - len(hold))), hold)

    def roll(self, player: str, hold: Sequence[int], values: Sequence[int]) -> tuple[Game, Rolled]:
        self.verify_roll(player, hold, values)
        it = iter(values)
        kept = set(hold)
        dice = tuple(self.dice[i] if i in kept else next(it) for i in range(DICE))
        throws = self.throws + 1
        game = self._next(
            dice=dice,
            throws=throws,
            held=frozenset(kept),
            action=Roll(player, tuple(values), tuple(hold)),
        )
        return game, Rolled(player, dice, throws)

    # --- hold (interface state, not a replay action) ----------------------------------

    def verify_hold(self, player: str, position: int) -> None:
        self._check_turn(player)
        if not self.dice:
            raise GameError("throw the dice before holding any")
        if type(position) is not int or not 0 <= position < DICE:
            raise GameError("held dice are positions 0–4")
        if self.throws >= self.throw_limit():
            raise GameError("no throws left: holding changes nothing")

    def toggle_hold(self, player: str, position: int) -> Game:
        self.verify_hold(player, position)
        return replace(self, held=self.held ^ {position}, version=self.version + 1)

    # --- score --------------------------------------------------------------------

    def _joker(self) -> tuple[bool, int]:
        """(is this throw a forced joker, the bonus it earns)."""
        rs = self.rules
        if rs.joker == "none" or not self.dice or len(set(self.dice)) != 1:
            return False, 0
        poker = self.card.rows.get("poker")
        bonus = rs.joker_bonus if poker == 50 else 0
        active = poker == 50 if rs.joker == "yatzy" else poker is not None
        return active, bonus

    def options(self) -> list[Option]:
        """Every row the current player may record now, with its points."""
        if self.finished or not self.dice:
            return []
        rs, card = self.rules, self.card
        joker, bonus = self._joker()
        if joker:
            return self._joker_options(bonus)
        free = card.free(rs.rows)
        if rs.upper_first and card.free(rs.upper):
            free = card.free(rs.upper)
        first = self.throws == 1
        out = []
        for row in free:
            made = rs.made_value(row, self.dice, first)
            if made is not None:
                doubled = rs.first_throw_double and first and row in rs.lower and row != "chance"
                out.append(Option(row, made, made=rs.is_made(row, self.dice), doubled=doubled))
            elif rs.scratch:
                out.append(Option(row, rs.scratch_value(row), made=False))
        return out

    def _joker_options(self, bonus: int) -> list[Option]:
        rs, card = self.rules, self.card
        face_row = next(r for r, f in FACE.items() if f == self.dice[0])
        if card.rows[face_row] is None:
            rows = [face_row]
        else:
            rows = card.free(rs.lower) or card.free(rs.upper)
        return [
            Option(r, rs.joker_value(r, self.dice), made=True, joker_bonus=bonus, joker=True)
            for r in rows
        ]

    def verify_score(self, player: str, row: str) -> Option:
        self._check_turn(player)
        rs = self.rules
        if row not in rs.rows:
            raise GameError(f"there is no row {row!r} in {rs.name}")
        if not self.dice:
            raise GameError("throw the dice before recording a row")
        if self.card.rows[row] is not None:
            raise GameError(f"the row {row} is already filled")
        if rs.upper_first and row in rs.lower and self.card.free(rs.upper):
            raise GameError("fill the upper rows (ones to sixes) before the lower ones")
        for option in self.options():
            if option.row == row:
                return option
        if self._joker()[0]:
            raise GameError("a joker must go in " + ", ".join(o.row for o in self.options()))
        raise GameError(f"the dice do not make {row}")

    def can_score(self, player: str, row: str) -> bool:
        return _ok(self.verify_score, player, row)

    def score(self, player: str, row: str) -> tuple[Game, Scored]:
        option = self.verify_score(player, row)
        card = self.card
        rows = {**card.rows, row: option.points}
        bank = card.bank + (self.rules.throws - self.throws if self.rules.banked else 0)
        card = replace(card, rows=rows, extra=card.extra + option.joker_bonus, bank=bank)
        event = Scored(
            player, row, option.points, option.made, option.doubled, option.joker_bonus, self.throws
        )
        return self._end_turn(card, Score(player, row)), event

    # --- pass (banked only) -------------------------------------------------------------

    def verify_pass(self, player: str) -> None:
        self._check_turn(player)
        if not self.rules.banked:
            raise GameError(f"passing is only allowed in banked, not in {self.rules.name}")

    def can_pass(self, player: str) -> bool:
        return _ok(self.verify_pass, player)

    def pass_turn(self, player: str) -> tuple[Game, Passed]:
        self.verify_pass(player)
        spent = max(0, self.throws - self.rules.throws)
        card = replace(self.card, bank=self.card.bank - spent)
        return self._end_turn(card, Pass(player)), Passed(player, spent)

    # --- leave ----------------------------------------------------------------------

    def verify_leave(self, player: str) -> None:
        if self.finished:
            raise GameError("the game is over")
        if self.card_of(player).left:
            raise GameError(f"{player} has already left")

    def leave(self, player: str) -> tuple[Game, Left]:
        self.verify_leave(player)
        rs = self.rules
        index = self.players.index(player)
        old = self.cards[index]
        # Scratched rows: the value with no dice; banked penalises them at the end instead.
        rows: dict[str, int | None] = (
            dict(old.rows)
            if rs.banked
            else {r: (v if v is not None else rs.scratch_value(r)) for r, v in old.rows.items()}
        )
        cards = _with(self.cards, index, replace(old, rows=rows, left=True))
        action = Leave(player)
        game = replace(self, cards=cards)
        if index == self.current:
            return game._advance(action), Left(player)
        game = game._next(action=action)
        if all(c.left for c in cards) or (not rs.banked and all(c.complete for c in cards)):
            game = game._finish()
        return game, Left(player)

    # --- apply -----------------------------------------------------------------------

    def apply(self, action: Action) -> tuple[Game, Event]:
        if isinstance(action, Roll):
            return self.roll(action.player, action.hold, action.values)
        if isinstance(action, Score):
            return self.score(action.player, action.row)
        if isinstance(action, Pass):
            return self.pass_turn(action.player)
        return self.leave(action.player)

    # --- internals ------------------------------------------------------------------

    def _next(self, action: Action, **changes: Any) -> Game:
        return replace(self, version=self.version + 1, history=(*self.history, action), **changes)

    def _end_turn(self, card: Card, action: Action) -> Game:
        card = replace(card, turns=card.turns + 1)
        game = replace(self, cards=_with(self.cards, self.current, card))
        if self.rules.banked and card.complete:
            game = replace(game, ending=True)
        return game._advance(action)

    def _advance(self, action: Action) -> Game:
        """Hand the dice to the next active player; close rounds and the game."""
        rs, n = self.rules, len(self.cards)
        base = self._next(action=action, dice=(), throws=0, held=frozenset())
        active = [i for i, c in enumerate(self.cards) if not c.left]
        if not active:
            return base._finish()
        if not rs.banked and all(c.complete for c in self.cards):
            return base._finish()
        nxt = next(
            (self.current + k) % n
            for k in range(1, n + 1)
            if not self.cards[(self.current + k) % n].left
        )
        wrapped = nxt <= self.current
        rnd = self.round + 1 if wrapped else self.round
        if (
            rs.banked
            and wrapped
            and (self.ending or (rs.max_rounds and self.round >= rs.max_rounds))
        ):
            return replace(base, round=self.round)._finish()
        if not rs.banked:
            # Skip players whose card is full (only possible after someone left).
            while self.cards[nxt].complete:
                nxt = (nxt + 1) % n
        return replace(base, current=nxt, round=rnd)

    def _finish(self) -> Game:
        rs = self.rules
        cards = self.cards
        if rs.banked:
            cards = tuple(
                replace(
                    c,
                    rows={r: (v if v is not None else rs.penalties[r]) for r, v in c.rows.items()},
                )
                for c in cards
            )
        return replace(self, cards=cards, finished=True, dice=(), throws=0, held=frozenset())


def _with(cards: tuple[Card, ...], index: int, card: Card) -> tuple[Card, ...]:
    return (*cards[:index], card, *cards[index + 1 :])


def _ok(check: Any, *args: Any) -> bool:
    try:
        check(*args)
    except GameError:
        return False
    return True


def totals_of(rules: RuleSet, card: Card) -> Totals:
    upper = sum(card.rows[r] or 0 for r in rules.upper)
    lower = sum(card.rows[r] or 0 for r in rules.lower)
    if rules.bonus_when_complete:
        done = all(card.rows[r] is not None for r in rules.upper)
        bonus = rules.bonus if done and upper >= rules.bonus_threshold else 0
    else:
        bonus = rules.bonus if rules.bonus and upper >= rules.bonus_threshold else 0
    banked = card.bank if rules.banked else 0
    extra = card.extra + 3 * banked
    return Totals(upper, bonus, lower, extra, banked, upper + bonus + lower + extra)


def standings_of(rules: RuleSet, cards: Sequence[Card]) -> list[Standing]:
    """Totals, settlement against the average, rank = 1 + players strictly ahead."""
    totals = [totals_of(rules, c) for c in cards]
    average = sum(t.total for t in totals) / len(totals)
    return [
        Standing(c.name, t, t.total - average, 1 + sum(o.total > t.total for o in totals))
        for c, t in zip(cards, totals, strict=True)
    ]


def settlement(totals: Sequence[int]) -> list[float]:
    average = sum(totals) / len(totals)
    return [t - average for t in totals]


__all__ = [
    "DICE",
    "Action",
    "Card",
    "DiceSource",
    "Event",
    "Game",
    "Leave",
    "Left",
    "Option",
    "Pass",
    "Passed",
    "Roll",
    "Rolled",
    "Score",
    "Scored",
    "Standing",
    "Totals",
    "counts_of",
    "settlement",
    "standings_of",
    "totals_of",
]
