"""Property tests (hypothesis) of the rules that are general."""

from __future__ import annotations

import json
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.engine import (
    FACE,
    LOWER,
    RULESETS,
    UPPER,
    Game,
    GameError,
    Leave,
    Pass,
    Roll,
    Score,
    Scored,
    get_rules,
)
from bot.engine.replay import ReplayError, document, result, run

from .play import legal_action, play

# No deadline: the suite must pass on a slow, noisy machine.
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

dice5 = st.lists(st.integers(1, 6), min_size=5, max_size=5)
rule_names = st.sampled_from(sorted(RULESETS))
seeds = st.integers(0, 2**32)
styles = st.sampled_from(
    [
        {},
        {"luck": 0.6, "fives": 0.3, "greed": 0.7},
        {"luck": 0.9, "fives": 0.05, "greed": 1.0},
    ]
)


def game_of(rules: str, players: int, seed: int, style: dict, leave: float = 0.0):
    names = ["ann", "bob", "cat", "dan", "eve", "fay", "gus", "hal"][:players]
    return play(rules, names, random.Random(seed), leave=leave, **style)


@given(dice5, st.sampled_from(UPPER), st.booleans())
def test_classic_upper_formula_over_all_dice(dice, row, first):
    f = FACE[row]
    assert get_rules("classic").made_value(row, dice, first) == (dice.count(f) - 3) * f


@given(st.sampled_from(["yatzy", "yahtzee", "scandinavian"]), dice5, st.sampled_from(UPPER))
def test_sum_upper_rows_over_all_dice(rules, dice, row):
    f = FACE[row]
    assert get_rules(rules).made_value(row, dice, False) == dice.count(f) * f


@given(rule_names, dice5, st.booleans(), st.randoms(use_true_random=False))
def test_dice_order_never_matters(rules, dice, first, rnd):
    rs = get_rules(rules)
    shuffled = list(dice)
    rnd.shuffle(shuffled)
    for row in rs.rows:
        assert rs.made_value(row, dice, first) == rs.made_value(row, shuffled, first)


@given(dice5)
def test_first_throw_doubles_exactly_the_classic_lower_figures(dice):
    rs = get_rules("classic")
    for row in LOWER:
        later = rs.made_value(row, dice, False)
        first = rs.made_value(row, dice, True)
        if later is None:
            assert first is None
        elif row == "chance":
            assert first == later
        else:
            premium = 50 if row == "poker" else 0
            assert first - premium == 2 * (later - premium)


@SETTINGS
@given(rule_names, st.integers(1, 4), seeds, styles, st.booleans())
def test_total_is_upper_plus_bonus_plus_lower_plus_extra(rules, players, seed, style, leave):
    game, actions = game_of(rules, players, seed, style, leave=0.01 if leave else 0.0)
    rs = game.rules
    # Every prefix state, not only the end.
    state = Game.new(rules, game.players)
    for action in [None, *actions]:
        if action is not None:
            state, _ = state.apply(action)
        for card in state.cards:
            t = state.totals(card.name)
            assert t.total == t.upper + t.bonus + t.lower + t.extra
            assert t.upper == sum(card.rows[r] or 0 for r in rs.upper)
            assert t.lower == sum(card.rows[r] or 0 for r in rs.lower)
            assert t.bonus in (0, rs.bonus)
    standings = state.standings()
    assert abs(sum(s.settlement for s in standings)) < 1e-6
    assert min(s.rank for s in standings) == 1


@SETTINGS
@given(rule_names, st.integers(1, 4), seeds, styles)
def test_replay_is_deterministic_and_snapshots_round_trip(rules, players, seed, style):
    game, actions = game_of(rules, players, seed, style, leave=0.005)
    again = Game.replay(rules, game.players, actions)
    assert again == game
    assert again.to_dict() == game.to_dict()
    doc = json.loads(json.dumps(document(rules, game.players, actions)))
    assert result(run(doc)) == result(game)
    assert json.dumps(result(run(doc))) == json.dumps(result(game))
    restored = Game.from_dict(json.loads(json.dumps(game.to_dict())))
    assert restored == game
    assert restored.seq == game.seq == len(actions)
    # Mid-game snapshots too: the restored game plays on identically.
    cut = random.Random(seed).randrange(len(actions) + 1)
    mid = Game.replay(rules, game.players, actions[:cut])
    mid2 = Game.from_dict(json.loads(json.dumps(mid.to_dict())))
    for action in actions[cut:]:
        mid, _ = mid.apply(action)
        mid2, _ = mid2.apply(action)
    assert mid2.to_dict() == mid.to_dict() == game.to_dict()


ints = st.integers(-2, 8)
any_action = st.one_of(
    st.builds(
        Roll,
        st.sampled_from(["ann", "bob", "zed"]),
        st.lists(ints, max_size=6).map(tuple),
        st.lists(st.integers(-1, 6), max_size=6).map(tuple),
    ),
    st.builds(
        Score, st.sampled_from(["ann", "bob", "zed"]), st.sampled_from([*UPPER, *LOWER, "x"])
    ),
    st.builds(Pass, st.sampled_from(["ann", "bob", "zed"])),
    st.builds(Leave, st.sampled_from(["ann", "bob", "zed"])),
)


@SETTINGS
@given(rule_names, seeds, st.integers(0, 120), st.lists(any_action, min_size=1, max_size=8))
def test_an_illegal_action_raises_game_error_and_changes_nothing(rules, seed, steps, attempts):
    rng = random.Random(seed)
    game = Game.new(rules, ["ann", "bob"])
    for _ in range(steps):
        if game.finished:
            break
        game, _ = game.apply(legal_action(game, rng, luck=0.5, fives=0.2, greed=0.5))
    for action in attempts:
        before = game.to_dict()
        try:
            after, _ = game.apply(action)
        except GameError as exc:
            message = str(exc)
        else:
            assert after.seq == game.seq + 1
            game = after
            continue
        assert message
        assert "\n" not in message
        assert game.to_dict() == before


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=12,
)
action_like = st.fixed_dictionaries(
    {"player": st.sampled_from(["ann", "bob", 3, None])},
    optional={
        "roll": st.one_of(json_values, st.lists(st.integers(0, 7), max_size=6)),
        "hold": st.one_of(json_values, st.lists(st.integers(-1, 5), max_size=6)),
        "score": st.one_of(json_values, st.sampled_from([*UPPER, *LOWER])),
        "pass": json_values,
        "leave": json_values,
    },
)


@SETTINGS
@given(rule_names, st.lists(st.one_of(action_like, json_values), max_size=10))
def test_any_json_is_a_result_or_a_replay_error(rules, actions):
    doc = {"rules": rules, "players": ["ann", "bob"], "actions": actions}
    try:
        game = run(doc)
    except ReplayError as exc:
        message = str(exc)
    else:
        assert result(game)["rules"] == rules
        return
    assert message.startswith(("action ", "input: "))


@SETTINGS
@given(rule_names, st.integers(1, 5), seeds, styles)
def test_random_legal_games_end_after_the_right_number_of_turns(rules, players, seed, style):
    rng = random.Random(seed)
    names = ["ann", "bob", "cat", "dan", "eve"][:players]
    game = Game.new(rules, names)
    first_complete_round = None
    while not game.finished:
        before = game
        game, event = game.apply(legal_action(game, rng, **style))
        if (
            isinstance(event, Scored)
            and first_complete_round is None
            and game.card_of(event.player).complete
        ):
            first_complete_round = before.round
    turns = [c.turns for c in game.cards]
    if rules != "banked":
        assert turns == [len(game.rules.rows)] * players
        assert turns[0] == (13 if rules == "yahtzee" else 15)
        assert all(c.complete for c in game.cards)
    elif first_complete_round is not None:
        # The round in which someone completed every figure was played out, no more.
        assert turns == [first_complete_round] * players
        assert game.round == first_complete_round
    else:
        assert turns == [40] * players
        assert game.round == 40
    if rules == "banked":
        assert all(c.complete for c in game.cards)  # penalties fill the rest
        assert all(c.bank >= 0 for c in game.cards)


@SETTINGS
@given(
    st.one_of(
        json_values,
        st.fixed_dictionaries(
            {},
            optional={
                "rules": st.one_of(rule_names, json_values),
                "players": st.one_of(st.lists(st.sampled_from(["ann", "bob", ""])), json_values),
                "actions": st.one_of(st.lists(action_like, max_size=3), json_values),
                "extra": json_values,
            },
        ),
    )
)
def test_any_document_is_a_result_or_a_replay_error(doc):
    try:
        game = run(doc)
    except ReplayError as exc:
        message = str(exc)
    else:
        assert result(game)["players"]
        return
    assert message.startswith(("action ", "input: "))
