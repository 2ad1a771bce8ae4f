"""A decision of a policy as the engine action that carries it out."""

from __future__ import annotations

import random

from bot.engine import DICE, Action, DiceSource, Game, Pass, Roll, Score

from .moves import Decision, Hold, Level, PassTurn, Record
from .policy import choose
from .table import ValueTable


def to_action(game: Game, decision: Decision, dice: DiceSource) -> Action:
    """The engine action for `decision` by the player to move (a hold throws the rest)."""
    player = game.player
    if isinstance(decision, Record):
        return Score(player, decision.row)
    if isinstance(decision, PassTurn):
        return Pass(player)
    assert isinstance(decision, Hold)
    hold = tuple(sorted(decision.positions)) if game.dice else ()
    return Roll(player, tuple(dice.randint(1, 6) for _ in range(DICE - len(hold))), hold)


def next_action(
    level: Level, game: Game, table: ValueTable | None, rng: random.Random, dice: DiceSource
) -> Action:
    """What a computer player of `level` does next, as an engine action."""
    return to_action(game, choose(level, game, table, rng), dice)
