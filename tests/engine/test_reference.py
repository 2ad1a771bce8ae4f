"""The engine against an independent reading of docs/rules.md (tests/engine/reference.py)."""

from __future__ import annotations

import random
from itertools import combinations_with_replacement

import pytest

from bot.engine import RULESETS, get_rules
from bot.engine.replay import document, result, run

from . import reference as ref
from .play import play

MULTISETS = list(combinations_with_replacement(range(1, 7), 5))
RULE_NAMES = sorted(RULESETS)


def test_there_are_252_dice_multisets():
    assert len(MULTISETS) == 252


@pytest.mark.parametrize("rules", RULE_NAMES)
def test_rows_of_each_rule_set(rules):
    assert list(get_rules(rules).rows) == ref.ROWS[rules]


@pytest.mark.parametrize("rules", RULE_NAMES)
def test_every_multiset_every_row_matches_reference(rules):
    rs = get_rules(rules)
    mismatches = []
    for dice in MULTISETS:
        for row in rs.rows:
            for first in (True, False):
                got = rs.made_value(row, dice, first)
                want = ref.value(rules, row, dice, first)
                if got != want:
                    mismatches.append((row, dice, first, got, want))
            if rs.scratch and ref.value(rules, row, dice, False) is None:
                assert rs.scratch_value(row) == ref.scratch(rules, row)
    assert mismatches == []


@pytest.mark.parametrize("rules", ["yatzy", "yahtzee"])
def test_joker_values_match_reference(rules):
    rs = get_rules(rules)
    for face in range(1, 7):
        dice = (face,) * 5
        for row in rs.rows:
            assert rs.joker_value(row, dice) == ref.joker_value(row, dice), (row, dice)


@pytest.mark.parametrize("rules", RULE_NAMES)
@pytest.mark.parametrize(
    ("luck", "fives", "greed", "leave"),
    [(0.0, 0.0, 0.0, 0.0), (0.6, 0.3, 0.7, 0.0), (0.9, 0.1, 1.0, 0.0), (0.5, 0.2, 0.5, 0.01)],
    ids=["random", "lucky", "greedy", "leavers"],
)
def test_random_games_match_reference(rules, luck, fives, greed, leave):
    """Every row, total, settlement and rank of whole games, and of every prefix end."""
    for seed in range(12):
        rng = random.Random(f"{rules}-{seed}-{luck}")
        players = ["ann", "bob", "cat", "dan"][: 1 + seed % 4]
        game, actions = play(rules, players, rng, luck=luck, fives=fives, greed=greed, leave=leave)
        doc = document(rules, players, actions)
        assert result(game) == ref.replay(doc), (rules, seed)
        cut = rng.randrange(len(doc["actions"]) + 1)
        partial = {**doc, "actions": doc["actions"][:cut]}
        assert result(run(partial)) == ref.replay(partial), (rules, seed, cut)
