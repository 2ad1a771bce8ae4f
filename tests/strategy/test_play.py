"""Games played by the computer players: perfect play averages the computed optimum."""

import random
import statistics
from dataclasses import replace

import pytest

from bot.engine import Card, Game
from bot.strategy import (
    LEVELS,
    Hold,
    PassTurn,
    Record,
    advise,
    advise_banked,
    choose,
    compute,
)
from bot.strategy.simulate import play_solitaire, simulate_perfect

from .test_mirror import random_card


@pytest.fixture(scope="module")
def classic():
    return compute("classic")


def _within_three_standard_errors(scores, expected):
    mean = statistics.fmean(scores)
    se = statistics.stdev(scores) / len(scores) ** 0.5
    assert abs(mean - expected) <= 3 * se, (mean, expected, se)


def test_perfect_classic_games_average_the_optimum(classic):
    rng = random.Random(1)
    scores = [play_solitaire("classic", "perfect", classic, rng) for _ in range(1200)]
    _within_three_standard_errors(scores, classic.optimum)


@pytest.mark.parametrize("rules", ["yatzy", "yahtzee", "scandinavian"])
def test_perfect_play_from_a_late_card_averages_its_expectation(rules):
    """Full tables of these take seconds; a card with seven free rows keeps the test quick."""
    rows = random_card(rules, random.Random(rules), free=7)
    table = compute(rules, start=rows)
    rng = random.Random(5)
    scores = []
    for _ in range(1500):
        game = replace(Game.new(rules, ["p"]), cards=(Card("p", dict(rows)),))
        while not game.finished:
            decision = choose("perfect", game, table, rng)
            if isinstance(decision, Hold):
                hold = decision.positions if game.dice else ()
                game, _ = game.roll("p", hold, [rng.randint(1, 6) for _ in range(5 - len(hold))])
            else:
                assert isinstance(decision, Record)
                game, _ = game.score("p", decision.row)
        scores.append(game.standings()[0].totals.total)
    _within_three_standard_errors(scores, table.expected(Card("p", dict(rows))))


@pytest.mark.parametrize("rules", ["classic", "yatzy", "banked", "yahtzee", "scandinavian"])
@pytest.mark.parametrize("level", LEVELS)
def test_every_level_plays_legal_games_to_the_end(rules, level, classic):
    table = classic if rules == "classic" else None  # perfect without a table plays easy
    rng = random.Random(f"{rules}{level}")
    for _ in range(3):
        total = play_solitaire(rules, level, table, rng)
        assert isinstance(total, int)


def test_the_levels_are_ordered_by_strength(classic):
    rng = random.Random(3)
    mean = {
        level: statistics.fmean(play_solitaire("classic", level, classic, rng) for _ in range(150))
        for level in LEVELS
    }
    assert mean["easy"] < mean["normal"] < mean["perfect"]


def test_banked_policy_beats_the_simpler_levels():
    rng = random.Random(4)
    mean = {
        level: statistics.fmean(play_solitaire("banked", level, None, rng) for _ in range(120))
        for level in LEVELS
    }
    assert mean["easy"] < mean["perfect"]
    assert mean["normal"] < mean["perfect"]


def test_a_banked_computer_player_passes_when_nothing_is_worth_recording():
    game = Game.new("banked", ["p"])
    game, _ = game.roll("p", (), [1, 2, 4, 5, 6])
    game, _ = game.roll("p", (0, 1, 2, 3, 4), [])
    game, _ = game.roll("p", (0, 1, 2, 3, 4), [])
    # Three throws used, the bank empty, no upper figure made: only a pass is legal.
    assert game.options() == []
    for level in LEVELS:
        assert choose(level, game, None, random.Random(0)) == PassTurn()


def test_a_banked_computer_player_throws_again_for_an_upper_figure():
    """An upper figure scores nothing and costs nothing unfinished; the planner still aims
    at one rather than pass with a throw left (the free program waits for all six)."""
    game = Game.new("banked", ["p"])
    game, _ = game.roll("p", (), [6, 6, 1, 2, 3])
    game, _ = game.roll("p", (0, 1, 2, 3, 4), [])
    assert game.options() == []  # nothing made yet, one regular throw left
    assert choose("perfect", game, None, random.Random(0)) == Hold((0, 1))
    assert choose("normal", game, None, random.Random(0)) == Hold((0, 1))


def test_decisions_are_legal_engine_actions(classic):
    rng = random.Random(9)
    game = Game.new("classic", ["p"])
    for _ in range(40):
        if game.finished:
            break
        decision = advise(classic, game).best.decision
        if isinstance(decision, Hold):
            if game.dice:
                game.verify_roll("p", decision.positions)
            game, _ = game.roll(
                "p",
                decision.positions if game.dice else (),
                [rng.randint(1, 6) for _ in range(5 - len(decision.positions))],
            )
        else:
            assert isinstance(decision, Record)
            game, _ = game.score("p", decision.row)
    assert game.round > 5  # the walk did play several turns


def test_vectorised_simulation_averages_the_optimum(classic):
    scores = simulate_perfect(classic, 20_000, seed=3)
    _within_three_standard_errors(list(scores), classic.optimum)


def test_vectorised_simulation_from_a_late_yatzy_card():
    rows = random_card("yatzy", random.Random(8), free=5)
    table = compute("yatzy", start=rows)
    scores = simulate_perfect(table, 3000, seed=4)
    _within_three_standard_errors(list(scores), table.optimum)


def test_banked_hint_ranks_the_policy_choices():
    game = Game.new("banked", ["p"])
    assert advise_banked(game).best.decision == Hold(())
    game, _ = game.roll("p", (), [4, 4, 4, 2, 6])
    hint = advise_banked(game)
    assert len(hint.choices) == 3
    values = [c.expected for c in hint.choices]
    assert values == sorted(values, reverse=True)
    # Upper first: fours is made (three fours) and recording it after one throw banks two.
    assert Record("fours") in [c.decision for c in hint.choices]
    assert hint.best.decision == choose("perfect", game, None, random.Random(0))
    with pytest.raises(ValueError, match="over"):
        advise_banked(replace(game, finished=True))
