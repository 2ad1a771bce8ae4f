"""The keep/outcome recursion against direct enumeration."""

import itertools

import numpy as np
import pytest

from bot.strategy.dice import (
    INDEX,
    MULTISETS,
    OUTCOMES,
    PROB,
    best_after_throw,
    keep_values,
)


def test_outcome_probabilities_sum_to_one_and_count_ordered_throws():
    assert len(OUTCOMES) == 252
    assert sum(len(m) for m in MULTISETS) == 462
    assert PROB.sum() == pytest.approx(1.0)
    assert PROB[INDEX[5][(1, 2, 3, 4, 5)]] == pytest.approx(120 / 7776)
    assert PROB[INDEX[5][(6, 6, 6, 6, 6)]] == pytest.approx(1 / 7776)


def _direct_keep(e5, keep):
    """Average of e5 over every ordered throw of the other dice."""
    n = 5 - len(keep)
    total = 0.0
    for rest in itertools.product(range(1, 7), repeat=n):
        total += e5[INDEX[5][tuple(sorted(keep + rest))]]
    return total / 6**n


def test_keep_values_equal_direct_averages():
    rng = np.random.default_rng(7)
    e5 = rng.normal(size=(252, 1))
    k = keep_values(e5)
    for n in range(5):
        for keep in MULTISETS[n][:: max(1, len(MULTISETS[n]) // 12)]:
            assert k[n][INDEX[n][keep], 0] == pytest.approx(_direct_keep(e5[:, 0], keep))


def test_best_after_throw_is_the_best_sub_keep_or_stopping():
    rng = np.random.default_rng(11)
    stop = rng.normal(size=(252, 2))
    later = rng.normal(size=(252, 2))
    k = keep_values(later)
    got = best_after_throw(stop, k)
    for o in range(0, 252, 17):
        dice = OUTCOMES[o]
        for s in range(2):
            best = stop[o, s]
            for n in range(5):
                for keep in set(itertools.combinations(dice, n)):
                    best = max(best, k[n][INDEX[n][keep], s])
            assert got[o, s] == pytest.approx(best)
