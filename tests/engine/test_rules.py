"""Unit tests of every rule of docs/rules.md, played through `Game` (not only the scorers)."""

from __future__ import annotations

import random

import pytest

from bot.engine import (
    UPPER,
    Game,
    GameError,
    Leave,
    Pass,
    Roll,
    Score,
    Scored,
    get_rules,
    settlement,
)
from bot.engine.game import parse_action

from .play import figure_dice


def run(game: Game, *actions) -> Game:
    for action in actions:
        game, _ = game.apply(action)
    return game


def record(game: Game, row: str, dice) -> Game:
    """The current player throws `dice` once and records `row`."""
    p = game.player
    return run(game, Roll(p, tuple(dice)), Score(p, row))


def refused(game: Game, action, reason: str) -> None:
    """`action` raises a GameError mentioning `reason` and leaves `game` unchanged."""
    before = game.to_dict()
    with pytest.raises(GameError, match=reason):
        game.apply(action)
    assert game.to_dict() == before


THREE_OF = {row: (i + 1,) * 3 + ((i + 2) % 6 + 1, (i + 3) % 6 + 1) for i, row in enumerate(UPPER)}


def fill_upper(game: Game) -> Game:
    """Every player in turn records every upper row with exactly three of its face (0)."""
    for row in UPPER:
        for _ in game.players:
            game = record(game, row, THREE_OF[row])
    return game


# --- classic ------------------------------------------------------------------------


@pytest.mark.parametrize("n", range(6))
@pytest.mark.parametrize("face", range(1, 7))
def test_classic_upper_row_is_n_minus_three_times_face(face, n):
    others = [d for d in range(1, 7) if d != face]
    dice = (face,) * n + tuple(others[: 5 - n])
    game = record(Game.new("classic", ["ann"]), UPPER[face - 1], dice)
    assert game.cards[0].rows[UPPER[face - 1]] == (n - 3) * face


def test_classic_lower_row_before_the_upper_rows_is_refused():
    game = run(Game.new("classic", ["ann"]), Roll("ann", (5, 5, 3, 3, 1)))
    refused(game, Score("ann", "pair"), "upper rows")
    assert {o.row for o in game.options()} == set(UPPER)
    game = record(fill_upper(Game.new("classic", ["ann"])), "pair", (5, 5, 3, 3, 1))
    assert game.cards[0].rows["pair"] == 20  # first throw: doubled


def test_classic_bonus_only_once_all_six_upper_rows_are_filled():
    game = Game.new("classic", ["ann"])
    for row in UPPER[:5]:
        game = record(game, row, THREE_OF[row])
    assert game.totals("ann").upper == 0
    assert game.totals("ann").bonus == 0  # subtotal 0 but sixes still free
    game = record(game, "sixes", THREE_OF["sixes"])
    assert game.totals("ann").bonus == 50
    assert game.totals("ann").total == 50


def test_classic_negative_upper_subtotal_has_no_bonus():
    game = Game.new("classic", ["ann"])
    for row in UPPER:
        game = record(game, row, (1, 2, 3, 4, 5) if row != "ones" else (2, 3, 4, 5, 6))
    totals = game.totals("ann")
    assert totals.upper == -3 + sum(-2 * f for f in range(2, 6)) - 18  # no six: −18
    assert totals.bonus == 0


def test_classic_first_throw_doubles_lower_figures_but_not_chance():
    game = fill_upper(Game.new("classic", ["ann"]))
    game, first = game.apply(Roll("ann", (1, 2, 3, 4, 5)))
    assert first.throw == 1
    option = next(o for o in game.options() if o.row == "small_straight")
    assert (option.points, option.doubled, option.made) == (30, True, True)
    chance = next(o for o in game.options() if o.row == "chance")
    assert (chance.points, chance.doubled) == (15, False)
    # The same straight made on the second throw is not doubled.
    game = run(game, Score("ann", "chance"), Roll("ann", (2, 2, 3, 4, 5)))
    game, _ = game.apply(Roll("ann", (1,), hold=(1, 2, 3, 4)))
    assert game.dice == (1, 2, 3, 4, 5)
    game, event = game.apply(Score("ann", "small_straight"))
    assert isinstance(event, Scored)
    assert (event.points, event.doubled, event.throws) == (15, False, 2)


def test_classic_poker_premium_is_not_doubled():
    game = fill_upper(Game.new("classic", ["ann"]))
    assert record(game, "poker", (6,) * 5).cards[0].rows["poker"] == 110
    game = run(game, Roll("ann", (6, 6, 6, 6, 1)), Roll("ann", (6,), hold=(0, 1, 2, 3)))
    assert run(game, Score("ann", "poker")).cards[0].rows["poker"] == 80


@pytest.mark.parametrize(
    ("row", "dice", "points"),
    [
        ("pair", (6, 6, 2, 2, 2), 12),  # the highest face, not the most dice
        ("pair", (1, 1, 4, 4, 6), 8),
        ("two_pairs", (6, 6, 5, 5, 1), 22),
        ("two_pairs", (6, 6, 6, 5, 5), 22),  # a full house counts
        ("two_pairs", (3, 3, 3, 3, 1), 0),  # four of a kind does not
        ("three_of_a_kind", (6, 6, 6, 5, 5), 18),
        ("three_of_a_kind", (4, 4, 4, 4, 4), 12),
        ("four_of_a_kind", (2, 2, 2, 2, 6), 8),
        ("full_house", (6, 6, 6, 6, 1), 0),
        ("large_straight", (2, 3, 4, 5, 6), 20),
        ("large_straight", (1, 2, 3, 4, 5), 0),
        ("small_straight", (2, 3, 4, 5, 6), 0),  # exactly 1-2-3-4-5
    ],
)
def test_classic_lower_rows_later_throw(row, dice, points):
    rs = get_rules("classic")
    got = rs.made_value(row, dice, first_throw=False)
    assert (got if got is not None else rs.scratch_value(row)) == points
    # Any dice order gives the same value.
    shuffled = list(dice)
    random.Random(row).shuffle(shuffled)
    assert rs.made_value(row, shuffled, first_throw=False) == got


def test_classic_absent_figure_is_a_scratch_option_worth_zero():
    game = fill_upper(Game.new("classic", ["ann"]))
    game = run(game, Roll("ann", (4, 4, 4, 4, 1)))
    option = next(o for o in game.options() if o.row == "two_pairs")
    assert (option.points, option.made) == (0, False)
    game, event = game.apply(Score("ann", "two_pairs"))
    assert isinstance(event, Scored)
    assert (event.points, event.made) == (0, False)
    assert game.cards[0].rows["two_pairs"] == 0


def test_classic_game_ends_after_fifteen_turns_each():
    game = Game.new("classic", ["ann", "bob"])
    for _ in range(15):
        for _p in ("ann", "bob"):
            assert not game.finished
            game = record(game, _first_free(game), (1,) * 5)
    assert game.finished
    assert [c.turns for c in game.cards] == [15, 15]
    refused(game, Roll("ann", (1, 2, 3, 4, 5)), "over")
    refused(game, Leave("ann"), "over")


def _first_free(game: Game) -> str:
    rs = game.rules
    free = game.card.free(rs.upper) if rs.upper_first else []
    return (free or game.card.free(rs.rows))[0]


# --- throws and holds (every rule set) -------------------------------------------------


def test_throw_rules():
    game = Game.new("classic", ["ann", "bob"])
    refused(game, Roll("bob", (1, 2, 3, 4, 5)), "ann's turn")
    refused(game, Roll("eve", (1, 2, 3, 4, 5)), "not playing")
    refused(game, Roll("ann", (1, 2, 3, 4, 5), hold=(0,)), "before the first throw")
    refused(game, Roll("ann", (1, 2, 3, 4, 7)), "1 to 6")
    refused(game, Roll("ann", (0, 2, 3, 4, 5)), "1 to 6")
    refused(game, Roll("ann", (1, 2, 3, 4)), "expected 5 dice")
    refused(game, Score("ann", "ones"), "throw the dice")
    refused(game, Pass("ann"), "only allowed in banked")
    game = run(game, Roll("ann", (1, 2, 3, 4, 5), hold=()))  # an empty hold is fine
    refused(game, Roll("ann", (6, 6), hold=(0, 0, 1)), "held twice")
    refused(game, Roll("ann", (6,), hold=(0, 1, 2, 5)), "positions 0–4")
    refused(game, Roll("ann", (6, 6, 6), hold=(0, 1, 2)), "expected 2 dice")
    refused(game, Score("ann", "yahtzee"), "no row")
    game = run(game, Roll("ann", (), hold=(0, 1, 2, 3, 4)))  # hold all: the throw counts
    assert (game.dice, game.throws) == ((1, 2, 3, 4, 5), 2)
    game = run(game, Roll("ann", (6, 6), hold=(4, 0, 2)))
    assert game.dice == (1, 6, 3, 6, 5)
    refused(game, Roll("ann", (1, 2, 3, 4, 5)), "no throws left")
    assert not game.can_roll("ann")
    game = run(game, Score("ann", "ones"))
    refused(game, Score("bob", "twos"), "throw the dice")
    game = record(game, "ones", (1, 1, 1, 1, 1))
    game = run(game, Roll("ann", (2, 2, 2, 2, 2)))
    refused(game, Score("ann", "ones"), "already filled")


@pytest.mark.parametrize(
    "raw",
    [
        {"player": "ann", "roll": [True, 1, 1, 1, 1]},
        {"player": "ann", "roll": [3.0, 1, 1, 1, 1]},
        {"player": "ann", "roll": [1, 1, 1, 1, 1], "hold": [False]},
        {"player": "ann", "roll": "11111"},
        {"player": "ann", "roll": [1, 1, 1, 1, 1], "note": "x"},
        {"player": "ann", "score": 3},
        {"player": "ann", "pass": 1},
        {"player": "ann", "leave": "yes"},
        {"player": 7, "score": "ones"},
        {"score": "ones"},
        {"player": "ann"},
        {"player": "ann", "score": "ones", "pass": True},
        ["ann", "ones"],
        None,
    ],
)
def test_malformed_actions_are_game_errors(raw):
    with pytest.raises(GameError):
        parse_action(raw)


def test_options_are_exactly_what_can_be_recorded():
    rng = random.Random(5)
    for rules in ("classic", "yatzy", "banked", "yahtzee", "scandinavian"):
        game = Game.new(rules, ["ann"])
        for _ in range(40):
            if game.finished:
                break
            game = run(game, Roll("ann", tuple(rng.randint(1, 6) for _ in range(5))))
            options = {o.row: o for o in game.options()}
            for row in game.rules.rows:
                assert game.can_score("ann", row) == (row in options), (rules, row)
            if not options:
                game = run(game, Pass("ann"))
                continue
            row = rng.choice(sorted(options))
            game, event = game.apply(Score("ann", row))
            assert isinstance(event, Scored)
            assert event.points == options[row].points
            assert game.cards[0].rows[row] == options[row].points


# --- yatzy, yahtzee and the joker -------------------------------------------------------


def test_yatzy_bonus_as_soon_as_upper_reaches_63():
    game = Game.new("yatzy", ["ann"])
    for face, row in ((6, "sixes"), (5, "fives"), (4, "fours")):
        game = record(game, row, (face,) * 4 + (1,))
    assert game.totals("ann").upper == 60
    assert game.totals("ann").bonus == 0
    game = record(game, "threes", (3, 1, 1, 2, 2))
    assert game.totals("ann").upper == 63
    assert game.totals("ann").bonus == 35  # ones and twos still free


def test_yatzy_joker_goes_first_to_the_matching_upper_row():
    game = record(Game.new("yatzy", ["ann"]), "poker", (2,) * 5)
    assert game.cards[0].rows["poker"] == 50
    game = run(game, Roll("ann", (3,) * 5))
    assert [(o.row, o.points, o.joker, o.joker_bonus) for o in game.options()] == [
        ("threes", 15, True, 100)
    ]
    refused(game, Score("ann", "full_house"), "joker must go in threes")
    refused(game, Score("ann", "chance"), "joker")
    game, event = game.apply(Score("ann", "threes"))
    assert isinstance(event, Scored)
    assert (event.points, event.joker_bonus) == (15, 100)
    totals = game.totals("ann")
    assert (totals.upper, totals.lower, totals.extra, totals.total) == (15, 50, 100, 165)


def test_yatzy_joker_then_any_free_lower_row_counts_as_made():
    game = Game.new("yatzy", ["ann"])
    game = record(game, "poker", (4,) * 5)
    game = record(game, "fours", (4, 4, 1, 2, 3))
    game = record(game, "small_straight", (6, 6, 6, 1, 2))  # absent: 0
    game = run(game, Roll("ann", (4,) * 5))
    options = {o.row: o.points for o in game.options()}
    assert options == {
        "pair": 20,
        "two_pairs": 20,
        "three_of_a_kind": 20,
        "four_of_a_kind": 20,
        "full_house": 25,
        "large_straight": 40,
        "chance": 20,
    }
    refused(game, Score("ann", "ones"), "joker")
    game = run(game, Score("ann", "large_straight"))
    assert game.cards[0].rows["large_straight"] == 40
    assert game.cards[0].extra == 100


def test_yatzy_joker_with_no_free_lower_row_scores_zero_in_an_upper_row():
    game = Game.new("yatzy", ["ann"])
    game = record(game, "poker", (5,) * 5)
    game = record(game, "fives", (5, 1, 1, 2, 2))
    for row in ("pair", "two_pairs", "three_of_a_kind", "four_of_a_kind"):
        game = record(game, row, (1, 2, 3, 4, 6))
    for row in ("full_house", "small_straight", "large_straight", "chance"):
        game = record(game, row, (1, 1, 3, 3, 6))
    game = run(game, Roll("ann", (5,) * 5))
    assert {(o.row, o.points) for o in game.options()} == {
        ("ones", 0),
        ("twos", 0),
        ("threes", 0),
        ("fours", 0),
        ("sixes", 0),
    }
    game = run(game, Score("ann", "sixes"))
    assert game.cards[0].rows["sixes"] == 0
    assert game.cards[0].extra == 100


def test_yatzy_poker_scratched_to_zero_gives_neither_bonus_nor_joker():
    game = record(Game.new("yatzy", ["ann"]), "poker", (1, 2, 3, 4, 6))
    assert game.cards[0].rows["poker"] == 0
    game = run(game, Roll("ann", (3,) * 5))
    options = {o.row: o for o in game.options()}
    assert not any(o.joker for o in options.values())
    assert options["full_house"].points == 0  # five of a kind is no full house
    assert not options["full_house"].made
    game = run(game, Score("ann", "sixes"))
    assert game.cards[0].extra == 0


def test_yatzy_five_of_a_kind_while_poker_is_free_is_an_ordinary_throw():
    game = run(Game.new("yatzy", ["ann"]), Roll("ann", (6,) * 5))
    options = {o.row: o for o in game.options()}
    assert len(options) == 15
    assert options["poker"].points == 50
    assert options["ones"].points == 0
    assert not any(o.joker for o in options.values())


def test_yahtzee_joker_applies_when_poker_holds_zero_but_without_bonus():
    game = record(Game.new("yahtzee", ["ann"]), "poker", (1, 2, 3, 4, 6))
    game = run(game, Roll("ann", (2,) * 5))
    assert [(o.row, o.points, o.joker_bonus) for o in game.options()] == [("twos", 10, 0)]
    game = run(game, Score("ann", "twos"), Roll("ann", (2,) * 5))
    options = {o.row: o.points for o in game.options()}
    assert options == {
        "three_of_a_kind": 10,
        "four_of_a_kind": 10,
        "full_house": 25,
        "small_straight": 30,
        "large_straight": 40,
        "chance": 10,
    }
    game = run(game, Score("ann", "small_straight"))
    assert game.cards[0].extra == 0


def test_yahtzee_extra_yahtzee_earns_100_each():
    game = record(Game.new("yahtzee", ["ann"]), "poker", (6,) * 5)
    game = record(game, "sixes", (6,) * 5)
    game = record(game, "full_house", (6,) * 5)
    assert game.cards[0].rows["full_house"] == 25
    assert game.totals("ann").extra == 200
    assert len(game.rules.rows) == 13


def test_scandinavian_has_no_joker():
    game = record(Game.new("scandinavian", ["ann"]), "poker", (6,) * 5)
    assert game.cards[0].rows["poker"] == 50
    game = run(game, Roll("ann", (3,) * 5))
    options = {o.row: o for o in game.options()}
    assert len(options) == 14
    assert options["full_house"].points == 0
    assert options["three_of_a_kind"].points == 9
    game = run(game, Score("ann", "full_house"))
    assert game.totals("ann").extra == 0


# --- banked -----------------------------------------------------------------------------


def banked_upper(game: Game, player: str) -> Game:
    """`player` (to play) records all six upper figures on first throws (bank +2 each)."""
    for row in UPPER:
        assert game.player == player
        game = record(game, row, THREE_OF[row])
        while game.player != player:
            game = run(game, Pass(game.player))
    return game


def test_banked_bank_grows_by_three_minus_throws():
    game = Game.new("banked", ["ann"])
    game = record(game, "ones", (1, 1, 1, 2, 3))  # after 1 throw: +2
    assert game.cards[0].bank == 2
    assert game.cards[0].rows["ones"] == 0
    game = run(game, Roll("ann", (2, 2, 5, 5, 6)), Roll("ann", (2,), hold=(0, 1, 2, 3)))
    game = run(game, Score("ann", "twos"))  # after 2 throws: +1
    assert game.cards[0].bank == 3
    game = run(game, *[Roll("ann", (1, 1, 1, 1, 1)) for _ in range(5)])
    assert game.throws == 5
    assert game.throws_left() == 1  # 3 regular + 3 banked
    game = run(game, Roll("ann", (3, 3, 3, 1, 2)))
    refused(game, Roll("ann", (3, 3, 3, 1, 2)), "no throws left: record a row or pass")
    game = run(game, Score("ann", "threes"))  # after 6 throws: −3
    assert game.cards[0].bank == 0
    assert game.totals("ann").extra == 0


def test_banked_pass_spends_only_banked_throws():
    game = record(Game.new("banked", ["ann"]), "ones", (1, 1, 1, 2, 3))
    assert game.cards[0].bank == 2
    game = run(game, Pass("ann"))  # a pass before any throw is allowed
    game = run(game, Roll("ann", (6,) * 5), Roll("ann", (6,) * 5), Pass("ann"))
    assert game.cards[0].bank == 2
    game = run(game, *[Roll("ann", (6,) * 5) for _ in range(4)])
    _, event = game.apply(Pass("ann"))
    assert event.spent == 1
    game = run(game, Pass("ann"))
    assert game.cards[0].bank == 1
    assert game.totals("ann").extra == 3
    assert game.totals("ann").banked == 1


def test_banked_figures_must_be_made_and_upper_first():
    game = run(Game.new("banked", ["ann"]), Roll("ann", (6, 6, 1, 2, 3)))
    refused(game, Score("ann", "sixes"), "do not make sixes")
    refused(game, Score("ann", "pair"), "upper rows")
    assert game.options() == []
    game = banked_upper(Game.new("banked", ["ann"]), "ann")
    assert all(game.cards[0].rows[r] == 0 for r in UPPER)
    game = run(game, Roll("ann", (1, 2, 3, 4, 6)))
    refused(game, Score("ann", "pair"), "do not make pair")
    refused(game, Score("ann", "small_straight"), "do not make")
    assert [o.row for o in game.options()] == ["chance"]


def test_banked_lower_values_and_premiums():
    game = banked_upper(Game.new("banked", ["ann"]), "ann")
    game = record(game, "four_of_a_kind", (6, 6, 6, 6, 6))  # 24 + 30, not doubled
    game = record(game, "poker", (2, 2, 2, 2, 2))
    game = record(game, "full_house", (3, 3, 5, 5, 5))
    rows = game.cards[0].rows
    assert (rows["four_of_a_kind"], rows["poker"], rows["full_house"]) == (54, 60, 21)


def test_banked_unfinished_rows_get_penalties_at_the_end():
    game = Game.new("banked", ["ann"])
    game = record(game, "ones", (1, 1, 1, 2, 3))
    for _ in range(39):
        game = run(game, Pass("ann"))
    assert game.finished
    assert game.round == 40
    rows = game.cards[0].rows
    assert rows == {
        "ones": 0,
        "twos": 0,
        "threes": 0,
        "fours": 0,
        "fives": 0,
        "sixes": 0,
        "pair": -12,
        "two_pairs": -22,
        "three_of_a_kind": -18,
        "four_of_a_kind": -24,
        "full_house": -28,
        "small_straight": -15,
        "large_straight": -20,
        "poker": -30,
        "chance": -30,
    }
    # Only the free program is penalised: the unfinished upper figures count 0, not made.
    assert game.cards[0].made("ones")
    assert not any(game.cards[0].made(r) for r in UPPER[1:])
    totals = game.totals("ann")
    assert (totals.upper, totals.lower, totals.extra, totals.bank_points) == (0, -199, 6, 6)
    assert totals.total == -199 + 6


def test_banked_cap_is_forty_rounds():
    game = Game.new("banked", ["ann", "bob", "cat"])
    for rnd in range(1, 41):
        for p in ("ann", "bob", "cat"):
            assert not game.finished
            assert (game.round, game.player) == (rnd, p)
            game = run(game, Pass(p))
    assert game.finished
    assert [c.turns for c in game.cards] == [40, 40, 40]
    refused(game, Pass("ann"), "over")


def _complete_card(game: Game, player: str) -> Game:
    """`player` makes every figure on first throws; the others pass."""
    rng = random.Random(1)
    for row in game.rules.rows:
        while game.player != player:
            game = run(game, Pass(game.player))
        game = record(game, row, figure_dice(row, rng))
    return game


@pytest.mark.parametrize("completer", ["ann", "bob", "cat"])
def test_banked_ends_at_the_end_of_the_round_someone_completes(completer):
    game = _complete_card(Game.new("banked", ["ann", "bob", "cat"]), completer)
    assert game.cards[["ann", "bob", "cat"].index(completer)].complete
    # The round is finished: the seats after the completer still play once.
    after = ["ann", "bob", "cat"][["ann", "bob", "cat"].index(completer) + 1 :]
    for p in after:
        assert not game.finished
        assert game.player == p
        game = run(game, Pass(p))
    assert game.finished
    assert game.round == 15
    assert [c.turns for c in game.cards] == [15, 15, 15]
    done = game.cards[["ann", "bob", "cat"].index(completer)]
    assert done.bank == 30  # fifteen first-throw records
    assert game.totals(completer).extra == 90
    other = next(c for c in game.cards if c.name != completer)
    assert other.rows["chance"] == -30


def test_banked_completion_after_passes_still_finishes_the_round():
    game = Game.new("banked", ["ann", "bob"])
    game = run(game, Pass("ann"), Pass("bob"))
    game = _complete_card(game, "ann")
    assert (game.round, game.player, game.finished) == (16, "bob", False)
    refused(game, Roll("ann", (1, 2, 3, 4, 5)), "bob's turn")
    game = run(game, Roll("bob", (1, 2, 3, 4, 5)), Pass("bob"))
    assert game.finished
    assert [c.turns for c in game.cards] == [16, 16]
    assert game.card_of("bob").rows["ones"] == 0
    assert not game.card_of("bob").made("ones")


# --- leaving ----------------------------------------------------------------------------


def test_classic_leaver_rows_are_scratched_and_the_game_goes_on():
    game = Game.new("classic", ["ann", "bob", "cat"])
    game = record(game, "fours", (4, 4, 4, 4, 1))  # ann +4
    game = run(game, Roll("bob", (1, 2, 3, 4, 5)), Leave("ann"))
    ann = game.card_of("ann")
    assert ann.left
    assert ann.rows["fours"] == 4
    assert ann.rows["ones"] == -3
    assert ann.rows["sixes"] == -18
    assert ann.rows["poker"] == 0
    assert game.player == "bob"
    assert game.dice == (1, 2, 3, 4, 5)  # bob's turn is not disturbed
    refused(game, Leave("ann"), "already left")
    refused(game, Leave("eve"), "not playing")
    game = run(game, Score("bob", "ones"))
    game, _ = game.apply(Leave("cat"))  # the player to play leaves: the turn moves on
    assert game.player == "bob"
    while not game.finished:
        game = record(game, _first_free(game), (2, 2, 2, 3, 3))
    assert game.card_of("bob").turns == 15
    assert game.card_of("ann").turns == 1


def test_yatzy_leaver_rows_are_zero():
    game = run(Game.new("yatzy", ["ann", "bob"]), Leave("bob"))
    assert set(game.card_of("bob").rows.values()) == {0}
    assert game.player == "ann"


def test_banked_leaver_rows_get_penalties_when_the_game_ends():
    game = Game.new("banked", ["ann", "bob"])
    game = record(game, "ones", (1, 1, 1, 5, 6))
    game = run(game, Leave("bob"))
    assert game.card_of("bob").rows["ones"] is None
    assert game.player == "ann"
    game = run(game, Leave("ann"))
    assert game.finished
    assert game.card_of("bob").rows["ones"] == 0
    assert game.card_of("bob").rows["pair"] == -12
    assert game.card_of("ann").rows["ones"] == 0
    assert game.card_of("ann").made("ones")
    assert game.card_of("ann").rows["twos"] == 0
    assert not game.card_of("ann").made("twos")


@pytest.mark.parametrize(("throws", "spent"), [(0, 0), (1, 0), (3, 0), (4, 1), (5, 2)])
def test_a_banked_leaver_mid_turn_spends_the_banked_throws_used_as_a_pass_does(throws, spent):
    """RULES.md: leaving after t throws spends max(0, t - 3) banked throws, like a pass."""
    game = Game.new("banked", ["ann", "bob"])
    for row in ("ones", "twos"):  # each records after one throw, twice: ann's bank 2 + 2
        game = record(game, row, THREE_OF[row])
        game = record(game, row, THREE_OF[row])
    assert game.player == "ann"
    assert game.card_of("ann").bank == 4
    for _ in range(throws):
        game = run(game, Roll("ann", (6, 5, 4, 2, 1)))
    passed, event = game.apply(Pass("ann"))
    assert event.spent == spent
    left, event = game.apply(Leave("ann"))
    assert event.on_turn
    assert event.spent == spent
    assert left.card_of("ann").bank == passed.card_of("ann").bank == 4 - spent
    assert left.player == "bob"


def test_a_banked_leaver_out_of_turn_spends_nothing():
    game = Game.new("banked", ["ann", "bob"])
    game = record(game, "ones", (1, 1, 1, 5, 6))  # ann: bank 2
    game = run(game, *[Roll("bob", (6, 5, 4, 2, 1))] * 3)
    game, event = game.apply(Leave("ann"))  # not ann's turn: she used no throw of hers
    assert not event.on_turn
    assert event.spent == 0
    assert game.card_of("ann").bank == 2
    assert game.player == "bob"
    assert game.throws == 3  # bob's turn goes on


def test_everyone_leaving_ends_the_game():
    game = run(Game.new("classic", ["ann", "bob"]), Leave("bob"), Leave("ann"))
    assert game.finished


# --- settlement and rank ------------------------------------------------------------------


def test_settlement_example_from_the_seed():
    assert settlement([236, 214, 166, 244]) == [21, -1, -49, 29]


def test_rank_is_one_plus_players_strictly_ahead():
    game = Game.new("classic", ["ann", "bob", "cat", "dan"])
    game = record(game, "ones", (1, 1, 1, 1, 1))  # +2
    game = record(game, "ones", (1, 1, 1, 1, 1))  # +2
    game = record(game, "ones", (2, 2, 2, 2, 2))  # −3
    game = record(game, "ones", (1, 1, 1, 1, 2))  # +1
    standings = game.standings()
    assert [s.totals.total for s in standings] == [2, 2, -3, 1]
    assert [s.rank for s in standings] == [1, 1, 4, 3]
    assert [s.settlement for s in standings] == [1.5, 1.5, -3.5, 0.5]


# --- snapshots ------------------------------------------------------------------------------


def test_snapshot_round_trip_mid_turn():
    game = Game.new("banked", ["ann", "bob"])
    game = record(game, "ones", (1, 1, 1, 2, 3))
    game = run(game, Roll("bob", (2, 2, 2, 5, 6)))
    game = game.toggle_hold("bob", 0)
    again = Game.from_dict(game.to_dict())
    assert again == game
    assert again.seq == game.seq == 3
    assert again.held == frozenset({0})
    assert again.draw("bob", random.Random(1)).hold == (0,)


# --- players and the injected dice source -------------------------------------------------


def test_one_to_eight_distinct_players():
    names = [f"p{i}" for i in range(8)]
    game = Game.new("yatzy", names)
    assert game.players == tuple(names)
    assert game.player == "p0"
    with pytest.raises(GameError, match="at most 8"):
        Game.new("yatzy", [*names, "p8"])
    with pytest.raises(GameError, match="at least one"):
        Game.new("yatzy", [])
    with pytest.raises(GameError, match="different"):
        Game.new("yatzy", ["ann", "bob", "ann"])
    with pytest.raises(GameError, match="unknown rules"):
        Game.new("poker", ["ann"])


class Scripted:
    """A dice source that hands out fixed values, recording what was asked."""

    def __init__(self, values):
        self.values = list(values)
        self.calls = []

    def randint(self, a: int, b: int) -> int:
        self.calls.append((a, b))
        return self.values.pop(0)


def test_draw_takes_the_dice_from_the_injected_source_and_keeps_held_dice():
    game = Game.new("classic", ["ann"])
    source = Scripted([6, 5, 4, 3, 2, 1, 1, 3])
    roll = game.draw("ann", source)
    assert roll == Roll("ann", (6, 5, 4, 3, 2))
    game, _ = game.apply(roll)
    game = game.toggle_hold("ann", 0).toggle_hold("ann", 2).toggle_hold("ann", 4)
    game = game.toggle_hold("ann", 4)  # toggled back: thrown again
    roll = game.draw("ann", source)
    assert roll == Roll("ann", (1, 1, 3), hold=(0, 2))
    game, _ = game.apply(roll)
    assert game.dice == (6, 1, 4, 1, 3)
    assert source.calls == [(1, 6)] * 8
    with pytest.raises(GameError):
        Game.new("classic", ["ann", "bob"]).draw("bob", source)
    assert len(source.calls) == 8  # a refused draw throws nothing


def test_hold_toggling_rules():
    game = Game.new("classic", ["ann", "bob"])
    with pytest.raises(GameError, match="throw the dice"):
        game.toggle_hold("ann", 0)
    game = run(game, Roll("ann", (1, 2, 3, 4, 5)))
    for bad in (5, -1, True, "0"):
        with pytest.raises(GameError, match="positions"):
            game.toggle_hold("ann", bad)
    with pytest.raises(GameError, match="ann's turn"):
        game.toggle_hold("bob", 0)
    assert game.can_hold("ann", 3)
    assert not game.can_hold("bob", 3)
    held = game.toggle_hold("ann", 3)
    assert held.held == frozenset({3})
    assert held.seq == game.seq  # a hold is interface state, not an action
    assert game.held == frozenset()  # the old state is untouched
    game = run(held, Roll("ann", (6, 6, 6, 6), hold=(3,)), Roll("ann", (6, 6, 6, 6, 6)))
    with pytest.raises(GameError, match="no throws left"):
        game.toggle_hold("ann", 0)
    assert not game.can_hold("ann", 0)


def test_a_snapshot_does_not_alias_the_state():
    game = record(Game.new("yatzy", ["ann"]), "ones", (1, 1, 2, 3, 4))
    snapshot = game.to_dict()
    snapshot["cards"][0]["rows"][0] = 99  # the rows in the rule set's order (ones first)
    assert game.cards[0].rows["ones"] == 2


def test_an_older_snapshot_with_rows_by_name_still_loads():
    game = record(Game.new("classic", ["ann"]), "threes", (3, 3, 3, 1, 2))
    older = game.to_dict()
    card = older["cards"][0]
    card["rows"] = dict(zip(game.rules.rows, card["rows"], strict=True))
    card.update(extra=0, bank=0, left=False)
    del card["unmade"]  # before cards knew which rows were not made
    again = Game.from_dict(older)
    assert again == game
    assert again.cards[0].made("threes")  # a classic 0 in an upper row was three of a kind
