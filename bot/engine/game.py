"""A game is the fold of its actions over a rule set.

Every action has `verify_*` (raises `GameError` with a reason a player can read),
`can_*` (a bool for enabling buttons) and the action itself, which returns the
next `Game` and an event. States are immutable: an illegal action changes nothing.

Decisions beyond the source texts (docs/rules.md lists them all; binding for the bot,
the store and the solver):

- 1 to `MAX_PLAYERS` (8) distinct players; a replay holds the same.
- ``{"player": p, "leave": true}`` is an extension action, legal at any time before
  the end and for any player (not only the one to play). The leaver's free rows are
  scratched at once: classic upper rows get the value with no dice (-3f), every
  other row 0. In `banked` the rows stay empty and take their penalties when the
  game ends, and a leaver in the middle of their turn after t throws spends
  max(0, t - 3) banked throws, as a pass does (the throws were used: a leave is no
  way to spend the bank for free). The game goes on without the leaver; it ends when
  every card is complete (banked: as usual) or when everyone has left.
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
  someone completes all 15 figures, or after 40 rounds. Then each unfinished lower
  figure takes its penalty and each unfinished upper figure 0, marked not made.
- A game keeps no history: the caller keeps the actions (the store's log); `seq` counts
  the actions folded so far, so a snapshot knows the next action's sequence number.
- A card remembers which filled rows were not made (`Card.unmade`: scratches, a leaver's
  rows, banked's end-of-game fills), so a 0 shows as ✓ (made) or — (not) without guessing.
- Dice are JSON integers 1-6: ``true`` and ``3.0`` are not dice; unknown keys in an
  action are malformed.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

from .errors import GameError
from .rules import FACE, RuleSet, counts_of, get_rules

DICE = 5
MAX_PLAYERS = 8


class DiceSource(Protocol):
    """Anything with `randint` (random.Random, secrets.SystemRandom)."""

    def randint(self, a: int, b: int) -> int: ...


# --- actions (exactly the replay format of docs/rules.md, plus `leave`) ----------


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
        raise GameError("action_not_object")
    player = raw.get("player")
    if not isinstance(player, str):
        raise GameError("action_no_player")
    keys = set(raw) - {"player"}
    unknown = keys - {"roll", "hold", "score", "pass", "leave"}
    if unknown:
        raise GameError("action_unknown_field", field=sorted(unknown)[0])
    if keys in ({"roll"}, {"roll", "hold"}):
        values = raw["roll"]
        hold = raw.get("hold", [])
        if not isinstance(values, list) or not isinstance(hold, list):
            raise GameError("action_roll_lists")
        if any(type(v) is not int for v in values) or any(type(p) is not int for p in hold):
            raise GameError("action_whole_numbers")
        return Roll(player, tuple(values), tuple(hold))
    if keys == {"score"}:
        if not isinstance(raw["score"], str):
            raise GameError("action_score_row")
        return Score(player, raw["score"])
    if keys == {"pass"}:
        if raw["pass"] is not True:
            raise GameError("action_pass_true")
        return Pass(player)
    if keys == {"leave"}:
        if raw["leave"] is not True:
            raise GameError("action_leave_true")
        return Leave(player)
    raise GameError("action_kind")


# --- events -------------------------------------------------------------------------


# Each event answers the edges' question "is the turn over?" (`ends_turn`); the game
# itself says whether it is over (`Game.finished`).


@dataclass(frozen=True)
class Rolled:
    player: str
    dice: tuple[int, ...]
    throw: int

    @property
    def ends_turn(self) -> bool:
        return False


@dataclass(frozen=True)
class Scored:
    player: str
    row: str
    points: int
    made: bool
    doubled: bool
    joker_bonus: int
    throws: int

    @property
    def ends_turn(self) -> bool:
        return True


@dataclass(frozen=True)
class Passed:
    player: str
    spent: int

    @property
    def ends_turn(self) -> bool:
        return True


@dataclass(frozen=True)
class Left:
    player: str
    on_turn: bool = False  # the leaver was the player to move: their turn ended
    spent: int = 0  # banked: the banked throws the leaver's unfinished turn used
    scratched: bool = True  # the free rows were scratched (banked: penalised at the end)

    @property
    def ends_turn(self) -> bool:
        return self.on_turn


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
    unmade: frozenset[str] = frozenset()  # filled rows whose figure was not made

    def free(self, rows: Iterable[str]) -> list[str]:
        return [r for r in rows if self.rows[r] is None]

    def made(self, row: str) -> bool:
        """Whether `row` holds a made figure (a 0 then shows as ✓, else as —)."""
        return self.rows[row] is not None and row not in self.unmade

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
    extra: int  # poker bonuses + bank points
    banked: int  # banked throws left
    total: int
    bank_points: int = 0  # what the banked throws are worth (part of `extra`)


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
    seq: int = 0  # actions folded so far: the next action's sequence number
    turn: int = 0  # turns begun after the first: changes exactly when a new turn begins

    # --- construction -----------------------------------------------------------

    @classmethod
    def new(cls, rules: RuleSet | str, players: Sequence[str]) -> Game:
        rs = get_rules(rules) if isinstance(rules, str) else rules
        if not players:
            raise GameError("no_players")
        if len(players) > MAX_PLAYERS:
            raise GameError("too_many_players", max=MAX_PLAYERS)
        if len(set(players)) != len(players):
            raise GameError("names_not_distinct")
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
        """A JSON-able snapshot; `from_dict` restores it exactly."""
        return {
            "rules": self.rules.name,
            "cards": [_card_dict(self.rules, c) for c in self.cards],
            "current": self.current,
            "dice": list(self.dice),
            "throws": self.throws,
            "held": sorted(self.held),
            "round": self.round,
            "ending": self.ending,
            "finished": self.finished,
            "seq": self.seq,
            "turn": self.turn,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Game:
        rules = get_rules(data["rules"])
        return cls(
            rules=rules,
            cards=tuple(
                Card(
                    c["name"],
                    _rows_of(rules, c["rows"]),
                    c.get("extra", 0),
                    c.get("bank", 0),
                    c["turns"],
                    c.get("left", False),
                    frozenset(c["unmade"])
                    if "unmade" in c
                    else _unmade_of(rules, _rows_of(rules, c["rows"])),
                )
                for c in data["cards"]
            ),
            current=data["current"],
            dice=tuple(data["dice"]),
            throws=data["throws"],
            held=frozenset(data["held"]),
            round=data["round"],
            ending=data["ending"],
            finished=data["finished"],
            # Snapshots written before the log left them carried their history instead.
            seq=data["seq"] if "seq" in data else len(data.get("history", ())),
            turn=data["turn"] if "turn" in data else sum(c["turns"] for c in data["cards"]),
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
        raise GameError("not_playing", player=player)

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
            raise GameError("game_over")
        if player != self.player:
            if all(c.name != player for c in self.cards):
                raise GameError("not_playing", player=player)
            raise GameError("not_your_turn", player=self.player)

    def verify_roll(
        self, player: str, hold: Sequence[int] = (), values: Sequence[int] | None = None
    ) -> None:
        self._check_turn(player)
        if self.throws >= self.throw_limit():
            raise GameError("no_throws_left_pass" if self.rules.banked else "no_throws_left")
        if any(type(p) is not int or not 0 <= p < DICE for p in hold):
            raise GameError("hold_positions")
        if len(set(hold)) != len(hold):
            raise GameError("hold_twice")
        if hold and not self.dice:
            raise GameError("hold_before_throw")
        if values is not None:
            if len(values) != DICE - len(hold):
                raise GameError("dice_count", expected=DICE - len(hold), got=len(values))
            if any(type(v) is not int or not 1 <= v <= 6 for v in values):
                raise GameError("die_value")

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
        game = self._next(dice=dice, throws=throws, held=frozenset(kept))
        return game, Rolled(player, dice, throws)

    # --- hold (interface state, not a replay action) ----------------------------------

    def verify_hold(self, player: str, position: int) -> None:
        self._check_turn(player)
        if not self.dice:
            raise GameError("throw_first_hold")
        if type(position) is not int or not 0 <= position < DICE:
            raise GameError("hold_positions")
        if self.throws >= self.throw_limit():
            raise GameError("hold_no_throws")

    def can_hold(self, player: str, position: int = 0) -> bool:
        return _ok(self.verify_hold, player, position)

    def toggle_hold(self, player: str, position: int) -> Game:
        self.verify_hold(player, position)
        return replace(self, held=self.held ^ {position})

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
            raise GameError("no_such_row", row=row, rules=rs.name)
        if not self.dice:
            raise GameError("throw_first_score")
        if self.card.rows[row] is not None:
            raise GameError("row_filled", row=row)
        if rs.upper_first and row in rs.lower and self.card.free(rs.upper):
            raise GameError("upper_first")
        for option in self.options():
            if option.row == row:
                return option
        if self._joker()[0]:
            raise GameError("joker_rows", rows=tuple(o.row for o in self.options()))
        raise GameError("not_made", row=row)

    def can_score(self, player: str, row: str) -> bool:
        return _ok(self.verify_score, player, row)

    def score(self, player: str, row: str) -> tuple[Game, Scored]:
        option = self.verify_score(player, row)
        card = self.card
        rows = {**card.rows, row: option.points}
        bank = card.bank + (self.rules.throws - self.throws if self.rules.banked else 0)
        unmade = card.unmade if option.made else card.unmade | {row}
        card = replace(
            card, rows=rows, extra=card.extra + option.joker_bonus, bank=bank, unmade=unmade
        )
        event = Scored(
            player, row, option.points, option.made, option.doubled, option.joker_bonus, self.throws
        )
        return self._end_turn(card), event

    # --- pass (banked only) -------------------------------------------------------------

    def verify_pass(self, player: str) -> None:
        self._check_turn(player)
        if not self.rules.banked:
            raise GameError("pass_banked_only", rules=self.rules.name)

    def can_pass(self, player: str) -> bool:
        return _ok(self.verify_pass, player)

    def _spent(self) -> int:
        """The banked throws the current turn has used: those beyond the regular three."""
        return max(0, self.throws - self.rules.throws) if self.rules.banked else 0

    def pass_turn(self, player: str) -> tuple[Game, Passed]:
        self.verify_pass(player)
        spent = self._spent()
        card = replace(self.card, bank=self.card.bank - spent)
        return self._end_turn(card), Passed(player, spent)

    # --- leave ----------------------------------------------------------------------

    def verify_leave(self, player: str) -> None:
        if self.finished:
            raise GameError("game_over")
        if self.card_of(player).left:
            raise GameError("already_left", player=player)

    def can_leave(self, player: str) -> bool:
        return _ok(self.verify_leave, player)

    def leave(self, player: str) -> tuple[Game, Left]:
        self.verify_leave(player)
        rs = self.rules
        index = self.players.index(player)
        old = self.cards[index]
        on_turn = index == self.current
        spent = self._spent() if on_turn else 0  # as a pass: the throws were used
        # Scratched rows: the value with no dice; banked penalises them at the end instead.
        if rs.banked:
            card = replace(old, left=True, bank=old.bank - spent)
        else:
            free = old.free(rs.rows)
            rows = {**old.rows, **{r: rs.scratch_value(r) for r in free}}
            card = replace(old, rows=rows, left=True, unmade=old.unmade | set(free))
        game = replace(self, cards=_with(self.cards, index, card))
        if on_turn:
            return game._advance(), Left(player, on_turn=True, spent=spent, scratched=not rs.banked)
        game = game._next()
        if all(c.left for c in game.cards) or (
            not rs.banked and all(c.complete for c in game.cards)
        ):
            game = game._finish()
        return game, Left(player, scratched=not rs.banked)

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

    def _next(self, **changes: Any) -> Game:
        return replace(self, seq=self.seq + 1, **changes)

    def _end_turn(self, card: Card) -> Game:
        card = replace(card, turns=card.turns + 1)
        game = replace(self, cards=_with(self.cards, self.current, card))
        if self.rules.banked and card.complete:
            game = replace(game, ending=True)
        return game._advance()

    def _advance(self) -> Game:
        """Hand the dice to the next active player; close rounds and the game."""
        rs, n = self.rules, len(self.cards)
        base = self._next(dice=(), throws=0, held=frozenset(), turn=self.turn + 1)
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
            # Unfinished figures: lower ones take their penalty, upper ones 0 (not made).
            cards = tuple(
                replace(
                    c,
                    rows={r: (v if v is not None else rs.penalties[r]) for r, v in c.rows.items()},
                    unmade=c.unmade | set(c.free(rs.rows)),
                )
                for c in cards
            )
        return replace(self, cards=cards, finished=True, dice=(), throws=0, held=frozenset())


def _card_dict(rules: RuleSet, card: Card) -> dict[str, Any]:
    """A card in a snapshot. Every save of a game rewrites every card, so it is compact:
    the rows in the rule set's order (a fifth of a {row: value} dict), and no field that
    holds its default (`from_dict` fills those in)."""
    out: dict[str, Any] = {
        "name": card.name,
        "rows": [card.rows[r] for r in rules.rows],
        "turns": card.turns,
        "unmade": sorted(card.unmade),
    }
    if card.extra:
        out["extra"] = card.extra
    if card.bank:
        out["bank"] = card.bank
    if card.left:
        out["left"] = True
    return out


def _rows_of(
    rules: RuleSet, rows: list[int | None] | dict[str, int | None]
) -> dict[str, int | None]:
    """A card's rows from a snapshot: a list in row order, or (older snapshots) a dict."""
    if isinstance(rows, dict):
        return dict(rows)
    return dict(zip(rules.rows, rows, strict=True))


def _unmade_of(rules: RuleSet, rows: dict[str, int | None]) -> frozenset[str]:
    """For a snapshot from before `unmade`: a 0 in an upper row of classic or banked was a
    made figure (exactly three, or banked's ✓), any other 0 a scratch."""
    return frozenset(
        r
        for r, v in rows.items()
        if v == 0 and not (r in FACE and (rules.upper_first or rules.banked))
    )


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
    bank_points = rules.bank_value * banked
    extra = card.extra + bank_points
    return Totals(upper, bonus, lower, extra, banked, upper + bonus + lower + extra, bank_points)


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
    "MAX_PLAYERS",
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
