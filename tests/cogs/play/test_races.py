"""Races: simultaneous clicks on one control apply once; a timer firing during a click
does not play twice. The clicks go through simcord concurrently (`asyncio.gather`), so
the per-game lock, the custom_id versions and the store's version check are what keep
each action single."""

from __future__ import annotations

import asyncio
from typing import Any

import discord
from simcord import actors as simcord_actors

from tests.cogs.drive import (
    MENTION,
    click_snapshot,
    controls,
    fresh,
    game_id_of,
    open_game,
    snapshot,
)
from tests.cogs.drive import turn_message as live_turn


async def select_snapshot(actor: Any, message: Any, custom_id: str, values: list[str]) -> Any:
    """Choose in a select of a copy of a message (simcord's public `select` cannot overlap
    another operation; real clients can, and do)."""
    data = {"custom_id": custom_id, "component_type": 3, "values": values}
    return await simcord_actors._component_interaction(actor, message, data)


async def stopped_clock_past_deadline(env: Any) -> Any:
    """Stop the timer loop and move past the turn's deadline: the test fires it itself."""
    cog = env.bot.get_cog("Play")
    cog.timers.stop()
    await env.advance_time(301)
    return cog.timers


async def started(table):
    env, channel, ann, bob, cid = table
    await open_game(channel, ann, [bob, cid])
    turn = live_turn(channel)
    members = {ann.id: ann, bob.id: bob, cid.id: cid}
    current = members[int(MENTION.search(turn.content)[1])]
    return env, channel, turn, current, members


async def test_many_simultaneous_rolls_roll_once(table):
    env, _channel, turn, current, _ = await started(table)
    old = snapshot(env, turn)
    roll = controls(old)["roll"]["custom_id"]
    results = await asyncio.gather(*(click_snapshot(current, old, roll) for _ in range(12)))
    assert all(r.acknowledged for r in results)
    assert sum(not r.ephemeral for r in results) == 1  # the one that rolled
    assert sum(r.ephemeral for r in results) == 11  # the rest were told
    assert len(await env.bot.store.actions(game_id_of(turn))) == 1


async def test_simultaneous_records_score_once(table):
    env, channel, turn, current, _ = await started(table)
    await current.click(turn, custom_id=controls(fresh(env, turn))["roll"]["custom_id"])
    old = snapshot(env, turn)
    select = controls(old)["score"]
    rows = [o["value"] for o in select["options"]][:2]
    results = await asyncio.gather(
        *(
            select_snapshot(current, old, select["custom_id"], [rows[i % len(rows)]])
            for i in range(6)
        )
    )
    assert all(r.acknowledged for r in results)
    actions = await env.bot.store.actions(game_id_of(turn))
    assert sum("score" in a for a in actions) == 1
    turns = [m for m in channel.history() if "roll" in controls(m)]
    assert len(turns) == 1  # one live turn message: the next player's, posted once
    assert turns[0].id != turn.id


async def test_simultaneous_joins_seat_everyone_once(table):
    env, channel, ann, bob, cid = table
    guild = channel.guild
    extra = [guild.add_member(env.create_user(f"p{i}")) for i in range(5)]
    lobby = (await ann.slash(channel, "poker new")).response
    old = snapshot(env, lobby)
    join = controls(old)["join"]["custom_id"]
    joiners = [bob, cid, *extra, bob, cid]  # bob and cid twice
    results = await asyncio.gather(*(click_snapshot(m, old, join) for m in joiners))
    assert all(r.acknowledged for r in results)
    record = await env.bot.store.active_game(channel.id)
    seats = [s["user_id"] for s in record.state["seats"]]
    assert sorted(seats) == sorted({ann.id, bob.id, cid.id, *(m.id for m in extra)})
    assert sum(r.ephemeral for r in results) == 2  # "already joined", twice


async def test_a_timer_firing_during_a_record_plays_the_turn_once(table):
    env, _channel, turn, current, _ = await started(table)
    await current.click(turn, custom_id=controls(fresh(env, turn))["roll"]["custom_id"])
    game_id = game_id_of(turn)
    record = await env.bot.store.get_game(game_id)
    timers = await stopped_clock_past_deadline(env)
    old = snapshot(env, turn)
    select = controls(old)["score"]
    row = select["options"][0]["value"]
    click, fired = await asyncio.gather(
        select_snapshot(current, old, select["custom_id"], [row]),
        timers.fire(game_id, discord.utils.utcnow()),
    )
    assert click.acknowledged
    actions = await env.bot.store.actions(game_id)
    scored = [a for a in actions if "score" in a]
    assert len(scored) == 1, actions
    assert scored[0]["player"] == str(current.id)
    # Whoever won, the other was refused or did nothing, and the turn moved on once.
    assert fired != (not click.ephemeral)
    after = await env.bot.store.get_game(game_id)
    assert after.state["game"]["current"] != record.state["game"]["current"]


async def test_a_click_during_a_timer_is_refused_not_replayed(table):
    env, _channel, turn, current, _ = await started(table)
    game_id = game_id_of(turn)
    timers = await stopped_clock_past_deadline(env)
    old = snapshot(env, turn)
    roll = controls(old)["roll"]["custom_id"]
    fired, click = await asyncio.gather(
        timers.fire(game_id, discord.utils.utcnow()), click_snapshot(current, old, roll)
    )
    actions = await env.bot.store.actions(game_id)
    # One turn, played once: by the click and/or the timer, never a throw too many.
    assert fired
    assert sum("score" in a for a in actions) == 1
    assert sum("roll" in a for a in actions) <= 3
    assert all(a["player"] == str(current.id) for a in actions)
    assert click.acknowledged
    if actions[0].get("roll") and len(actions) == 2:  # the timer threw once and recorded
        assert click.ephemeral  # so the click came second and was told
