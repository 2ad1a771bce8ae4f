"""A new turn message's id is written by the turn's next save, not by a save of its own.

A restart in between (the bot stopped right after posting a turn) must still work: the
click on the new turn message edits that message, never the last turn's summary; the id
is then stored; `/poker resume` also works. Every action is stored before its answer.
"""

from __future__ import annotations

from tests.cogs.drive import (
    MENTION,
    controls,
    fresh,
    game_id_of,
    open_game,
    stored_document,
    turn_message,
)


async def _first_turn_played(table):
    env, channel, ann, bob, _cid = table
    members = {ann.id: ann, bob.id: bob}
    await open_game(channel, ann, [bob], rules="yatzy")
    first = turn_message(channel)
    player = members[int(MENTION.search(first.content)[1])]
    await player.click(first, custom_id=controls(fresh(env, first))["roll"]["custom_id"])
    select = controls(fresh(env, first))["score"]
    res = await player.select(first, [select["options"][0]["value"]], custom_id=select["custom_id"])
    assert res.acknowledged
    assert not res.ephemeral
    second = turn_message(channel)
    assert second.id != first.id
    return env, channel, members, first, second


async def test_a_click_after_a_restart_edits_the_new_turn_message(table, bot_factory):
    env, _channel, members, first, second = await _first_turn_played(table)
    game_id = game_id_of(fresh(env, second))
    summary = fresh(env, first).content
    actions_before = (await stored_document(env.bot, game_id))["actions"]
    assert len(actions_before) == 2  # the roll and the record, stored before the answers

    await env.bot.close()
    await env.restart_bot(bot_factory())
    record = await env.bot.store.get_game(game_id)
    # The new message's id was never written: the old (summary) message is not taken for it.
    assert record.state["turn_message_id"] in (None, second.id)

    player = members[int(MENTION.search(second.content)[1])]
    roll = controls(fresh(env, second))["roll"]["custom_id"]
    res = await player.click(second, custom_id=roll)
    assert res.acknowledged
    assert not res.ephemeral
    shown = controls(fresh(env, second))
    assert all(b["label"].isdigit() for b in shown["hold"])  # the dice are on this message
    assert fresh(env, first).content == summary  # the summary is untouched
    assert controls(fresh(env, first)) == {"hold": []}
    record = await env.bot.store.get_game(game_id)
    assert record.state["turn_message_id"] == second.id  # adopted and stored with the roll
    assert len((await stored_document(env.bot, game_id))["actions"]) == 3


async def test_the_id_is_stored_by_the_next_action_without_a_restart(table):
    env, _channel, members, _first, second = await _first_turn_played(table)
    game_id = game_id_of(fresh(env, second))
    player = members[int(MENTION.search(second.content)[1])]
    await player.click(second, custom_id=controls(fresh(env, second))["roll"]["custom_id"])
    record = await env.bot.store.get_game(game_id)
    assert record.state["turn_message_id"] == second.id


async def test_resume_after_a_restart_posts_and_stores_the_turn(table, bot_factory):
    env, channel, members, first, second = await _first_turn_played(table)
    game_id = game_id_of(fresh(env, second))
    summary = fresh(env, first).content
    await env.bot.close()
    await env.restart_bot(bot_factory())

    ann = next(iter(members.values()))
    res = await ann.slash(channel, "poker resume")
    assert res.acknowledged
    third = turn_message(channel)
    assert third.id not in (first.id, second.id)
    assert fresh(env, first).content == summary
    record = await env.bot.store.get_game(game_id)
    assert record.state["turn_message_id"] == third.id
    player = members[int(MENTION.search(third.content)[1])]
    res = await player.click(third, custom_id=controls(fresh(env, third))["roll"]["custom_id"])
    assert res.acknowledged
    assert not res.ephemeral
    assert all(b["label"].isdigit() for b in controls(fresh(env, third))["hold"])
