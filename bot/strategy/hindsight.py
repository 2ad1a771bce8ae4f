"""The hindsight optimum of a day's dice: the best score the fixed dice allowed.

With the daily dice (`bot.engine.daily`) every die a player could see is known in
advance: position p shows `die(t, k, p)` if it is (re)thrown at throw k of turn t. So a
turn is no gamble but a menu. After K throws each position shows its value at the last
throw it was thrown at (throw 1, or any re-throw up to K): the reachable final dice are
the multisets that pick, for every position, one of its first K values. Throw counts
matter: classic doubles a lower figure made on the first throw, and banked pays and
charges throws through the bank. A menu is a handful of boolean arrays over the 252
multisets (`_reach`), and the best value of each row is a masked maximum.

The optimum is then deterministic dynamic programming over the card:

* `classic`, `yatzy`, `yahtzee`, `scandinavian` (and custom rule sets of the same kinds):
  every turn fills one row, so the turn is the number of filled rows and the state is
  (filled upper rows, filled lower rows, upper subtotal, poker holds 50). The subtotal is
  clipped at the threshold where upper rows never score less than 0 (the 63 bonus), kept
  exact where they can (classic's signed subtotal), and dropped once the upper rows are
  full (the bonus is paid on the row that completes them, as `totals_of` counts it at
  the end). For an upper row only the largest reachable value matters (more subtotal
  never hurts), for a lower row only its best reachable value; the poker row has two
  choices (50 arms the joker, anything else does not). A five of a kind under the
  joker only has its joker rows, as in `Game.options()`, so under the joker the normal
  rows are taken over the non-five-of-a-kind dice and the joker rows over the five of a
  kind ones. Yatzy is ~4 million states, so the levels are vectorised with numpy.
* `banked`: the state is (filled rows, bank, turn); the upper rows come first, so only
  575 sets of filled rows can occur, and the bank is at most 2 per recorded row. A pass
  is best made before throwing (it then costs nothing); a row recorded after K throws
  changes the bank by 3 - K, and since a larger bank is worth at least 3 points more,
  only the K where a row's best reachable value rises need be tried. This is exact too
  (`extra_throws` bounds the banked throws a turn may use, for a quicker lower bound).

The result's line is found by walking forward through the real engine (`Game`), each
turn choosing the option whose value matches the optimum, so the line is legal and its
score is the engine's; `replay` plays a line again from its actions.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np
import numpy.typing as npt

from bot.engine import DICE, FACE, Action, Game, Pass, Roll, RuleSet, Score, totals_of

from .dice import FIVE_OF_A_KIND, MULTISETS, OUTCOMES, UP, FloatArray, IntArray

BoolArray = npt.NDArray[np.bool_]
NEG = -np.inf
PLAYER = "player"  # the solo player of a game the module starts itself
_N_OUTCOMES = len(OUTCOMES)
_IS_FIVE = np.zeros(_N_OUTCOMES, dtype=bool)
_IS_FIVE[FIVE_OF_A_KIND] = True


class DayDice(Protocol):
    """The day's dice: `bot.engine.daily.DailyDice`, or a planted source in tests."""

    rules: str

    def die(self, turn: int, throw: int, position: int) -> int: ...


@dataclass(frozen=True)
class TurnPlay:
    """One turn of a line: throw `throws` times, holding `holds[i]` before throw i + 2,
    then record `row` (None: a banked pass; `throws` 0 passes before throwing)."""

    throws: int
    holds: tuple[tuple[int, ...], ...]
    row: str | None


@dataclass(frozen=True)
class Hindsight:
    """The best score of the day's dice from a turn start, and a line that makes it."""

    rules: str
    score: int  # the final total of the line, as the engine counts it
    exact: bool  # False: a feasible lower bound (banked with `extra_throws`)
    line: tuple[TurnPlay, ...]


# --- the menu of a turn ----------------------------------------------------------------


@dataclass(frozen=True)
class _Tables:
    """What each row scores for each multiset, exactly as `Game.options()` offers it."""

    later: FloatArray  # (rows, 252): recorded after a later throw; -inf: not allowed
    first: FloatArray  # (rows, 252): recorded after the first throw (classic doubles)
    joker: FloatArray  # (rows, 6): the row under the joker for five of a kind of face g


_TABLES: dict[int, tuple[RuleSet, _Tables]] = {}


def _tables(rules: RuleSet) -> _Tables:
    hit = _TABLES.get(id(rules))
    if hit is not None and hit[0] is rules:
        return hit[1]

    def value(row: str, dice: tuple[int, ...], *, first: bool) -> float:
        made = rules.made_value(row, dice, first)
        if made is not None:
            return float(made)
        return float(rules.scratch_value(row)) if rules.scratch else NEG

    later = np.array([[value(r, o, first=False) for o in OUTCOMES] for r in rules.rows])
    first = np.array([[value(r, o, first=True) for o in OUTCOMES] for r in rules.rows])
    joker = np.array(
        [[float(rules.joker_value(r, (g,) * DICE)) for g in range(1, 7)] for r in rules.rows]
    )
    tables = _Tables(later, first, joker)
    _TABLES[id(rules)] = (rules, tables)
    return tables


def _reach(seen: Sequence[int]) -> BoolArray:
    """Which multisets pick one face from each position's set (`seen[p]`: a 6-bit mask)."""
    have = np.ones(1, dtype=bool)
    for n, mask in enumerate(seen):
        nxt = np.zeros(len(MULTISETS[n + 1]), dtype=bool)
        src = np.flatnonzero(have)
        for f in range(6):
            if mask >> f & 1:
                nxt[UP[n][src, f]] = True
        have = nxt
    return have


@dataclass(frozen=True)
class _Pick:
    """The best way to record a row this turn: its value, the dice, the throws needed."""

    value: float
    outcome: int
    throws: int


def _row_best(tables: _Tables, throws: int, reach: BoolArray) -> tuple[FloatArray, IntArray]:
    """Per row, the best value over the multisets `reach` after `throws` throws, and the
    multiset that gives it."""
    table = tables.first if throws == 1 else tables.later
    masked = np.where(reach[None, :], table, NEG)
    return masked.max(axis=1), masked.argmax(axis=1)


def _best(
    tables: _Tables, reach: Sequence[BoolArray], allowed: BoolArray | None = None
) -> list[_Pick]:
    """Per row, the best value over the multisets reachable in K throws (reach[K-1]), the
    fewest throws on ties; `allowed` restricts the multisets."""
    best = np.full(tables.later.shape[0], NEG)
    outcome = np.full(best.shape, -1)
    throws = np.zeros(best.shape, dtype=np.int64)
    for k, ok in enumerate(reach, start=1):
        mask = ok if allowed is None else ok & allowed
        if not mask.any():
            continue
        v, o = _row_best(tables, k, mask)
        better = v > best
        best[better] = v[better]
        outcome[better] = o[better]
        throws[better] = k
    return [_Pick(float(v), int(o), int(t)) for v, o, t in zip(best, outcome, throws, strict=True)]


def _seen(values: Sequence[tuple[int, ...]]) -> list[int]:
    """Per position, the 6-bit mask of the faces it showed in these throws."""
    seen = [0] * DICE
    for throw in values:
        for p, face in enumerate(throw):
            seen[p] |= 1 << (face - 1)
    return seen


def _holds(values: Sequence[tuple[int, ...]], outcome: int, throws: int) -> tuple[
    tuple[int, ...], ...
]:
    """Holds that end on multiset `outcome` after exactly `throws` throws of `values`:
    each position is thrown up to the first throw that shows its assigned face, then held
    (a last throw with nothing to throw is legal: it keeps the throw count)."""
    need = list(OUTCOMES[outcome])
    when: list[int] = []

    def assign(p: int) -> bool:
        if p == DICE:
            return True
        for face in sorted(set(need)):
            k = next((k for k in range(throws) if values[k][p] == face), None)
            if k is None:
                continue
            need.remove(face)
            when.append(k + 1)
            if assign(p + 1):
                return True
            when.pop()
            need.append(face)
        return False

    if not assign(0):
        raise AssertionError(f"{OUTCOMES[outcome]} is not reachable in {throws} throws")
    return tuple(tuple(p for p in range(DICE) if when[p] < k) for k in range(2, throws + 1))


def _throws_of(dice: DayDice, turn: int, count: int) -> list[tuple[int, ...]]:
    return [tuple(dice.die(turn, k, p) for p in range(DICE)) for k in range(1, count + 1)]


# --- playing a line through the engine ---------------------------------------------------


def _turn_actions(dice: DayDice, game: Game, play: TurnPlay) -> Iterator[Action]:
    player, turn = game.player, game.card.turns
    for k in range(1, play.throws + 1):
        hold = play.holds[k - 2] if k > 1 else ()
        yield Roll(player, tuple(dice.die(turn, k, p) for p in range(DICE) if p not in hold), hold)
    yield Pass(player) if play.row is None else Score(player, play.row)


def _play(dice: DayDice, game: Game, play: TurnPlay, log: list[Action]) -> Game:
    for action in _turn_actions(dice, game, play):
        game, _ = game.apply(action)
        log.append(action)
    return game


def replay(
    dice: DayDice, line: Hindsight | Sequence[TurnPlay], game: Game | None = None
) -> tuple[Game, list[Action]]:
    """Play `line` on the day's dice through the engine from `game` (default: a new solo
    game): the final game and the actions (the replay format). Raises GameError if the
    line is not legal there."""
    plays = line.line if isinstance(line, Hindsight) else line
    state = game if game is not None else _new_game(dice, line)
    log: list[Action] = []
    for play in plays:
        state = _play(dice, state, play, log)
    return state, log


def _new_game(dice: DayDice, line: Hindsight | Sequence[TurnPlay]) -> Game:
    rules = line.rules if isinstance(line, Hindsight) else dice.rules
    return Game.new(rules, [PLAYER])


# --- the optimum -------------------------------------------------------------------------


def hindsight(
    dice: DayDice, game: Game | RuleSet | str | None = None, *, extra_throws: int | None = None
) -> Hindsight:
    """The best final total the day's dice allow from `game`'s turn start (default: a new
    solo game of the dice's rule set), with a line that makes it.

    `extra_throws` (banked only) caps the banked throws one turn may use: the result is
    then a feasible lower bound (`exact` False). Without it every rule set is exact.
    """
    if game is None or isinstance(game, (RuleSet, str)):
        game = Game.new(dice.rules if game is None else game, [PLAYER])
    if game.rules.name != dice.rules:
        raise ValueError(f"these are the {dice.rules} dice, not {game.rules.name}")
    if game.finished or game.dice or game.throws:
        raise ValueError("hindsight starts at a turn start of a game in play")
    if len(game.cards) != 1:
        raise ValueError("hindsight is for solo games")
    if extra_throws is not None and extra_throws < 0:
        raise ValueError("extra_throws must be >= 0")
    if game.rules.banked:
        return _Banked(dice, game, extra_throws).solve()
    return _Rows(dice, game).solve()


class _Rows:
    """The non-banked rule sets: one row a turn."""

    def __init__(self, dice: DayDice, game: Game) -> None:
        rs = self.rules = game.rules
        if rs.joker != "none" and (len(rs.upper) != 6 or "poker" not in rs.lower):
            raise ValueError("a joker rule set needs the six upper rows and poker")
        self.dice, self.game = dice, game
        self.tables = _tables(rs)
        self.row_index = {r: i for i, r in enumerate(rs.rows)}
        self.upper, self.lower = rs.upper, rs.lower
        self.nu, self.nl = len(self.upper), len(self.lower)
        self.full_u, self.full_l = (1 << self.nu) - 1, (1 << self.nl) - 1
        self.sentinel = 1 << self.nl  # a lower-mask index whose values are all -inf
        self.joker = rs.joker if rs.joker != "none" else None
        self.poker = self.lower.index("poker") if "poker" in self.lower else -1
        self.flags = 2 if self.joker else 1
        self.face_row = {FACE[r]: i for i, r in enumerate(self.upper)}
        # The upper subtotal: tracked only when a bonus depends on it.
        values = [
            [v for n in range(DICE + 1) if (v := rs.upper_value(FACE[r], n)) is not None]
            for r in self.upper
        ]
        self.track = bool(rs.bonus) and self.nu > 0
        if not self.track:
            self.s_lo = self.s_hi = 0
        elif all(v >= 0 for vs in values for v in vs):
            self.s_lo, self.s_hi = 0, max(rs.bonus_threshold, 0)  # clip: it only grows
        else:
            self.s_lo = sum(min(vs) for vs in values if vs)
            self.s_hi = sum(max(vs) for vs in values if vs)
        self.sums = self.s_hi - self.s_lo + 1
        self._steps: dict[tuple[bool, int], tuple[IntArray, FloatArray]] = {}
        card = game.card
        self.u0, self.l0 = self._masks(card.rows)
        self.level0 = bin(self.u0).count("1") + bin(self.l0).count("1")
        self.turn0 = card.turns
        self.menus: dict[int, tuple[list[_Pick], list[_Pick], list[int], list[_Pick]]] = {}

    # --- state of a card -----------------------------------------------------------------

    def _masks(self, rows: dict[str, int | None]) -> tuple[int, int]:
        u = sum(1 << i for i, r in enumerate(self.upper) if rows[r] is not None)
        low = sum(1 << i for i, r in enumerate(self.lower) if rows[r] is not None)
        return u, low

    def _sum_index(self, rows: dict[str, int | None], u: int) -> int:
        if u == self.full_u or not self.track:
            return 0
        s = sum(rows[r] or 0 for r in self.upper)
        return min(max(s, self.s_lo), self.s_hi) - self.s_lo

    def _flag(self, rows: dict[str, int | None]) -> int:
        return int(self.joker is not None and rows["poker"] == 50)

    # --- the menu of turn t ----------------------------------------------------------------

    def menu(self, turn: int) -> tuple[list[_Pick], list[_Pick], list[int], list[_Pick]]:
        """(best per row, best per row without five of a kind, throws needed for five of
        a kind of each face (0: not reachable), the poker row's [50, other] picks)."""
        if turn not in self.menus:
            values = _throws_of(self.dice, turn, self.rules.throws)
            reach = [_reach(_seen(values[:k])) for k in range(1, len(values) + 1)]
            every = _best(self.tables, reach)
            plain = _best(self.tables, reach, ~_IS_FIVE)
            five = [
                next((k for k, r in enumerate(reach, 1) if r[FIVE_OF_A_KIND[g]]), 0)
                for g in range(6)
            ]
            poker: list[_Pick] = []
            if self.joker:
                row = self.tables.later[self.row_index["poker"]]
                poker = [
                    _best(self.tables, reach, row == 50)[self.row_index["poker"]],
                    _best(self.tables, reach, row != 50)[self.row_index["poker"]],
                ]
            self.menus[turn] = (every, plain, five, poker)
        return self.menus[turn]

    # --- transitions -----------------------------------------------------------------------

    def _upper_step(self, completes: bool, points: int) -> tuple[IntArray, FloatArray]:
        """For each subtotal index: the index after scoring `points` in an upper row, and
        the reward (the points, plus the bonus if this row completes the upper rows)."""
        key = (completes, points)
        if key not in self._steps:
            rs = self.rules
            s = self.s_lo + np.arange(self.sums)
            if completes:
                index = np.zeros(self.sums, dtype=np.int64)
                bonus = (s + points >= rs.bonus_threshold) * rs.bonus if self.track else 0
                reward = points + np.zeros(self.sums) + bonus
            else:
                index = np.clip(s + points, self.s_lo, self.s_hi) - self.s_lo
                reward = np.full(self.sums, float(points))
            self._steps[key] = (index, reward)
        return self._steps[key]

    def options(
        self, values: dict[int, FloatArray], u: int, lm: IntArray, turn: int, joker: bool
    ) -> Iterator[tuple[str, _Pick, FloatArray]]:
        """Each (row, pick, value) open to the states (u, lm[i], subtotal, flag): the
        value array is (len(lm), subtotals of u, flags). `joker`: the states are under
        the joker (the poker row is then filled)."""
        every, plain, five, poker = self.menu(turn)
        picks = plain if joker else every
        here = values[u]
        for i, row in enumerate(self.upper):
            if u >> i & 1:
                continue
            pick = picks[self.row_index[row]]
            if pick.value == NEG:
                continue
            yield row, pick, self._upper_value(values, u, i, lm, int(pick.value))
        if not self.rules.upper_first or u == self.full_u:
            for i, row in enumerate(self.lower):
                nxt = self._lower_next(lm, i)
                if nxt is None:
                    continue
                if i == self.poker and self.joker:  # 50 arms the joker, anything else not
                    for flag, pick in ((1, poker[0]), (0, poker[1])):
                        if pick.value != NEG:
                            yield row, pick, pick.value + here[nxt][:, :, flag : flag + 1]
                    continue
                pick = picks[self.row_index[row]]
                if pick.value != NEG:
                    yield row, pick, pick.value + here[nxt]
        if joker:
            yield from self._joker_options(values, u, lm, five)

    def _upper_value(
        self, values: dict[int, FloatArray], u: int, i: int, lm: IntArray, points: int
    ) -> FloatArray:
        u2 = u | 1 << i
        index, reward = self._upper_step(u2 == self.full_u, points)
        return values[u2][lm[:, None], index[None, :]] + reward[None, :, None]

    def _lower_next(self, lm: IntArray, i: int) -> IntArray | None:
        bit = 1 << i
        filled = (lm & bit) != 0
        if filled.all():
            return None
        return np.where(filled, self.sentinel, lm | bit)

    def _joker_options(
        self, values: dict[int, FloatArray], u: int, lm: IntArray, five: list[int]
    ) -> Iterator[tuple[str, _Pick, FloatArray]]:
        """A five of a kind under the joker: its face row if free, else any free lower row
        (all count as made), else any free upper row; +100 while poker holds 50."""
        bonus = np.array([0.0, float(self.rules.joker_bonus)])[None, None, :]
        free_lower = self.nl - bin(int(lm[0])).count("1")  # the same for the whole group
        for g in range(6):
            if not five[g]:
                continue
            pick = _Pick(NEG, int(FIVE_OF_A_KIND[g]), five[g])
            face = self.face_row[g + 1]
            if not u >> face & 1:
                points = int(self.tables.joker[self.row_index[self.upper[face]], g])
                val = self._upper_value(values, u, face, lm, points)
                yield self.upper[face], pick, val + bonus
            elif free_lower:
                for i, row in enumerate(self.lower):
                    nxt = self._lower_next(lm, i)
                    if nxt is not None:
                        points = self.tables.joker[self.row_index[row], g]
                        yield row, pick, points + values[u][nxt] + bonus
            else:
                for i, row in enumerate(self.upper):
                    if not u >> i & 1:
                        points = int(self.tables.joker[self.row_index[row], g])
                        yield row, pick, self._upper_value(values, u, i, lm, points) + bonus

    def _joker_states(self, lm: IntArray) -> BoolArray:
        """(len(lm), flags): which states are under the joker."""
        if not self.joker:
            return np.zeros((len(lm), 1), dtype=bool)
        poker = (lm & 1 << self.poker) != 0
        out = np.zeros((len(lm), 2), dtype=bool)
        out[:, 1] = poker  # poker holds 50 (flag 1)
        if self.joker == "yahtzee":
            out[:, 0] = poker  # yahtzee: once poker is filled, whatever it holds
        return out

    def _block(self, values: dict[int, FloatArray], u: int, lm: IntArray, turn: int) -> None:
        shape = (len(lm), values[u].shape[1], self.flags)
        under = self._joker_states(lm)
        out = np.full(shape, NEG)
        if not under.all():
            for _, _, val in self.options(values, u, lm, turn, joker=False):
                np.maximum(out, val, out=out)
        if under.any():
            jok = np.full(shape, NEG)
            for _, _, val in self.options(values, u, lm, turn, joker=True):
                np.maximum(jok, val, out=jok)
            out = np.where(under[:, None, :], jok, out)
        values[u][lm] = out

    # --- solving ---------------------------------------------------------------------------

    def solve(self) -> Hindsight:  # noqa: PLR0912 - the induction's cases, as the docstring
        values: dict[int, FloatArray] = {}
        uppers = [u for u in range(self.full_u + 1) if u & self.u0 == self.u0]
        for u in uppers:
            sums = 1 if u == self.full_u else self.sums
            values[u] = np.full((self.sentinel + 1, sums, self.flags), NEG)
        values[self.full_u][self.full_l] = 0.0
        groups: dict[int, list[int]] = {}
        for low in range(self.full_l + 1):
            if low & self.l0 == self.l0:
                groups.setdefault(bin(low).count("1"), []).append(low)
        for u in sorted(uppers, key=lambda m: -bin(m).count("1")):
            pop_u = bin(u).count("1")
            if self.rules.upper_first and u != self.full_u:
                sizes = [bin(self.l0).count("1")]
            else:
                sizes = sorted(groups, reverse=True)
            for size in sizes:
                if u == self.full_u and size == self.nl:
                    continue
                lows = [self.l0] if self.rules.upper_first and u != self.full_u else groups[size]
                turn = self.turn0 + pop_u + size - self.level0
                lm = np.array(lows, dtype=np.int64)
                if self.joker:  # the joker is the same for all the states of a call
                    poker = (lm & 1 << self.poker) != 0
                    for part in (lm[poker], lm[~poker]):
                        if len(part):
                            self._block(values, u, part, turn)
                else:
                    self._block(values, u, lm, turn)
        card = self.game.card
        best = values[self.u0][self.l0, self._sum_index(card.rows, self.u0), self._flag(card.rows)]
        if best == NEG:
            raise ValueError("no legal line from this card")
        return self._walk(values)

    def _walk(self, values: dict[int, FloatArray]) -> Hindsight:
        """Forward through the engine: at each turn the first option worth the optimum."""
        game = self.game
        start = totals_of(self.rules, game.card)
        log: list[Action] = []
        plays: list[TurnPlay] = []
        target = None
        while not game.finished:
            rows = game.card.rows
            u, low = self._masks(rows)
            s, flag = self._sum_index(rows, u), self._flag(rows)
            turn = game.card.turns
            lm = np.array([low], dtype=np.int64)
            here = float(values[u][low, s, flag])
            if target is None:
                target = here
            under = bool(self._joker_states(lm)[0, flag])
            options = self.options(values, u, lm, turn, joker=under)
            found = next(((r, p) for r, p, v in options if float(v[0, s, flag]) == here), None)
            if found is None:
                raise AssertionError("no option reaches the optimum")
            row, pick = found
            seen = _throws_of(self.dice, turn, pick.throws)
            play = TurnPlay(pick.throws, _holds(seen, pick.outcome, pick.throws), row)
            game = _play(self.dice, game, play, log)
            plays.append(play)
        total = totals_of(self.rules, game.card).total
        # The values count points still to come; the bonus is paid when the upper rows
        # complete, so a start card with it already counted (yatzy at 63) adds it once.
        already = start.total - (start.bonus if self.u0 != self.full_u else 0)
        if target is None or total != already + target:
            raise AssertionError(f"the line scores {total}, the optimum says {target}")
        return Hindsight(self.rules.name, total, exact=True, line=tuple(plays))


class _Banked:
    """banked: state (filled rows, bank) per turn; passes and banked throws."""

    def __init__(self, dice: DayDice, game: Game, extra: int | None) -> None:
        rs = self.rules = game.rules
        if rs.max_rounds is None:
            raise ValueError("a banked rule set needs max_rounds")
        self.dice, self.game, self.extra = dice, game, extra
        self.tables = _tables(rs)
        self.rows = rs.rows
        self.upper_bits = sum(1 << i for i, r in enumerate(self.rows) if r in FACE)
        card = game.card
        self.m0 = self._mask(card.rows)
        self.bank0 = card.bank
        self.turn0 = card.turns
        self.end = self.turn0 + rs.max_rounds - game.round + 1  # turns ended at the cap
        free = len(self.rows) - bin(self.m0).count("1")
        self.banks = self.bank0 + 2 * free + 1  # a record banks at most 2
        self._masks()
        self._menus: dict[int, list[list[_Pick]]] = {}

    def _mask(self, rows: dict[str, int | None]) -> int:
        return sum(1 << i for i, r in enumerate(self.rows) if rows[r] is not None)

    def _open(self, mask: int) -> list[int]:
        free = [i for i in range(len(self.rows)) if not mask >> i & 1]
        if self.rules.upper_first and any(self.upper_bits >> i & 1 for i in free):
            return [i for i in free if self.upper_bits >> i & 1]
        return free

    def _masks(self) -> None:
        """Every set of filled rows reachable from the start, with each row's moves."""
        seen = {self.m0: 0}
        order = [self.m0]
        for mask in order:
            for i in self._open(mask):
                nxt = mask | 1 << i
                if nxt not in seen:
                    seen[nxt] = len(order)
                    order.append(nxt)
        self.masks = order
        self.index = seen
        full = (1 << len(self.rows)) - 1
        self.complete = np.array([m == full for m in order])
        self.moves: list[tuple[IntArray, IntArray]] = []
        for i in range(len(self.rows)):
            src = [k for k, m in enumerate(order) if not self.complete[k] and i in self._open(m)]
            dst = [seen[order[k] | 1 << i] for k in src]
            self.moves.append((np.array(src, dtype=np.int64), np.array(dst, dtype=np.int64)))
        penalties = self.rules.penalties
        self.unfinished = np.array(
            [
                sum(penalties.get(r, 0) for i, r in enumerate(self.rows) if not m >> i & 1)
                for m in order
            ],
            dtype=np.float64,
        )

    def menu(self, turn: int) -> list[list[_Pick]]:
        """Per row, each (value, dice, throws) where its best reachable value rises."""
        if turn not in self._menus:
            most_bank = min(self.banks - 1, self.bank0 + 2 * (turn - self.turn0))
            extra = most_bank if self.extra is None else min(most_bank, self.extra)
            limit = self.rules.throws + extra
            steps: list[list[_Pick]] = [[] for _ in self.rows]
            seen = [0] * DICE
            reach = np.zeros(_N_OUTCOMES, dtype=bool)
            for k in range(1, limit + 1):
                throw = tuple(self.dice.die(turn, k, p) for p in range(DICE))
                grown = [s | 1 << (f - 1) for s, f in zip(seen, throw, strict=True)]
                if grown != seen:
                    seen, reach = grown, _reach(grown)
                elif k > 2:
                    continue  # the same menu as the throw before (throw 2 may undo doubling)
                best, outcome = _row_best(self.tables, k, reach)
                for i, steps_i in enumerate(steps):
                    if best[i] > (steps_i[-1].value if steps_i else NEG):
                        steps_i.append(_Pick(float(best[i]), int(outcome[i]), k))
                if all(s == 0b111111 for s in seen):
                    break  # every face at every position: more throws add nothing
            self._menus[turn] = steps
        return self._menus[turn]

    def _turn(self, later: FloatArray, turn: int) -> FloatArray:
        """Values at the start of `turn` from those of the next turn start."""
        banks = np.arange(self.banks)
        value_bank = self.rules.bank_value * banks
        out = later.copy()  # pass before throwing: nothing changes but the turn
        for i, picks in enumerate(self.menu(turn)):
            src, dst = self.moves[i]
            if not len(src):
                continue
            for pick in picks:
                shift = self.rules.throws - pick.throws
                index = np.clip(banks + shift, 0, self.banks - 1)
                val = pick.value + later[dst][:, index]
                val[:, banks < -shift] = NEG  # not enough banked throws
                out[src] = np.maximum(out[src], val)
        out[self.complete] = value_bank[None, :]
        return out

    def solve(self) -> Hindsight:
        banks = np.arange(self.banks)
        # At the cap the game ends: banked throws pay, unfinished rows cost their penalty.
        final = self.rules.bank_value * banks[None, :] + self.unfinished[:, None]
        self.values = {self.end: final}
        for turn in range(self.end - 1, self.turn0 - 1, -1):
            self.values[turn] = self._turn(self.values[turn + 1], turn)
        return self._walk()

    def _walk(self) -> Hindsight:
        game = self.game
        target = float(self.values[self.turn0][0, self.bank0])
        log: list[Action] = []
        plays: list[TurnPlay] = []
        while not game.finished:
            card, turn = game.card, game.card.turns
            k = self.index[self._mask(card.rows)]
            bank = card.bank
            here = float(self.values[turn][k, bank])
            later = self.values[turn + 1]
            play = None
            for i, picks in enumerate(self.menu(turn)):
                src, dst = self.moves[i]
                hit = np.flatnonzero(src == k)
                if not len(hit):
                    continue
                for pick in picks:
                    after = bank + self.rules.throws - pick.throws
                    if after >= 0 and pick.value + later[dst[hit[0]], after] == here:
                        seen = _throws_of(self.dice, turn, pick.throws)
                        holds = _holds(seen, pick.outcome, pick.throws)
                        play = TurnPlay(pick.throws, holds, self.rows[i])
                        break
                if play is not None:
                    break
            if play is None:
                if later[k, bank] != here:
                    raise AssertionError("no option reaches the optimum")
                play = TurnPlay(0, (), None)
            game = _play(self.dice, game, play, log)
            plays.append(play)
        start = totals_of(self.rules, self.game.card)
        total = totals_of(self.rules, game.card).total
        # Banked values include the bank's points, so the start's bank points are in them.
        if total != start.total - start.bank_points + target:
            raise AssertionError(f"the line scores {total}, the optimum says {target}")
        return Hindsight(self.rules.name, total, exact=self.extra is None, line=tuple(plays))


__all__ = ["DayDice", "Hindsight", "TurnPlay", "hindsight", "replay"]
