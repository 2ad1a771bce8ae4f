"""The solver against an independent brute force on cards with two free rows, and the
value of finished cards."""

import random
from dataclasses import replace

import pytest

from bot.engine import Card, get_rules, totals_of
from bot.strategy import Hold, Record, advise, compute, loss, value_of

from .bruteforce import Brute, game_with


def filled(rules, free, **values):
    """A card with every row but `free` filled (0 unless given)."""
    rows = {r: 0 for r in get_rules(rules).rows if r not in free}
    rows.update(values)
    return rows


CASES = {
    # classic upper phase: the bonus hangs on the last two upper rows
    "classic-upper-bonus": (
        "classic",
        filled("classic", ["fives", "sixes"], ones=-3, twos=0, threes=3, fours=-4),
    ),
    # classic free program: first-throw doubling, the poker premium
    "classic-lower-doubling": ("classic", filled("classic", ["pair", "poker"], ones=1)),
    # yatzy joker: poker holds 50, the sixes row free (forced joker), bonus in reach
    "yatzy-joker": (
        "yatzy",
        filled(
            "yatzy", ["sixes", "full_house"], poker=50, fives=15, fours=16, threes=9, twos=6, ones=3
        ),
    ),
    # yatzy: poker still free, so a five of a kind may go there and set the flag
    "yatzy-poker-free": (
        "yatzy",
        filled("yatzy", ["sixes", "poker"], fives=25, fours=20, threes=9),
    ),
    # yahtzee: the Yahtzee row scratched to 0 still forces the joker (no +100)
    "yahtzee-joker-zero": (
        "yahtzee",
        filled("yahtzee", ["large_straight", "chance"], fours=12, sixes=18, threes=9),
    ),
    # three free rows: the order of the rows matters
    "yahtzee-three": (
        "yahtzee",
        filled("yahtzee", ["fives", "full_house", "large_straight"], fours=12, sixes=18, threes=9),
    ),
    "yatzy-three-joker": (
        "yatzy",
        filled(
            "yatzy",
            ["small_straight", "full_house", "large_straight"],
            poker=50,
            sixes=24,
            fives=20,
            fours=12,
        ),
    ),
    # scandinavian: +50 at 63
    "scandinavian-bonus": (
        "scandinavian",
        filled("scandinavian", ["sixes", "two_pairs"], fives=20, fours=16, threes=9, twos=6),
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_turn_start_values_equal_brute_force(case):
    rules, rows = CASES[case]
    game = game_with(rules, rows)
    table = compute(rules, start=game.card.rows)
    brute = Brute()
    assert table.expected(game.card) == pytest.approx(brute.start(game), abs=1e-9)
    # Per-turn decisions on random throws: every choice's value, hence the best choice.
    rng = random.Random(case)
    for _ in range(4):
        throws = rng.choice((1, 2, 3))
        dice = tuple(sorted(rng.randint(1, 6) for _ in range(5)))
        g = replace(game, dice=dice, throws=throws)
        best = advise(table, g)
        assert best.best.expected == pytest.approx(brute.after(game, dice, throws), abs=1e-9)
        for option in g.options():
            want = brute.record(game, dice, throws, option.row)
            assert value_of(table, g, Record(option.row)) == pytest.approx(want, abs=1e-9)
        if throws < 3:
            for keep in {dice[:2], dice[1:4], (), dice[::2]}:
                positions = tuple(i for i, d in enumerate(dice) if d in keep)[: len(keep)]
                got = value_of(table, g, Hold(positions))
                held = tuple(sorted(dice[p] for p in positions))
                assert got == pytest.approx(brute.hold(game, held, throws), abs=1e-9)
                assert loss(table, g, Hold(positions)) >= 0.0
        assert loss(table, g, best.best.decision) == pytest.approx(0.0, abs=1e-9)


@pytest.mark.parametrize("rules", ["classic", "yatzy", "yahtzee", "scandinavian"])
def test_a_finished_card_is_worth_exactly_its_total(rules):
    rs = get_rules(rules)
    rng = random.Random(rules)
    for _ in range(5):
        rows = {r: rng.choice((0, 2, 5, 12, 25)) for r in rs.rows}
        if rules == "classic":
            rows.update({r: rng.choice((-6, 0, 4)) for r in rs.upper})
        table = compute(rules, start=rows)
        card = Card("p", rows, extra=rng.choice((0, 100)))
        assert table.expected(card) == totals_of(rs, card).total
        assert table.optimum == 0.0
