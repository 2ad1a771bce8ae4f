"""Backward dynamic programming over turn starts, one batch of states at a time.

The states of a level (the number of filled rows) depend only on states of fuller levels,
so levels are solved from the fullest down. A level's states, sorted by lower state, are cut
into batches of `CHUNK`; the keep/outcome recursion (`dice.keep_values`,
`dice.best_after_throw`) runs on a (252, batch) array at once, and `row_values` gives each
row's value for every (outcome, state) of the batch with a few gathers and broadcasts.

Every array of a batch lives in one `Scratch`, allocated once and reused by every batch:
allocating them afresh (about a hundred arrays of up to half a megabyte per batch) made the
kernel's page faults cost as much as the arithmetic. One thread: numpy releases the GIL
inside each call, but a batch is hundreds of calls of tens of microseconds, and with a
second thread the GIL handoffs between them (futex waits) ate the overlap. Measured on two
cores, yatzy: one thread 4.6-5.0 s, 5.0 s CPU, 0.05 s of it in the kernel; two threads on
disjoint buffers 4.6-5.6 s, 6.1 s CPU, 0.5-1.1 s in the kernel, 50,000-175,000 context
switches. One thread also leaves the other core to the bot.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from .dice import (
    COUNTS,
    FIVE_OF_A_KIND,
    N_OUTCOMES,
    PROB,
    FloatArray,
    IntArray,
    Scratch,
    best_after_throw,
    keep_values,
)
from .model import NEG, Model


def new_values(model: Model) -> FloatArray:
    """V with a trailing -inf row: `unext == -1` (a filled face) then reads -inf."""
    v = np.full((len(model.upper_keys) + 1, len(model.lower_keys)), np.nan)
    v[-1] = NEG
    return v


# Columns per batch: (252, 256) float64 arrays keep a turn's working set near the core's
# 1 MB L2 cache; 128 or 512 measured slower or no faster.
CHUNK = 256
_OTHERS = [np.array([g for g in range(6) if g != f]) for f in range(6)]
_COUNT_COLS = tuple(np.ascontiguousarray(COUNTS[:, f]) for f in range(6))


def row_values(  # noqa: PLR0913 - the model's arrays, vectorised
    model: Model,
    v: FloatArray,
    lo: int | IntArray,
    u_ids: IntArray,
    first: bool,
    *,
    out: FloatArray | None = None,
) -> Iterator[tuple[str, FloatArray]]:
    """Each row legal in some state with its value per (outcome, state): the points it
    scores now plus the value of the state it leads to; -inf where it may not be recorded.

    State s is (u_ids[s], lo) or, with an array `lo`, (u_ids[s], lo[s]). Mirrors
    `Game.options()`: upper-first, scratches and the forced joker. With `out`
    (252, states) every yielded array is that buffer (use it before the next one).
    """
    rs = model.rules
    lo_ids = np.broadcast_to(np.asarray(lo, dtype=np.int64), u_ids.shape)
    lkeys = model.lower_key_array[lo_ids]
    nxt = model.unext[u_ids]  # (S, 6, 6)
    # a[f, n, s]: reward + future of recording face f+1 with n dice showing it (-inf when
    # the face is filled: unext -1 reads V's trailing -inf row).
    a = np.ascontiguousarray((model.urew[u_ids] + v[nxt, lo_ids[:, None, None]]).transpose(1, 2, 0))
    face_free = nxt[:, :, 0] >= 0  # (S, 6)
    lower_ok = model.upper_pop[u_ids] == 6 if rs.upper_first else np.ones(len(u_ids), bool)
    free = [lower_ok & ((lkeys >> r) & 1 == 0) for r in range(model.nlow)]  # per lower row
    joker = model.joker_active(lkeys)
    any_joker = bool(joker.any())
    if any_joker:
        bonus = np.where(joker & ((lkeys & model.flag_bit) != 0), rs.joker_bonus, 0)
        # A joker goes to its face row, else to a lower row, else 0 in a free upper row.
        free_face = face_free.T  # (6, S)
        to_lower = joker & np.logical_or.reduce(free) if free else np.zeros_like(joker)
    for f in range(6):
        if not face_free[:, f].any():
            continue  # filled in every state of the batch
        # (252, S): the value for the count of face f in each outcome ("clip": see dice)
        val = np.take(a[f], _COUNT_COLS[f], axis=0, out=out, mode="clip")
        if any_joker:
            val[FIVE_OF_A_KIND[f]] += bonus
            others = _OTHERS[f]
            elsewhere = joker & (to_lower | free_face[others])  # (5, S): must go elsewhere
            val[FIVE_OF_A_KIND[others]] = np.where(
                elsewhere, NEG, val[FIVE_OF_A_KIND[others]] + bonus
            )
        yield rs.upper[f], val
    points = model.points[1 if first and model.doubling else 0]
    for r in range(model.nlow):
        if not free[r].any():
            continue
        w = np.where(free[r], v[u_ids, model.lnext[lo_ids, r, 0]], NEG)
        val = np.add(points[r][:, None], w[None, :], out=out)
        if 1 << r == model.poker_bit and model.joker != "none":
            made = model.poker_made
            assert made is not None
            w50 = np.where(free[r], v[u_ids, model.lnext[lo_ids, r, 1]], NEG)
            val[made] = points[r][made][:, None] + w50[None, :]
        if any_joker:  # every lower row counts as made, unless the face row is still free
            val[FIVE_OF_A_KIND] = np.where(
                joker,
                np.where(free_face, NEG, (model.joker_points[r][:, None] + bonus) + w),
                val[FIVE_OF_A_KIND],
            )
        yield model.lower[r], val


def best_row(  # noqa: PLR0913 - the model's arrays, vectorised
    model: Model,
    v: FloatArray,
    lo_ids: IntArray,
    u_ids: IntArray,
    scratch: Scratch,
    *,
    first: bool,
    out: FloatArray,
) -> FloatArray:
    """The best row's value per (outcome, state), written into `out`."""
    out.fill(NEG)
    row = scratch.get("row", N_OUTCOMES, len(u_ids))
    for _, val in row_values(model, v, lo_ids, u_ids, first, out=row):
        np.maximum(out, val, out=out)
    return out


def turn(
    model: Model, v: FloatArray, lo_ids: IntArray, u_ids: IntArray, scratch: Scratch
) -> FloatArray:
    """Expected future points from the turn start of each state in the batch."""
    cols = len(u_ids)
    later = best_row(
        model, v, lo_ids, u_ids, scratch, first=False, out=scratch.get("later", N_OUTCOMES, cols)
    )
    first = later
    if model.doubling:
        first = best_row(
            model, v, lo_ids, u_ids, scratch, first=True, out=scratch.get("first", N_OUTCOMES, cols)
        )
    after2 = scratch.get("after2", N_OUTCOMES, cols)
    best_after_throw(later, keep_values(later, scratch), scratch, out=after2)
    # `first` (or `later`, which it may be) is needed no more: after1 overwrites it.
    after1 = best_after_throw(first, keep_values(after2, scratch), scratch, out=first)
    result: FloatArray = PROB @ after1
    return result


Batch = tuple[IntArray, IntArray]  # (lower index, upper index) of each state


def batches(model: Model) -> list[list[Batch]]:
    """Every reachable state in batches of at most CHUNK, grouped by level (rows filled),
    the most filled level first. A level's states are sorted by lower state, so most
    batches share their free rows; small groups (one upper state per lower state once the
    upper rows are done) share a batch instead of paying numpy's per-call cost each."""
    rs = model.rules
    by_pop = [np.flatnonzero(model.upper_pop == k) for k in range(7)]
    levels: dict[int, list[tuple[IntArray, IntArray]]] = {}
    base_lower = model.start_lower & model.full_lower
    for lo, lkey in enumerate(model.lower_keys):
        lpop = int(model.lower_pop[lo])
        for k, u_ids in enumerate(by_pop):
            if not len(u_ids):
                continue
            if rs.upper_first and k < 6 and (lkey & model.full_lower) != base_lower:
                continue  # unreachable: no lower row before the upper rows are done
            levels.setdefault(lpop + k, []).append((np.full(len(u_ids), lo), u_ids))
    out = []
    for n in sorted(levels, reverse=True):
        lo_ids = np.concatenate([lo for lo, _ in levels[n]])
        u_ids = np.concatenate([u for _, u in levels[n]])
        out.append(
            [(lo_ids[i : i + CHUNK], u_ids[i : i + CHUNK]) for i in range(0, len(u_ids), CHUNK)]
        )
    return out


def solve(model: Model) -> FloatArray:
    """The value table V[u, lo] (the trailing -inf row included)."""
    v = new_values(model)
    total_rows = 6 + model.nlow
    scratch = Scratch(CHUNK)
    for level in batches(model):
        for lo_ids, u_ids in level:
            filled = model.lower_pop[lo_ids[0]] + model.upper_pop[u_ids[0]]
            if filled == total_rows:  # the card is full: nothing more to come
                v[u_ids, lo_ids] = 0.0
            else:
                v[u_ids, lo_ids] = turn(model, v, lo_ids, u_ids, scratch)
    return v
