"""What a finished game does to the ratings (pure): the rating policy.

A finished game of two or more seats in a server (`Match.rated`) updates, in one go, the
rating of each seat's player in two scopes: the game's rule set and OVERALL (every rule
set together). Members are rated by id, computer players by level (`rated_id`). The model
is `bot.strategy.rating`; this module only maps a game's places to its inputs and its
outputs to the store's records.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime

from bot.records import OVERALL, RatingChange, StoredRating, season_scope
from bot.strategy.rating import Rating, ordinal, rate_game, season_start


def rating_scopes(rules: str, season: tuple[datetime, datetime] | None) -> dict[str, str | None]:
    """The scopes a game of `rules` rates, each with the all-time scope a season's rating
    starts from (None: an all-time scope): the rule set and OVERALL, and with seasons on
    the same two of the season `[start, end)` the game finished in."""
    scopes: dict[str, str | None] = {OVERALL: None, rules: None}
    if season is not None:
        scopes |= {season_scope(base, *season): base for base in (OVERALL, rules)}
    return scopes


def rating_changes(
    rules: str,
    players: Sequence[int],
    ranks: Sequence[int],
    stored: Iterable[StoredRating],
    season: tuple[datetime, datetime] | None = None,
) -> list[RatingChange]:
    """The ratings after one game (`players`: each seat's rated id in seat order, `ranks`
    their places), computed from `stored` (the players' ratings now; a missing one is a
    new player's), in key order (scope, player): the order the stores lock them in. A
    player's first game of a season starts from their all-time rating with its sigma
    widened (`season_start`)."""
    known = {(r.rules, r.player_id): r for r in stored}
    out: list[RatingChange] = []
    for scope, base in sorted(rating_scopes(rules, season).items()):
        priors: dict[int, Rating] = {}
        for p in players:
            if (scope, p) in known:
                priors[p] = Rating(known[scope, p].mu, known[scope, p].sigma)
            elif base is not None and (base, p) in known:
                priors[p] = season_start(Rating(known[base, p].mu, known[base, p].sigma))
        for player, after in sorted(rate_game(priors, players, ranks).items()):
            before = known.get((scope, player))
            out.append(
                RatingChange(
                    rules=scope,
                    player_id=player,
                    mu=after.mu,
                    sigma=after.sigma,
                    ordinal=ordinal(after),
                    games=before.games if before is not None else 0,
                )
            )
    return out
