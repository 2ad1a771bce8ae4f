"""The opening throw that decides who begins (docs/rules.md, "Seat order")."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .game import DICE, DiceSource


@dataclass(frozen=True)
class OpeningThrow:
    rounds: tuple[tuple[tuple[str, tuple[int, ...]], ...], ...]  # each round: (player, dice)
    starter: str
    seats: tuple[str, ...]  # join order rotated to start at the starter


def opening_throw(players: Sequence[str], source: DiceSource) -> OpeningThrow:
    """Everyone throws five dice; the highest sum starts; ties throw again among the tied."""
    contenders = list(players)
    rounds = []
    while True:
        throws = [(p, tuple(source.randint(1, 6) for _ in range(DICE))) for p in contenders]
        rounds.append(tuple(throws))
        best = max(sum(d) for _, d in throws)
        contenders = [p for p, d in throws if sum(d) == best]
        if len(contenders) == 1:
            break
    starter = contenders[0]
    i = list(players).index(starter)
    seats = tuple(players[i:]) + tuple(players[:i])
    return OpeningThrow(tuple(rounds), starter, seats)
