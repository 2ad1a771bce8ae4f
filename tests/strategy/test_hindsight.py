"""The hindsight optimum against an exhaustive search through the engine, and its line."""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass, field, replace
from datetime import date, timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.engine import RULESETS, UPPER, Card, Game, Pass, Roll, RuleSet, get_rules, totals_of
from bot.engine.daily import DailyDice
from bot.engine.rules import _classic_upper, _figure_sum, _sum_upper, _yatzy_lower
from bot.strategy.hindsight import Hindsight, hindsight, replay

SECRET = b"hindsight tests: a fixed secret."
DAY = date(2025, 6, 1)
SETTINGS = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])


@dataclass
class Planted:
    """Dice of a few faces per turn: five of a kind (jokers) and long banked turns stay
    cheap to search exhaustively, since each position can only show a few values."""

    rules: str
    seed: int
    faces: int = 2
    _alphabets: dict[int, list[int]] = field(default_factory=dict)

    def die(self, turn: int, throw: int, position: int) -> int:
        if turn not in self._alphabets:
            self._alphabets[turn] = random.Random(f"{self.seed}/{turn}").sample(
                range(1, 7), self.faces
            )
        rng = random.Random(f"{self.seed}/{turn}/{throw}/{position}")
        return rng.choice(self._alphabets[turn])


def throw(dice, game: Game, hold: tuple[int, ...]) -> Roll:
    if isinstance(dice, DailyDice):
        return dice.draw(game, game.player, hold)
    turn, k = game.card.turns, game.throws + 1
    values = tuple(dice.die(turn, k, p) for p in range(5) if p not in hold)
    return Roll(game.player, values, hold)


def total(game: Game) -> int:
    return totals_of(game.rules, game.card).total


def brute(dice, game: Game) -> int:
    """The best final total from a turn start: every hold at every throw, every option and
    every pass, played through the engine. Memoised on what the rest of the game depends
    on (free rows, upper sum, poker's value, bank, turns), as points still to come."""
    memo: dict[object, int] = {}
    player = game.player

    def start(g: Game) -> int:
        if g.finished:
            return total(g)
        c = g.card
        upper = sum(c.rows[r] or 0 for r in g.rules.upper)
        key = (frozenset(c.free(g.rules.rows)), upper, c.rows.get("poker"), c.bank, c.turns)
        if key not in memo:
            memo[key] = turn(g) - total(g)
        return total(g) + memo[key]

    def turn(g: Game) -> int:
        best = start(g.pass_turn(player)[0]) if g.rules.banked else -(10**9)
        level = [g]
        while level:
            after: dict[object, Game] = {}
            for s in level:
                if s.dice:
                    for option in s.options():
                        best = max(best, start(s.score(player, option.row)[0]))
                    if s.rules.banked:
                        best = max(best, start(s.pass_turn(player)[0]))
                if s.throws_left():
                    holds = (
                        [h for n in range(6) for h in itertools.combinations(range(5), n)]
                        if s.dice
                        else [()]
                    )
                    for hold in holds:
                        nxt, _ = s.apply(throw(dice, s, hold))
                        after.setdefault((nxt.dice, nxt.throws), nxt)
            level = list(after.values())
        return best

    return start(game)


def card_game(rules: RuleSet | str, rows: dict[str, int | None], **card: int) -> Game:
    """A solo game at a turn start with these rows filled (the others free)."""
    game = Game.new(rules, ["p"])
    full = dict.fromkeys(game.rules.rows)
    full.update(rows)
    filled = sum(v is not None for v in full.values())
    turns = card.pop("turns", filled)
    made = Card("p", full, turns=turns, **card)
    return replace(game, cards=(made,), round=turns + 1 if game.rules.banked else 1)


def check(dice, game: Game) -> Hindsight:
    """The optimum equals the exhaustive search, and its line replays to it."""
    result = hindsight(dice, game)
    assert result.exact
    assert result.score == brute(dice, game)
    final, actions = replay(dice, result, game)
    assert final.finished
    assert total(final) == result.score
    assert len(actions) >= len(result.line)
    return result


def fill(rules: str, free: set[str], values: dict[str, int] | None = None) -> dict[str, int]:
    """Every row but `free`, with plausible values (or the given ones)."""
    rs = get_rules(rules)
    out = {}
    for row in rs.rows:
        if row in free:
            continue
        if values and row in values:
            out[row] = values[row]
        elif row in UPPER:
            out[row] = rs.upper_value(UPPER.index(row) + 1, 3) or 0
        else:
            out[row] = 10
    return out


# --- small cases against the exhaustive search ----------------------------------------

REAL_CASES = [
    ("classic", {"fives", "sixes", "chance"}, {"ones": -3, "twos": 2, "threes": 0, "fours": -4}),
    ("classic", {"pair", "poker", "small_straight"}, {}),
    ("classic", {"sixes", "full_house"}, {"fives": -5}),  # the bonus hangs on sixes
    ("yatzy", {"sixes", "chance", "four_of_a_kind"}, {"ones": 3, "twos": 6, "threes": 12,
                                                      "fours": 16, "fives": 15}),
    ("yatzy", {"ones", "pair", "large_straight"}, {}),
    ("yahtzee", {"fours", "three_of_a_kind", "small_straight"}, {"poker": 0}),
    ("scandinavian", {"twos", "two_pairs", "full_house"}, {"sixes": 30, "fives": 25}),
    ("scandinavian", {"poker", "chance", "threes"}, {}),
]


@pytest.mark.parametrize(("rules", "free", "values"), REAL_CASES)
@pytest.mark.parametrize("day", range(3))
def test_matches_exhaustive_search_on_the_daily_dice(rules, free, values, day):
    dice = DailyDice(SECRET, DAY + timedelta(days=day), rules)
    check(dice, card_game(rules, fill(rules, free, values)))


JOKER_CASES = [
    # poker holds 50: jokers with +100, forced into the face row, else lower, else upper
    ("yatzy", {"fives", "sixes", "chance"}, {"poker": 50}),
    ("yatzy", {"fives", "full_house", "large_straight"}, {"poker": 50}),
    ("yatzy", {"twos", "threes"}, {"poker": 50}),
    # poker free: whether to take 50 (arming the joker) or keep poker open
    ("yatzy", {"poker", "sixes", "four_of_a_kind"}, {}),
    ("yahtzee", {"poker", "fours", "full_house"}, {}),
    # yahtzee: a scratched poker row still forces the joker, without the +100
    ("yahtzee", {"fives", "small_straight", "chance"}, {"poker": 0}),
    ("yahtzee", {"sixes", "large_straight"}, {"poker": 50, "ones": 3, "twos": 6,
                                              "threes": 12, "fours": 16, "fives": 20}),
]


@pytest.mark.parametrize(("rules", "free", "values"), JOKER_CASES)
@pytest.mark.parametrize("seed", range(4))
def test_matches_exhaustive_search_with_jokers(rules, free, values, seed):
    dice = Planted(rules, seed, faces=2)
    check(dice, card_game(rules, fill(rules, free, values)))


BANKED_CASES = [
    # (free rows, bank, turns already played, faces a turn): the 40-round cap is near
    ({"pair", "poker"}, 0, 37, 3),
    ({"full_house", "chance", "two_pairs"}, 1, 37, 2),
    ({"sixes", "three_of_a_kind"}, 2, 36, 2),  # the upper rows come first
    ({"four_of_a_kind"}, 3, 38, 3),  # banked throws to spend
    ({"poker", "large_straight"}, 0, 31, 2),  # time to pass and bank
]


@pytest.mark.parametrize(("free", "bank", "turns", "faces"), BANKED_CASES)
@pytest.mark.parametrize("seed", range(2))
def test_matches_exhaustive_search_in_banked(free, bank, turns, faces, seed):
    dice = Planted("banked", seed, faces=faces)
    game = card_game("banked", fill("banked", free), bank=bank, turns=turns)
    result = check(dice, game)
    assert result.exact


def test_banked_on_the_daily_dice_near_the_cap():
    dice = DailyDice(SECRET, DAY, "banked")
    game = card_game("banked", fill("banked", {"pair", "chance"}), bank=0, turns=38)
    check(dice, game)


MINI_CLASSIC = RuleSet(
    name="mini_classic",
    rows=("fives", "sixes", "pair", "poker"),
    upper_value=_classic_upper,
    lower_value=_figure_sum,
    upper_first=True,
    bonus=50,
    bonus_when_complete=True,
    first_throw_double=True,
    premiums={"poker": 50},
)
MINI_YATZY = RuleSet(
    name="mini_yatzy",
    rows=("threes", "fours", "three_of_a_kind", "chance"),
    upper_value=_sum_upper,
    lower_value=_yatzy_lower,
    bonus=20,
    bonus_threshold=15,
)


@pytest.mark.parametrize("rules", [MINI_CLASSIC, MINI_YATZY])
@pytest.mark.parametrize("day", range(4))
def test_small_rule_sets_from_an_empty_card(rules, day):
    dice = DailyDice(SECRET, DAY + timedelta(days=day), rules.name)
    check(dice, Game.new(rules, ["p"]))


# --- whole games -------------------------------------------------------------------------


def random_play(dice, game: Game, rng: random.Random) -> Game:
    """Random legal play on the day's dice to the end."""
    while not game.finished:
        options = game.options()
        if game.rules.banked and rng.random() < 0.05:
            game, _ = game.apply(Pass(game.player))
        elif game.throws_left() and (not options or rng.random() < 0.6):
            hold = tuple(sorted(rng.sample(range(5), rng.randint(0, 5)))) if game.dice else ()
            game, _ = game.apply(throw(dice, game, hold))
        elif options:
            best = max(options, key=lambda o: o.points + o.joker_bonus)
            row = best.row if rng.random() < 0.5 else rng.choice(options).row
            game, _ = game.score(game.player, row)
        else:
            game, _ = game.apply(Pass(game.player))
    return game


@settings(SETTINGS, max_examples=15)
@given(
    st.sampled_from(sorted(RULESETS)),
    st.integers(0, 3000),
    st.lists(st.integers(0, 2**32), min_size=3, max_size=3),
)
def test_whole_games_beat_random_play_and_replay(rules, day, seeds):
    dice = DailyDice(SECRET, DAY + timedelta(days=day), rules)
    result = hindsight(dice)
    assert result.exact
    assert result.rules == rules
    final, actions = replay(dice, result)
    assert total(final) == result.score
    assert Game.replay(rules, ["player"], actions) == final
    for play in result.line:
        assert len(play.holds) == max(0, play.throws - 1)
    for seed in seeds:
        other = random_play(dice, Game.new(rules, ["player"]), random.Random(seed))
        assert total(other) <= result.score


@settings(SETTINGS, max_examples=10)
@given(st.sampled_from(sorted(RULESETS)), st.integers(0, 3000), st.integers(0, 2**32))
def test_from_a_game_in_play(rules, day, seed):
    """Hindsight from the middle of a game: at least what random play makes from there."""
    dice = DailyDice(SECRET, DAY + timedelta(days=day), rules)
    rng = random.Random(seed)
    game = Game.new(rules, ["player"])
    for _ in range(rng.randint(1, 8)):  # a few random turns
        turns = game.card.turns
        while not game.finished and game.card.turns == turns:
            game = random_step(dice, game, rng)
    if game.finished:
        return
    result = hindsight(dice, game)
    final, _ = replay(dice, result, game)
    assert total(final) == result.score
    assert total(random_play(dice, game, rng)) <= result.score


def random_step(dice, game: Game, rng: random.Random) -> Game:
    options = game.options()
    if game.throws_left() and (not options or rng.random() < 0.6):
        hold = tuple(sorted(rng.sample(range(5), rng.randint(0, 5)))) if game.dice else ()
        return game.apply(throw(dice, game, hold))[0]
    if options:
        return game.score(game.player, rng.choice(options).row)[0]
    return game.apply(Pass(game.player))[0]


def test_banked_bounded_throws_is_a_lower_bound():
    for day in range(3):
        dice = DailyDice(SECRET, DAY + timedelta(days=day), "banked")
        exact = hindsight(dice)
        for extra in (0, 1):
            bound = hindsight(dice, extra_throws=extra)
            assert not bound.exact
            assert bound.score <= exact.score
            assert total(replay(dice, bound)[0]) == bound.score
            assert all(play.throws <= 3 + extra for play in bound.line)


def test_refuses_what_it_cannot_solve():
    dice = DailyDice(SECRET, DAY, "classic")
    with pytest.raises(ValueError, match="yatzy"):
        hindsight(dice, "yatzy")
    with pytest.raises(ValueError, match="solo"):
        hindsight(dice, Game.new("classic", ["a", "b"]))
    game = Game.new("classic", ["p"])
    game, _ = game.apply(dice.draw(game, "p"))
    with pytest.raises(ValueError, match="turn start"):
        hindsight(dice, game)
