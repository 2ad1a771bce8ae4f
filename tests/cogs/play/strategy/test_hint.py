"""The Hint button: perfect play for the player to move, answered to them alone."""

from __future__ import annotations

import threading

import discord
import pytest

from bot.engine import Game, parse_action
from bot.render.advice import describe
from bot.strategy import Hold, Record, advise, loss
from bot.strategy.analysis import analyse
from db import SqliteStore
from tests.cogs.drive import (
    add_bot,
    controls,
    final_embed,
    fresh,
    game_id_of,
    new_lobby,
    service_of,
    turn_message,
)


def _fields(embed):
    return {f.name: f.value for f in embed.fields}


async def _ask(env, channel, member):
    message = turn_message(channel)
    res = await member.click(message, custom_id=controls(fresh(env, message))["hint"]["custom_id"])
    assert res.acknowledged
    assert res.ephemeral
    return res.response


async def _do(env, channel, member, decision):
    """Carry out `decision` by clicks: hold buttons then Roll, or the row's select option."""
    message = turn_message(channel)
    service = service_of(env)
    if isinstance(decision, Record):
        select = controls(fresh(env, message))["score"]
        res = await member.select(message, [decision.row], custom_id=select["custom_id"])
        assert res.acknowledged
        assert not res.ephemeral
        return
    assert isinstance(decision, Hold)
    game_id = game_id_of(message)
    game = (await service.get(game_id)).game
    for position in sorted(set(decision.positions) ^ set(game.held) if game.dice else ()):
        hold = controls(fresh(env, message))["hold"][position]["custom_id"]
        assert not (await member.click(message, custom_id=hold)).ephemeral
    roll = controls(fresh(env, message))["roll"]["custom_id"]
    res = await member.click(message, custom_id=roll)
    assert res.acknowledged
    assert not res.ephemeral


async def test_following_every_hint_against_a_perfect_bot_loses_only_the_one_mistake(
    table, classic_table
):
    """A game with a perfect computer seat, a human clicking Hint before every choice."""
    env, channel, ann, _bob, _cid = table
    lobby = await new_lobby(channel, ann)
    await add_bot(env, ann, lobby, "perfect")
    await ann.click(lobby, label="Start")
    service = service_of(env)
    game_id = game_id_of(turn_message(channel))

    # First turn: one throw, then the last row of the menu (a poor choice, on purpose).
    first = await _ask(env, channel, ann)
    assert _fields(first.embeds[0])["Your previous choice"] == "No choice yet in this game."
    await _do(env, channel, ann, Hold(()))
    before = (await service.get(game_id)).game
    mistake = Record(controls(fresh(env, turn_message(channel)))["score"]["options"][-1]["value"])
    cost = loss(classic_table, before, mistake)
    assert cost > 0.5
    await _do(env, channel, ann, mistake)

    hints = 0
    decided = False  # has ann made a decision since the mistake?
    while (tb := await service.get(game_id)) is not None and tb.status == "playing":
        game = tb.game
        assert game.player == str(ann.id)  # the bot's turns never wait for anyone
        answer = (await _ask(env, channel, ann)).embeds[0]
        hints += 1
        advice = advise(classic_table, game)
        assert answer.description == f"Best now: **{describe(advice.best.decision, game, 'en')}**"
        top = _fields(answer)["Top choices (expected final score)"].splitlines()
        assert len(top) == len(advice.choices) <= 3
        for n, (line, choice) in enumerate(zip(top, advice.choices, strict=True), 1):
            assert line == f"{n}. {describe(choice.decision, game, 'en')} — {choice.expected:.1f}"
        previous = _fields(answer)["Your previous choice"]
        if not decided:  # until her next decision: the mistake, its exact cost, the better move
            better = describe(advise(classic_table, before, top=1).best.decision, before, "en")
            assert previous == (
                f"Your choice “{describe(mistake, before, 'en')}” cost **{cost:.2f}** points"
                f" on average (best: {better})."
            )
        else:
            assert previous.endswith("was the best one.")
        decided = decided or bool(game.dice)  # the turn's first throw is no decision
        await _do(env, channel, ann, advice.best.decision)
    assert hints > 30

    # The standings show ann lost exactly the mistake, spread over her decisions.
    document = await env.bot.store.actions(game_id)
    record = await env.bot.store.get_game(game_id)
    players = [c["name"] for c in record.state["game"]["cards"]]
    start = Game.new("classic", players)
    report = analyse(classic_table, start, [parse_action(a) for a in document])
    assert report[str(ann.id)].lost == pytest.approx(cost)
    assert report["-1"].lost == pytest.approx(0.0, abs=1e-9)
    analysis = _fields(final_embed(channel))["Points lost per decision against perfect play"]
    mean = cost / report[str(ann.id)].decisions
    assert analysis == (
        f"ann: **{mean:.2f}** per decision ({report[str(ann.id)].decisions} decisions,"
        f" {cost:.1f} in all)"
    )
    stored = {r.player_id: r.ev_loss for r in await env.bot.store.results(game_id)}
    assert stored[ann.id] == pytest.approx(mean)
    assert stored[None] is None  # the computer seat is not analysed


async def test_a_hint_before_the_table_is_ready_says_so(table, tmp_path, classic_table, use_loader):
    env, channel, ann, _bob, _cid = table
    release = threading.Event()
    calls = []

    def slow_loader(rules):
        calls.append(rules)
        release.wait(30)
        return classic_table

    solutions = use_loader(env, slow_loader, tmp_path / "empty")
    try:
        lobby = await new_lobby(channel, ann)
        await ann.click(lobby, label="Start")
        for _ in range(2):
            res = await _ask(env, channel, ann)
            assert res.content == (
                "The perfect-play table for classic is still being prepared. Ask again in a minute."
            )
            assert not res.embeds
        assert calls == ["classic"]  # asked twice, computed once
    finally:
        release.set()
    assert await solutions.wait("classic") is classic_table
    res = await _ask(env, channel, ann)
    assert res.embeds[0].description == "Best now: **throw all five dice**"


async def test_hints_are_for_the_player_to_move_and_can_be_turned_off(table):
    env, channel, ann, bob, _cid = table
    lobby = await new_lobby(channel, ann)
    await bob.click(lobby, label="Join")
    await ann.click(lobby, label="Start")
    message = turn_message(channel)
    mover = ann if f"<@{ann.id}>" in message.content else bob
    other = bob if mover is ann else ann
    hint = controls(fresh(env, message))["hint"]["custom_id"]
    res = await other.click(message, custom_id=hint)
    assert res.ephemeral
    assert res.response.content == (f"Hints are for the player to move: it is {mover.name}'s turn.")

    await env.bot.store.update_settings(channel.guild.id, {"hints_allowed": False})
    res = await mover.click(message, custom_id=hint)
    assert res.ephemeral
    assert res.response.content == "Hints are turned off on this server."
    # A game started after the change shows no Hint button at all.
    assert (await ann.slash(channel, "poker cancel")).ephemeral
    lobby = await new_lobby(channel, ann)
    await ann.click(lobby, label="Start")
    assert "hint" not in controls(fresh(env, turn_message(channel)))


async def test_banked_hint_is_the_computer_players_policy(table):
    env, channel, ann, _bob, _cid = table
    lobby = await new_lobby(channel, ann, rules="banked")
    await ann.click(lobby, label="Start")
    embed = (await _ask(env, channel, ann)).embeds[0]
    assert embed.description == "throw all five dice"
    assert embed.footer.text.startswith("Banked has no exact table")
    assert not embed.fields


async def test_the_hint_button_survives_a_restart(table, bot_factory):
    env, channel, ann, _bob, _cid = table
    lobby = await new_lobby(channel, ann)
    await ann.click(lobby, label="Start")
    message = turn_message(channel)
    await env.bot.close()
    await env.restart_bot(bot_factory())
    assert await env.bot.play.solutions.wait("classic") is not None
    hint = controls(fresh(env, message))["hint"]["custom_id"]
    res = await ann.click(message, custom_id=hint)
    assert res.ephemeral
    assert res.response.embeds[0].title == "💡 Hint — perfect play"


async def _roll(env, channel, member):
    message = turn_message(channel)
    res = await member.click(message, custom_id=controls(fresh(env, message))["roll"]["custom_id"])
    assert res.acknowledged
    assert not res.ephemeral
    return message


async def test_the_hint_button_follows_hints_turned_off_while_the_bot_was_down(table, bot_factory):
    env, channel, ann, _bob, _cid = table
    lobby = await new_lobby(channel, ann)
    await ann.click(lobby, label="Start")
    assert "hint" in controls(fresh(env, turn_message(channel)))
    await env.bot.close()
    store = await SqliteStore.open(env.bot.settings.database_path)  # an admin tool while it is down
    try:
        await store.update_settings(channel.guild.id, {"hints_allowed": False})
    finally:
        await store.close()
    await env.restart_bot(bot_factory())
    message = await _roll(env, channel, ann)  # the next redraw of the turn message …
    assert "roll" in controls(fresh(env, message))
    assert "hint" not in controls(fresh(env, message))  # … has no Hint button any more


async def test_the_hint_button_follows_poker_settings_during_a_game(table):
    env, channel, ann, bob, _cid = table
    boss = channel.guild.create_role("boss", permissions=discord.Permissions(manage_guild=True))
    admin = channel.guild.add_member(env.create_user("dan"), roles=[boss])
    lobby = await new_lobby(channel, ann)
    await bob.click(lobby, label="Join")
    await ann.click(lobby, label="Start")
    mover = ann if f"<@{ann.id}>" in turn_message(channel).content else bob

    res = await admin.slash(channel, "poker settings", hints=False)
    assert res.ephemeral  # the card for the manager; the channel gets one line
    message = await _roll(env, channel, mover)
    assert "hint" not in controls(fresh(env, message))

    res = await admin.slash(channel, "poker settings", hints=True)
    assert res.ephemeral  # the card for the manager; the channel gets one line
    message = await _roll(env, channel, mover)
    assert "hint" in controls(fresh(env, message))
    assert await env.bot.play.solutions.wait("classic") is not None
    res = await mover.click(message, custom_id=controls(fresh(env, message))["hint"]["custom_id"])
    assert res.ephemeral
    assert res.response.embeds[0].title == "💡 Hint — perfect play"
