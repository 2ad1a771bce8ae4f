"""What a finished game does to the ratings, for both stores and the game service.

A finished game of two or more seats in a server updates, in one go, the rating of each
seat's player in two scopes: the game's rule set and OVERALL (every rule set together).
Members are rated by id, computer players by level (`bot.match.rated_id`). The model is
`bot.strategy.rating`; this module only maps games to its inputs and its outputs to rows.

`rate_history` replays results stored before ratings existed (migration V7), in game
order, with exactly the function a live finish uses.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bot.match import Seat, rated_id
from bot.strategy.rating import Rating, ordinal, rate_game

from .store import OVERALL, RatingChange, StoredRating


def rating_changes(
    rules: str, players: Sequence[int], ranks: Sequence[int], stored: Iterable[StoredRating]
) -> list[RatingChange]:
    """The ratings after one game (`players`: each seat's rated id in seat order, `ranks`
    their places), computed from `stored` (the players' ratings now; a missing one is a
    new player's), in key order (scope, player): the order the stores lock them in."""
    known = {(r.rules, r.player_id): r for r in stored}
    out: list[RatingChange] = []
    for scope in sorted({OVERALL, rules}):
        priors = {
            p: Rating(known[scope, p].mu, known[scope, p].sigma)
            for p in players
            if (scope, p) in known
        }
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


@dataclass(frozen=True)
class HistoricGame:
    """A finished game as the results table has it, with its seats' rated ids."""

    guild_id: int
    rules: str
    players: Sequence[int]
    ranks: Sequence[int]


def historic_ids(state: Mapping[str, Any], seats: Sequence[tuple[int, int | None, bool]]) -> (
    list[int]
):
    """The rated ids of a stored game's seats, (seat, player_id, is_bot) each: a computer
    seat's level comes from the game's snapshot (engine seat → its table seat)."""
    levels = {
        str(s.get("user_id")): s.get("level")
        for s in state.get("seats", ())
        if isinstance(s, dict) and s.get("is_bot")
    }
    cards = (state.get("game") or {}).get("cards") or []
    out = []
    for seat, player_id, is_bot in seats:
        if not is_bot and player_id is not None:
            out.append(player_id)
            continue
        name = cards[seat].get("name") if 0 <= seat < len(cards) else None
        out.append(rated_id(Seat(0, "", is_bot=True, level=levels.get(str(name)))))
    return out


def rate_history(games: Iterable[HistoricGame]) -> list[tuple[int, StoredRating]]:
    """Every rating after `games`, in game order: (guild id, rating) rows."""
    table: dict[tuple[int, str, int], StoredRating] = {}
    for game in games:
        stored = [
            table[game.guild_id, scope, p]
            for scope in (OVERALL, game.rules)
            for p in set(game.players)
            if (game.guild_id, scope, p) in table
        ]
        for change in rating_changes(game.rules, game.players, game.ranks, stored):
            table[game.guild_id, change.rules, change.player_id] = StoredRating(
                change.rules,
                change.player_id,
                change.mu,
                change.sigma,
                change.ordinal,
                change.games + 1,
            )
    return [(guild, rating) for (guild, _, _), rating in sorted(table.items())]
