"""A finished table's per-seat results, as the store writes them with the last action."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from db import SeatResult


def seat_results(table: Any, ev_loss: Mapping[str, float] | None = None) -> list[SeatResult]:
    """One `SeatResult` per engine seat (seat order) of a finished `cogs.play.Table`.

    `ev_loss` maps an engine player name to the expected points lost per decision (the
    play cog's post-game analysis, `cogs/play/_analysis.py`); a seat without a value is
    stored as not analysed (NULL), as is every seat when there was no analysis."""
    game = table.game
    if game is None or not game.finished:
        raise ValueError("results exist only for a finished game")
    seats = {s.player: s for s in table.seats}
    losses = ev_loss or {}
    out = []
    for index, standing in enumerate(game.standings()):
        seat = seats.get(standing.name)
        human = standing.name.isdigit() and not (seat and seat.is_bot)
        out.append(
            SeatResult(
                seat=index,
                player_id=int(standing.name) if human else None,
                name=seat.name if seat else standing.name,
                is_bot=not human,
                total=standing.totals.total,
                rank=standing.rank,
                settlement=float(standing.settlement),
                ev_loss=losses.get(standing.name) if human else None,
            )
        )
    return out
