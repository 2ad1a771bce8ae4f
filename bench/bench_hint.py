"""What the strategy features cost the bot: a hint, a computer player's step, the analysis.

`python -m bench hint`. Uses the tables cached in STRATEGY_DIR (default data/strategy);
classic is solved here when missing (about a second), other rule sets are skipped then.
"""

from __future__ import annotations

import os
import random
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from bot.engine import Action, Game
from bot.strategy import ValueTable, choose, compute, load, save
from bot.strategy.act import next_action
from bot.strategy.analysis import analyse
from cogs.play._hint import answer

PLAYERS = 8  # the largest table: the longest log a hint or the analysis replays


def _table(rules: str, directory: Path) -> ValueTable | None:
    table = load(rules, directory)
    if table is None and rules == "classic":
        table = compute(rules)
        save(table, directory)
    return table


def _play(game: Game, table: ValueTable, rng: random.Random, until: Callable[[Game], bool]
          ) -> tuple[Game, list[Action]]:  # fmt: skip
    """Normal players from `game` on until `until`; the game and the actions played."""
    actions: list[Action] = []
    while not game.finished and not until(game):
        action = next_action("normal", game, table, rng, rng)
        game, _ = game.apply(action)
        actions.append(action)
    return game, actions


def _late_game(table: ValueTable, rng: random.Random) -> tuple[Game, list[Action]]:
    """Eight normal players, stopped in the last round (a long log to replay)."""
    players = [str(n) for n in range(1, PLAYERS + 1)]
    rows = len(table.rules.rows)
    return _play(
        Game.new(table.rules, players),
        table,
        rng,
        lambda g: g.round == rows and g.player == players[-1] and bool(g.dice),
    )


def _ms(f: Callable[[], object], repeat: int) -> tuple[float, float]:
    times = []
    for _ in range(repeat):
        began = time.perf_counter()
        f()
        times.append((time.perf_counter() - began) * 1000)
    return statistics.median(times), max(times)


def main() -> None:
    directory = Path(os.environ.get("STRATEGY_DIR", "data/strategy"))
    for rules in ("classic", "yatzy", "yahtzee", "scandinavian"):
        table = _table(rules, directory)
        if table is None:
            print(f"{rules:12s} no cached table in {directory}: skipped")
            continue
        rng = random.Random(7)
        game, log = _late_game(table, rng)
        stored = [a.to_json() for a in log]  # what the hint reads from the store
        hint_med, hint_max = _ms(lambda: answer(table, game, stored, game.player, "en"), 20)  # noqa: B023
        step_med, _ = _ms(lambda: choose("perfect", game, table, random.Random(1)), 50)  # noqa: B023
        done, rest = _play(game, table, rng, lambda _g: False)
        start, actions = Game.new(table.rules, done.players), log + rest
        decisions = len(actions)
        an_med, an_max = _ms(lambda: analyse(table, start, actions, done.players), 3)  # noqa: B023
        print(
            f"{rules:12s} hint {hint_med:6.1f} ms (max {hint_max:.1f}) · perfect step"
            f" {step_med:5.2f} ms · analysis of {PLAYERS} players, {decisions} actions"
            f" {an_med:6.0f} ms (max {an_max:.0f})"
        )
