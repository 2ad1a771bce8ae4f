"""Random LEGAL games of any rule set, for tests anywhere (import `play` or `legal_action`).

The generator only ever asks the engine what is allowed (`options`, `throws_left`,
`can_pass`), so a game it produces is legal by construction; `luck` makes it aim a
throw at a free row's figure (any dice values are legal in a replay), which is what
lets `banked` games actually complete every figure and yatzy games see jokers.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from bot.engine import FACE, Action, Game, Leave, Pass, Roll, Score
from bot.engine.rules import RuleSet


def figure_dice(row: str, rng: random.Random) -> tuple[int, ...]:
    """Five dice (shuffled) that make `row`'s figure in every rule set."""
    faces = list(range(1, 7))
    a, b, c = rng.sample(faces, 3)
    if row in FACE:
        f = FACE[row]
        dice = [f, f, f, rng.randint(1, 6), rng.randint(1, 6)]
    elif row == "pair":
        dice = [a, a, b, c, rng.randint(1, 6)]
    elif row == "two_pairs":
        dice = [a, a, b, b, c]
    elif row == "three_of_a_kind":
        dice = [a, a, a, b, c]
    elif row == "four_of_a_kind":
        dice = [a, a, a, a, b]
    elif row == "full_house":
        dice = [a, a, a, b, b]
    elif row == "small_straight":
        dice = [1, 2, 3, 4, 5]
    elif row == "large_straight":
        dice = [2, 3, 4, 5, 6]
    elif row == "poker":
        dice = [a] * 5
    else:
        dice = [rng.randint(1, 6) for _ in range(5)]
    rng.shuffle(dice)
    return tuple(dice)


def _targets(game: Game) -> list[str]:
    rs: RuleSet = game.rules
    card = game.card
    free = card.free(rs.rows)
    if rs.upper_first and card.free(rs.upper):
        free = card.free(rs.upper)
    return free


def _lucky(game: Game, rng: random.Random, fives: float) -> Roll:
    if fives and rng.random() < fives:  # five of a kind: jokers and +100s
        return Roll(game.player, (rng.randint(1, 6),) * 5)
    return Roll(game.player, figure_dice(rng.choice(_targets(game)), rng))


def legal_action(  # noqa: PLR0911 - one legal action per situation
    game: Game,
    rng: random.Random,
    *,
    luck: float = 0.0,
    leave: float = 0.0,
    greed: float = 0.0,
    fives: float = 0.0,
) -> Action:
    """One random legal action for the game's current state (the game must not be over).

    luck: chance that a throw is aimed at a free row's figure (all five dice thrown);
    fives: of those, the chance of five of a kind; greed: chance to record the best
    option rather than a random one; leave: chance that someone leaves.
    """
    assert not game.finished
    if leave and rng.random() < leave:
        stayers = [c.name for c in game.cards if not c.left]
        return Leave(rng.choice(stayers))
    player = game.player
    if not game.dice:
        if luck and rng.random() < luck:
            return _lucky(game, rng, fives)
        hold: tuple[int, ...] = ()
        return Roll(player, tuple(rng.randint(1, 6) for _ in range(5)), hold)
    options = game.options()
    can_throw = game.throws_left() > 0
    if can_throw and (not options or rng.random() < 0.5):
        if luck and rng.random() < luck:
            return _lucky(game, rng, fives)
        hold = tuple(sorted(rng.sample(range(5), rng.randint(0, 5))))
        values = tuple(rng.randint(1, 6) for _ in range(5 - len(hold)))
        return Roll(player, values, hold)
    if game.rules.banked and (not options or rng.random() < 0.05):
        return Pass(player)
    assert options, "a non-banked turn always has a row to record"
    if greed and rng.random() < greed:
        best = max(options, key=lambda o: o.points + o.joker_bonus)
        return Score(player, best.row)
    return Score(player, rng.choice(options).row)


def play(
    rules: RuleSet | str,
    players: Sequence[str],
    rng: random.Random,
    *,
    luck: float = 0.0,
    leave: float = 0.0,
    greed: float = 0.0,
    fives: float = 0.0,
    max_actions: int = 100_000,
) -> tuple[Game, list[Action]]:
    """A whole random legal game: the final state and the actions that made it."""
    game = Game.new(rules, players)
    actions: list[Action] = []
    while not game.finished:
        if len(actions) >= max_actions:
            raise AssertionError(f"no end after {max_actions} actions")
        action = legal_action(game, rng, luck=luck, leave=leave, greed=greed, fives=fives)
        game, _ = game.apply(action)
        actions.append(action)
    return game, actions
