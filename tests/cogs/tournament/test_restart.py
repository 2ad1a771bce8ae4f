"""A tournament survives its bot: a restart in the middle of a round (the old messages'
buttons still work), and the bot stopping right after a round's last table game ended —
before the tournament recorded it, or after the record and before the next round was
formed (what a SIGKILL at that moment leaves). At start-up the round advances, once."""

from __future__ import annotations

import pytest

from bot.i18n import t
from bot.match.tournament import FINISHED, OPEN

from .play import four_at_tables_of_two, play_round, stored


def service(env):
    return env.bot.services.features["tournament"].service


async def restart(env, bot_factory):
    await env.bot.close()
    await env.restart_bot(bot_factory())
    await env.settle()


def kinds(log) -> list[str]:
    return [next(iter(a)) for a in log]


@pytest.mark.parametrize("stopped", ["before the record", "before the next round"])
async def test_a_round_that_ended_while_the_bot_was_down_advances_once(
    table, bot_factory, monkeypatch, stopped
):
    env, channel, ann, *_ = table
    humans, tid, message = await four_at_tables_of_two(table)
    members = {m.id: m for m in humans}
    assert (await ann.click(message, label=t("lobby.start"))).acknowledged
    await env.settle()
    store = env.bot.store

    async def statuses(tn) -> list[str]:
        return [(await env.bot.store.get_game(tb.game_id)).status for tb in tn.rounds[0].tables]

    async def some_turns(tn) -> bool:
        record = await env.bot.store.get_game(tn.rounds[0].tables[0].game_id)
        return len(await env.bot.store.actions(record.id)) >= 8

    # A restart in the middle of the round: the tables' turn messages still answer.
    await play_round(env, channel, members, 1, tid, until=some_turns)
    await restart(env, bot_factory)

    # The process stops at the round's last table: the game's finish is stored, and …
    if stopped == "before the record":
        monkeypatch.setattr(service(env), "committed", lambda before, after: None)
    else:
        async def nothing(tn):
            return None

        monkeypatch.setattr(service(env), "_advance", nothing)

    async def games_over(tn) -> bool:
        return await statuses(tn) == ["finished", "finished"]

    await play_round(env, channel, members, 1, tid, until=games_over)
    await env.settle()
    tn = await stored(env, tid)
    assert len(tn.rounds) == 1  # … the next round is not formed yet
    if stopped == "before the record":
        assert OPEN in [tb.status for tb in tn.rounds[0].tables]
    else:
        assert tn.awaiting_advance
    monkeypatch.undo()
    await restart(env, bot_factory)
    assert env.bot.store is not store

    tn = await stored(env, tid)
    assert len(tn.rounds) == 2
    assert tn.rounds[1].final
    final = tn.rounds[1].tables[0]
    assert final.status == OPEN
    assert final.thread_id in {h.id for h in channel.threads}
    log = await env.bot.store.tournament_actions(tid)
    assert kinds(log).count("advance") == 1
    await restart(env, bot_factory)  # once more: nothing is recorded or advanced again
    assert kinds(await env.bot.store.tournament_actions(tid)) == kinds(log)

    await play_round(env, channel, members, 2, tid)
    await env.settle()
    tn = await stored(env, tid)
    assert tn.status == FINISHED
    assert tn.champion in members
