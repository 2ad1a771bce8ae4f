"""The banked policy: a heuristic, since banked has no known exact solution.

Why no table: the bank (throws saved for later turns) makes the state space the card times
the bank times the round (the game stops after 40 rounds), and passing makes turns that
change nothing, so the exact game is a large stochastic fixed point, not a backward pass.

The policy plans ONE turn exactly and values the rest of the game by a simple price:

* recording lower row r with outcome o after throw t gains points(r, o) + |penalty(r)|
  (the penalty the row no longer costs) + 3·(3 − t) (each banked throw is worth 3 at the
  end), minus a par λ·m(r), where m(r) is r's average gain when one throw makes it: a row
  is only worth filling now when the dice beat a fraction of what waiting usually brings;
* an upper figure scores nothing and, unfinished, costs nothing (only the free program
  is penalised), but the free program cannot start before all six are done: recording
  one gains `UPPER_GAIN` + 3·(3 − t), with no par (it is worth the same whenever made).
  At 0 a figure made by the third throw would be worth no more than a pass, so the
  planner would pass with throws left: 226 points on average instead of 246 over the
  same 2000 games;
* passing after throw t costs 3·max(0, t − 3) (the banked throws spent);
* the turn is solved by the same keep/outcome recursion as the exact tables, with up to
  `EXTRA_PLANNED` banked throws beyond the three regular ones;
* once the rounds left no longer exceed the unfilled rows, the par drops to 0 (record
  what the dice make: an unfilled lower row costs its penalty at the end).

λ = `PAR` was chosen by simulating solitaire games (`simulate.play_solitaire`, 2000 per
value, upper figures worth 3): λ = 0 averages 219, 0.5 → 232, 0.6 → 241, 0.7 → 241,
0.75 → 244, 0.8 → 246, 0.85 → 246, 0.9 → 242, 1.0 → 223, 1.1 → 189, 1.4 → 151 (too
choosy: the 40 rounds run out with figures unfilled). Over 10,000 games 0.8 and 0.85
average 243.9 and 244.2 (± 0.5): the same, so λ stays 0.8. An upper figure worth 1, 3
or 6 measured alike (243–246 ± 1.1). `python -m bench strategy` prints the current
averages. normal is the same planner with λ = 0 and no banked throws; easy holds the
most common face and records the best immediate score.
"""

from __future__ import annotations

import random
from collections import Counter
from functools import lru_cache

import numpy as np

from bot.engine import Game, RuleSet, get_rules, totals_of

from .dice import INDEX, OUTCOMES, PROB, FloatArray, best_after_throw, keep_values
from .model import NEG
from .moves import Advice, Choice, Decision, Hold, Level, PassTurn, Record, positions_of, sub_keeps

PAR = 0.8
EXTRA_PLANNED = 2  # banked throws the planner looks ahead (more almost never pays)
UPPER_GAIN = 3.0  # what an upper figure is worth to the planner (see above)


@lru_cache(maxsize=4)
def _row_gains(name: str) -> dict[str, FloatArray]:
    """What recording each row gains with each outcome (-inf: not made): its points plus
    the penalty it no longer costs, or `UPPER_GAIN` for an upper figure."""
    rs = get_rules(name)
    out = {}
    for row in rs.rows:
        vals = np.full(len(OUTCOMES), NEG)
        for o, dice in enumerate(OUTCOMES):
            made = rs.made_value(row, dice, first_throw=False)
            if made is not None:
                vals[o] = made - rs.penalties[row] + (UPPER_GAIN if row in rs.upper else 0.0)
        out[row] = vals
    return out


@lru_cache(maxsize=4)
def _mean_gain(name: str) -> dict[str, float]:
    """m(r): the average gain of lower row r over the throws of five dice that make it;
    0 for an upper figure (made, it is always worth the same: waiting brings no more)."""
    rs = get_rules(name)
    out = {}
    for row, vals in _row_gains(name).items():
        made = vals != NEG
        out[row] = 0.0 if row in rs.upper else float(PROB[made] @ vals[made] / PROB[made].sum())
    return out


def _free_rows(rules: RuleSet, rows: dict[str, int | None]) -> tuple[str, ...]:
    free = tuple(r for r in rules.rows if rows[r] is None)
    upper = tuple(r for r in free if r in rules.upper)
    return upper if rules.upper_first and upper else free


@lru_cache(maxsize=4096)
def _plan(
    name: str, free: tuple[str, ...], horizon: int, par: float
) -> tuple[FloatArray, dict[int, list[FloatArray]]]:
    """stop[o] (best record gain before the bank term) and keeps[t] for t < horizon."""
    gains = _row_gains(name)
    mean = _mean_gain(name)
    bank_value = get_rules(name).bank_value
    stop = np.full(len(OUTCOMES), NEG)
    for row in free:
        np.maximum(stop, gains[row] - par * mean[row], out=stop)
    keeps: dict[int, list[FloatArray]] = {}
    after = _stage(stop, horizon, bank_value)
    for t in range(horizon - 1, 0, -1):
        k = keep_values(after[:, None])
        keeps[t] = [x[:, 0] for x in k]
        after = best_after_throw(_stage(stop, t, bank_value)[:, None], k)[:, 0]
    return stop, keeps


def _stage(stop: FloatArray, t: int, bank_value: int) -> FloatArray:
    """Value of stopping after throw t: record (with the bank term) or pass."""
    return np.maximum(stop + bank_value * (3 - t), -bank_value * max(0, t - 3))


def choose_banked(level: Level, game: Game, rng: random.Random) -> Decision:
    if not game.dice:
        return Hold(())
    if level == "easy":
        return _easy(game, rng)
    return _ranked(game, perfect=level == "perfect")[0][1]


def advise_banked(game: Game, top: int = 3) -> Advice:
    """The banked policy's best choices now, best first.

    A choice's `expected` is the card's total now plus the policy's value of the choice
    for this turn (points, penalties avoided and banked throws, less the par): a ranking
    score in points, NOT an expected final score (banked has no exact solution).
    """
    if game.finished:
        raise ValueError("the game is over")
    base = float(totals_of(game.rules, game.card).total)
    if not game.dice:
        return Advice((Choice(Hold(()), base),))
    ranked = _ranked(game, perfect=True)
    return Advice(tuple(Choice(d, base + v) for v, d in ranked[:top]))


def _ranked(game: Game, *, perfect: bool) -> list[tuple[float, Decision]]:
    """Every choice now with the planner's value, best first (a pass is always legal)."""
    rs = game.rules
    card = game.card
    free = _free_rows(rs, card.rows)
    rounds_left = (rs.max_rounds or 40) - game.round + 1
    # Every unfilled row needs a turn of its own (the free program's after the upper ones).
    unfilled = sum(v is None for v in card.rows.values())
    planned = min(card.bank, EXTRA_PLANNED) if perfect else 0
    par = PAR if perfect and rounds_left > unfilled else 0.0
    horizon = min(game.throw_limit(), rs.throws + planned)
    _, keeps = _plan(rs.name, free, horizon, par)
    t = game.throws
    o = INDEX[5][tuple(sorted(game.dice))]
    gains = _row_gains(rs.name)
    mean = _mean_gain(rs.name)
    bank = rs.bank_value
    out: list[tuple[float, Decision]] = [(-bank * max(0, t - 3), PassTurn())]
    out.extend(
        (float(gains[opt.row][o] - par * mean[opt.row]) + bank * (3 - t), Record(opt.row))
        for opt in game.options()
    )
    if t < horizon:
        for keep in sub_keeps(tuple(sorted(game.dice))):
            val = float(keeps[t][len(keep)][INDEX[len(keep)][keep]])
            out.append((val, Hold(positions_of(game.dice, keep))))
    # Stable: on equal values a record beats a pass, a pass beats throwing again.
    order = {Record: 0, PassTurn: 1, Hold: 2}
    return sorted(out, key=lambda c: (-c[0], order[type(c[1])]))


def _easy(game: Game, rng: random.Random) -> Decision:
    """Record the best immediate score as soon as a figure is made; pass after three."""
    options = game.options()
    if options:
        return Record(max(options, key=lambda o: o.points).row)
    if game.throws >= game.rules.throws:
        return PassTurn()
    counts = Counter(game.dice)
    top = max(counts.values())
    face = max(f for f, n in counts.items() if n == top) if top > 1 else rng.choice(game.dice)
    return Hold(tuple(i for i, d in enumerate(game.dice) if d == face))
