"""Solitaire games played through the engine by a computer player (tests, bench, CLI)."""

from __future__ import annotations

import random

from bot.engine import Game

from .policy import Hold, Level, PassTurn, Record, choose
from .table import Table


def play_solitaire(rules: str, level: Level, table: Table | None, rng: random.Random) -> int:
    """One game for one player; returns the final total."""
    game = Game.new(rules, ["solo"])
    while not game.finished:
        decision = choose(level, game, table, rng)
        if isinstance(decision, Hold):
            hold = decision.positions if game.dice else ()
            values = [rng.randint(1, 6) for _ in range(5 - len(hold))]
            game, _ = game.roll("solo", hold, values)
        elif isinstance(decision, Record):
            game, _ = game.score("solo", decision.row)
        elif isinstance(decision, PassTurn):
            game, _ = game.pass_turn("solo")
    return game.standings()[0].totals.total
