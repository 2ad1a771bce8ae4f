"""Decisions inside a turn: the hint, the loss of a choice, the computer players.

`choose` is the one entry for a computer player of any rule set: the exact rule sets are
played here, banked by `bot.strategy.banked` (which knows nothing of this module).
"""

from __future__ import annotations

import random
from collections import Counter
from functools import lru_cache

import numpy as np

from bot.engine import Game, totals_of

from .banked import choose_banked
from .dice import INDEX, OUTCOMES, PROB, FloatArray, best_after_throw, keep_values
from .model import NEG, Model, model_for
from .moves import Advice, Choice, Decision, Hold, Level, Record, positions_of, sub_keeps
from .solver import row_values
from .table import TurnArrays, ValueTable

# --- values of every choice now ------------------------------------------------------


def _choices(
    arrays: TurnArrays, game: Game, base: float
) -> list[tuple[float, Decision, tuple[int, ...] | None]]:
    """(expected final score, decision, kept multiset or None) for every legal choice."""
    dice = game.dice
    o = INDEX[5][tuple(sorted(dice))]
    first = game.throws == 1
    out: list[tuple[float, Decision, tuple[int, ...] | None]] = []
    for row, vals in arrays.rows[first].items():
        val = float(vals[o])
        if val != NEG:
            out.append((base + val, Record(row), None))
    if game.throws_left() > 0:
        keeps = arrays.keeps[game.throws]
        for keep in sub_keeps(tuple(sorted(dice))):
            val = float(keeps[len(keep)][INDEX[len(keep)][keep]])
            out.append((base + val, Hold(positions_of(dice, keep)), keep))
    return out


def _require(game: Game, table: ValueTable) -> None:
    if game.finished:
        raise ValueError("the game is over")
    if game.rules.name != table.rules.name:
        raise ValueError(f"the table is for {table.rules.name}, the game plays {game.rules.name}")


def advise(table: ValueTable, game: Game, top: int = 3) -> Advice:
    """The best choices for the current player now, best first (at most `top`).

    Before the turn's first throw the only choice is to throw all five dice; with throws left
    the choices are every distinct set of dice to hold (holding all five is never better than
    recording now, so it is not offered) and every legal row; after the last throw, the rows.
    """
    _require(game, table)
    card = game.card
    base = float(totals_of(game.rules, card).total)
    if not game.dice:
        return Advice((Choice(Hold(()), base + table.future(card.rows)),))
    ranked = sorted(_choices(table.turn(card.rows), game, base), key=lambda c: -c[0])
    return Advice(tuple(Choice(d, v) for v, d, _ in ranked[:top]))


def value_of(table: ValueTable, game: Game, decision: Decision) -> float:
    """Expected final score after `decision` now, with perfect play afterwards."""
    _require(game, table)
    card = game.card
    base = float(totals_of(game.rules, card).total)
    if not game.dice:
        if isinstance(decision, Hold) and not decision.positions:
            return base + table.future(card.rows)
        raise ValueError("before the first throw the only choice is to throw all dice")
    arrays = table.turn(card.rows)
    if isinstance(decision, Record):
        o = INDEX[5][tuple(sorted(game.dice))]
        vals = arrays.rows[game.throws == 1].get(decision.row)
        if vals is None or vals[o] == NEG:
            raise ValueError(f"{decision.row} cannot be recorded now")
        return base + float(vals[o])
    if isinstance(decision, Hold):
        if game.throws_left() <= 0:
            raise ValueError("no throws left: a row must be recorded")
        pos = decision.positions
        if len(set(pos)) != len(pos) or any(not 0 <= p < 5 for p in pos):
            raise ValueError("held dice are distinct positions 0–4")
        keep = tuple(sorted(game.dice[p] for p in pos))
        if len(keep) == 5:  # throwing nothing: the same dice one throw later
            after = arrays.after.get(game.throws + 1)
            o = INDEX[5][keep]
            later = after if after is not None else _stop_later(arrays)
            return base + float(later[o])
        return base + float(arrays.keeps[game.throws][len(keep)][INDEX[len(keep)][keep]])
    raise ValueError(f"{game.rules.name} has no pass")


def _stop_later(arrays: TurnArrays) -> FloatArray:
    out: FloatArray = np.max(np.stack(list(arrays.rows[False].values())), axis=0)
    return out


def loss(table: ValueTable, game_before: Game, decision: Decision) -> float:
    """Expected points lost by `decision` in `game_before` against the best choice (≥ 0)."""
    best = advise(table, game_before, top=1).best.expected
    return max(0.0, best - value_of(table, game_before, decision))


# --- computer players ----------------------------------------------------------------


def choose(level: Level, game: Game, table: ValueTable | None, rng: random.Random) -> Decision:
    """A computer player's next decision for the current player of `game`.

    easy: hold the most common face, record the best immediate score at the end;
    normal: the best play for this turn alone, each row's points measured against its
    average (so chance and poker are not wasted early); perfect: the table (banked: the
    documented banked policy). Without a table, perfect falls back to easy.
    """
    if game.finished:
        raise ValueError("the game is over")
    if game.rules.banked:
        return choose_banked(level, game, rng)
    if not game.dice:
        return Hold(())
    if level == "perfect" and table is not None:
        return advise(table, game, top=1).best.decision
    if level == "normal":
        return _normal(game)
    return _easy(game, rng)


def _best_immediate(game: Game) -> Record:
    options = game.options()
    best = max(options, key=lambda o: (o.points + o.joker_bonus, -game.rules.rows.index(o.row)))
    return Record(best.row)


def _easy(game: Game, rng: random.Random) -> Decision:
    if game.throws_left() <= 0:
        return _best_immediate(game)
    counts = Counter(game.dice)
    top = max(counts.values())
    face = max(f for f, n in counts.items() if n == top)
    if top == 5:
        return _best_immediate(game)
    if top == 1:  # nothing matched: keep a random die to vary the play a little
        face = rng.choice(game.dice)
    return Hold(tuple(i for i, d in enumerate(game.dice) if d == face))


@lru_cache(maxsize=8)
def _zero_model(name: str) -> tuple[Model, FloatArray, dict[str, float]]:
    model = model_for(name)
    zeros = np.zeros((len(model.upper_keys) + 1, len(model.lower_keys)))
    zeros[-1] = NEG
    # A row's par: its average points from one throw, what recording it "costs" later.
    par = {}
    for r, row in enumerate(model.lower):
        pts = model.points[0][r]
        par[row] = float(PROB @ np.where(pts == NEG, 0.0, pts))
    for f, row in enumerate(model.rules.upper):
        par[row] = float(sum(PROB[o] * model.urew[0, f, n] for o, n in _face_counts(f)))
    return model, zeros, par


def _face_counts(f: int) -> list[tuple[int, int]]:
    return [(o, dice.count(f + 1)) for o, dice in enumerate(OUTCOMES)]


def _normal(game: Game) -> Decision:
    model, zeros, par = _zero_model(game.rules.name)
    u, lo = model.state(game.card.rows)
    ids = np.array([u])
    first = game.throws == 1
    o = INDEX[5][tuple(sorted(game.dice))]

    def stop_later() -> FloatArray:
        best = np.full(len(OUTCOMES), NEG)
        for row, val in row_values(model, zeros, lo, ids, first=False):
            np.maximum(best, val[:, 0] - par[row], out=best)
        return best

    rows_now = {
        row: float(val[o, 0]) - par[row] for row, val in row_values(model, zeros, lo, ids, first)
    }
    legal = {row: v for row, v in rows_now.items() if v != NEG}
    best_row = max(legal, key=lambda r: legal[r])
    if game.throws_left() <= 0:
        return Record(best_row)
    later = stop_later()
    keeps = (
        keep_values(later)
        if game.throws == 2
        else keep_values(best_after_throw(later, keep_values(later)))
    )
    best_keep: tuple[int, ...] = ()
    best_val = NEG
    for keep in sub_keeps(tuple(sorted(game.dice))):
        val = float(keeps[len(keep)][INDEX[len(keep)][keep]])
        if val > best_val:
            best_keep, best_val = keep, val
    if legal[best_row] >= best_val:
        return Record(best_row)
    return Hold(positions_of(game.dice, best_keep))
