"""Post-game analysis: the expected points each decision lost against perfect play.

A decision is what Verhoeff's Yahtzee proficiency test scores: the dice kept before a
throw after the first (`Hold`) and the row recorded (`Record`). The turn's first throw and
leaving are not choices. The decisions are read from the game's action log (the store's
`actions`, folded from the empty game), so the analysis of a stored game is the same
whenever it runs.

    report = analyse(table, Game.new(rules, seats), actions, players={"123"})
    report["123"].mean      # expected points lost per decision
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass

from bot.engine import Action, Game, Roll, Score

from .moves import Decision, Hold, Record
from .policy import loss
from .table import ValueTable


@dataclass(frozen=True)
class Proficiency:
    """One player's decisions against the table."""

    decisions: int
    lost: float  # expected points lost over all of them

    @property
    def mean(self) -> float:
        """Mean loss per choice (0 without decisions: nothing was lost)."""
        return self.lost / self.decisions if self.decisions else 0.0


def decisions(start: Game, actions: Iterable[Action]) -> Iterator[tuple[Game, Decision]]:
    """Each decision of the log (`actions` folded from `start`) with the game just before it."""
    state = start
    for action in actions:
        if isinstance(action, Roll) and state.dice:
            yield state, Hold(tuple(action.hold))
        elif isinstance(action, Score):
            yield state, Record(action.row)
        state, _ = state.apply(action)


def analyse(
    table: ValueTable,
    start: Game,
    actions: Iterable[Action],
    players: Collection[str] | None = None,
) -> dict[str, Proficiency]:
    """Every (or each listed) player's proficiency over the whole log.

    A player listed without decisions (left before their first choice) gets none.
    """
    wanted = set(start.players if players is None else players)
    lost = dict.fromkeys(wanted, 0.0)
    count = dict.fromkeys(wanted, 0)
    for before, decision in decisions(start, actions):
        player = before.player
        if player not in wanted:
            continue
        try:
            lost[player] += loss(table, before, decision)
        except ValueError:  # a choice the table does not model (a forced joker row)
            continue
        count[player] += 1
    return {p: Proficiency(count[p], lost[p]) for p in wanted}


def last_decision(
    start: Game, actions: Iterable[Action], player: str
) -> tuple[Game, Decision] | None:
    """`player`'s most recent decision and the game before it (None: none yet)."""
    found = None
    for before, decision in decisions(start, actions):
        if before.player == player:
            found = (before, decision)
    return found
