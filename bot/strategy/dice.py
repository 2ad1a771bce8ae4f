"""Multisets of dice: the 252 outcomes of five dice and the 462 keeps.

A throw's dice are a multiset (order does not matter to any rule), so the solver works on
sorted tuples. Keeps of n dice are indexed per size n = 0 … 5; `UP[n]` adds one die of each
face to a keep of size n (the next throw's expectation, computed one die at a time) and
`DOWN[n]` removes one of its dice (the best sub-keep, computed one die at a time). Both turn
the 462 × 252 keep/outcome matrix into a few hundred row gathers per state.
"""

from __future__ import annotations

import itertools
from math import factorial

import numpy as np
import numpy.typing as npt

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]

Dice = tuple[int, ...]


def _ordered(n: int) -> tuple[Dice, ...]:
    combos = itertools.combinations_with_replacement(range(1, 7), n)
    return tuple(sorted(combos, key=lambda k: (-len(set(k)), k)))


# MULTISETS[n]: every sorted tuple of n faces 1 … 6, those with more distinct faces first,
# then in lexicographic order (see DOWN).
MULTISETS: tuple[tuple[Dice, ...], ...] = tuple(_ordered(n) for n in range(6))
INDEX: tuple[dict[Dice, int], ...] = tuple({k: i for i, k in enumerate(m)} for m in MULTISETS)
OUTCOMES: tuple[Dice, ...] = MULTISETS[5]
N_OUTCOMES = len(OUTCOMES)  # 252


def _up(n: int) -> IntArray:
    return np.array(
        [[INDEX[n + 1][tuple(sorted((*k, f)))] for f in range(1, 7)] for k in MULTISETS[n]],
        dtype=np.int64,
    )


def _down(n: int) -> IntArray:
    # The distinct sub-keeps first, padded with the first one (harmless under max).
    rows = []
    for k in MULTISETS[n]:
        subs = [INDEX[n - 1][s] for s in dict.fromkeys(k[:i] + k[i + 1 :] for i in range(n))]
        rows.append(subs + subs[:1] * (n - len(subs)))
    return np.array(rows, dtype=np.int64).reshape(len(MULTISETS[n]), n)


UP: tuple[IntArray, ...] = tuple(_up(n) for n in range(5))  # UP[n]: (keeps of n, 6)
DOWN: tuple[IntArray, ...] = (
    np.zeros((1, 0), dtype=np.int64),
    *(_down(n) for n in range(1, 6)),
)
# DOWN_ROWS[n][j]: the keeps of n dice with more than j distinct faces, a prefix of
# MULTISETS[n] by its order; only they need DOWN[n][:, j] (the rest repeat a column).
DOWN_ROWS: tuple[tuple[int, ...], ...] = tuple(
    tuple(sum(len(set(k)) > j for k in MULTISETS[n]) for j in range(n)) for n in range(6)
)

# COUNTS[o, f-1]: how many dice of outcome o show f.
COUNTS: IntArray = np.array([[o.count(f) for f in range(1, 7)] for o in OUTCOMES], dtype=np.int64)
# PROB[o]: the chance that five thrown dice show outcome o.
PROB: FloatArray = np.array(
    [factorial(5) / np.prod([factorial(c) for c in row]) / 6**5 for row in COUNTS.tolist()]
)
# FIVE_OF_A_KIND[f-1]: the outcome index of five dice showing f.
FIVE_OF_A_KIND: IntArray = np.array([INDEX[5][(f,) * 5] for f in range(1, 7)], dtype=np.int64)


# The index columns as contiguous arrays: `np.take` would copy a strided column every call.
_UP_COLS: tuple[tuple[IntArray, ...], ...] = tuple(
    tuple(np.ascontiguousarray(up[:, j]) for j in range(6)) for up in UP
)
_DOWN_COLS: tuple[tuple[IntArray, ...], ...] = tuple(
    tuple(np.ascontiguousarray(down[: DOWN_ROWS[n][j], j]) for j in range(n))
    for n, down in enumerate(DOWN)
)


class Scratch:
    """Named work buffers reused from one batch to the next (one per thread).

    A fresh (252, states) temporary per step was returned to the OS and faulted in again by
    the next one: the kernel's page faults cost as much as the arithmetic. Each name gets
    one flat block of `N_OUTCOMES × width` floats; `get` hands out a C-contiguous view of
    its first rows × cols (contiguous, so `np.take(out=…)` writes straight into it).
    """

    def __init__(self, width: int) -> None:
        self.width = width
        self._blocks: dict[str, FloatArray] = {}
        self._views: dict[tuple[str, int, int], FloatArray] = {}

    def get(self, name: str, rows: int, cols: int) -> FloatArray:
        view = self._views.get((name, rows, cols))
        if view is None:
            if cols > self.width or rows > N_OUTCOMES:
                raise ValueError(f"({rows}, {cols}) in a scratch of width {self.width}")
            block = self._blocks.get(name)
            if block is None:
                block = self._blocks[name] = np.empty(N_OUTCOMES * self.width)
            view = self._views[name, rows, cols] = block[: rows * cols].reshape(rows, cols)
        return view


def _buffer(scratch: Scratch | None, name: str, rows: int, like: FloatArray) -> FloatArray:
    """`rows` rows shaped like the rows of `like` (one value or one column per state)."""
    if scratch is None:
        return np.empty((rows, *like.shape[1:]))
    return scratch.get(name, rows, like.shape[1])


def _gather(src: FloatArray, rows: IntArray, out: FloatArray) -> FloatArray:
    # mode="clip": with the default "raise" numpy gathers into a hidden copy of `out`
    # (the indices are valid by construction, so clipping never changes one).
    return src.take(rows, axis=0, out=out, mode="clip")


def keep_values(e5: FloatArray, scratch: Scratch | None = None) -> list[FloatArray]:
    """K[n][k]: expected value of keeping multiset k (n dice) and throwing the rest.

    `e5` has one row per outcome (the value of having those dice after the throw) and one
    column per state; K[5] is `e5` itself. Row gathers accumulated in place: a 3-D
    temporary and a reduction would double the memory traffic. With `scratch` K[0 … 4]
    live in its buffers "keep0" … "keep4" (valid until the next call with it).
    """
    k: list[FloatArray] = [e5] * 6
    for n in range(4, -1, -1):
        src, idx = k[n + 1], _UP_COLS[n]
        rows = len(MULTISETS[n])
        acc = _gather(src, idx[0], _buffer(scratch, f"keep{n}", rows, e5))
        tmp = _buffer(scratch, "gather", rows, e5)
        for j in range(1, 6):
            acc += _gather(src, idx[j], tmp)
        acc *= 1.0 / 6.0
        k[n] = acc
    return k


def best_keep(k: list[FloatArray], scratch: Scratch | None = None) -> FloatArray:
    """M[k]: the best keep among the sub-multisets of each 4-die keep k (k included)."""
    m = k[0]
    for n in range(1, 5):
        rows = len(MULTISETS[n])
        acc = _buffer(scratch, f"best{n}", rows, m)
        tmp = _buffer(scratch, "gather", rows, m)
        down = _DOWN_COLS[n]
        np.maximum(k[n], _gather(m, down[0], tmp), out=acc)
        for j in range(1, n):
            _max_prefix(acc, m, down[j], tmp)
        m = acc
    return m


def _max_prefix(acc: FloatArray, src: FloatArray, rows: IntArray, tmp: FloatArray) -> None:
    """acc[:len(rows)] = max(itself, src[rows]), the prefix views contiguous as well."""
    head = acc[: len(rows)]
    np.maximum(head, _gather(src, rows, tmp[: len(rows)]), out=head)


def best_after_throw(
    stop: FloatArray,
    k: list[FloatArray],
    scratch: Scratch | None = None,
    out: FloatArray | None = None,
) -> FloatArray:
    """Value of holding outcome o with a throw left: stop now or the best keep of ≤ 4 dice.

    `out` may be `stop` itself (then overwritten); by default a new array.
    """
    m4 = best_keep(k, scratch)
    if out is None:
        out = np.empty_like(stop)
    tmp = _buffer(scratch, "gather", len(stop), stop)
    down = _DOWN_COLS[5]
    np.maximum(stop, _gather(m4, down[0], tmp), out=out)
    for j in range(1, 5):
        _max_prefix(out, m4, down[j], tmp)
    return out
