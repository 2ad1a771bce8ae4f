"""Turn timers, lobby expiry, /poker kick and /poker resume, driven through simcord.

Time only moves with `env.advance_time` (simcord's virtual clock); long waits are
advanced in chunks so each jump settles within simcord's real-time budget.
"""

from __future__ import annotations

import random
import re
from dataclasses import replace
from datetime import timedelta

import discord
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.engine import RULESETS, Game, Leave, Pass, Score
from bot.match import Seat
from cogs.play import _timers
from tests.cogs.drive import (
    MENTION,
    controls,
    fresh,
    game_id_of,
    open_game,
    play_turn,
    turn_message,
)

DEADLINE = re.compile(r"<t:(\d+):R>")


async def wait(env, seconds: float, chunk: float = 60.0) -> None:
    while seconds > 0:
        step = min(chunk, seconds)
        await env.advance_time(step)
        seconds -= step


def service(env):
    return env.bot.get_cog("Play").service


async def stored_actions(env, game_id):
    return await env.bot.store.actions(game_id)


def contents(channel) -> list[str]:
    return [m.content or "" for m in channel.history()]


def current_member(message, members):
    return members[int(MENTION.search(message.content)[1])]


async def test_the_turn_message_shows_the_deadline_and_a_missed_turn_is_played(table):
    env, channel, ann, bob, _ = table
    await open_game(channel, ann, [bob])
    turn = turn_message(channel)
    game_id = game_id_of(turn)
    shown = int(DEADLINE.search(turn.content)[1])
    assert shown == int((discord.utils.utcnow() + timedelta(seconds=300)).timestamp())
    absent = current_member(turn, {ann.id: ann, bob.id: bob})

    await wait(env, 240)
    assert await stored_actions(env, game_id) == []  # not yet
    await wait(env, 70)
    actions = await stored_actions(env, game_id)
    assert actions, "the timer did not play the turn"
    assert {a["player"] for a in actions} == {str(absent.id)}
    assert "score" in actions[-1]  # the whole turn: throws, then a row
    assert any(f"{absent.name} ran out of time" in c for c in contents(channel))
    following = turn_message(channel)
    assert following is not None
    assert following.id != turn.id
    assert current_member(following, {ann.id: ann, bob.id: bob}) is not absent
    record = await env.bot.store.get_game(game_id)
    assert _timers.parse(record.state["deadline"]) > discord.utils.utcnow()


async def test_a_player_who_plays_in_time_is_not_played_for(table):
    env, channel, ann, bob, _ = table
    members = {ann.id: ann, bob.id: bob}
    await open_game(channel, ann, [bob])
    game_id = game_id_of(turn_message(channel))
    await wait(env, 200)
    assert await play_turn(env, channel, members)  # the first player, in time
    count = len(await stored_actions(env, game_id))
    await wait(env, 200)  # 400 s after the start, 200 s into the second turn
    assert len(await stored_actions(env, game_id)) == count
    assert not any("ran out of time" in c for c in contents(channel))


async def test_the_servers_turn_timeout_is_used(table):
    env, channel, ann, bob, _ = table
    await env.bot.store.update_settings(channel.guild.id, {"turn_timeout": 60})
    await open_game(channel, ann, [bob])
    turn = turn_message(channel)
    shown = int(DEADLINE.search(turn.content)[1])
    assert shown == int((discord.utils.utcnow() + timedelta(seconds=60)).timestamp())
    await wait(env, 70, chunk=10)
    assert await stored_actions(env, game_id_of(turn))


async def test_three_timeouts_in_a_row_mark_a_player_away(table):
    env, channel, ann, _, _ = table
    await open_game(channel, ann, [])
    game_id = game_id_of(turn_message(channel))
    for done in range(1, 3):
        await wait(env, 305)
        record = await env.bot.store.get_game(game_id)
        assert record.status == "playing"
        assert dict(map(tuple, record.state["strikes"])) == {ann.id: done}
    await wait(env, 305)
    actions = await stored_actions(env, game_id)
    assert actions[-1] == {"player": str(ann.id), "leave": True}
    assert sum("score" in a for a in actions) == 3
    record = await env.bot.store.get_game(game_id)
    assert record.status == "finished"  # a solo game ends when its only player is away
    assert any("3 turns in a row" in c and "marked away" in c for c in contents(channel))


async def test_playing_again_clears_the_run_of_timeouts(table):
    env, channel, ann, _, _ = table
    await open_game(channel, ann, [])
    game_id = game_id_of(turn_message(channel))
    await wait(env, 610)  # two turns played by the timer
    record = await env.bot.store.get_game(game_id)
    assert dict(map(tuple, record.state["strikes"])) == {ann.id: 2}
    assert await play_turn(env, channel, {ann.id: ann})
    record = await env.bot.store.get_game(game_id)
    assert record.state["strikes"] == []
    await wait(env, 305)  # a third timeout, but not in a row: still playing
    record = await env.bot.store.get_game(game_id)
    assert record.status == "playing"
    assert not any(a.get("leave") for a in await stored_actions(env, game_id))


async def test_deadlines_survive_a_restart(table, bot_factory):
    env, channel, ann, bob, _ = table
    await open_game(channel, ann, [bob])
    turn = turn_message(channel)
    game_id = game_id_of(turn)
    await wait(env, 200)
    await env.bot.close()
    await env.restart_bot(bot_factory())
    await wait(env, 60)
    assert await stored_actions(env, game_id) == []
    await wait(env, 50)
    assert await stored_actions(env, game_id), "the restored deadline did not fire"


async def test_a_lobby_nobody_starts_expires(table):
    env, channel, ann, bob, _ = table
    res = await ann.slash(channel, "poker new")
    lobby = res.response
    game_id = int(controls(lobby)["join"]["custom_id"].split(":")[2])
    await wait(env, 29 * 60, chunk=300)
    assert (await env.bot.store.get_game(game_id)).status == "lobby"
    await wait(env, 61)
    assert (await env.bot.store.get_game(game_id)).status == "cancelled"
    assert any("Nobody started this lobby within 30 minutes" in c for c in contents(channel))
    assert fresh(env, lobby).components == []
    # The channel is free again.
    again = await bob.slash(channel, "poker new")
    assert again.acknowledged
    assert not again.ephemeral


# --- /poker kick ------------------------------------------------------------------------


def ephemeral_text(res) -> str:
    assert res.acknowledged
    assert res.ephemeral
    return res.response.content


async def test_the_host_removes_a_player_from_the_lobby_after_confirming(table):
    env, channel, ann, bob, _cid = table
    lobby = (await ann.slash(channel, "poker new")).response
    await bob.click(lobby, label="Join")
    asked = await ann.slash(channel, "poker kick", member=bob)
    assert "Remove **bob**" in ephemeral_text(asked)
    assert "2/8" in fresh(env, lobby).embeds[0]["fields"][1]["name"]  # nothing yet
    done = await ann.click(asked.response, label="Remove bob")
    assert done.acknowledged
    assert "1/8" in fresh(env, lobby).embeds[0]["fields"][1]["name"]
    assert "was removed" in (fresh(env, asked.response).content or "")


async def test_only_the_host_kicks_and_not_themselves(table):
    env, channel, ann, bob, cid = table
    lobby = (await ann.slash(channel, "poker new")).response
    await bob.click(lobby, label="Join")
    assert "Only the host" in ephemeral_text(await bob.slash(channel, "poker kick", member=ann))
    assert "yourself" in ephemeral_text(await ann.slash(channel, "poker kick", member=ann))
    assert "not playing" in ephemeral_text(await ann.slash(channel, "poker kick", member=cid))
    assert "2/8" in fresh(env, lobby).embeds[0]["fields"][1]["name"]


async def test_kicking_the_current_player_passes_the_turn(table):
    env, channel, ann, bob, cid = table
    await open_game(channel, ann, [bob, cid])
    turn = turn_message(channel)
    game_id = game_id_of(turn)
    members = {ann.id: ann, bob.id: bob, cid.id: cid}
    victim = current_member(turn, members)
    if victim is ann:  # the host cannot kick themselves: play ann's turn first
        assert await play_turn(env, channel, members)
        victim = current_member(turn_message(channel), members)
    asked = await ann.slash(channel, "poker kick", member=victim)
    await ann.click(asked.response, label=f"Remove {victim.name}")
    actions = await stored_actions(env, game_id)
    assert actions[-1] == {"player": str(victim.id), "leave": True}
    following = turn_message(channel)
    assert current_member(following, members) is not victim
    # The confirmation cannot be used twice.
    record = await env.bot.store.get_game(game_id)
    again = await ann.slash(channel, "poker kick", member=victim)
    assert "not playing" in ephemeral_text(again)
    assert (await env.bot.store.get_game(game_id)).version == record.version


# --- /poker resume ----------------------------------------------------------------------


async def test_resume_posts_a_working_turn_message(table):
    env, channel, ann, bob, _ = table
    members = {ann.id: ann, bob.id: bob}
    await open_game(channel, ann, [bob])
    old = turn_message(channel)
    res = await bob.slash(channel, "poker resume")
    assert "posted again" in ephemeral_text(res) or res.followups
    new = channel.last_message
    assert new.id != old.id
    assert "roll" in controls(new)
    assert controls(fresh(env, old)) == {"hold": []}  # one live copy
    player = current_member(new, members)
    rolled = await player.click(new, custom_id=controls(new)["roll"]["custom_id"])
    assert rolled.acknowledged
    assert not rolled.ephemeral
    assert len(await stored_actions(env, game_id_of(new))) == 1


@pytest.mark.parametrize("command", ["poker kick", "poker resume"])
async def test_without_a_game_the_commands_say_so(table, command):
    _env, channel, ann, bob, _ = table
    options = {"member": bob} if command == "poker kick" else {}
    res = await ann.slash(channel, command, **options)
    assert res.acknowledged
    assert res.ephemeral
    text = res.response.content if res.response else res.followups[0].content
    assert "no game" in text.lower()


# --- the timed-out turn, for any rule set and position (pure) -------------------------


@settings(max_examples=60, deadline=None)
@given(
    rules=st.sampled_from(sorted(RULESETS)),
    seed=st.integers(0, 2**32),
    players=st.integers(1, 4),
    turns=st.integers(0, 40),
)
def test_a_timed_out_turn_is_exactly_one_legal_turn(rules, seed, players, turns):
    rng = random.Random(seed)
    seats = tuple(Seat(i + 1, f"p{i}") for i in range(players))
    table = Table(id=1, channel_id=1, guild_id=1, host_id=1, rules=rules, seats=seats)
    table = table.start(1, rng, "2026-01-01T00:00:00+00:00")
    for _ in range(turns):  # some turns in (strikes cleared: nobody goes away here)
        if table.require_game().finished:
            return
        table, _ = _timers.play_for_absent(replace(table, strikes=()), rng, None, rng)
    table = replace(table, strikes=())
    before = table.require_game()
    if before.finished:
        return
    player = before.player
    after, away = _timers.play_for_absent(table, rng, None, rng)
    game = after.require_game()
    assert not away
    assert _timers.turn_key(game) != _timers.turn_key(before)
    assert _timers.strikes_of(after, int(player)) == 1
    added = game.history[len(before.history) :]
    assert added
    assert all(a.player == player for a in added)
    assert isinstance(added[-1], Score | Pass)
    assert after.status == ("finished" if game.finished else "playing")
    # What the store appends replays to exactly this game.
    assert Game.replay(rules, before.players, game.history) == game


def test_the_third_timeout_in_a_row_leaves_after_playing():
    rng = random.Random(5)
    seats = (Seat(1, "ann"), Seat(2, "bob"))
    table = Table(id=1, channel_id=1, guild_id=1, host_id=1, rules="classic", seats=seats)
    table = table.start(1, rng, "2026-01-01T00:00:00+00:00")
    player = int(table.require_game().player)
    table = _timers.with_strikes(table, player, _timers.AWAY_AFTER - 1)
    after, away = _timers.play_for_absent(table, rng, None, rng)
    assert away
    history = after.require_game().history
    assert history[-1] == Leave(str(player))
    assert isinstance(history[-2], Score)
    assert after.require_game().card_of(str(player)).left
