"""Hostile servers, restart windows and honest replies, through simcord only: slash
commands, clicks, menu choices, restarts, Discord's refusals (`inject_error`), forged
custom_ids posted as components, members of a second server and nicknames made of
mentions, markdown and links. One test (or family) per defect of the issue."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import discord
import pytest

from bot.app import DicePokerBot
from bot.i18n import t
from db import SeatResult
from tests.cogs.drive import (
    MENTION,
    controls,
    fresh,
    game_id_of,
    open_game,
    play_to_the_end,
    play_turn,
    turn_message,
)
from tests.conftest import settings_for_tests

from .hostile import (
    CALLBACK,
    MESSAGES,
    live_messages,
    ping_problems,
    pinged,
    post_component,
    raw_mentions,
    stored,
    told,
    walk,
)

INTERNAL = t("errors.internal")


def current_of(turn: Any, members: dict[int, Any]) -> Any:
    return members[int(MENTION.search(turn.content)[1])]


async def started(table: Any, rules: str = "classic") -> tuple[Any, ...]:
    env, channel, ann, bob, _cid = table
    members = {ann.id: ann, bob.id: bob}
    await open_game(channel, ann, [bob], rules=rules)
    turn = turn_message(channel)
    return env, channel, members, turn, game_id_of(turn)


def one_live(env: Any, channel: Any, game_id: int) -> list[Any]:
    live = live_messages(env, channel, game_id)
    assert len(live) <= 1, [m.id for m in live]
    return live


# --- 1. a nickname pings nobody; user text is shown, never interpreted -------------------

NICKNAMES = [
    "<@{cid}> @everyone",
    "<@&{role}> @here",
    "<#{channel}> **bold** __u__",
    "[click](https://evil.example) `x` ||s||",
]


async def test_nicknames_made_of_mentions_ping_nobody_anywhere(table):
    env, channel, ann, _bob, cid = table
    guild = channel.guild
    role = guild.create_role("mods", mentionable=True)
    values = {"cid": cid.id, "role": role.id, "channel": channel.id}
    evil = [
        guild.add_member(env.create_user(f"evil{i}"), nick=n.format(**values))
        for i, n in enumerate(NICKNAMES)
    ]
    members = {ann.id: ann, **{m.id: m for m in evil[:3]}}
    lobby = (await ann.slash(channel, "poker new")).response
    for member in evil:
        assert not (await member.click(lobby, label="Join")).ephemeral
    kick = await ann.slash(channel, "poker kick", member=evil[3])  # the confirmation …
    assert kick.ephemeral
    await ann.click(kick.response, custom_id=controls(kick.response)["kick"]["custom_id"])
    await ann.click(lobby, label="Start")
    await play_turn(env, channel, members)  # a turn, recorded
    await env.advance_time(310)  # a turn the timer plays
    for _ in range(3):
        await env.advance_time(5)
    leaver = evil[2]
    res = await leaver.slash(channel, "poker leave")  # someone else leaves: a Left notice
    assert res.acknowledged
    del members[leaver.id]
    await play_to_the_end(env, channel, members)
    for command, options in (
        ("poker history", {}),
        ("poker leaderboard", {}),
        ("poker stats", {"member": evil[0]}),
        ("poker rules", {}),
    ):
        res = await ann.slash(channel, command, **options)
        assert res.acknowledged, command
    managers = guild.create_role("managers", permissions=discord.Permissions(manage_guild=True))
    boss = guild.add_member(env.create_user("boss"), roles=[managers], nick="@everyone <@&1>")
    res = await boss.slash(channel, "poker settings", hints=False)  # "<name> changed …"
    assert res.acknowledged
    assert [m for m in res.followups if not m.flags.ephemeral]  # the public line
    turn_pings = {ann.id, *(m.id for m in evil)}
    assert ping_problems(env, turn_pings) == []
    # As Discord computed them: only turn messages ping, each its player alone.
    for message_id, users, roles, everyone in pinged(env, channel):
        assert not roles, message_id
        assert not everyone, message_id
        assert len(users) == 1, message_id
        assert users[0] in turn_pings, message_id
    for message in stored(env, channel):
        own = MENTION.search(message.content or "")
        mention = own.group(0) if own and message.ping_user_ids else None
        assert raw_mentions(message, mention) == [], (message.content, message.embeds)


async def test_refusals_show_a_hostile_name_as_text(table):
    env, channel, ann, bob, _cid = table
    evil = channel.guild.add_member(env.create_user("evil"), nick="@everyone <@1> **x**")
    res = await ann.slash(channel, "poker new")
    await evil.click(res.response, label="Join")
    refused = await bob.click(res.response, label="Start")  # "only the host (name) …"
    assert refused.ephemeral
    res = await evil.slash(channel, "poker cancel")
    assert "@everyone" not in told(res).replace("\\@everyone", "")
    assert ping_problems(env, set()) == []
    assert pinged(env, channel) == []


# --- 2. a restart leaves at most one live message; later changes update it ---------------


async def _recorded_then_restarted(table, bot_factory, rules="classic"):
    """A record posted the next turn's message (its id is stored by the next click), and
    the bot restarts before that click."""
    env, channel, members, first, game_id = await started(table, rules)
    await play_turn(env, channel, members, rolls=1)
    second = turn_message(channel)
    assert second.id != first.id
    record = await env.bot.store.get_game(game_id)
    assert record.state["turn_message_id"] is None  # not yet known to the store
    await env.bot.close()
    await env.restart_bot(bot_factory())
    return env, channel, members, second, game_id


async def test_after_a_restart_the_timer_updates_the_unstored_turn_message(table, bot_factory):
    env, channel, _members, second, game_id = await _recorded_then_restarted(table, bot_factory)
    for _ in range(70):  # the turn's deadline, then the grace after the restart
        await env.advance_time(10)
    assert not controls(fresh(env, second)).get("roll")  # retired: now the turn's summary
    live = one_live(env, channel, game_id)
    assert live
    assert live[0].id != second.id


@pytest.mark.parametrize("command", ["poker cancel", "poker leave"])
async def test_after_a_restart_a_command_retires_the_unstored_turn_message(
    table, bot_factory, command
):
    env, channel, members, second, game_id = await _recorded_then_restarted(table, bot_factory)
    host = next(iter(members.values()))
    res = await host.slash(channel, command)
    assert res.acknowledged
    assert told(res) != INTERNAL
    live = one_live(env, channel, game_id)
    if command == "poker cancel":
        assert live == []
        assert t("summary.cancelled", "en", name="ann") in fresh(env, second).content
    else:  # ann left: the game goes on (bob alone) on one live message
        assert len(live) == 1


async def test_after_a_restart_a_kick_retires_the_unstored_turn_message(table, bot_factory):
    env, channel, members, _second, game_id = await _recorded_then_restarted(table, bot_factory)
    ann, bob = members.values()
    res = await ann.slash(channel, "poker kick", member=bob)
    res = await ann.click(res.response, custom_id=controls(res.response)["kick"]["custom_id"])
    assert res.acknowledged
    assert len(one_live(env, channel, game_id)) == 1


async def test_after_a_restart_resume_does_not_post_a_second_live_copy(table, bot_factory):
    env, channel, members, _second, game_id = await _recorded_then_restarted(table, bot_factory)
    ann = next(iter(members.values()))
    res = await ann.slash(channel, "poker resume")
    assert res.acknowledged
    live = one_live(env, channel, game_id)
    assert len(live) == 1
    # … and the next click works on it; a second restart changes nothing.
    await env.bot.close()
    await env.restart_bot(env.bot.__class__(env.bot.settings, dice=env.bot.play.dice))
    assert await play_turn(env, channel, members)
    assert len(one_live(env, channel, game_id)) == 1




@pytest.fixture
def paused_factory(tmp_path: Path, bot_factory: Any) -> Callable[[], DicePokerBot]:
    """Bots whose computer seats pause 30 s of virtual time between steps (so a test can
    restart between two of them)."""
    dice = bot_factory().dice

    def build() -> DicePokerBot:
        settings = settings_for_tests(tmp_path).model_copy(update={"bot_pause": 30.0})
        return DicePokerBot(settings, dice=dice)

    return build


def game_of(env: Any, channel: Any) -> int:
    for message in stored(env, channel):
        for item in walk(message.components):
            parts = (item.get("custom_id") or "").split(":")
            if parts[0] == "poker" and len(parts) >= 4:
                return int(parts[2])
    raise AssertionError("no game controls in the channel")


async def test_a_restart_between_computer_steps_and_after_its_record(table, paused_factory):
    env, channel, ann, _bob, _cid = table
    await env.bot.close()
    await env.restart_bot(paused_factory())  # the fixture's bot, with pauses
    lobby = (await ann.slash(channel, "poker new", rules="yatzy")).response
    await ann.select(lobby, ["easy"], custom_id=controls(fresh(env, lobby))["addbot"]["custom_id"])
    await ann.click(lobby, label="Start")
    game_id = game_of(env, channel)
    service = env.bot.play.service
    for _ in range(2):  # two computer turns
        if (await service.get(game_id)).current_id == ann.id:
            await play_turn(env, channel, {ann.id: ann}, rolls=1)
        await env.advance_time(31)  # the computer's first step
        await env.bot.close()
        await env.restart_bot(paused_factory())  # between two of its steps
        service = env.bot.play.service
        for _ in range(12):  # … it plays on, on the same message
            await env.advance_time(31)
            assert len(one_live(env, channel, game_id)) <= 1
            if (await service.get(game_id)).current_id == ann.id:
                break
        assert (await service.get(game_id)).current_id == ann.id
        await env.bot.close()
        await env.restart_bot(paused_factory())  # right after its record posted ann's turn
        service = env.bot.play.service
        live = one_live(env, channel, game_id)
        assert len(live) == 1
        assert f"<@{ann.id}>" in live[0].content


async def test_a_restart_after_a_timer_and_after_resume(table, bot_factory):
    env, channel, members, _first, game_id = await started(table)
    for _ in range(32):  # the timer plays the first turn: a new turn message
        await env.advance_time(10)
    await env.bot.close()
    await env.restart_bot(bot_factory())
    assert len(one_live(env, channel, game_id)) == 1
    player = current_of(turn_message(channel), members)
    assert (await player.slash(channel, "poker resume")).acknowledged
    await env.bot.close()
    await env.restart_bot(bot_factory())
    assert len(one_live(env, channel, game_id)) == 1
    res = await player.slash(channel, "poker cancel")
    assert res.acknowledged
    assert one_live(env, channel, game_id) == []


async def test_a_restart_before_the_lobby_id_was_stored(table, bot_factory, monkeypatch):
    env, channel, ann, bob, _cid = table
    service = env.bot.play.service

    async def crashed(game_id: int, message_id: int) -> None:  # the bot stopped here
        return None

    monkeypatch.setattr(service, "note_lobby", crashed)
    lobby = (await ann.slash(channel, "poker new")).response
    game_id = game_of(env, channel)
    await env.bot.close()
    await env.restart_bot(bot_factory())
    res = await ann.slash(channel, "poker cancel")  # no click: found in the channel
    assert res.acknowledged
    assert not told(res).startswith(INTERNAL[:10])
    assert one_live(env, channel, game_id) == []
    assert "cancelled" in fresh(env, lobby).embeds[0]["description"]
    # A lobby nobody can find any more still does not block the channel.
    res = await bob.slash(channel, "poker new")
    assert not res.ephemeral


async def test_a_restart_before_the_lobby_id_was_stored_then_it_expires(
    table, bot_factory, monkeypatch
):
    env, channel, ann, bob, _cid = table
    monkeypatch.setattr(env.bot.play.service, "note_lobby", _nothing)
    lobby = (await ann.slash(channel, "poker new")).response
    game_id = game_of(env, channel)
    await env.bot.close()
    await env.restart_bot(bot_factory())
    assert (await bob.click(lobby, label="Join")).acknowledged  # adopted by the click
    record = await env.bot.store.get_game(game_id)
    assert record.state["lobby_message_id"] == lobby.id
    for _ in range(200):
        await env.advance_time(10)
        if not live_messages(env, channel, game_id):
            break
    assert one_live(env, channel, game_id) == []


async def _nothing(*_args: Any) -> None:
    return None


# --- 3. embeds fit every limit (the property test is tests/render/test_embed_limits.py) --


async def test_history_of_ten_eight_way_ties_of_long_names_is_shown(table):
    env, channel, ann, _bob, _cid = table
    store = env.bot.store
    guild = channel.guild
    # 32 characters each, every one escaped when shown (twice as long), and mentions.
    names = [f"{i}<@{i}>@everyone" + "*_~" * 10 for i in range(8)]
    names = [n[:32] for n in names]
    for game in range(10):
        record = await store.create_game(
            guild_id=guild.id, channel_id=channel.id + game + 1, host_id=ann.id,
            rules="classic", state={}, deadline=None, now=discord.utils.utcnow(),
        )  # fmt: skip
        results = [
            SeatResult(seat=i, player_id=1000 + i, name=n, is_bot=False, total=100, rank=1,
                       settlement=0.0)
            for i, n in enumerate(names)
        ]
        await store.save(
            record.id, expect_version=record.version, state={}, status="finished",
            actions=[], results=results, deadline=None, now=discord.utils.utcnow(),
        )  # fmt: skip
    res = await ann.slash(channel, "poker history")
    assert res.acknowledged
    assert not res.ephemeral, told(res)
    embed = res.response.embeds[0]
    assert len(embed) <= 6000
    assert len(embed.fields) == 10  # every game of the page: names shortened, none dropped
    assert pinged(env, channel) == []


# --- 4. the answer says what is true -----------------------------------------------------


@pytest.mark.parametrize("command", ["poker leave", "poker cancel"])
async def test_a_refused_reply_after_a_committed_command_says_it_was_done(table, command):
    env, channel, members, _turn, game_id = await started(table)
    ann = next(iter(members.values()))
    env.inject_error("POST", CALLBACK, status=500, times=1)
    res = await ann.slash(channel, command)
    text = told(res)
    assert text != INTERNAL
    assert "nothing was changed" not in text.lower()
    # Done (the game goes on: /poker resume shows it), or done and the game is closed.
    key = "errors.done_closed" if command == "poker cancel" else "errors.done_not_shown"
    assert text == t(key, "en")
    record = await env.bot.store.get_game(game_id)
    assert record.version > 0
    assert record.status == ("cancelled" if command == "poker cancel" else "playing")
    _acknowledge(env)


async def test_a_refused_reply_after_resume_says_it_was_posted(table):
    env, channel, members, _turn, game_id = await started(table)
    ann = next(iter(members.values()))
    env.inject_error("POST", "/webhooks/*/*", status=500, times=1)  # the follow-up
    res = await ann.slash(channel, "poker resume")
    assert res.acknowledged
    assert len(one_live(env, channel, game_id)) == 1
    assert all("nothing was changed" not in (f.content or "").lower() for f in res.followups)
    assert told(res) == t("errors.done_not_shown", "en")
    _acknowledge(env)


async def test_a_refused_reply_after_a_click_says_it_was_saved(table):
    env, _channel, members, turn, game_id = await started(table)
    player = current_of(turn, members)
    env.inject_error("POST", CALLBACK, status=500, times=1)
    res = await player.click(turn, custom_id=controls(fresh(env, turn))["roll"]["custom_id"])
    assert "saved" in told(res).lower()
    assert len(await env.bot.store.actions(game_id)) == 1
    _acknowledge(env)


@pytest.mark.parametrize(
    ("status", "code"), [(500, 0), (404, 10062)]  # refused; the 3-second deadline missed
)
async def test_a_lobby_that_could_not_be_shown_does_not_block_the_channel(table, status, code):
    env, channel, ann, bob, _cid = table
    env.inject_error("POST", CALLBACK, status=status, code=code, times=1)
    res = await ann.slash(channel, "poker new")
    assert await env.bot.store.active_game(channel.id) is None
    res = await bob.slash(channel, "poker new")
    assert res.acknowledged
    assert not res.ephemeral, told(res)
    _acknowledge(env)


def _acknowledge(env: Any) -> None:
    """The injected failures were the test's own: seen, not a bug of the bot."""
    _ = env.errors  # reading them acknowledges them


# --- 5. the lobby repairs itself as the turn message does --------------------------------


async def test_a_lobby_whose_id_was_never_told_still_updates(table, monkeypatch):
    env, channel, ann, bob, _cid = table
    monkeypatch.setattr(env.bot.play.service, "note_lobby", _nothing)
    lobby = (await ann.slash(channel, "poker new")).response
    game_id = game_of(env, channel)
    add = controls(fresh(env, lobby))["addbot"]["custom_id"]
    assert not (await ann.select(lobby, ["easy"], custom_id=add)).ephemeral
    assert "Bot 1" in str(fresh(env, lobby).embeds[0])
    res = await bob.slash(channel, "poker kick", member=ann)  # not the host: refused
    assert res.ephemeral
    await ann.slash(channel, "poker cancel")  # a command: found in the channel
    assert one_live(env, channel, game_id) == []


async def test_a_lost_lobby_posted_again_without_history_leaves_one_live_copy(table, monkeypatch):
    env, channel, ann, bob, _cid = table
    monkeypatch.setattr(env.bot.play.service, "note_lobby", _nothing)
    first = (await ann.slash(channel, "poker new")).response
    game_id = game_of(env, channel)
    env.inject_error("GET", MESSAGES, status=403, code=50001, message="Missing Access", times=None)
    res = await bob.slash(channel, "poker resume")  # bob is no player: refused
    assert res.ephemeral
    res = await ann.slash(channel, "poker resume")  # the lost lobby cannot be found: again
    assert res.acknowledged
    assert (await bob.click(first, label="Join")).acknowledged  # a click on the first copy
    live = one_live(env, channel, game_id)
    assert len(live) == 1
    assert live[0].id != first.id
    assert "bob" in str(live[0].embeds[0])
    env.backend.faults.clear()


# --- 6. /poker resume: players, host, managers; one ping a minute -------------------------


async def test_resume_is_for_players_host_and_managers_once_a_minute(table, bot_factory):
    env, channel, _members, _turn, game_id = await started(table)
    _env, _channel, ann, bob, cid = table
    manager_role = channel.guild.create_role(
        "admins", permissions=discord.Permissions(manage_guild=True)
    )
    boss = channel.guild.add_member(env.create_user("boss"), roles=[manager_role])
    before = len(stored(env, channel))
    refused = await cid.slash(channel, "poker resume")  # a stranger
    assert refused.ephemeral
    assert len(stored(env, channel)) == before + 1  # only the ephemeral refusal
    first = await bob.slash(channel, "poker resume")
    assert first.acknowledged
    posts = len([m for m in stored(env, channel) if m.ping_user_ids])
    for member in (ann, bob, boss):
        again = await member.slash(channel, "poker resume")
        assert again.ephemeral
        assert "again" in told(again).lower() or "moment" in told(again).lower()
    assert len([m for m in stored(env, channel) if m.ping_user_ids]) == posts
    await env.bot.close()
    await env.restart_bot(bot_factory())  # a restart does not reset the minute
    assert (await ann.slash(channel, "poker resume")).ephemeral
    assert len([m for m in stored(env, channel) if m.ping_user_ids]) == posts
    await env.advance_time(61)
    later = await boss.slash(channel, "poker resume")  # a manager, a minute later
    assert later.acknowledged
    assert len(one_live(env, channel, game_id)) == 1


# --- 7. controls check where the click came from ------------------------------------------


async def test_forged_ids_from_another_server_or_channel_reach_nothing(table):
    env, channel, members, turn, game_id = await started(table)
    _env, _channel, ann, _bob, _cid = table
    player = current_of(turn, members)
    other_guild = env.create_guild("Elsewhere")
    elsewhere = other_guild.create_text_channel("dice")
    owner_role = other_guild.create_role("owners", permissions=discord.Permissions(
        manage_guild=True, administrator=True))  # fmt: skip
    twin = other_guild.add_member(player.user, roles=[owner_role])  # the player, elsewhere
    side = channel.guild.create_text_channel("side")
    version = (await env.bot.store.get_game(game_id)).version
    forged = [
        f"poker:roll:{game_id}:{version}",
        f"poker:cancel:{game_id}:{version}",
        f"poker:kick:{game_id}:{version}:{ann.id}",
        f"poker:hold:{game_id}:{version}:0",
        f"poker:card:{game_id}:{version}",
    ]
    for where, who in ((elsewhere, twin), (side, player)):
        for custom_id in forged:
            button = discord.ui.Button(label="x", custom_id=custom_id)
            await post_component(env.bot, where.id, button)
            res = await who.click(where.last_message, custom_id=custom_id)
            assert res.acknowledged
            assert res.ephemeral
            assert told(res) != INTERNAL
    record = await env.bot.store.get_game(game_id)
    assert record.version == version
    assert record.status == "playing"
    assert await env.bot.store.actions(game_id) == []


async def test_a_manager_of_another_server_cannot_cancel(table):
    env, channel, _members, _turn, game_id = await started(table)
    _env, _channel, _ann, _bob, cid = table
    other = env.create_guild("Elsewhere")
    admin = other.create_role("admins", permissions=discord.Permissions(manage_guild=True))
    other.add_member(cid.user, roles=[admin])
    res = await cid.slash(channel, "poker cancel")  # in the game's server cid manages nothing
    assert res.ephemeral
    assert (await env.bot.store.get_game(game_id)).status == "playing"


# --- 8. numbers in custom_ids are range-checked -----------------------------------------


@pytest.mark.parametrize(
    "custom_id",
    [
        "league:board:wins:all:99999999999999999999:99999999999999999999:n",
        "league:board:wins:all:0:18446744073709551616:p",
        "league:board:skill:classic:99999999999999999999:1:c",
        "league:board:nope:all:1:1:n",
        "league:board:wins:nope:1:1:n",
        "poker:roll:99999999999999999999:99999999999999999999",
        "poker:kick:1:0:99999999999999999999",
        "poker:hold:1:0:99999999999999999999",
        "poker:addbot:1:0",
    ],
)
async def test_huge_numbers_in_custom_ids_are_answered_politely(table, custom_id):
    env, channel, _members, _turn, game_id = await started(table)
    _env, _channel, _ann, bob, _cid = table
    before = (await env.bot.store.get_game(game_id)).version
    await post_component(env.bot, channel.id, discord.ui.Button(label="x", custom_id=custom_id))
    res = await bob.click(channel.last_message, custom_id=custom_id)
    assert res.acknowledged
    assert told(res) != INTERNAL or not res.ephemeral
    assert (await env.bot.store.get_game(game_id)).version == before


# --- also: escaping once, host powers, downtime ------------------------------------------


async def test_names_are_escaped_once_in_history_and_raw_in_the_export(table):
    env, channel, _ann, _bob, _cid = table
    shown = "a_b*c`d<@1>"
    odd = channel.guild.add_member(env.create_user("odd"), nick=shown)
    await open_game(channel, odd, [])
    await play_to_the_end(env, channel, {odd.id: odd})
    res = await odd.slash(channel, "poker history")
    field = res.response.embeds[0].fields[0].value
    assert "\\\\" not in field  # never escaped twice
    assert shown in re.sub(r"\\(.)", r"\1", field)  # once: Discord shows it as typed
    game_id = int(res.response.embeds[0].fields[0].name.split("#")[1].split(" ")[0])
    export = await odd.slash(channel, "poker export", game=game_id)
    data = json.loads(await export.response.attachments[0].read())
    assert data["players"] == [shown]


async def test_a_host_who_leaves_passes_host_powers_to_the_next_human(table):
    env, channel, ann, bob, cid = table
    members = {ann.id: ann, bob.id: bob, cid.id: cid}
    await open_game(channel, ann, [bob, cid])
    assert (await ann.slash(channel, "poker leave")).acknowledged
    res = await ann.slash(channel, "poker kick", member=bob)
    assert res.ephemeral
    assert "kick" not in controls(res.response)  # ann is no host any more
    record = await env.bot.store.get_game(game_of(env, channel))
    heir = record.state["host_id"]
    assert heir in (bob.id, cid.id)
    other = cid if heir == bob.id else bob
    res = await members[heir].slash(channel, "poker kick", member=other)
    assert "kick" in controls(res.response)


async def test_an_overdue_turn_after_a_restart_gets_an_announced_grace(table, bot_factory):
    env, channel, members, _turn, game_id = await started(table)
    await env.bot.close()
    await env.advance_time(600)  # down past the deadline
    await env.restart_bot(bot_factory())
    await env.advance_time(5)
    assert await env.bot.store.actions(game_id) == []  # nothing played at once
    live = one_live(env, channel, game_id)
    assert t("timer.grace", "en", n=1) in live[0].content
    record = await env.bot.store.get_game(game_id)
    assert record.state["strikes"] == []  # downtime is no strike
    player = current_of(turn_message(channel), members)
    assert await play_turn(env, channel, members)  # and the player can still play it
    assert (await env.bot.store.actions(game_id))[0]["player"] == str(player.id)


@pytest.mark.parametrize("then", ["poker cancel", "timer"])
async def test_without_channel_history_a_restart_after_a_timer_keeps_one_live_message(
    table, bot_factory, then
):
    """A change no click made (here the timer's) stores the id of the message it posted at
    once: after a restart the game knows it even where the bot cannot read the channel."""
    env, channel, members, first, game_id = await started(table)
    for _ in range(32):  # the timer plays the first turn: a new turn message
        await env.advance_time(10)
    second = turn_message(channel)
    assert second.id != first.id
    assert (await env.bot.store.get_game(game_id)).state["turn_message_id"] == second.id
    await env.bot.close()
    await env.restart_bot(bot_factory())
    env.inject_error("GET", MESSAGES, status=403, code=50001, message="Missing Access", times=None)
    if then == "timer":
        for _ in range(40):
            await env.advance_time(10)
        assert not controls(fresh(env, second)).get("roll")  # now a summary
        assert len(one_live(env, channel, game_id)) == 1
    else:
        host = next(iter(members.values()))
        assert (await host.slash(channel, "poker cancel")).acknowledged
        assert one_live(env, channel, game_id) == []


async def test_a_click_on_the_lost_turn_message_after_resume_leaves_one_live_copy(
    table, bot_factory
):
    """The turn's id was never stored, a restart, no channel history: /poker resume posts
    the turn again at the same version, and a click on the lost copy still plays, once."""
    env, channel, members, second, game_id = await _recorded_then_restarted(table, bot_factory)
    env.inject_error("GET", MESSAGES, status=403, code=50001, message="Missing Access", times=None)
    player = current_of(second, members)
    assert (await player.slash(channel, "poker resume")).acknowledged
    roll = controls(fresh(env, second))["roll"]["custom_id"]
    res = await player.click(second, custom_id=roll)
    assert res.acknowledged
    live = one_live(env, channel, game_id)
    assert len(live) == 1
    assert live[0].id != second.id
    assert len(await env.bot.store.actions(game_id)) == 3  # the roll, once
    env.backend.faults.clear()
