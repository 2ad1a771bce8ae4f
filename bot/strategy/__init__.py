"""Optimal play for dice poker: value tables, hints, loss per decision, computer players.

Pure Python + numpy: no asyncio. The bot runs `load_or_compute` / `load` in a worker
thread or process (a table takes seconds to compute, milliseconds to load) and keeps the
`ValueTable`; everything else is fast enough to call on the event loop with the table loaded.

Exact rule sets (`EXACT`: classic, yatzy, yahtzee, scandinavian) are solved by backward
dynamic programming over turn starts; the table maximises one player's expected final
score (solitaire: players do not interact in these rule sets, so each player is advised
from their own card). `banked` has no table: its computer player and its hint
(`advise_banked`) use the policy documented in `bot.strategy.banked`.

    table = load_or_compute("yatzy", Path("data/strategy"))
    table.optimum                         # expected score of an empty card, 316.6255…
    table.expected(game.card)             # from this card's turn start
    advise(table, game).best.decision     # Hold(positions) or Record(row)
    loss(table, game_before, Record("chance"))
    choose("perfect", game, table, rng)   # a computer player's next decision
"""

from .banked import advise_banked
from .moves import LEVELS, Advice, Choice, Decision, Hold, Level, PassTurn, Record
from .policy import advise, choose, loss, value_of
from .table import (
    BY_SPEED,
    EXACT,
    FORMAT_VERSION,
    ValueTable,
    cache_table,
    compute,
    computing,
    load,
    load_or_compute,
    path_for,
    save,
)

__all__ = [
    "BY_SPEED",
    "EXACT",
    "FORMAT_VERSION",
    "LEVELS",
    "Advice",
    "Choice",
    "Decision",
    "Hold",
    "Level",
    "PassTurn",
    "Record",
    "ValueTable",
    "advise",
    "advise_banked",
    "cache_table",
    "choose",
    "compute",
    "computing",
    "load",
    "load_or_compute",
    "loss",
    "path_for",
    "save",
    "value_of",
]
