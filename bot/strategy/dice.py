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

Dice = tuple[int, ...]

# MULTISETS[n]: every sorted tuple of n faces 1 … 6, in lexicographic order.
MULTISETS: tuple[tuple[Dice, ...], ...] = tuple(
    tuple(itertools.combinations_with_replacement(range(1, 7), n)) for n in range(6)
)
INDEX: tuple[dict[Dice, int], ...] = tuple({k: i for i, k in enumerate(m)} for m in MULTISETS)
OUTCOMES: tuple[Dice, ...] = MULTISETS[5]
N_OUTCOMES = len(OUTCOMES)  # 252


def _up(n: int) -> IntArray:
    return np.array(
        [[INDEX[n + 1][tuple(sorted((*k, f)))] for f in range(1, 7)] for k in MULTISETS[n]],
        dtype=np.int64,
    )


def _down(n: int) -> IntArray:
    # Removing each die in turn; repeated faces give repeated indices, harmless under max.
    return np.array(
        [[INDEX[n - 1][k[:i] + k[i + 1 :]] for i in range(n)] for k in MULTISETS[n]],
        dtype=np.int64,
    ).reshape(len(MULTISETS[n]), n)


UP: tuple[IntArray, ...] = tuple(_up(n) for n in range(5))  # UP[n]: (keeps of n, 6)
DOWN: tuple[IntArray, ...] = (
    np.zeros((1, 0), dtype=np.int64),
    *(_down(n) for n in range(1, 6)),
)

# COUNTS[o, f-1]: how many dice of outcome o show f.
COUNTS: IntArray = np.array([[o.count(f) for f in range(1, 7)] for o in OUTCOMES], dtype=np.int64)
# PROB[o]: the chance that five thrown dice show outcome o.
PROB: FloatArray = np.array(
    [factorial(5) / np.prod([factorial(c) for c in row]) / 6**5 for row in COUNTS.tolist()]
)
# FIVE_OF_A_KIND[f-1]: the outcome index of five dice showing f.
FIVE_OF_A_KIND: IntArray = np.array([INDEX[5][(f,) * 5] for f in range(1, 7)], dtype=np.int64)


def keep_values(e5: FloatArray) -> list[FloatArray]:
    """K[n][k]: expected value of keeping multiset k (n dice) and throwing the rest.

    `e5` has one row per outcome (the value of having those dice after the throw) and one
    column per state; K[5] is `e5` itself. Row gathers accumulated in place: a 3-D
    temporary and a reduction would double the memory traffic.
    """
    k: list[FloatArray] = [e5] * 6
    for n in range(4, -1, -1):
        src, idx = k[n + 1], UP[n]
        acc = src[idx[:, 0]]
        for j in range(1, 6):
            acc += src[idx[:, j]]
        acc *= 1.0 / 6.0
        k[n] = acc
    return k


def best_keep(k: list[FloatArray]) -> FloatArray:
    """M[k]: the best keep among the sub-multisets of each 4-die keep k (k included)."""
    m = k[0]
    for n in range(1, 5):
        acc = k[n].copy()
        down = DOWN[n]
        for j in range(n):
            np.maximum(acc, m[down[:, j]], out=acc)
        m = acc
    return m


def best_after_throw(stop: FloatArray, k: list[FloatArray]) -> FloatArray:
    """Value of holding outcome o with a throw left: stop now or the best keep of ≤ 4 dice."""
    m4 = best_keep(k)
    out = stop.copy()
    for j in range(5):
        np.maximum(out, m4[DOWN[5][:, j]], out=out)
    return out
