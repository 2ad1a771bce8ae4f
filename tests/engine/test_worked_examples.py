"""Every worked example of docs/rules.md, by name."""

import pytest

from bot.engine import UPPER, Game, Roll, Score, get_rules

EXAMPLES = [
    ("classic", "sixes", (6, 6, 6, 6, 6), False, 12),
    ("classic", "twos", (2, 3, 6, 2, 1), False, -2),
    ("classic", "ones", (4, 5, 5, 2, 3), False, -3),
    ("classic", "fours", (4, 4, 4, 4, 1), False, 4),
    ("classic", "pair", (5, 5, 3, 3, 1), False, 10),
    ("classic", "pair", (5, 5, 3, 3, 1), True, 20),
    ("classic", "two_pairs", (2, 2, 2, 5, 5), False, 14),
    ("classic", "two_pairs", (4, 4, 4, 4, 1), False, None),
    ("classic", "three_of_a_kind", (5, 5, 5, 2, 5), False, 15),
    ("classic", "poker", (3, 3, 3, 3, 3), False, 65),
    ("classic", "poker", (6, 6, 6, 6, 6), True, 110),
    ("classic", "small_straight", (1, 2, 3, 4, 5), True, 30),
    ("classic", "small_straight", (2, 3, 4, 5, 5), False, None),
    ("classic", "full_house", (2, 2, 2, 3, 3), True, 24),
    ("classic", "full_house", (3, 3, 3, 3, 3), False, None),
    ("classic", "chance", (1, 3, 5, 4, 6), True, 19),
    ("yatzy", "pair", (5, 5, 3, 2, 1), False, 16),
    ("yatzy", "two_pairs", (2, 2, 5, 5, 1), False, 15),
    ("yatzy", "three_of_a_kind", (5, 5, 5, 2, 5), False, 22),
    ("yatzy", "four_of_a_kind", (1, 1, 1, 1, 3), False, 7),
    ("yatzy", "full_house", (2, 2, 2, 3, 3), False, 25),
    ("yatzy", "small_straight", (2, 3, 4, 5, 5), False, 30),
    ("yatzy", "large_straight", (2, 3, 4, 5, 6), False, 40),
    ("yatzy", "poker", (3, 3, 3, 3, 3), False, 50),
    ("yatzy", "chance", (2, 3, 5, 6, 6), False, 22),
    ("banked", "four_of_a_kind", (6, 6, 6, 6, 2), False, 54),
    ("banked", "poker", (2, 2, 2, 2, 2), False, 60),
]


@pytest.mark.parametrize(
    ("rules", "row", "dice", "first", "points"),
    EXAMPLES,
    ids=[
        f"{r}-{row}-{''.join(map(str, d))}-{'first' if f else 'later'}"
        for r, row, d, f, _ in EXAMPLES
    ],
)
def test_worked_example(rules, row, dice, first, points):
    rs = get_rules(rules)
    value = rs.made_value(row, dice, first)
    assert value == points
    if points is None:  # a scratch records 0, shown as "—"
        assert rs.scratch_value(row) == 0


def _reach_lower_rows(game):
    """Fill the upper rows first where the rule set demands it (three of each face)."""
    if not game.rules.upper_first:
        return game
    for face, row in enumerate(UPPER, start=1):
        game, _ = game.apply(Roll("ann", (face, face, face, face % 6 + 1, face % 6 + 1)))
        game, _ = game.apply(Score("ann", row))
    return game


@pytest.mark.parametrize(
    ("rules", "row", "dice", "first", "points"),
    EXAMPLES,
    ids=[
        f"{r}-{row}-{''.join(map(str, d))}-{'first' if f else 'later'}"
        for r, row, d, f, _ in EXAMPLES
    ],
)
def test_worked_example_played(rules, row, dice, first, points):
    """The same example thrown and recorded in a real game: options, event and card agree."""
    game = Game.new(rules, ["ann"])
    if row not in UPPER:
        game = _reach_lower_rows(game)
    if not first:  # reach the dice on a later throw
        game, _ = game.apply(Roll("ann", (6, 5, 4, 1, 1) if dice[0] != 6 else (5, 4, 3, 1, 1)))
    game, _ = game.apply(Roll("ann", dice))
    option = next(o for o in game.options() if o.row == row)
    expected = 0 if points is None else points
    assert option.points == expected
    if row not in UPPER:  # a classic upper row is never a scratch, whatever it scores
        assert option.made == (points is not None)
    game, event = game.apply(Score("ann", row))
    assert event.points == expected
    assert game.card_of("ann").rows[row] == expected
