"""Restarts, foreign, stale and double clicks, refusals, big lobbies, leavers, permissions."""

import sys

import discord
import pytest
import simcord

from tests.cogs.drive import (
    MENTION,
    click_snapshot,
    controls,
    fresh,
    game_id_of,
    open_game,
    play_turn,
    replay_cli,
    snapshot,
    stored_document,
    turn_message,
)


def refusal_text(res) -> str:
    """The ephemeral answer of a refused interaction (and prove it was ephemeral)."""
    assert res.acknowledged
    assert res.ephemeral
    return res.response.content


async def started(table, count=2, rules="classic"):
    env, channel, ann, bob, cid = table
    players = [ann, bob, cid][:count]
    await open_game(channel, ann, players[1:], rules=rules)
    turn = turn_message(channel)
    current = {p.id: p for p in players}[int(MENTION.search(turn.content)[1])]
    others = [p for p in players if p is not current]
    return env, channel, turn, current, others


async def test_restart_mid_turn_keeps_held_dice_and_old_buttons_work(table, bot_factory):
    env, _channel, turn, current, _ = await started(table)
    await current.click(turn, custom_id=controls(fresh(env, turn))["roll"]["custom_id"])
    holds = controls(fresh(env, turn))["hold"]
    dice = [int(b["label"]) for b in holds]
    await current.click(turn, custom_id=holds[0]["custom_id"])
    await current.click(turn, custom_id=controls(fresh(env, turn))["hold"][2]["custom_id"])
    before = controls(fresh(env, turn))
    assert [b.get("emoji", {}).get("name") for b in before["hold"]] == [
        "🔒",
        None,
        "🔒",
        None,
        None,
    ]

    await env.bot.close()
    await env.restart_bot(bot_factory())

    # The same message, untouched by the new bot: its buttons must reach the stored game.
    res = await current.click(turn, custom_id=before["roll"]["custom_id"])
    assert res.acknowledged
    assert not res.ephemeral
    after = controls(fresh(env, turn))
    rolled = [int(b["label"]) for b in after["hold"]]
    assert rolled[0] == dice[0]
    assert rolled[2] == dice[2]
    game = env.bot.play.service
    stored = await stored_document(env.bot, game_id_of(fresh(env, turn)))
    assert stored["actions"][-1]["hold"] == [0, 2]
    assert game is not None


async def test_foreign_click_names_the_current_player_and_changes_nothing(table):
    env, _channel, turn, current, others = await started(table)
    game_id = game_id_of(turn)
    version = (await env.bot.store.get_game(game_id)).version
    res = await others[0].click(turn, custom_id=controls(fresh(env, turn))["roll"]["custom_id"])
    assert refusal_text(res) == f"It is {current.name}'s turn."
    assert (await env.bot.store.get_game(game_id)).version == version
    assert await env.bot.store.actions(game_id) == []


async def test_stale_click_is_refused_and_changes_nothing(table):
    env, _channel, turn, current, _ = await started(table)
    await current.click(turn, custom_id=controls(fresh(env, turn))["roll"]["custom_id"])
    old = snapshot(env, turn)
    hold = controls(old)["hold"][1]["custom_id"]
    await current.click(turn, custom_id=controls(fresh(env, turn))["hold"][0]["custom_id"])
    game_id = game_id_of(turn)
    version = (await env.bot.store.get_game(game_id)).version
    res = await click_snapshot(current, old, hold)
    assert "out of date" in refusal_text(res)
    assert (await env.bot.store.get_game(game_id)).version == version
    held = [b.get("emoji") for b in controls(fresh(env, turn))["hold"]]
    assert held[1] is None


async def test_double_click_rolls_once(table):
    env, _channel, turn, current, _ = await started(table)
    old = snapshot(env, turn)
    roll = controls(old)["roll"]["custom_id"]
    first = await click_snapshot(current, old, roll)
    second = await click_snapshot(current, old, roll)
    assert first.acknowledged
    assert not first.ephemeral
    assert "out of date" in refusal_text(second)
    assert len(await env.bot.store.actions(game_id_of(turn))) == 1


async def test_hold_is_disabled_before_the_first_throw(table):
    env, _channel, turn, current, _ = await started(table)
    with pytest.raises(simcord.SetupError):
        await current.click(turn, custom_id=controls(fresh(env, turn))["hold"][0]["custom_id"])
    assert "score" not in controls(fresh(env, turn))


async def test_second_game_in_a_channel_is_refused_with_a_link(table):
    _env, channel, ann, bob, _cid = table
    first = await ann.slash(channel, "poker new")
    res = await bob.slash(channel, "poker new", rules="yatzy")
    text = refusal_text(res)
    assert "already has a game" in text
    assert f"/{channel.id}/{first.response.id}" in text


async def test_cancel_by_non_host_is_refused_but_a_manager_may(table):
    env, channel, ann, bob, _cid = table
    lobby = (await ann.slash(channel, "poker new")).response
    await bob.click(lobby, label="Join")
    res = await bob.click(lobby, label="Cancel")
    assert "Only the host (ann)" in refusal_text(res)
    res = await bob.slash(channel, "poker cancel")
    assert "Only the host (ann)" in refusal_text(res)
    assert (await env.bot.store.active_game(channel.id)) is not None

    guild = channel.guild
    mods = guild.create_role("mods", permissions=discord.Permissions(manage_guild=True))
    mod = guild.add_member(env.create_user("mod"), roles=[mods])
    res = await mod.click(lobby, label="Cancel")
    assert res.acknowledged
    assert not res.ephemeral
    shown = fresh(env, lobby)
    assert shown.components == []
    assert (await env.bot.store.active_game(channel.id)) is None
    # and a new game may start at once
    again = await bob.slash(channel, "poker new")
    assert not again.ephemeral


async def test_lobby_join_leave_and_start_refusals(table):
    env, channel, ann, bob, cid = table
    lobby = (await ann.slash(channel, "poker new")).response
    assert "already joined" in refusal_text(await ann.click(lobby, label="Join"))
    assert "not in this lobby" in refusal_text(await bob.click(lobby, label="Leave"))
    assert "host" in refusal_text(await ann.click(lobby, label="Leave"))
    await bob.click(lobby, label="Join")
    assert "Only the host" in refusal_text(await bob.click(lobby, label="Start"))
    res = await bob.click(lobby, label="Leave")
    assert not res.ephemeral
    assert "1/8" in fresh(env, lobby).embeds[0]["fields"][1]["name"]
    old = snapshot(env, lobby)
    await ann.click(lobby, label="Start")
    join = controls(old)["join"]["custom_id"]
    assert "out of date" in refusal_text(await click_snapshot(cid, old, join))


async def test_eight_player_lobby_and_a_phone_sized_scorecard(table):
    env, channel, ann, bob, cid = table
    guild = channel.guild
    extra = [guild.add_member(env.create_user(f"player{i}")) for i in range(6)]
    lobby = (await ann.slash(channel, "poker new")).response
    everyone = [ann, bob, cid, *extra]
    for member in everyone[1:8]:
        assert not (await member.click(lobby, label="Join")).ephemeral
    late = everyone[8]
    assert "full (8 players)" in refusal_text(await late.click(lobby, label="Join"))
    await ann.click(lobby, label="Start")
    members = {m.id: m for m in everyone[:8]}
    for _ in range(8):  # a round: eight players see the table's card once a round
        assert await play_turn(env, channel, members)
    card = next(
        m for m in reversed(channel.history()) if m.embeds and m.embeds[0].title == "Scorecard"
    ).embeds[0]
    assert len(card.fields) == 2
    assert len(card) <= 6000
    for field in card.fields:
        assert len(field.value) <= 1024
        assert max(len(line) for line in field.value.splitlines()) <= 30


async def test_a_player_leaving_mid_game_is_scratched_and_the_game_goes_on(table):
    env, channel, turn, current, others = await started(table, count=3)
    game_id = game_id_of(turn)
    quitter = others[0]
    res = await quitter.slash(channel, "poker leave")
    assert res.ephemeral
    assert "left the game" in res.response.content
    # the turn message was refreshed (new version) and still works for the current player
    turn = turn_message(channel)
    roll = controls(fresh(env, turn))["roll"]["custom_id"]
    assert not (await current.click(turn, custom_id=roll)).ephemeral
    result = replay_cli(await stored_document(env.bot, game_id))
    card = next(p for p in result["players"] if p["name"] == str(quitter.id))
    assert all(v is not None for v in card["rows"].values())
    # now the current player leaves: the next turn is posted for the last one
    res = await current.slash(channel, "poker leave")
    assert res.ephemeral
    nxt = turn_message(channel)
    assert nxt.id != turn.id
    assert str(others[1].id) in nxt.content
    assert "poker leave" not in nxt.content
    assert "not playing" in refusal_text(await quitter.slash(channel, "poker leave"))


def _bank(message) -> int:
    """The banked throws the turn message shows for the player to move."""
    turn = message.embeds[-1]  # the first turn's message opens with the opening throw
    field = next(f for f in turn["fields"] if f["name"] == "Banked throws")
    return int(field["value"])


async def test_a_banked_player_leaving_mid_turn_spends_the_banked_throws_used(table):
    """RULES.md: leaving after t throws spends max(0, t - 3) banked throws, as a pass does."""
    env, channel, turn, current, others = await started(table, rules="banked")
    members = {m.id: m for m in (current, *others)}
    game_id = game_id_of(turn)
    for _ in range(80):  # record after one throw when the dice allow (+2), else pass
        turn = turn_message(channel)
        player = members[int(MENTION.search(turn.content)[1])]
        if _bank(fresh(env, turn)) >= 1:
            break
        await player.click(turn, custom_id=controls(fresh(env, turn))["roll"]["custom_id"])
        c = controls(fresh(env, turn))
        if c.get("score") and c["score"].get("options"):
            value = c["score"]["options"][0]["value"]
            await player.select(turn, [value], custom_id=c["score"]["custom_id"])
        else:
            await player.click(turn, custom_id=c["pass"]["custom_id"])
    bank = _bank(fresh(env, turn))
    assert bank >= 1, "no figure on a first throw in 80 turns"
    for _ in range(4):  # the fourth throw is a banked one
        roll = controls(fresh(env, turn))["roll"]["custom_id"]
        assert not (await player.click(turn, custom_id=roll)).ephemeral
    res = await player.slash(channel, "poker leave")
    assert res.ephemeral
    shown = fresh(env, turn).content  # the turn's message became its one-line summary
    assert "left the game and spent 1 banked throw" in shown, shown
    assert "take their penalties at the end" in shown
    result = replay_cli(await stored_document(env.bot, game_id))
    leaver = next(p for p in result["players"] if p["name"] == str(player.id))
    assert leaver["banked"] == bank - 1  # as a pass after four throws would have left it


async def test_missing_send_messages_is_explained(table):
    env, channel, ann, _bob, _cid = table
    guild = channel.guild
    closed = guild.create_text_channel(
        "quiet", overwrites={guild.me: discord.PermissionOverwrite(send_messages=False)}
    )
    res = await ann.slash(closed, "poker new")
    assert "Send Messages" in refusal_text(res)
    assert await env.bot.store.active_game(closed.id) is None


async def test_rules_scorecard_and_card_button_are_ephemeral(table):
    env, channel, turn, current, others = await started(table, rules="banked")
    res = await others[0].slash(channel, "poker rules", rules="banked")
    assert res.ephemeral
    assert res.response.embeds[0].title == "Rules — banked"
    # The project's whole rule book comes with the card (docs/rules.md).
    assert [a.filename for a in res.response.message.attachments] == ["dicepoker-rules.md"]
    assert "attached file" in res.response.embeds[0].description
    res = await others[0].slash(channel, "poker scorecard", member=current)
    assert res.ephemeral
    assert res.response.embeds[0].title == f"Scorecard — {current.name}"
    res = await others[0].click(turn, custom_id=controls(fresh(env, turn))["card"]["custom_id"])
    assert res.ephemeral
    assert res.response.embeds[0].title == f"Scorecard — {others[0].name}"
    stranger = channel.guild.add_member(env.create_user("zed"))
    res = await stranger.slash(channel, "poker scorecard")
    assert "no scorecard" in refusal_text(res)
    assert "pass" in controls(fresh(env, turn))


async def test_lobby_buttons_work_after_a_restart(table, bot_factory):
    env, channel, ann, bob, cid = table
    lobby = (await ann.slash(channel, "poker new", rules="yatzy")).response
    await bob.click(lobby, label="Join")
    await env.bot.close()
    await env.restart_bot(bot_factory())
    assert not (await cid.click(lobby, label="Join")).ephemeral
    assert not (await ann.click(lobby, label="Start")).ephemeral
    opening = next(
        m for m in channel.history() if m.embeds and m.embeds[0].title == "Opening throw"
    )
    text = opening.embeds[0].description
    assert all(name in text for name in ("ann", "bob", "cid"))
    assert "starts. Seat order:" in text
    assert turn_message(channel) is not None


async def test_a_failure_inside_a_click_is_answered_and_changes_nothing(table, monkeypatch):
    env, _channel, turn, current, _ = await started(table)
    service = env.bot.play.service

    async def broken(*_args, **_kwargs):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(service.store, "save", broken)
    res = await current.click(turn, custom_id=controls(fresh(env, turn))["roll"]["custom_id"])
    assert "Something went wrong" in refusal_text(res)
    monkeypatch.undo()
    assert await env.bot.store.actions(game_id_of(turn)) == []
    # the same button works once the fault is gone: nothing was half-applied
    res = await current.click(turn, custom_id=controls(fresh(env, turn))["roll"]["custom_id"])
    assert not res.ephemeral
    assert len(await env.bot.store.actions(game_id_of(turn))) == 1


async def test_a_failing_command_is_answered_by_the_tree_error_handler(table, monkeypatch):
    env, channel, ann, _bob, _cid = table

    def broken(*_args, **_kwargs):
        raise RuntimeError("store on fire")

    # The command's own guard answers what fails inside it; a failure before the guard
    # (here its first step, choosing the answer's language) is the tree handler's. The
    # module as this bot loaded it (an extension is imported again for each new bot).
    monkeypatch.setattr(sys.modules["cogs.play._cog"], "reply_language", broken)
    res = await ann.slash(channel, "poker scorecard")
    assert "Something went wrong" in refusal_text(res)
    # the error reached the tree's handler (and was logged there), not the void
    simcord.assert_error(env, RuntimeError, contains="store on fire")


async def test_names_cannot_restyle_or_ping(table):
    env, channel, ann, _bob, _cid = table
    odd = channel.guild.add_member(env.create_user("st*r_man"))
    lobby = (await ann.slash(channel, "poker new")).response
    await odd.click(lobby, label="Join")
    players = fresh(env, lobby).embeds[0]["fields"][1]["value"]
    assert "st\\*r\\_man" in players
    await ann.click(lobby, label="Start")
    turn = turn_message(channel)
    assert turn.content.startswith("<@")
    # the bot never allows @everyone or role pings, whatever a name or text contains
    mentions = env.bot.allowed_mentions
    assert mentions.everyone is False
    assert mentions.roles is False


async def test_the_host_cancels_a_game_in_play(table):
    env, channel, turn, current, others = await started(table)
    host = current if current.name == "ann" else others[0]
    stranger = others[0] if host is current else current
    assert "Only the host" in refusal_text(await stranger.slash(channel, "poker cancel"))
    res = await host.slash(channel, "poker cancel")
    assert res.ephemeral
    assert res.response.content == "The game was cancelled."
    shown = fresh(env, turn)
    assert shown.components == []
    assert shown.content == "The game was cancelled by ann."
    assert (await env.bot.store.get_game(game_id_of(turn))).status == "cancelled"
    assert "no game" in refusal_text(await host.slash(channel, "poker cancel"))
