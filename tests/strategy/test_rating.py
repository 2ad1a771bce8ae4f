"""The Plackett-Luce rating against the paper's equations, and its properties."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.strategy.rating import (
    BETA,
    DEFAULT,
    KAPPA,
    TAU,
    Rating,
    conservative,
    new_rating,
    ordinal,
    update,
)


def plackett_luce(players: list[Rating], ranks: list[int]) -> list[Rating]:
    """Weng & Lin (2011), Algorithm 4 (Plackett-Luce), one player per team:

        c      = sqrt(sum_i (sigma_i^2 + beta^2))
        C_q    = {s : r(s) >= r(q)}            (q and everyone placed behind or level)
        A_q    = |{s : r(s) = r(q)}|           (the tie count)
        p_i,q  = exp(mu_i / c) / sum_{s in C_q} exp(mu_s / c)
        Omega_i = sigma_i^2 / c * sum_{q : r(q) <= r(i)} ([q = i] - p_i,q) / A_q
        Delta_i = gamma_i * sigma_i^2 / c^2 * sum_{q : r(q) <= r(i)} p_i,q (1 - p_i,q) / A_q
        gamma_i = sigma_i / c
        mu_i'  = mu_i + Omega_i,   sigma_i' = sigma_i * sqrt(max(1 - Delta_i, kappa))

    with sigma_i first widened to sqrt(sigma_i^2 + tau^2) (the additive dynamics)."""
    n = len(players)
    var = [p.sigma**2 + TAU**2 for p in players]
    c = math.sqrt(sum(v + BETA**2 for v in var))
    e = [math.exp(p.mu / c) for p in players]
    total = [sum(e[s] for s in range(n) if ranks[s] >= ranks[q]) for q in range(n)]
    ties = [sum(ranks[s] == ranks[q] for s in range(n)) for q in range(n)]
    out = []
    for i in range(n):
        omega = delta = 0.0
        for q in range(n):
            if ranks[q] <= ranks[i]:
                p = e[i] / total[q]
                omega += ((q == i) - p) / ties[q]
                delta += p * (1 - p) / ties[q]
        omega *= var[i] / c
        delta *= math.sqrt(var[i]) / c * var[i] / c**2
        out.append(Rating(players[i].mu + omega, math.sqrt(var[i] * max(1 - delta, KAPPA))))
    return out


def close(a: list[Rating], b: list[Rating], tol: float = 1e-9) -> None:
    assert len(a) == len(b)
    for x, y in zip(a, b, strict=True):
        assert x.mu == pytest.approx(y.mu, abs=tol)
        assert x.sigma == pytest.approx(y.sigma, abs=tol)


def test_two_new_players_by_hand():
    """Equal ratings: every p is 1/2, so the winner gains and the loser loses
    sigma~^2 / (2c), and both sigmas shrink by sqrt(1 - sigma~^3 / (4 c^3)), where
    sigma~^2 = 625/9 + 1/144 = 10001/144 and c^2 = 2 (10001 + 2500) / 144 = 173.625."""
    var = 10001 / 144
    c = math.sqrt(173.625)
    gain = var / (2 * c)
    sigma = math.sqrt(var) * math.sqrt(1 - var**1.5 / (4 * c**3))
    winner, loser = update([new_rating(), new_rating()], [1, 2])
    close([winner, loser], [Rating(25 + gain, sigma), Rating(25 - gain, sigma)])
    # The same numbers worked on paper (5 decimals).
    assert winner.mu == pytest.approx(27.63539, abs=1e-5)
    assert loser.mu == pytest.approx(22.36461, abs=1e-5)
    assert winner.sigma == pytest.approx(8.06590, abs=1e-5)
    close([winner, loser], plackett_luce([DEFAULT, DEFAULT], [1, 2]))


@pytest.mark.parametrize(
    "ranks",
    [[1, 2, 2], [1, 1, 3], [2, 1, 2], [1, 1, 1], [3, 2, 1]],
)
def test_three_players_with_ties_follow_the_paper(ranks):
    players = [Rating(30.0, 5.0), Rating(20.0, 6.0), Rating(25.0, 4.0)]
    close(update(players, ranks), plackett_luce(players, ranks))


def test_tied_players_move_by_their_own_ratings():
    """The paper's tie rule (and openskill 6.2's): tying a stronger player is good news,
    tying a weaker one bad news, so the two tied players' mu changes differ."""
    strong, weak, third = Rating(30.0, 5.0), Rating(20.0, 5.0), Rating(25.0, 5.0)
    new = update([strong, weak, third], [1, 1, 3])
    assert new[1].mu - weak.mu > new[0].mu - strong.mu


def test_four_players_with_standings_ranks():
    """Ranks as the engine's standings give them: 1 + the players strictly ahead."""
    players = [Rating(24.0, 3.0), Rating(27.0, 2.5), Rating(22.0, 7.0), Rating(25.0, 8.3)]
    ranks = [1, 2, 2, 4]
    close(update(players, ranks), plackett_luce(players, ranks))


def test_checks_its_arguments():
    with pytest.raises(ValueError, match="ranks"):
        update([DEFAULT, DEFAULT], [1])
    with pytest.raises(ValueError, match="from 1"):
        update([DEFAULT, DEFAULT], [0, 1])
    with pytest.raises(ValueError, match="not a rating"):
        Rating(25.0, 0.0)
    with pytest.raises(ValueError, match="not a rating"):
        Rating(math.nan, 1.0)
    assert update([DEFAULT], [1]) == [DEFAULT]
    assert update([], []) == []


def test_shown_scale():
    assert ordinal(new_rating()) == pytest.approx(1000.0)
    assert conservative(Rating(30.0, 2.0)) == pytest.approx(24.0)
    assert ordinal(Rating(30.0, 2.0)) == pytest.approx(1000.0 + 30 * 24.0)


def test_sigma_settles_instead_of_vanishing():
    """Many two-player games between equals: sigma falls from 8.3 and settles (tau)."""
    rng = random.Random(0)
    a = b = DEFAULT
    for _ in range(400):
        first = rng.random() < 0.5
        a, b = update([a, b], [1, 2] if first else [2, 1])
    assert 1.0 < a.sigma < 2.5
    assert 1.0 < b.sigma < 2.5


ratings = st.builds(Rating, st.floats(10.0, 40.0), st.floats(0.5, 8.5))


@st.composite
def games(draw: st.DrawFn, players: st.SearchStrategy[Rating] = ratings) -> tuple:
    n = draw(st.integers(2, 8))
    field = draw(st.lists(players, min_size=n, max_size=n))
    places = draw(st.lists(st.integers(1, n), min_size=n, max_size=n))
    # Standings ranks: 1 + the number of players strictly ahead.
    ranks = [1 + sum(o < p for o in places) for p in places]
    return field, ranks


@settings(max_examples=200, deadline=None)
@given(games())
def test_winner_rises_last_falls(game):
    field, ranks = game
    new = update(field, ranks)
    close(new, plackett_luce(field, ranks), tol=1e-8)
    best, worst = min(ranks), max(ranks)
    if best != worst:
        if ranks.count(best) == 1:
            i = ranks.index(best)
            assert new[i].mu > field[i].mu
        if ranks.count(worst) == 1:
            i = ranks.index(worst)
            assert new[i].mu < field[i].mu
    for old, now in zip(field, new, strict=True):
        assert 0 < now.sigma <= math.sqrt(old.sigma**2 + TAU**2)


@settings(max_examples=100, deadline=None)
@given(games(st.just(DEFAULT)))
def test_new_players_sigma_shrinks(game):
    field, ranks = game
    for old, now in zip(field, update(field, ranks), strict=True):
        assert now.sigma < old.sigma


@settings(max_examples=100, deadline=None)
@given(games(), st.randoms())
def test_seat_order_does_not_matter(game, rng):
    field, ranks = game
    order = list(range(len(field)))
    rng.shuffle(order)
    new = update(field, ranks)
    shuffled = update([field[i] for i in order], [ranks[i] for i in order])
    close([new[i] for i in order], shuffled, tol=1e-12)


def test_rate_game_by_identity():
    """Seats are rated as the players they were; an identity with several seats (two
    computer players of one level) takes the mean of its seats' new mu and sigma."""
    from bot.strategy.rating import rate_game

    priors = {"ann": Rating(30.0, 5.0)}
    got = rate_game(priors, ["ann", "bot", "bot"], [1, 2, 3])
    seats = update([Rating(30.0, 5.0), DEFAULT, DEFAULT], [1, 2, 3])
    assert got["ann"] == seats[0]
    assert got["bot"].mu == pytest.approx((seats[1].mu + seats[2].mu) / 2)
    assert got["bot"].sigma == pytest.approx((seats[1].sigma + seats[2].sigma) / 2)
    # Two new players, the first wins: the update worked by hand above.
    two = rate_game({}, ["a", "b"], [1, 2])
    assert two["a"].mu == pytest.approx(27.63539, abs=1e-5)
    assert two["b"].mu == pytest.approx(22.36461, abs=1e-5)
    assert rate_game({}, ["a"], [1]) == {}  # nothing to learn alone
    with pytest.raises(ValueError, match="ranks"):
        rate_game({}, ["a", "b"], [1])
