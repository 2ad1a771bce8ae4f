"""How fast the engine folds games: a stored game is rebuilt by replay on every restart,
and `options()` runs on every click, so both must stay far below a Discord round trip.

Reports, per rule set, the median time to replay a whole 4-player game from its
actions, and the median `options()` call over every state of those games.
"""

from __future__ import annotations

import random
import statistics
import time

from bot.engine import RULESETS, Action, Game, Pass, Score

GAMES = 20
PLAYERS = ["ann", "bob", "cat", "dan"]


def _random_game(rules: str, seed: int) -> tuple[Game, list[Action]]:
    rng = random.Random(seed)
    game = Game.new(rules, PLAYERS)
    actions: list[Action] = []
    while not game.finished:
        who = game.player
        options = game.options()
        action: Action
        if game.can_roll(who) and (not options or rng.random() < 0.5):
            action = game.draw(who, rng)
        elif options:
            action = Score(who, max(options, key=lambda o: o.points).row)
        else:
            action = Pass(who)
        game, _ = game.apply(action)
        actions.append(action)
    return game, actions


def main() -> None:
    for rules in RULESETS:
        replays: list[float] = []
        options: list[float] = []
        lengths: list[int] = []
        for seed in range(GAMES):
            final, actions = _random_game(rules, seed)
            lengths.append(len(actions))
            start = time.perf_counter()
            again = Game.replay(rules, PLAYERS, actions)
            replays.append(time.perf_counter() - start)
            assert again == final
            state = Game.new(rules, PLAYERS)
            for action in actions:
                state, _ = state.apply(action)
                start = time.perf_counter()
                state.options()
                options.append(time.perf_counter() - start)
        print(
            f"{rules:>13}: replay of a 4-player game ({statistics.median(lengths):.0f} actions)"
            f" {statistics.median(replays) * 1e3:.2f} ms median;"
            f" options() {statistics.median(options) * 1e6:.1f} µs median,"
            f" {max(options) * 1e6:.1f} µs max"
        )
