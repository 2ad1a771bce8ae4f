"""The solver's batched work equals the same work one state at a time, allocation-free."""

import random

import numpy as np
import pytest

from bot.strategy import compute
from bot.strategy.dice import Scratch, best_after_throw, keep_values
from bot.strategy.solver import CHUNK, batches, row_values, turn

from .test_mirror import random_card


def test_scratch_buffers_give_the_allocating_results():
    rng = np.random.default_rng(3)
    stop = rng.normal(size=(252, 5))
    later = rng.normal(size=(252, 5))
    scratch = Scratch(8)
    want_k = keep_values(later)
    got_k = keep_values(later, scratch)
    for want, got in zip(want_k, got_k, strict=True):
        np.testing.assert_array_equal(want, got)
    want = best_after_throw(stop, want_k)
    np.testing.assert_array_equal(best_after_throw(stop, got_k, scratch), want)
    # In place, as the solver does for the first throw.
    np.testing.assert_array_equal(best_after_throw(stop, got_k, scratch, out=stop), want)


def test_a_scratch_refuses_a_batch_wider_than_it():
    with pytest.raises(ValueError, match="width 4"):
        Scratch(4).get("x", 252, 5)


@pytest.mark.parametrize(("rules", "free"), [("classic", 8), ("yatzy", 6), ("yahtzee", 5)])
def test_a_batch_mixing_lower_states_equals_each_state_alone(rules, free):
    """Batches cut across lower states (free rows, joker flags, upper-first) per column."""
    table = compute(rules, start=random_card(rules, random.Random(rules), free=free))
    model, v = table.model, table.values
    mixed = [
        (lo_ids, u_ids)
        for level in batches(model)
        for lo_ids, u_ids in level
        if len(set(lo_ids.tolist())) > 1
        and model.lower_pop[lo_ids[0]] + model.upper_pop[u_ids[0]] < 6 + model.nlow  # not full
    ]
    assert mixed, "no batch mixes lower states"
    scratch = Scratch(CHUNK)
    for lo_ids, u_ids in mixed[:4]:
        for first in (False, True):
            together = {row: val.copy() for row, val in row_values(model, v, lo_ids, u_ids, first)}
            for s, (lo, u) in enumerate(zip(lo_ids.tolist(), u_ids.tolist(), strict=True)):
                alone = dict(row_values(model, v, lo, np.array([u]), first))
                for row, val in together.items():
                    want = alone[row][:, 0] if row in alone else np.full(252, -np.inf)
                    np.testing.assert_array_equal(val[:, s], want, err_msg=f"{row} {s}")
        np.testing.assert_allclose(
            turn(model, v, lo_ids, u_ids, scratch), v[u_ids, lo_ids], rtol=0, atol=1e-9
        )
