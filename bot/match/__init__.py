"""The table in a channel: seats, the lobby, turns, deadlines and strikes, and who may do
what (pure)."""

from .model import (
    ACTIVE,
    AWAY_AFTER,
    COMPUTER_LEVELS,
    DEFAULT_RULES,
    LOBBY_TTL,
    MAX_SEATS,
    OVERDUE_GRACE,
    SCORECARD_ROUNDS_FROM,
    Caller,
    Match,
    Opening,
    Seat,
    known_rules,
    rated_id,
    rated_level,
    rules_or_default,
)

__all__ = [
    "ACTIVE",
    "AWAY_AFTER",
    "COMPUTER_LEVELS",
    "DEFAULT_RULES",
    "LOBBY_TTL",
    "MAX_SEATS",
    "OVERDUE_GRACE",
    "SCORECARD_ROUNDS_FROM",
    "Caller",
    "Match",
    "Opening",
    "Seat",
    "known_rules",
    "rated_id",
    "rated_level",
    "rules_or_default",
]
