"""The solver's legal rows and points mirror `Game.options()` / `Game.score()` exactly."""

import random
from dataclasses import replace
from functools import cache

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.engine import Card, Game, get_rules
from bot.strategy import Hold, Record, advise, compute, loss, value_of
from bot.strategy.dice import INDEX

EXACT = ("classic", "yatzy", "yahtzee", "scandinavian")


def random_card(rules: str, rng: random.Random, free: int) -> dict[str, int | None]:
    """A card with `free` rows left, filled by recording random throws in random rows."""
    game = Game.new(rules, ["p"])
    rs = game.rules
    while sum(v is None for v in game.card.rows.values()) > free:
        dice = [rng.randint(1, 6) for _ in range(5)]
        if rng.random() < 0.15:
            dice = [dice[0]] * 5  # jokers and pokers must be common enough to matter
        game, _ = game.roll("p", (), dice)
        options = game.options()
        game, _ = game.score("p", rng.choice(options).row)
    assert rs.name == rules
    return dict(game.card.rows)


@cache
def table_for(rules: str, seed: int):
    rng = random.Random(seed)
    rows = random_card(rules, rng, free=(4, 6, 9, 11)[seed])
    return rows, compute(rules, start=rows)


@settings(max_examples=300, deadline=None)
@given(
    rules=st.sampled_from(EXACT),
    seed=st.integers(0, 3),
    walk=st.integers(0, 10**6),
    dice=st.lists(st.integers(1, 6), min_size=5, max_size=5),
    throws=st.integers(1, 3),
)
def test_legal_rows_and_their_values_equal_the_engine(rules, seed, walk, dice, throws):
    rows, table = table_for(rules, seed)
    rng = random.Random(walk)
    game = replace(Game.new(rules, ["p"]), cards=(Card("p", dict(rows)),))
    # Walk a few random turns from the table's start so the flag and sums vary.
    for _ in range(rng.randint(0, 3)):
        if game.finished:
            break
        game, _ = game.roll("p", (), [rng.randint(1, 6) for _ in range(5)])
        game, _ = game.score("p", rng.choice(game.options()).row)
    if game.finished:
        return
    g = replace(game, dice=tuple(dice), throws=throws)
    options = {o.row: o for o in g.options()}
    arrays = table.turn(g.card.rows)
    o = INDEX[5][tuple(sorted(dice))]
    legal = {row for row, vals in arrays.rows[throws == 1].items() if vals[o] != float("-inf")}
    assert legal == set(options)
    for row in options:
        after, _ = g.score("p", row)
        assert abs(value_of(table, g, Record(row)) - table.expected(after.card)) < 1e-9


def test_every_rule_set_reaches_jokers_and_first_throw_doubling():
    """The random states above do cover the special cases (else the test proves little)."""
    seen = set()
    for rules in EXACT:
        rs = get_rules(rules)
        for seed in range(4):
            rows, _ = table_for(rules, seed)
            game = replace(Game.new(rules, ["p"]), cards=(Card("p", dict(rows)),))
            for face in range(1, 7):
                g = replace(game, dice=(face,) * 5, throws=1)
                for opt in g.options():
                    if opt.joker:
                        seen.add((rules, "joker"))
                    if opt.doubled:
                        seen.add((rules, "doubled"))
        assert rs.name == rules
    assert ("classic", "doubled") in seen
    assert ("yahtzee", "joker") in seen or ("yatzy", "joker") in seen


@cache
def classic_table():
    return compute("classic")


@settings(max_examples=150, deadline=None)
@given(
    walk=st.integers(0, 10**6),
    dice=st.lists(st.integers(1, 6), min_size=5, max_size=5),
    throws=st.integers(1, 3),
    hold=st.sets(st.integers(0, 4), max_size=5),
)
def test_the_hint_is_the_best_choice_and_losses_are_never_negative(walk, dice, throws, hold):
    table = classic_table()
    rng = random.Random(walk)
    game = Game.new("classic", ["p"])
    for _ in range(rng.randint(0, 14)):
        game, _ = game.roll("p", (), [rng.randint(1, 6) for _ in range(5)])
        game, _ = game.score("p", rng.choice(game.options()).row)
    g = replace(game, dice=tuple(dice), throws=throws)
    hint = advise(table, g)
    values = [c.expected for c in hint.choices]
    assert values == sorted(values, reverse=True)
    assert loss(table, g, hint.best.decision) == 0.0
    for option in g.options():
        assert value_of(table, g, Record(option.row)) <= hint.best.expected + 1e-9
        assert loss(table, g, Record(option.row)) >= 0.0
    if throws < 3:
        assert value_of(table, g, Hold(tuple(sorted(hold)))) <= hint.best.expected + 1e-9
