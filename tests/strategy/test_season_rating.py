"""A season's rating starts from the all-time one with sigma widened
(`bot.strategy.rating.season_start`): what it keeps, how far it widens, and that a
season then follows a player's form sooner without starting everyone from scratch."""

from __future__ import annotations

import math
import random

from hypothesis import given
from hypothesis import strategies as st

from bot.strategy.rating import (
    BETA,
    DEFAULT,
    SEASON_WIDEN,
    SIGMA,
    Rating,
    ordinal,
    rate_game,
    season_start,
)


@given(st.floats(0, 50), st.floats(0.05, SIGMA))
def test_mu_is_kept_and_sigma_widened_up_to_a_new_players(mu: float, sigma: float):
    start = season_start(Rating(mu, sigma))
    assert start.mu == mu
    assert sigma < start.sigma <= SIGMA or start.sigma == SIGMA
    assert start.sigma == min(SIGMA, math.hypot(sigma, SEASON_WIDEN))
    assert ordinal(start) <= ordinal(Rating(mu, sigma))  # never shown higher than all-time


def test_a_newcomer_starts_every_season_where_a_newcomer_starts():
    assert season_start(DEFAULT) == DEFAULT


def test_a_settled_player_starts_a_season_about_130_points_lower():
    settled = Rating(22.0, 1.9)
    start = season_start(settled)
    assert 3.3 < start.sigma < 3.5
    assert 120 < ordinal(settled) - ordinal(start) < 140


def _games_to_show_half_an_improvement(widen: bool, seed: int) -> int:
    """Thirty players of spread skills settle over 2,000 four-player games; then player 0
    gets 5 mu better: how many games until half of it shows in their season rating."""
    rng = random.Random(seed)
    skill = {i: rng.gauss(25, 4) for i in range(30)}

    def play(ratings: dict[int, Rating], players: list[int]) -> None:
        performance = {p: skill[p] + rng.gauss(0, 2 * BETA) for p in players}
        order = sorted(players, key=lambda p: -performance[p])
        ratings.update(rate_game(ratings, players, [1 + order.index(p) for p in players]))

    ratings: dict[int, Rating] = {}
    for _ in range(2000):
        play(ratings, rng.sample(range(30), 4))
    skill[0] += 5
    season = {p: season_start(r) if widen else r for p, r in ratings.items()}
    before = season[0].mu
    for game in range(1, 200):
        play(season, [0, *rng.sample(range(1, 30), 3)])
        if season[0].mu >= before + 2.5:
            return game
    return 200


def test_a_season_follows_a_players_form_sooner():
    widened = sorted(_games_to_show_half_an_improvement(True, s) for s in range(7))
    kept = sorted(_games_to_show_half_an_improvement(False, s) for s in range(7))
    assert widened[3] < kept[3]  # medians
    assert widened[3] <= 15
