"""The skill metric end to end: a game played in Discord is analysed by the play cog
against the strategy table, each human's mean loss per decision is stored with the
results, and /poker stats and the skill leaderboard show it."""

from __future__ import annotations

from collections import defaultdict

import pytest

from bot.engine import Action, Game, Roll, Score, parse_action
from bot.match import Match, Seat
from bot.service import seat_results
from bot.strategy import Hold, Record, compute, loss
from cogs.play._analysis import humans
from tests.cogs.drive import open_game, play_to_the_end, stored_document
from tests.cogs.league.test_league import play_out


@pytest.fixture(scope="module")
def classic_table():
    return compute("classic")  # under a second


def mean_losses(table, start: Game, log: list[Action]) -> dict[str, float]:
    """An independent reading of the log (folded from `start`): hold choices before
    re-throws and recorded rows, each judged by `loss`, averaged per player."""
    lost: dict[str, float] = defaultdict(float)
    count: dict[str, int] = defaultdict(int)
    state = start
    for action in log:
        decision = None
        if isinstance(action, Roll) and state.dice:
            decision = Hold(tuple(action.hold))
        elif isinstance(action, Score):
            decision = Record(action.row)
        if decision is not None:
            lost[action.player] += loss(table, state, decision)
            count[action.player] += 1
        state, _ = state.apply(action)
    return {p: lost[p] / count[p] for p in count}


def test_seat_results_leave_the_losses_to_the_analysis_of_humans_only() -> None:
    """(Was test_seat_results_store_the_given_losses_for_humans_only: the results of the
    finish took the losses. ARCH.md: the analysis is an observer after the finish, stored
    with record_analysis, so the results carry none and the analysis judges humans only.)"""
    game = play_out("classic", ["11", "-1"], 2)
    seats = (Seat(11, "ann"), Seat(-1, "Bot 1", is_bot=True))
    table = Match(
        id=1,
        channel_id=1,
        guild_id=1,
        host_id=11,
        rules="classic",
        status="finished",
        seats=seats,
        game=game,
    )
    got = {r.name: r for r in seat_results(table)}
    assert (got["ann"].player_id, got["ann"].is_bot, got["ann"].ev_loss) == (11, False, None)
    assert (got["Bot 1"].player_id, got["Bot 1"].is_bot, got["Bot 1"].ev_loss) == (None, True, None)
    assert {r.ev_loss for r in seat_results(table)} == {None}  # no analysis yet: NULL
    assert humans(table) == ["11"]  # the analysis judges the human seat only
    unfinished = Match(
        id=2,
        channel_id=1,
        guild_id=1,
        host_id=11,
        rules="classic",
        seats=seats,
        game=Game.new("classic", ["11", "-1"]),
    )
    with pytest.raises(ValueError, match="finished"):
        seat_results(unfinished)


async def test_a_game_played_in_discord_is_analysed(table, classic_table) -> None:
    env, channel, ann, bob, _cid = table
    env.bot.play.solutions.put(classic_table)
    await open_game(channel, ann, [bob])
    await play_to_the_end(env, channel, {ann.id: ann, bob.id: bob})
    guild_id = channel.guild.id
    [entry] = await env.bot.store.history(guild_id)
    doc = await stored_document(env.bot, entry.game.id)
    start = Game.new(doc["rules"], doc["players"])
    expected = mean_losses(classic_table, start, [parse_action(a) for a in doc["actions"]])
    stored = {r.player_id: r.ev_loss for r in entry.results}
    assert stored.keys() == {ann.id, bob.id}
    for member in (ann, bob):
        assert stored[member.id] == pytest.approx(expected[str(member.id)])
        assert stored[member.id] > 0  # the helper keeps the commonest face: not perfect
    res = await ann.slash(channel, "poker stats")
    assert f"{stored[ann.id]:.2f} points lost per decision · 1 analysed game" in (
        res.response.embeds[0].fields[0].value
    )
    board = await ann.slash(channel, "poker leaderboard", metric="skill")
    # one analysed game each: nobody is ranked on skill yet, and the board says why
    assert board.response.embeds[0].description.startswith("Nobody has 5 analysed games")
