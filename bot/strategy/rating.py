"""A Bayesian rating from places: OpenSkill's Plackett-Luce model (Weng & Lin 2011).

Each player's skill is a normal belief (mu, sigma). A game updates everyone at once from
the order of finish alone (the points' size is not used: a 300-point day and a 200-point
day rank the same way), so a daily round with 40 members is one update, not 780 duels.
Ties share a rank, as `standings_of` gives them (1 = best, 1 + players strictly ahead).

The model's parameters are spelled out rather than taken from the library's defaults,
so an upgrade cannot silently rescale stored ratings: mu0 = 25, sigma0 = 25/3, beta =
25/6 (the performance noise), kappa = 1e-4 (the floor of sigma's shrink factor) and
tau = 25/300, added to sigma before each game so that sigma settles instead of
shrinking to 0 and a player who improves keeps moving (it settles near 1.6 in
two-player games; higher in big ones, where one game says less about each player: in
simulations of 200-300 games, about 3 with 10 players and 5-6 with 30).

Ties follow the paper's equations: tied players with different ratings move differently
(tying a stronger player is good news). openskill 6.2 also has code meant to average
tied players' mu changes, which does nothing (openskill.py issue 201); tests compare
the library with the equations, so a release that changes this is noticed.

The shown rating is `ordinal`: 1000 + 30 (mu - 3 sigma). mu - 3 sigma is the
conservative skill (the player's skill is above it with 99.9% probability): 0 for a new
player, so a newcomer shows 1000 and climbs as the model learns them, and one lucky day
cannot put them at the top of the board. 30 points a unit of mu make a 200-point gap
between settled players about 3-to-1 head-to-head odds, as in Elo.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

from openskill.models import PlackettLuce

MU = 25.0
SIGMA = MU / 3
BETA = SIGMA / 2
KAPPA = 1e-4
TAU = MU / 300
Z = 3.0  # sigmas below the mean for the conservative value
ORIGIN = 1000.0  # the shown rating of mu - 3 sigma = 0 (a new player)
SCALE = 30.0  # shown points per unit of mu

_MODEL = PlackettLuce(mu=MU, sigma=SIGMA, beta=BETA, kappa=KAPPA, tau=TAU)
K = TypeVar("K", bound=Hashable)


@dataclass(frozen=True)
class Rating:
    """A player's skill belief: mean and standard deviation."""

    mu: float
    sigma: float

    def __post_init__(self) -> None:
        if not (math.isfinite(self.mu) and math.isfinite(self.sigma) and self.sigma > 0):
            raise ValueError(f"not a rating: mu={self.mu}, sigma={self.sigma}")


DEFAULT = Rating(MU, SIGMA)


def new_rating() -> Rating:
    """The rating of a player who has not played yet."""
    return DEFAULT


def update(ratings: Sequence[Rating], ranks: Sequence[int]) -> list[Rating]:
    """Everyone's rating after one game: `ratings` in seat order, `ranks` their places
    (1 = best, ties share a rank). A game of one player teaches nothing: unchanged."""
    if len(ratings) != len(ranks):
        raise ValueError(f"{len(ratings)} ratings but {len(ranks)} ranks")
    if any(type(r) is not int or r < 1 for r in ranks):
        raise ValueError(f"ranks are whole numbers from 1: {list(ranks)}")
    if len(ratings) < 2:
        return list(ratings)
    teams = [[_MODEL.rating(mu=r.mu, sigma=r.sigma)] for r in ratings]
    rated = _MODEL.rate(teams, ranks=[float(r) for r in ranks])
    return [Rating(team[0].mu, team[0].sigma) for team in rated]


def rate_game(
    priors: Mapping[K, Rating], players: Sequence[K], ranks: Sequence[int]
) -> dict[K, Rating]:
    """Each identity's rating after one game: `players` names each seat's identity, in
    seat order, `ranks` the seats' places, `priors` the ratings before (a missing one is
    a new player's). An identity may fill several seats of one game (two "perfect"
    computer players): the seats are rated as the players they were, and the identity
    takes the mean of its seats' new mu and sigma, so it learns from the game once.
    Fewer than two seats teach nothing: {}."""
    if len(players) != len(ranks):
        raise ValueError(f"{len(players)} players but {len(ranks)} ranks")
    if len(players) < 2:
        return {}
    rated = update([priors.get(p, DEFAULT) for p in players], ranks)
    seats: dict[K, list[Rating]] = {}
    for player, after in zip(players, rated, strict=True):
        seats.setdefault(player, []).append(after)
    return {
        p: Rating(sum(r.mu for r in rs) / len(rs), sum(r.sigma for r in rs) / len(rs))
        for p, rs in seats.items()
    }


def conservative(rating: Rating) -> float:
    """mu - 3 sigma: the skill the player almost surely has (0 for a new player)."""
    return rating.mu - Z * rating.sigma


def ordinal(rating: Rating) -> float:
    """The shown rating, 1000 + 30 (mu - 3 sigma): 1000 for a new player. Sort by this
    value; show it rounded to a whole number."""
    return ORIGIN + SCALE * conservative(rating)


# --- seasons ------------------------------------------------------------------------------

# A season's rating starts from the all-time one with this much added to sigma (in
# quadrature, capped at a new player's SIGMA): a third of a new player's uncertainty.
SEASON_WIDEN = SIGMA / 3


def season_start(rating: Rating) -> Rating:
    """A player's rating at the start of a season: their all-time mu (the skill is kept)
    with sigma widened to sqrt(sigma^2 + (SIGMA/3)^2), at most SIGMA.

    Why that much (simulated: 30-40 players of spread skills, four-player games, every
    rating settled by 2,000 games first): a settled sigma of about 1.9 becomes 3.4, so the
    season's first games move mu about three times as far as they would all-time, and a
    player who has improved by 5 mu (150 shown points) shows half of it after about 8
    games instead of 24; a monthly season of ten games or so then reflects its form. The
    shown rating (mu - 3 sigma) of a settled player starts about 130 points below their
    all-time one, and rises as the season's games confirm them; a newcomer's 1000 does
    not move (their sigma is SIGMA already). Half of SIGMA would drop settled players by
    about 240 points, close to a reset; a quarter shows an improvement only after 10-11
    games. Computer players' ratings are widened the same way."""
    return Rating(rating.mu, min(SIGMA, math.hypot(rating.sigma, SEASON_WIDEN)))


__all__ = [
    "DEFAULT",
    "SEASON_WIDEN",
    "Rating",
    "conservative",
    "new_rating",
    "ordinal",
    "rate_game",
    "season_start",
    "update",
]
