"""The rating end to end: a game finished in Discord rates its players in the same save,
by the hand-computed Plackett-Luce update; the board and the stats show it; computer
players are rated by level; a finish that lost the race to another one recomputes."""

from __future__ import annotations

import random

import pytest

from bot.app import DicePokerBot
from bot.engine import Game
from db import OVERALL
from tests.cogs.drive import add_bot, new_lobby, open_game, play_to_the_end
from tests.conftest import settings_for_tests


@pytest.fixture
def bot_factory(tmp_path, dice_seed):
    """Computer players here move without a pause (the default bots' 0.8 s is real time)."""
    dice = random.Random(dice_seed)
    settings = settings_for_tests(tmp_path).model_copy(update={"bot_pause": 0.0})
    return lambda: DicePokerBot(settings, dice=dice)

# Two new players, the first wins (tests/strategy/test_rating.py, worked by hand).
WINNER_MU, LOSER_MU, SIGMA = 27.63539, 22.36461, 8.06590


def shown(mu: float, sigma: float) -> int:
    return round(1000 + 30 * (mu - 3 * sigma))


async def finished(env, channel) -> Game:
    [entry] = await env.bot.store.history(channel.guild.id, limit=1)
    return Game.from_dict(entry.game.state["game"])


async def test_a_game_played_in_discord_rates_both_players(table):
    env, channel, ann, bob, _cid = table
    await open_game(channel, ann, [bob])
    await play_to_the_end(env, channel, {ann.id: ann, bob.id: bob})
    game = await finished(env, channel)
    ranks = {int(s.name): s.rank for s in game.standings()}
    if ranks[ann.id] == ranks[bob.id]:
        pytest.skip("a tie: the hand-computed update is for a winner and a loser")
    winner, loser = sorted((ann, bob), key=lambda m: ranks[m.id])
    rated = await env.bot.store.ratings(channel.guild.id, [ann.id, bob.id])
    got = {(r.rules, r.player_id): r for r in rated}
    assert set(got) == {(scope, m.id) for scope in (OVERALL, "classic") for m in (ann, bob)}
    for scope in (OVERALL, "classic"):
        assert got[scope, winner.id].mu == pytest.approx(WINNER_MU, abs=1e-5)
        assert got[scope, loser.id].mu == pytest.approx(LOSER_MU, abs=1e-5)
        assert got[scope, winner.id].sigma == pytest.approx(SIGMA, abs=1e-5)
        assert got[scope, winner.id].games == 1
    res = await ann.slash(channel, "poker leaderboard", metric="rating")
    lines = res.response.embeds[0].description.splitlines()
    high, low = shown(WINNER_MU, SIGMA), shown(LOSER_MU, SIGMA)
    spread = round(30 * SIGMA)
    assert lines[0].strip("*") == f"1. {winner.name} — {high} ±{spread} · rated games: 1"
    assert lines[1].strip("*") == f"2. {loser.name} — {low} ±{spread} · rated games: 1"
    assert "computer players are rated too" in res.response.embeds[0].footer.text
    stats = await winner.slash(channel, "poker stats")
    fields = {f.name: f.value for f in stats.response.embeds[0].fields}
    assert f"Rating: {high} ±{spread} · rated games: 1" in fields["All rule sets"]
    assert f"Rating: {high} ±{spread} · rated games: 1" in fields["classic"]


async def test_computer_players_are_rated_by_level(table):
    env, channel, ann, _bob, _cid = table
    lobby = await new_lobby(channel, ann)
    await add_bot(env, ann, lobby, "easy")
    await add_bot(env, ann, lobby, "easy")  # two of one level: one rated player
    await ann.click(lobby, label="Start")
    await play_to_the_end(env, channel, {ann.id: ann})
    rated = await env.bot.store.ratings(channel.guild.id, [ann.id, -1], [OVERALL])
    assert [(r.player_id, r.games) for r in rated] == [(-1, 1), (ann.id, 1)]
    res = await ann.slash(channel, "poker leaderboard", metric="rating")
    text = res.response.embeds[0].description
    assert "🤖 computer player \\(easy\\)" in text or "🤖 computer player (easy)" in text
    assert "ann — " in text


async def test_a_finish_that_lost_the_race_for_a_rating_recomputes(table, monkeypatch):
    """As if another game of ann's had finished between this finish's read and its save:
    the first read is stale, the store refuses it, the service reads again."""
    env, channel, ann, bob, _cid = table
    await open_game(channel, ann, [bob])
    await play_to_the_end(env, channel, {ann.id: ann, bob.id: bob})
    store = env.bot.store
    real = store.ratings
    reads: list[int] = []

    async def stale_once(guild_id, players, rules=None):
        reads.append(len(reads))
        return [] if len(reads) == 1 else await real(guild_id, players, rules)

    monkeypatch.setattr(store, "ratings", stale_once)
    await open_game(channel, ann, [bob])
    await play_to_the_end(env, channel, {ann.id: ann, bob.id: bob})
    assert len(reads) == 2  # read, refused (StaleRating), read again, saved
    monkeypatch.setattr(store, "ratings", real)
    rated = await real(channel.guild.id, [ann.id, bob.id])
    assert {r.games for r in rated} == {2}  # both games count, neither was lost
    assert len(rated) == 4
