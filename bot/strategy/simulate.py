"""Solitaire games played through the engine by a computer player (tests, bench, CLI)."""

from __future__ import annotations

import random
from collections.abc import Iterator

import numpy as np

from bot.engine import FACE, Game

from .dice import (
    COUNTS,
    INDEX,
    MULTISETS,
    OUTCOMES,
    FloatArray,
    IntArray,
    best_after_throw,
    keep_values,
)
from .model import Model
from .moves import Hold, Level, PassTurn, Record, sub_keeps
from .policy import choose
from .solver import row_values
from .table import ValueTable


def play_solitaire(rules: str, level: Level, table: ValueTable | None, rng: random.Random) -> int:
    """One game for one player; returns the final total."""
    game = Game.new(rules, ["solo"])
    while not game.finished:
        decision = choose(level, game, table, rng)
        if isinstance(decision, Hold):
            hold = decision.positions if game.dice else ()
            values = [rng.randint(1, 6) for _ in range(5 - len(hold))]
            game, _ = game.roll("solo", hold, values)
        elif isinstance(decision, Record):
            game, _ = game.score("solo", decision.row)
        elif isinstance(decision, PassTurn):
            game, _ = game.pass_turn("solo")
    return game.standings()[0].totals.total


# --- many games at once, straight on the table (the benchmark's 100,000 games) ----------


def _sub_keep_table() -> tuple[IntArray, IntArray, IntArray]:
    """SUB[o]: flat indices of the distinct keeps of ≤ 4 dice of outcome o (padded with
    repeats), KEEP_COUNTS[k]: dice counts of flat keep k, CODE_TO_OUTCOME: base-6 code of
    counts → outcome index."""
    offsets = np.cumsum([0] + [len(MULTISETS[n]) for n in range(5)])
    sub = np.zeros((len(OUTCOMES), 32), dtype=np.int64)
    for o, dice in enumerate(OUTCOMES):
        flat = [offsets[len(k)] + INDEX[len(k)][k] for k in sub_keeps(dice)]
        sub[o] = flat + [flat[0]] * (32 - len(flat))
    keep_counts = np.array(
        [[k.count(f) for f in range(1, 7)] for n in range(5) for k in MULTISETS[n]],
        dtype=np.int64,
    )
    code = np.full(6**6, -1, dtype=np.int64)
    code[COUNTS @ _BASE] = np.arange(len(OUTCOMES))
    return sub, keep_counts, code


_BASE = 6 ** np.arange(5, -1, -1, dtype=np.int64)
_FACES = np.arange(1, 7)


def _throw(rng: np.random.Generator, keep_counts: IntArray, code: IntArray) -> IntArray:
    """Outcome indices after keeping `keep_counts` (rows of counts) and throwing the rest."""
    n = len(keep_counts)
    new = rng.integers(1, 7, size=(n, 5))
    thrown = np.arange(5)[None, :] < (5 - keep_counts.sum(axis=1))[:, None]
    add = ((new[:, :, None] == _FACES) & thrown[:, :, None]).sum(axis=1)
    out: IntArray = code[(keep_counts + add) @ _BASE]
    return out


def simulate_perfect(table: ValueTable, games: int, seed: int = 0) -> FloatArray:
    """Final scores of `games` solitaire games played perfectly from an empty card.

    Every game plays its turn in the same step; games are grouped by lower state so the
    turn arrays are computed once per distinct state, exactly as the solver does.
    """
    model, v = table.model, table.values
    rng = np.random.default_rng(seed)
    sub, keep_counts, code = _sub_keep_table()
    u = np.full(games, model.upper_index[model.start_upper], dtype=np.int64)
    low = np.full(games, model.lower_index[model.start_lower], dtype=np.int64)
    score = np.zeros(games)
    turns = len(model.rules.rows) - int(model.upper_pop[u[0]]) - int(model.lower_pop[low[0]])
    for _ in range(turns):
        before = low.copy()  # a game plays one turn per step, whatever state it moves to
        for lo in np.unique(before):
            members = np.flatnonzero(before == lo)
            uu, col = np.unique(u[members], return_inverse=True)
            nu, nl, gained = _play_turn(model, v, int(lo), uu, col, rng, sub, keep_counts, code)
            u[members], low[members] = nu, nl
            score[members] += gained
    return score


def _play_turn(  # noqa: PLR0913 - the solver's arrays, in its hot loop
    model: Model,
    v: FloatArray,
    lo: int,
    uu: IntArray,
    col: IntArray,
    rng: np.random.Generator,
    sub: IntArray,
    keep_counts: IntArray,
    code: IntArray,
) -> tuple[IntArray, IntArray, FloatArray]:
    names_later, later_rows = _stack(row_values(model, v, lo, uu, first=False))
    if model.doubling:
        _, first_rows = _stack(row_values(model, v, lo, uu, first=True))
    else:
        first_rows = later_rows
    later = later_rows.max(axis=0)
    first = first_rows.max(axis=0)
    keeps2 = keep_values(later)
    after2 = best_after_throw(later, keeps2)
    keeps1 = keep_values(after2)
    flat = {1: np.vstack(keeps1[:5]), 2: np.vstack(keeps2[:5])}
    stops = {1: first, 2: later}
    n = len(col)
    o = _throw(rng, np.zeros((n, 6), dtype=np.int64), code)
    done = np.zeros(n, dtype=bool)
    at = np.full(n, 3)
    for t in (1, 2):
        live = np.flatnonzero(~done)
        cand = flat[t][sub[o[live]], col[live][:, None]]  # (live, 32)
        pick = cand.argmax(axis=1)
        best_keep = cand[np.arange(len(live)), pick]
        stop = stops[t][o[live], col[live]] >= best_keep
        stopped = live[stop]
        done[stopped] = True
        at[stopped] = t
        go = live[~stop]
        chosen = sub[o[go], pick[~stop]]
        o[go] = _throw(rng, keep_counts[chosen], code)
    rows = np.where((at == 1)[None, :], first_rows[:, o, col], later_rows[:, o, col])
    r = rows.argmax(axis=0)
    value = rows[r, np.arange(n)]
    nu = uu[col].copy()
    nl = np.full(n, lo, dtype=np.int64)
    for i, name in enumerate(names_later):
        chose = np.flatnonzero(r == i)
        if not len(chose):
            continue
        if name in FACE:
            f = FACE[name] - 1
            nu[chose] = model.unext[nu[chose], f, COUNTS[o[chose], f]]
        else:
            ri = model.lower.index(name)
            made = (
                model.poker_made[o[chose]].astype(np.int64)
                if model.poker_made is not None and 1 << ri == model.poker_bit
                else np.zeros(len(chose), dtype=np.int64)
            )
            nl[chose] = model.lnext[lo, ri, made]
    return nu, nl, value - v[nu, nl]


def _stack(pairs: Iterator[tuple[str, FloatArray]]) -> tuple[list[str], FloatArray]:
    names, arrays = zip(*pairs, strict=True)
    return list(names), np.stack(arrays)
