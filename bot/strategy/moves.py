"""What a player can do inside a turn, and the keeps of a throw: shared by every policy."""

from __future__ import annotations

import itertools
from collections import Counter
from dataclasses import dataclass
from functools import cache
from typing import Literal

Level = Literal["easy", "normal", "perfect"]
LEVELS: tuple[Level, ...] = ("easy", "normal", "perfect")


@dataclass(frozen=True)
class Hold:
    """Hold these dice positions (0-based) and throw the others."""

    positions: tuple[int, ...]


@dataclass(frozen=True)
class Record:
    """Record this row now."""

    row: str


@dataclass(frozen=True)
class PassTurn:
    """End the turn without recording (banked only)."""


Decision = Hold | Record | PassTurn


@dataclass(frozen=True)
class Choice:
    decision: Decision
    expected: float  # expected final score of the card with this choice and best play after


@dataclass(frozen=True)
class Advice:
    """The hint: the best choice first, then the runners-up (at most three in all)."""

    choices: tuple[Choice, ...]

    @property
    def best(self) -> Choice:
        return self.choices[0]


@cache
def sub_keeps(dice: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """Distinct sub-multisets of 0 … 4 of the sorted dice."""
    found: dict[tuple[int, ...], None] = {}
    for n in range(5):
        for combo in itertools.combinations(dice, n):
            found[combo] = None
    return tuple(found)


def positions_of(dice: tuple[int, ...], keep: tuple[int, ...]) -> tuple[int, ...]:
    """Positions in `dice` showing the multiset `keep` (the leftmost ones)."""
    need = Counter(keep)
    out = []
    for i, d in enumerate(dice):
        if need[d] > 0:
            need[d] -= 1
            out.append(i)
    return tuple(out)
