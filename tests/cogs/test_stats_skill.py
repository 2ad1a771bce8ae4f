"""The skill analysis: expected points lost per decision, from the strategy table, stored
with each finished game and ranked on the skill leaderboard."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

from bot.app import DicePokerBot
from bot.engine import Game, Pass, Score
from bot.strategy import Hold, Record, advise, compute, save
from cogs.play import Seat, Table
from cogs.stats import _results
from cogs.stats._results import seat_losses, seat_results
from tests.cogs.test_stats import play_through
from tests.conftest import settings_for_tests


@pytest.fixture(scope="module")
def classic_table():
    return compute("classic")  # under a second


def mixed_game(table, seed: int) -> Game:
    """Player "1" plays perfectly, player "2" records the first row offered after one throw."""
    rng = random.Random(seed)
    game = Game.new("classic", ["1", "2"])
    while not game.finished:
        who = game.player
        game, _ = game.apply(game.draw(who, rng))
        if who == "1":
            while True:
                best = advise(table, game, top=1).best.decision
                if isinstance(best, Record):
                    game, _ = game.apply(Score(who, best.row))
                    break
                assert isinstance(best, Hold)
                game, _ = game.apply(_roll_holding(game, who, best.positions, rng))
        else:
            options = game.options()
            game, _ = game.apply(Score(who, options[0].row) if options else Pass(who))
    return game


def _roll_holding(game: Game, who: str, positions, rng):
    """The next throw keeping exactly `positions` (holds are toggled first)."""
    for pos in range(5):
        if (pos in positions) != (pos in game.held):
            game = game.toggle_hold(who, pos)
    return game.draw(who, rng)


def test_perfect_play_loses_nothing_and_careless_play_loses(classic_table) -> None:
    game = mixed_game(classic_table, 3)
    losses = seat_losses(game, classic_table)
    assert losses["1"] == pytest.approx(0, abs=1e-9)
    assert losses["2"] > 0.5


def test_seat_results_use_a_cached_table(classic_table, monkeypatch) -> None:
    game = mixed_game(classic_table, 4)
    table = Table(
        id=1,
        channel_id=1,
        guild_id=1,
        host_id=1,
        rules="classic",
        status="finished",
        seats=(Seat(1, "a"), Seat(2, "b")),
        game=game,
    )
    monkeypatch.setattr(_results, "TABLES", {})
    assert [r.ev_loss for r in seat_results(table)] == [None, None]  # no table: not analysed
    monkeypatch.setattr(_results, "TABLES", {"classic": classic_table})
    with_table = {r.player_id: r.ev_loss for r in seat_results(table)}
    assert with_table[1] == pytest.approx(0, abs=1e-9)
    assert with_table[2] == pytest.approx(seat_losses(game, classic_table)["2"])
    # an explicit mapping wins over the table
    assert {r.ev_loss for r in seat_results(table, {})} == {None}


@pytest.fixture
def strategy_dir(tmp_path, classic_table) -> Path:
    folder = tmp_path / "strategy"
    save(classic_table, folder)
    return folder


@pytest.fixture
def simcord_bot(tmp_path, strategy_dir):
    settings = settings_for_tests(tmp_path).model_copy(update={"strategy_dir": strategy_dir})
    return DicePokerBot(settings, dice=random.Random(7), sync_globally=True)


async def test_a_game_played_in_discord_is_analysed(simcord_env) -> None:
    env = simcord_env
    guild = env.create_guild("Casino")
    channel = guild.create_text_channel("dice")
    ann = guild.add_member(env.create_user("ann"))
    try:
        # loaded from the cache at start-up (into the module the extension loaded: a bot's
        # close unloads the extension, so each bot imports it anew)
        assert set(sys.modules["cogs.stats._results"].TABLES) == {"classic"}
        await play_through(env, channel, [ann])
        [entry] = await env.bot.store.history(guild.id)
        [seat] = entry.results
        assert seat.ev_loss is not None
        assert seat.ev_loss > 0  # the helper records the first row offered: far from perfect
        res = await ann.slash(channel, "poker stats")
        assert f"{seat.ev_loss:.2f} points lost per decision (1 analysed games)" in (
            res.response.embeds[0].fields[0].value
        )
    finally:
        if not env.bot.is_closed():
            await env.bot.close()
