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

from bot.engine import Game
from bot.strategy import Hold, Record, ValueTable, choose, compute, load, save
from bot.strategy.analysis import analyse
from cogs.play._hint import hint_embed

PLAYERS = 8  # the largest table: the longest log a hint or the analysis replays


class _Ready:
    """A SolutionCache stand-in that already holds the table (the hint never waits)."""

    def __init__(self, table: ValueTable) -> None:
        self.table = table

    def get(self, _rules: str) -> ValueTable | None:
        return self.table


def _table(rules: str, directory: Path) -> ValueTable | None:
    table = load(rules, directory)
    if table is None and rules == "classic":
        table = compute(rules)
        save(table, directory)
    return table


def _late_game(table: ValueTable, rng: random.Random) -> Game:
    """Eight normal players, stopped in the last round (a long log to replay)."""
    players = [str(n) for n in range(1, PLAYERS + 1)]
    game = Game.new(table.rules, players)
    rows = len(table.rules.rows)
    while not (game.round == rows and game.player == players[-1] and game.dice):
        decision = choose("normal", game, table, rng)
        if isinstance(decision, Hold):
            hold = decision.positions if game.dice else ()
            game, _ = game.roll(
                game.player, hold, [rng.randint(1, 6) for _ in range(5 - len(hold))]
            )
        else:
            assert isinstance(decision, Record)
            game, _ = game.score(game.player, decision.row)
    return game


def _finish(game: Game, table: ValueTable, rng: random.Random) -> Game:
    while not game.finished:
        decision = choose("normal", game, table, rng)
        if isinstance(decision, Hold):
            hold = decision.positions if game.dice else ()
            game, _ = game.roll(
                game.player, hold, [rng.randint(1, 6) for _ in range(5 - len(hold))]
            )
        else:
            assert isinstance(decision, Record)
            game, _ = game.score(game.player, decision.row)
    return game


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
        game = _late_game(table, rng)
        tables = _Ready(table)
        hint_med, hint_max = _ms(lambda: hint_embed(tables, game, game.player, "en"), 20)  # noqa: B023
        step_med, _ = _ms(lambda: choose("perfect", game, table, random.Random(1)), 50)  # noqa: B023
        done = _finish(game, table, rng)
        decisions = len(done.history)
        an_med, an_max = _ms(lambda: analyse(table, done), 3)  # noqa: B023
        print(
            f"{rules:12s} hint {hint_med:6.1f} ms (max {hint_max:.1f}) · perfect step"
            f" {step_med:5.2f} ms · analysis of {PLAYERS} players, {decisions} actions"
            f" {an_med:6.0f} ms (max {an_max:.0f})"
        )
