"""How fast the engine folds games: a stored game is rebuilt by replay on every restart,
and `options()` runs on every click, so both must stay far below a Discord round trip.

Reports, per rule set, the median time to replay a whole 4-player game from its
actions, and the median `options()` call over every state of those games; and the
replay command's time per 10,000 actions of long 8-player files.
"""

from __future__ import annotations

import json
import random
import statistics
import time
from typing import cast

from bot.engine import RULESETS, Action, Game, Pass, Score, replay

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
    replay_files()


def _long_document(seed: int) -> dict[str, object]:
    """A valid replay file of an 8-player banked game (the longest games there are: banked
    throws and up to 40 rounds), as `python -m bot replay` reads it."""
    players = [f"player {i}" for i in range(8)]
    rng = random.Random(seed)
    game = Game.new("banked", players)
    actions: list[dict[str, object]] = []
    while not game.finished:
        who = game.player
        options = [o for o in game.options() if o.made]
        action: Action
        if game.can_roll(who) and (not options or rng.random() < 0.7):
            action = game.draw(who, rng)
        elif options:
            action = Score(who, max(options, key=lambda o: o.points).row)
        else:
            action = Pass(who)
        game, _ = game.apply(action)
        actions.append(action.to_json())
    return {"rules": "banked", "players": players, "actions": actions}


def replay_files() -> None:
    """The replay command's fold of long files: its time per 10,000 actions (it grows
    linearly with the actions: the engine keeps no history)."""
    documents = [_long_document(seed) for seed in range(6)]
    total = sum(len(cast("list[object]", d["actions"])) for d in documents)
    texts = [json.dumps(d) for d in documents]
    start = time.perf_counter()
    for text in texts:
        replay.run(json.loads(text))
    seconds = time.perf_counter() - start
    print(
        f"{'replay':>13}: {total} actions of {len(documents)} 8-player banked files,"
        f" {seconds / total * 10_000:.3f} s per 10,000 actions"
    )
