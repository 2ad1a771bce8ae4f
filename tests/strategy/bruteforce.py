"""An independent expectimax over engine `Game`s, for cards with a few free rows.

It shares nothing with the solver but the engine: legal rows and points come from
`Game.options()` / `Game.score()`, throws from `Game.roll()`, probabilities from counting
ordered dice.
"""

from __future__ import annotations

import itertools
from collections import Counter
from dataclasses import replace
from fractions import Fraction
from functools import cache

from bot.engine import Card, Game


@cache
def throws_of(n: int) -> tuple[tuple[tuple[int, ...], float], ...]:
    """Each sorted result of throwing n dice with its probability."""
    counts = Counter(tuple(sorted(t)) for t in itertools.product(range(1, 7), repeat=n))
    return tuple((k, float(Fraction(c, 6**n))) for k, c in counts.items())


class Brute:
    def __init__(self) -> None:
        self.turn_memo: dict[object, float] = {}
        self.memos: dict[object, dict[object, float]] = {}

    def _memo(self, game: Game) -> dict[object, float]:
        card = game.card
        return self.memos.setdefault((tuple(card.rows.items()), card.extra), {})

    def start(self, game: Game) -> float:
        """Expected final total from a turn start (or the final total when finished)."""
        if game.finished:
            return float(game.standings()[0].totals.total)
        card = game.card
        key = (tuple(card.rows.items()), card.extra)
        if key not in self.turn_memo:
            self.turn_memo[key] = sum(p * self.after(game, dice, 1) for dice, p in throws_of(5))
        return self.turn_memo[key]

    def after(self, game: Game, dice: tuple[int, ...], throws: int) -> float:
        """Best expected final total holding `dice` after throw `throws`."""
        memo = self._memo(game)
        key = (dice, throws)
        if key in memo:
            return memo[key]
        g = replace(game, dice=dice, throws=throws)
        best = max(self.start(g.score(g.player, o.row)[0]) for o in g.options())
        if throws < 3:
            for n in range(6):  # keeping all five included: the solver drops it
                for keep in set(itertools.combinations(dice, n)):
                    best = max(best, self.hold(game, keep, throws))
        memo[key] = best
        return best

    def hold(self, game: Game, keep: tuple[int, ...], throws: int) -> float:
        """Expected final total keeping `keep` after throw `throws` and throwing the rest."""
        memo = self._memo(game)
        key = ("hold", tuple(sorted(keep)), throws)
        if key not in memo:
            memo[key] = sum(
                p * self.after(game, tuple(sorted(keep + rest)), throws + 1)
                for rest, p in throws_of(5 - len(keep))
            )
        return memo[key]

    def record(self, game: Game, dice: tuple[int, ...], throws: int, row: str) -> float:
        g = replace(game, dice=dice, throws=throws)
        return self.start(g.score(g.player, row)[0])


def game_with(rules: str, rows: dict[str, int | None], extra: int = 0) -> Game:
    game = Game.new(rules, ["p"])
    full = dict.fromkeys(game.rules.rows)
    full.update(rows)
    card = Card("p", full, extra=extra)
    return replace(game, cards=(card,))
