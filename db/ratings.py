"""The old stores' migration V7 (rate the results stored before ratings existed): the
rated ids of a stored game's seats. Only `db/sqlite` and `db/postgres` use it; it goes
with them (the one store's Alembic history starts after V8). The rating policy itself is
the model's (`bot.match.ratings`), the same function a live finish uses.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from bot.match import Match, Seat, rated_id
from bot.match.ratings import HistoricGame, rate_history
from bot.records import GameRecord


def historic_ids(state: Mapping[str, Any], seats: Sequence[tuple[int, int | None, bool]]) -> (
    list[int]
):
    """The rated ids of a stored game's seats, (seat, player_id, is_bot) each: a computer
    seat's level comes from the game's snapshot (read through its match)."""
    rated: list[int] = []
    if any(is_bot for _, _, is_bot in seats):  # only a computer seat needs its snapshot
        when = datetime.min.replace(tzinfo=UTC)  # none of these columns is read here
        stored = GameRecord(0, None, 0, 0, "", "finished", 0, dict(state), when, when)
        match = Match.from_record(stored)
        rated = match.rated_players() if match.game is not None else []
    unknown = rated_id(Seat(0, "", is_bot=True))  # a seat the snapshot does not name
    return [
        player_id
        if not is_bot and player_id is not None
        else (rated[seat] if 0 <= seat < len(rated) else unknown)
        for seat, player_id, is_bot in seats
    ]


__all__ = ["HistoricGame", "historic_ids", "rate_history"]
