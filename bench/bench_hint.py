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

from bot.engine import Action, Game, Roll, Score
from bot.strategy import Hold, Record, ValueTable, choose, compute, load, save
from bot.strategy.analysis import analyse
from cogs.play._hint import answer

PLAYERS = 8  # the largest table: the longest log a hint or the analysis replays


def _table(rules: str, directory: Path) -> ValueTable | None:
    table = load(rules, directory)
    if table is None and rules == "classic":
        table = compute(rules)
        save(table, directory)
    return table


def _play(
    game: Game,
    table: ValueTable,
    rng: random.Random,
    log: list[Action],
    done: Callable[[Game], bool],
) -> Game:
    """Normal players' moves until `done`, each appended to `log` (a game keeps no history)."""
    while not done(game):
        decision = choose("normal", game, table, rng)
        action: Action
        if isinstance(decision, Hold):
            hold = tuple(decision.positions) if game.dice else ()
            action = Roll(game.player, tuple(rng.randint(1, 6) for _ in range(5 - len(hold))), hold)
        else:
            assert isinstance(decision, Record)
            action = Score(game.player, decision.row)
        game, _ = game.apply(action)
        log.append(action)
    return game


def _late_game(table: ValueTable, rng: random.Random, log: list[Action]) -> Game:
    """Eight normal players, stopped in the last round (a long log to replay)."""
    players = [str(n) for n in range(1, PLAYERS + 1)]
    rows = len(table.rules.rows)

    def last_round(game: Game) -> bool:
        return game.round == rows and game.player == players[-1] and bool(game.dice)

    return _play(Game.new(table.rules, players), table, rng, log, last_round)


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
        log: list[Action] = []
        game = _late_game(table, rng, log)
        shown = [a.to_json() for a in log]
        hint_med, hint_max = _ms(lambda: answer(table, game, shown, game.player, "en"), 20)  # noqa: B023
        step_med, _ = _ms(lambda: choose("perfect", game, table, random.Random(1)), 50)  # noqa: B023
        _play(game, table, rng, log, lambda g: g.finished)
        decisions = len(log)
        start = Game.new(table.rules, game.players)
        an_med, an_max = _ms(lambda: analyse(table, start, log), 3)  # noqa: B023
        print(
            f"{rules:12s} hint {hint_med:6.1f} ms (max {hint_max:.1f}) · perfect step"
            f" {step_med:5.2f} ms · analysis of {PLAYERS} players, {decisions} actions"
            f" {an_med:6.0f} ms (max {an_max:.0f})"
        )
