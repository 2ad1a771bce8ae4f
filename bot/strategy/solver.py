"""Backward dynamic programming over turn starts, one batch of states at a time.

A batch is every reachable state with the same lower state and the same number of filled
upper rows: they share the legal lower rows, so the per-outcome row values are a few
broadcast additions, and the keep/outcome recursion (`dice.keep_values`,
`dice.best_after_throw`) runs on a (252, states) array at once. Batches are processed in
decreasing order of filled rows, so every state a batch needs is already known; batches
with the same number of filled rows are independent and run on a thread pool (numpy
releases the GIL inside its loops).
"""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from .dice import (
    FIVE_OF_A_KIND,
    PROB,
    FloatArray,
    IntArray,
    best_after_throw,
    keep_values,
)
from .model import NEG, Model


def new_values(model: Model) -> FloatArray:
    """V with a trailing -inf row: `unext == -1` (a filled face) then reads -inf."""
    v = np.full((len(model.upper_keys) + 1, len(model.lower_keys)), np.nan)
    v[-1] = NEG
    return v


CHUNK = 256
_OTHERS = [np.array([g for g in range(6) if g != f]) for f in range(6)]


def row_values(
    model: Model, v: FloatArray, lo: int, u_ids: IntArray, first: bool, *, reuse: bool = False
) -> Iterator[tuple[str, FloatArray]]:
    """Each legal-somewhere row with its value per (outcome, state): the points it scores
    now plus the value of the state it leads to; -inf where the row may not be recorded.

    Mirrors `Game.options()`: upper-first, scratches and the forced joker. With `reuse`
    every yielded array is the same buffer (use it before the next one): no allocations.
    """
    rs = model.rules
    lkey = model.lower_keys[lo]
    nxt = model.unext[u_ids]  # (S, 6, 6)
    # a[f, n, s]: reward + future of recording face f+1 with n dice showing it.
    a = np.ascontiguousarray((model.urew[u_ids] + v[nxt, lo]).transpose(1, 2, 0))
    face_free = nxt[:, :, 0] >= 0  # (S, 6)
    joker = model.joker_active(lkey)
    joker_bonus = rs.joker_bonus if lkey & model.flag_bit else 0
    free_lower = [r for r in range(model.nlow) if not lkey >> r & 1]
    upper_done = bool((model.upper_pop[u_ids] == 6).all())
    lower_allowed = not rs.upper_first or upper_done
    if not lower_allowed:
        free_lower = []
    buf = np.empty((len(model.counts), len(u_ids))) if reuse else None
    for f in range(6):
        if not face_free[:, f].any():
            continue  # filled in every state of the batch
        # (252, S): the value for the count of face f in each outcome
        val = np.take(a[f], model.counts[:, f], axis=0, out=buf)
        if joker:
            val[FIVE_OF_A_KIND[f]] += joker_bonus
            others = _OTHERS[f]
            if free_lower:  # a joker goes to its face row, else to a lower row
                val[FIVE_OF_A_KIND[others]] = NEG
            else:  # lower rows full: 0 in a free upper row, only if its own face is filled
                val[FIVE_OF_A_KIND[others]] = np.where(
                    face_free[:, others].T, NEG, val[FIVE_OF_A_KIND[others]] + joker_bonus
                )
        yield rs.upper[f], val
    points = model.points[1 if first and model.doubling else 0]
    for r in free_lower:
        w = v[u_ids, model.lnext[lo, r, 0]]
        val = np.add(points[r][:, None], w[None, :], out=buf)
        if 1 << r == model.poker_bit and model.joker != "none":
            made = model.poker_made
            assert made is not None
            w50 = v[u_ids, model.lnext[lo, r, 1]]
            val[made] = points[r][made][:, None] + w50[None, :]
        if joker:  # every lower row counts as made, unless the face row is still free
            val[FIVE_OF_A_KIND] = np.where(
                face_free.T, NEG, (model.joker_points[r] + joker_bonus)[:, None] + w[None, :]
            )
        yield model.lower[r], val


def best_row(model: Model, v: FloatArray, lo: int, u_ids: IntArray, first: bool) -> FloatArray:
    stop = np.full((len(PROB), len(u_ids)), NEG)
    for _, val in row_values(model, v, lo, u_ids, first, reuse=True):
        np.maximum(stop, val, out=stop)
    return stop


def turn(model: Model, v: FloatArray, lo: int, u_ids: IntArray) -> FloatArray:
    """Expected future points from the turn start of each state in the batch."""
    later = best_row(model, v, lo, u_ids, first=False)
    first = best_row(model, v, lo, u_ids, first=True) if model.doubling else later
    after2 = best_after_throw(later, keep_values(later))
    after1 = best_after_throw(first, keep_values(after2))
    return PROB @ after1


def batches(model: Model) -> list[list[tuple[int, IntArray]]]:
    """Batches grouped by level (rows filled), the most filled level first."""
    rs = model.rules
    by_pop: dict[int, IntArray] = {
        k: np.flatnonzero(model.upper_pop == k) for k in range(7) if (model.upper_pop == k).any()
    }
    levels: dict[int, list[tuple[int, IntArray]]] = {}
    base_lower = model.start_lower & model.full_lower
    for lo, lkey in enumerate(model.lower_keys):
        lpop = int(model.lower_pop[lo])
        for k, u_ids in by_pop.items():
            if rs.upper_first and k < 6 and (lkey & model.full_lower) != base_lower:
                continue  # unreachable: no lower row before the upper rows are done
            # Chunks small enough that a turn's (252, chunk) arrays stay in the core's cache.
            for i in range(0, len(u_ids), CHUNK):
                levels.setdefault(lpop + k, []).append((lo, u_ids[i : i + CHUNK]))
    return [levels[n] for n in sorted(levels, reverse=True)]


def solve(model: Model, threads: int = 2) -> FloatArray:
    """The value table V[u, lo] (the trailing -inf row included)."""
    v = new_values(model)
    total_rows = 6 + model.nlow
    levels = batches(model)

    def run(batch: tuple[int, IntArray]) -> None:
        lo, u_ids = batch
        if int(model.lower_pop[lo]) + int(model.upper_pop[u_ids[0]]) == total_rows:
            v[u_ids, lo] = 0.0
        else:
            v[u_ids, lo] = turn(model, v, lo, u_ids)

    with ThreadPoolExecutor(max_workers=max(1, threads)) as pool:
        for level in levels:
            list(pool.map(run, level))
    return v
