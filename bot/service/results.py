"""What a finish stores with its last action: each seat's result and the new ratings.

The ratings are computed here, in Python (`bot.match.ratings`: the model, checked against
the paper), from the ones read just before the save. No game lock covers them (two games
sharing a player finish under different locks, maybe in two processes), so the save
writes each only over the rating it was computed from and otherwise refuses
(`StaleRating`): the service reads and computes them again, and saves the finish once more.
Computing in SQL instead would mean the Plackett-Luce model in SQL, in each dialect.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Protocol

from bot.match import Match
from bot.match.ratings import rating_changes, rating_scopes
from bot.records import RatingChange, SeatResult, StoredRating

RATING_TRIES = 8  # rating reads per finish before giving up (each loses only to a finish)


class RatingStore(Protocol):
    """The part of `GameStore` a finish reads the ratings from."""

    async def ratings(
        self, guild_id: int, players: Sequence[int], rules: Sequence[str] | None = None
    ) -> list[StoredRating]: ...


def seat_results(match: Match) -> list[SeatResult]:
    """One `SeatResult` per engine seat (seat order) of a finished match; the analysis
    fills in the points lost per decision later (`GameStore.record_analysis`)."""
    game = match.game
    if game is None or not game.finished:
        raise ValueError("results exist only for a finished game")
    out = []
    for index, standing in enumerate(game.standings()):
        seat = match.seat(int(standing.name))
        human = seat is not None and not seat.is_bot
        out.append(
            SeatResult(
                seat=index,
                player_id=int(standing.name) if human else None,
                name=seat.name if seat else standing.name,
                is_bot=not human,
                total=standing.totals.total,
                rank=standing.rank,
                settlement=float(standing.settlement),
            )
        )
    return out


async def ratings_after(
    store: RatingStore, match: Match, season: tuple[datetime, datetime] | None = None
) -> list[RatingChange]:
    """The ratings a finish writes (none for a game that is not rated: `Match.rated`),
    from the players' ratings as the store has them now; with `season` (the window of the
    server's season it finishes in), the season's ratings too."""
    if not match.rated or match.guild_id is None:
        return []
    players = match.rated_players()
    ranks = [s.rank for s in match.require_game().standings()]
    scopes = sorted(rating_scopes(match.rules, season))
    stored = await store.ratings(match.guild_id, sorted(set(players)), scopes)
    return rating_changes(match.rules, players, ranks, stored, season)
