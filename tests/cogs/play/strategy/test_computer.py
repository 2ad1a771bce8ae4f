"""Computer seats: added by the host in the lobby, played through the game service."""

from __future__ import annotations

import random
from typing import Any

import pytest
import simcord
from hypothesis import given, settings
from hypothesis import strategies as st
from simcord import actors as simcord_actors

from bot.engine import Game, parse_action
from bot.i18n import t
from bot.match import Match, Seat
from bot.strategy import LEVELS, Hold, choose
from bot.strategy.analysis import analyse
from cogs.play._computer import step
from tests.cogs.drive import (
    add_bot,
    as_shown,
    controls,
    fresh,
    game_id_of,
    lobby_players,
    new_lobby,
    play_to_the_end,
    play_turn,
    replay_cli,
    service_of,
    snapshot,
    stored_document,
    turn_message,
)


async def test_bots_of_every_level_play_a_whole_game_with_a_human(table, classic_table):
    env, channel, ann, _bob, _cid = table
    lobby = await new_lobby(channel, ann)
    for level in ("easy", "normal", "perfect"):
        res = await add_bot(env, ann, lobby, level)
        assert not res.ephemeral
    shown = as_shown(lobby_players(env, lobby))
    for name in ("🤖 Bot 1 (easy)", "🤖 Bot 2 (normal)", "🤖 Bot 3 (perfect)"):
        assert name in shown
    assert (await ann.click(lobby, label="Start")).acknowledged

    # Whoever starts, the bots play until it is ann's turn: the human never waits on a click.
    game_id = game_id_of(turn_message(channel))
    turns = await play_to_the_end(env, channel, {ann.id: ann})
    assert turns == 15  # only ann's turns needed clicks

    document = await stored_document(env.bot, game_id)
    result = replay_cli(document)  # every bot move was a legal, stored engine action
    assert result["finished"] is True
    assert all(None not in p["rows"].values() for p in result["players"])
    assert set(document["players"]) == {str(ann.id), "-1", "-2", "-3"}

    # Each bot's turn ends in the same summary line as a human's; no mention of a non-user.
    contents = [as_shown(m.content) for m in channel.history()]
    for n in (1, 2, 3):
        ends = [c for c in contents if f"Bot {n} (" in c and ("recorded" in c or "scratched" in c)]
        assert len(ends) == 15
    assert not any("<@-" in c for c in contents)

    # The perfect seat played exactly the table's best choice every time.
    start = Game.new("classic", document["players"])
    report = analyse(classic_table, start, _actions(document))
    assert report["-3"].decisions >= 15
    assert report["-3"].lost == pytest.approx(0.0, abs=1e-9)
    # The weaker levels do not (they lose points against the table).
    assert report["-1"].lost > 0

    results = await env.bot.store.results(game_id)
    bots = [r for r in results if r.is_bot]
    assert len(bots) == 3
    assert all(r.player_id is None and r.ev_loss is None for r in bots)  # humans only


def _actions(document):
    return [parse_action(a) for a in document["actions"]]


async def test_only_the_host_adds_bots_and_never_past_eight_seats(table):
    env, channel, ann, bob, _cid = table
    lobby = await new_lobby(channel, ann)
    refused = await add_bot(env, bob, lobby, "easy")
    assert refused.ephemeral
    assert "Only the host" in refused.response.content
    assert "Bot" not in lobby_players(env, lobby)

    assert not (await bob.click(lobby, label="Join")).ephemeral
    old = snapshot(env, lobby)
    for _ in range(6):
        assert not (await add_bot(env, ann, lobby, "normal")).ephemeral
    assert "🤖 Bot 6 (normal)" in as_shown(lobby_players(env, lobby))
    # Eight seats: only removals are offered, and an old copy's "add" is refused politely.
    values = [o["value"] for o in controls(fresh(env, lobby))["addbot"]["options"]]
    assert values == [f"remove{n}" for n in range(1, 7)]
    data = {"custom_id": controls(old)["addbot"]["custom_id"], "component_type": 3}
    stale = await simcord_actors._component_interaction(ann, old, {**data, "values": ["easy"]})
    assert stale.ephemeral
    assert "full" in stale.response.content
    assert "Bot 7" not in lobby_players(env, lobby)


async def test_bots_turned_off_on_the_server(table):
    env, channel, ann, _bob, _cid = table
    await env.bot.store.update_settings(channel.guild.id, {"bots_allowed": False})
    lobby = await new_lobby(channel, ann)
    res = await add_bot(env, ann, lobby, "perfect")
    assert res.ephemeral
    assert "turned off" in res.response.content
    assert "Bot" not in lobby_players(env, lobby)


@pytest.mark.parametrize("bot_pause", [30.0])
async def test_a_restart_while_a_bot_is_to_move(table, bot_factory):
    """The old bot stops mid-pause; the new one finds the bot to move and plays on."""
    env, channel, ann, _bob, _cid = table
    lobby = await new_lobby(channel, ann)
    await add_bot(env, ann, lobby, "perfect")
    await ann.click(lobby, label="Start")
    service = service_of(env)
    game_id = max(m.id for m in service.cached())
    tb = await service.get(game_id)
    if tb.current_id == ann.id:  # hand the turn to the bot: one throw, record the first row
        await _play_first_row(env, channel, ann)
    tb = await service.get(game_id)
    assert tb.current_id == -1, "the bot should be to move, paused"
    moves = tb.game.seq  # the actions played so far (the game keeps no history)

    old = env.bot
    await old.close()
    await env.restart_bot(bot_factory(pause=0.0))
    await env.settle()

    after = await service_of(env).get(game_id)
    assert after.current_id == ann.id  # the bot played its turn after the restart
    assert after.game.seq > moves
    assert turn_message(channel) is not None
    assert f"<@{ann.id}>" in turn_message(channel).content


async def _play_first_row(env, channel, member):
    message = turn_message(channel)
    c = controls(fresh(env, message))
    assert (await member.click(message, custom_id=c["roll"]["custom_id"])).acknowledged
    c = controls(fresh(env, message))
    value = c["score"]["options"][0]["value"]
    res = await member.select(message, [value], custom_id=c["score"]["custom_id"])
    assert res.acknowledged


@pytest.mark.parametrize("bot_pause", [10.0])
async def test_a_thinking_bot_blocks_no_other_game(table):
    """While one game's bot pauses between visible steps, another game plays on.

    A pause longer than simcord's settle timeout waits for virtual time, so the test sees
    each step (production pauses 0.8 s, which simcord would wait out in real time)."""
    env, channel, ann, bob, _cid = table
    other = channel.guild.create_text_channel("dice-2")
    lobby = await new_lobby(channel, ann)
    await add_bot(env, ann, lobby, "easy")
    await ann.click(lobby, label="Start")
    service = service_of(env)
    game_id = max(m.id for m in service.cached())
    if (await service.get(game_id)).current_id == ann.id:
        await _play_first_row(env, channel, ann)
    assert (await service.get(game_id)).current_id == -1
    before = (await service.get(game_id)).version

    # The bot is paused (virtual time): bob's game in another channel answers at once.
    lobby2 = await new_lobby(other, bob)
    assert (await bob.click(lobby2, label="Start")).acknowledged
    message = turn_message(other)
    roll = controls(fresh(env, message))["roll"]["custom_id"]
    res = await bob.click(message, custom_id=roll)
    assert res.acknowledged
    assert not res.ephemeral
    assert (await service.get(game_id)).version == before  # the bot has not moved yet
    live = fresh(env, turn_message(channel) or channel.history()[-1])
    assert as_shown(live.content) == "🤖 Bot 1 (easy) is playing."
    assert "hint" not in controls(live)  # no hint on a computer seat's turn
    assert "roll" in controls(live)  # the same turn message as anyone's

    # Step by step: each pause of virtual time shows one more move of the bot.
    seen = [before]
    for _ in range(40):
        await env.advance_time(10.0)
        now = await service.get(game_id)
        if now is None or now.current_id != -1:
            break
        seen.append(now.version)
    assert len(set(seen)) >= 2  # at least one intermediate state was shown
    assert (await service.get(game_id)).current_id == ann.id


async def test_add_bot_select_lists_the_three_levels(table):
    env, channel, ann, _bob, _cid = table
    lobby = await new_lobby(channel, ann)
    select = controls(fresh(env, lobby))["addbot"]
    assert [o["value"] for o in select["options"]] == ["easy", "normal", "perfect"]
    with pytest.raises(simcord.SetupError):
        await ann.select(lobby, ["grandmaster"], custom_id=select["custom_id"])
    # A forged value (a modified client) is refused and adds nobody.
    data = {"custom_id": select["custom_id"], "component_type": 3, "values": ["grandmaster"]}
    forged = await simcord_actors._component_interaction(ann, fresh(env, lobby), data)
    assert forged.ephemeral
    assert "out of date" in forged.response.content
    assert "Bot" not in lobby_players(env, lobby)


@pytest.mark.parametrize("level", ["easy", "normal", "perfect"])
async def test_bots_play_banked_with_passes_and_banked_throws(table, level):
    """Banked has no table: its computer players follow the documented policy."""
    env, channel, ann, _bob, _cid = table
    lobby = await new_lobby(channel, ann, rules="banked")
    await add_bot(env, ann, lobby, level)
    await ann.click(lobby, label="Start")
    game_id = game_id_of(turn_message(channel))
    await play_to_the_end(env, channel, {ann.id: ann})
    document = await stored_document(env.bot, game_id)
    result = replay_cli(document)
    assert result["finished"] is True
    bot_actions = [a for a in document["actions"] if a["player"] == "-1"]
    assert any("score" in a for a in bot_actions)
    record = await env.bot.store.get_game(game_id)
    assert record.status == "finished"


async def test_the_host_removes_a_computer_player_from_the_lobby(table):
    env, channel, ann, bob, _cid = table
    lobby = await new_lobby(channel, ann)
    await add_bot(env, ann, lobby, "easy")
    await add_bot(env, ann, lobby, "perfect")
    select = controls(fresh(env, lobby))["addbot"]
    assert [o["label"] for o in select["options"]][3:] == [
        "Remove 🤖 Bot 1 (easy)",
        "Remove 🤖 Bot 2 (perfect)",
    ]
    refused = await bob.select(lobby, ["remove1"], custom_id=select["custom_id"])
    assert refused.ephemeral
    assert "Only the host" in refused.response.content
    res = await ann.select(lobby, ["remove1"], custom_id=select["custom_id"])
    assert not res.ephemeral
    shown = as_shown(lobby_players(env, lobby))
    assert "(easy)" not in shown
    assert "🤖 Bot 1 (perfect)" in shown  # numbered from 1 again: never "Bot 2" alone
    # A member is never removed through it, even by a forged value.
    now = fresh(env, lobby)
    data = {"custom_id": controls(now)["addbot"]["custom_id"], "component_type": 3}
    forged = await simcord_actors._component_interaction(
        ann, now, {**data, "values": [f"remove{ann.id}"]}
    )
    assert forged.ephemeral
    assert "ann" in lobby_players(env, lobby)
    # The next bot is number 2, on a fresh seat id (a stale "remove" names the old one).
    await add_bot(env, ann, lobby, "normal")
    shown = as_shown(lobby_players(env, lobby))
    assert shown.index("🤖 Bot 1 (perfect)") < shown.index("🤖 Bot 2 (normal)")
    values = [o["value"] for o in controls(fresh(env, lobby))["addbot"]["options"]][3:]
    assert values == ["remove2", "remove3"]


async def test_a_computer_player_added_and_removed_again_and_again_stays_removable(table):
    env, channel, ann, _bob, _cid = table
    lobby = await new_lobby(channel, ann)
    await add_bot(env, ann, lobby, "easy")
    for _ in range(10):  # a newer one in, the older one out: seat ids -2 … -11
        await add_bot(env, ann, lobby, "perfect")
        select = controls(fresh(env, lobby))["addbot"]
        older = select["options"][3]["value"]
        res = await ann.select(lobby, [older], custom_id=select["custom_id"])
        assert not res.ephemeral, res.response.content
        assert as_shown(lobby_players(env, lobby)).endswith("🤖 Bot 1 (perfect)")
    select = controls(fresh(env, lobby))["addbot"]
    assert [o["value"] for o in select["options"]][3:] == ["remove11"]
    res = await ann.select(lobby, ["remove11"], custom_id=select["custom_id"])
    assert not res.ephemeral
    assert "Bot" not in lobby_players(env, lobby)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), level=st.sampled_from(LEVELS))
def test_each_step_carries_out_the_decision_and_the_game_ends(classic_table, seed, level):
    """The driver's steps, without Discord: a hold decision marks exactly those dice, then
    the throw keeps their values; a whole solitaire game ends in 15 turns of at most
    5 steps (three throws, two hold changes) and one record each."""
    rng = random.Random(seed)
    seat = Seat(-1, "bot", is_bot=True, level=level)
    table = Match(
        id=1,
        channel_id=1,
        guild_id=None,
        host_id=7,
        rules="classic",
        status="playing",
        seats=(seat,),
        game=Game.new("classic", [seat.player]),
    )
    steps = 0
    while table.computer_to_move is not None:
        game = table.game
        decision = choose(level, game, classic_table, rng)
        after = step(table, seat, decision, rng)
        steps += 1
        if isinstance(decision, Hold) and game.dice and after.game.held != game.held:
            assert after.game.held == frozenset(decision.positions)
            assert after.game.dice == game.dice  # marking dice throws nothing
            rolled = step(after, seat, decision, rng)
            assert all(rolled.game.dice[p] == game.dice[p] for p in decision.positions)
            after = rolled
            steps += 1
        table = after
    assert table.status == "finished"
    assert steps <= 15 * 6


def posted_turns(env: Any, name: str) -> list[dict[str, Any]]:
    """The embeds of every turn message posted or edited while `name` (a computer player)
    was to move: what spectators saw of its turn."""
    found = []
    for entry in env.http_requests:
        body = entry.json if isinstance(entry.json, dict) else None
        if body is None or entry.method not in ("POST", "PATCH"):
            continue
        body = body.get("data", body) if "/callback" in entry.path else body
        if name in as_shown(str(body.get("content") or "")):
            found += [e for e in body.get("embeds") or () if e.get("fields")]
    return found


async def test_a_computer_players_turn_tells_nobody_to_press_roll(table):
    env, channel, ann, _bob, _cid = table
    lobby = await new_lobby(channel, ann)
    await add_bot(env, ann, lobby, "easy")
    assert (await ann.click(lobby, label="Start")).acknowledged
    for _ in range(4):
        await play_turn(env, channel, {ann.id: ann}, rolls=1)
    bot = "🤖 Bot 1 (easy)"
    seen = posted_turns(env, t("bots.turn", "en", name=bot))
    assert seen, "the computer player's turn messages"
    for embed in seen:
        title, text = as_shown(embed["title"]), as_shown(embed.get("description", ""))
        assert title.startswith(bot)
        assert "your turn" not in title
        assert "Roll" not in text
        assert t("turn.held_hint", "en") not in text
    assert any(as_shown(e["title"]) == f"{bot} — its turn" for e in seen)
    assert any(
        as_shown(e.get("description", "")) == t("turn.computer.waits", "en") for e in seen
    )
