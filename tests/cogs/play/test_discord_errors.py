"""Discord failing: 500s and 403s injected on the bot's sends and edits (simcord
`inject_error`). The action stays stored, the player is told, the game's message comes
back on the next interaction (or with /poker resume), nothing is lost, and the failure
is logged once, with the game it belongs to."""

from __future__ import annotations

import logging

from tests.cogs.drive import (
    MENTION,
    controls,
    fresh,
    game_id_of,
    open_game,
    play_turn,
    turn_message,
)

CALLBACK = "/interactions/*/*/callback"
MESSAGES = "/channels/*/messages"
MESSAGE = "/channels/*/messages/*"


async def started(table):
    env, channel, ann, bob, _ = table
    members = {ann.id: ann, bob.id: bob}
    await open_game(channel, ann, [bob])
    turn = turn_message(channel)
    current = members[int(MENTION.search(turn.content)[1])]
    return env, channel, turn, current, members


def told(res) -> str:
    """What the clicker alone was told: the ephemeral answer, or the ephemeral follow-up
    after the message itself was updated."""
    assert res.acknowledged
    if res.ephemeral:
        return res.response.content
    last = res.followups[-1]
    assert last.ephemeral
    return last.content


def failures_logged(caplog, game_id: int) -> list[logging.LogRecord]:
    """The warnings about a Discord failure of `game_id`; and no error-level records."""
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    return [
        r
        for r in caplog.records
        if r.levelno == logging.WARNING and r.getMessage().startswith(f"game {game_id} ")
    ]


async def test_a_failed_click_edit_keeps_the_roll_and_the_next_click_redraws(table, caplog):
    env, _channel, turn, current, _ = await started(table)
    game_id = game_id_of(turn)
    roll = controls(fresh(env, turn))["roll"]["custom_id"]
    env.inject_error("POST", CALLBACK, status=500, times=1)
    res = await current.click(turn, custom_id=roll)
    assert "Your move is saved" in told(res)
    assert len(await env.bot.store.actions(game_id)) == 1  # stored all the same
    assert controls(fresh(env, turn))["roll"]["custom_id"] == roll  # Discord shows the old one
    assert len(failures_logged(caplog, game_id)) == 1

    again = await current.click(turn, custom_id=roll)  # the next interaction …
    assert "out of date" in told(again)
    assert len(await env.bot.store.actions(game_id)) == 1  # … rolls nothing twice
    redrawn = controls(fresh(env, turn))
    assert redrawn["roll"]["custom_id"] != roll  # … and brings the message back
    assert all(b.get("label", "").isdigit() for b in redrawn["hold"])  # the dice thrown
    res = await current.click(turn, custom_id=redrawn["roll"]["custom_id"])
    assert res.acknowledged
    assert not res.ephemeral
    assert len(await env.bot.store.actions(game_id)) == 2


async def test_a_failed_post_keeps_the_score_and_resume_brings_the_turn_back(table, caplog):
    env, channel, turn, current, members = await started(table)
    game_id = game_id_of(turn)
    await current.click(turn, custom_id=controls(fresh(env, turn))["roll"]["custom_id"])
    select = controls(fresh(env, turn))["score"]
    env.inject_error("POST", MESSAGES, status=500, times=1)  # the scorecard post fails
    res = await current.select(turn, [select["options"][0]["value"]], custom_id=select["custom_id"])
    assert "Your move is saved" in told(res)
    actions = await env.bot.store.actions(game_id)
    assert actions[-1] == {"player": str(current.id), "score": select["options"][0]["value"]}
    assert len(failures_logged(caplog, game_id)) == 1
    assert turn_message(channel) is None  # the next turn was never shown …

    other = next(m for m in members.values() if m is not current)
    res = await other.slash(channel, "poker resume")  # … until someone asks
    assert res.acknowledged
    following = turn_message(channel)
    assert following is not None
    assert int(MENTION.search(following.content)[1]) == other.id
    assert await play_turn(env, channel, members)  # and the game goes on
    assert len(await env.bot.store.actions(game_id)) > len(actions)


async def test_a_forbidden_edit_during_a_timer_is_logged_once_and_recovered(table, caplog):
    env, _channel, turn, current, members = await started(table)
    game_id = game_id_of(turn)
    env.inject_error("PATCH", MESSAGE, status=403, code=50013, message="Missing Permissions")
    for _ in range(6):
        await env.advance_time(60)
    actions = await env.bot.store.actions(game_id)
    assert actions
    assert actions[-1]["player"] == str(current.id)
    assert "score" in actions[-1]  # the timer's turn is stored
    assert len(failures_logged(caplog, game_id)) == 1
    env.backend.faults.clear()  # Discord lets the bot edit again

    other = next(m for m in members.values() if m is not current)
    stale = controls(fresh(env, turn))["roll"]["custom_id"]
    res = await other.click(turn, custom_id=stale)  # the old message, next interaction
    assert "out of date" in told(res)
    redrawn = controls(fresh(env, turn))["roll"]["custom_id"]
    assert redrawn != stale  # the live turn again, now the other player's
    res = await other.click(turn, custom_id=redrawn)
    assert res.acknowledged
    assert not res.ephemeral
    assert (await env.bot.store.actions(game_id))[-1]["player"] == str(other.id)


async def test_a_forbidden_send_tells_the_player_what_is_missing(table, caplog):
    env, _channel, turn, current, _ = await started(table)
    game_id = game_id_of(turn)
    await current.click(turn, custom_id=controls(fresh(env, turn))["roll"]["custom_id"])
    select = controls(fresh(env, turn))["score"]
    env.inject_error("POST", MESSAGES, status=403, code=50013, message="Missing Permissions")
    res = await current.select(turn, [select["options"][0]["value"]], custom_id=select["custom_id"])
    assert "permission" in told(res).lower()
    assert "score" in (await env.bot.store.actions(game_id))[-1]
    assert len(failures_logged(caplog, game_id)) == 1
