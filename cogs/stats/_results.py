"""A finished table's per-seat results, as the store writes them with the last action, and
the strategy analysis behind the skill metric (expected points lost per decision)."""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from bot.engine import Game, Roll, Score
from db import SeatResult

log = logging.getLogger(__name__)

# Strategy tables by rule set, filled from the on-disk cache when the stats cog loads
# (`load_cached_tables`). Never computed here: a table can take a minute to solve.
TABLES: dict[str, Any] = {}


def load_cached_tables(cache_dir: Path) -> dict[str, Any]:
    """The strategy tables already cached in `cache_dir` (run it off the event loop)."""
    if not cache_dir.is_dir():
        return {}
    from bot.strategy import EXACT, load  # noqa: PLC0415 - numpy only when analysing

    found = {}
    for rules in EXACT:
        table = load(rules, cache_dir)
        if table is not None:
            found[rules] = table
    return found


def use_tables(found: Mapping[str, Any]) -> None:
    """Turn on the analysis for these rule sets."""
    TABLES.update(found)


def seat_losses(game: Game, table: Any) -> dict[str, float]:
    """Each player's mean expected points lost per decision, replaying `game.history`
    against the strategy `table` (perfect play loses 0).

    A decision is what to hold before a re-throw and which row to record; a turn's first
    throw is no choice, and a leave or a pass is not judged."""
    from bot.strategy import Hold, Record, loss  # noqa: PLC0415 - numpy only when analysing

    lost: dict[str, float] = defaultdict(float)
    count: dict[str, int] = defaultdict(int)
    replay = Game.new(game.rules, game.players)
    for action in game.history:
        decision: Any = None
        if isinstance(action, Roll) and replay.dice:
            decision = Hold(tuple(action.hold))
        elif isinstance(action, Score):
            decision = Record(action.row)
        if decision is not None:
            try:
                lost[action.player] += loss(table, replay, decision)
                count[action.player] += 1
            except ValueError:  # a position the table does not judge (e.g. a joker row)
                log.debug("not judged: %s", action)
        replay, _ = replay.apply(action)
    return {player: lost[player] / n for player, n in count.items()}


def analysis(game: Game) -> dict[str, float]:
    """The per-seat loss when a cached table exists for the game's rules, else {}."""
    table = TABLES.get(game.rules.name)
    if table is None:
        return {}
    try:
        return seat_losses(game, table)
    except Exception:  # the league must never lose a game's result over its analysis
        log.exception("could not analyse a %s game", game.rules.name)
        return {}


def seat_results(table: Any, ev_loss: Mapping[str, float] | None = None) -> list[SeatResult]:
    """One `SeatResult` per engine seat (seat order) of a finished `cogs.play.Table`.

    `ev_loss` maps an engine player name to the expected points lost per decision; by
    default the cached strategy table's analysis (`analysis`), when there is one. Seats
    without a value store NULL (not analysed)."""
    game = table.game
    if game is None or not game.finished:
        raise ValueError("results exist only for a finished game")
    seats = {s.player: s for s in table.seats}
    losses = analysis(game) if ev_loss is None else ev_loss
    out = []
    for index, standing in enumerate(game.standings()):
        seat = seats.get(standing.name)
        human = standing.name.isdigit() and not (seat and seat.is_bot)
        out.append(
            SeatResult(
                seat=index,
                player_id=int(standing.name) if standing.name.isdigit() else None,
                name=seat.name if seat else standing.name,
                is_bot=not human,
                total=standing.totals.total,
                rank=standing.rank,
                settlement=float(standing.settlement),
                ev_loss=losses.get(standing.name),
            )
        )
    return out
