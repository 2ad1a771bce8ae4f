"""The table in a channel: seats, the lobby, turns, deadlines and strikes (pure)."""

from .model import (
    ACTIVE,
    AWAY_AFTER,
    COMPUTER_LEVELS,
    LOBBY_TTL,
    MAX_SEATS,
    OVERDUE_GRACE,
    SCORECARD_ROUNDS_FROM,
    Match,
    Opening,
    Seat,
    rated_id,
    rated_level,
)

__all__ = [
    "ACTIVE",
    "AWAY_AFTER",
    "COMPUTER_LEVELS",
    "LOBBY_TTL",
    "MAX_SEATS",
    "OVERDUE_GRACE",
    "SCORECARD_ROUNDS_FROM",
    "Match",
    "Opening",
    "Seat",
    "rated_id",
    "rated_level",
]
