"""What both stores read alike: the migration files of a dialect, and the rows whose
columns need no conversion in either (a SQLite row and an asyncpg record are both read
by column name)."""

from __future__ import annotations

import re
from importlib import resources
from typing import Any, Protocol

from .store import DailyLine, StoredRating

_MIGRATION_NAME = re.compile(r"V(\d+)__\w+\.sql")


class Row(Protocol):
    def __getitem__(self, key: str, /) -> Any: ...


def migrations(package: str) -> list[tuple[int, str, str]]:
    """(version, file name, SQL) of every migration in `package`'s migrations/, in order."""
    folder = resources.files(package).joinpath("migrations")
    found = []
    for entry in folder.iterdir():
        match = _MIGRATION_NAME.fullmatch(entry.name)
        if match:
            found.append((int(match.group(1)), entry.name, entry.read_text(encoding="utf-8")))
    found.sort()
    versions = [v for v, _, _ in found]
    if versions != list(range(1, len(found) + 1)):
        raise RuntimeError(f"migrations must be numbered 1, 2, 3 … without gaps: {versions}")
    return found


def daily_line(row: Row, rank: int, position: int) -> DailyLine:
    return DailyLine(
        rank=rank,
        position=position,
        player_id=row["player_id"],
        name=row["name"],
        total=row["total"],
        streak=row["streak"],
        ev_loss=row["ev_loss"],
        game_id=row["game_id"],
    )


def stored_rating(row: Row) -> StoredRating:
    return StoredRating(
        rules=row["rules"],
        player_id=row["player_id"],
        mu=row["mu"],
        sigma=row["sigma"],
        ordinal=row["ordinal"],
        games=row["games"],
    )
