"""Polite to the end: every custom_id of every feature, forged or stale, is answered.

A world is played until every control the bot registers has appeared on a message (the
lobby, a turn of banked, the kick confirmation, a daily, the leaderboard's pager): the
test fails when a feature adds a control it has not seen, so a new prefix is covered the
day it comes. Then each control's real id is forged — every part after the prefix
replaced by a huge number, a negative one, a non-digit, nothing — and clicked by a
member of the server and by a member of another server; and the real ids are clicked
from the wrong server and by a stranger. Every click is acknowledged with a private
answer that is not the "something went wrong" one, and no game changes.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import discord

from bot.i18n import t
from tests.cogs.drive import MENTION, controls, fresh, turn_message
from tests.cogs.play.hostile import EPHEMERAL, post_component, stored, walk

BAD = ["9" * 25, str(2**64), "-1", "x", "", "٣"]  # "٣": a digit to \\d, not to int()
SELECT = discord.ComponentType.string_select.value
BUTTON = discord.ComponentType.button.value
FAILED = {t("errors.internal"), t("errors.done_not_shown"), t("errors.not_shown")}


def ids_shown(env: Any, channel: Any) -> dict[str, int]:
    """Every custom_id on the channel's messages (ephemeral ones too) → component type."""
    return {
        item["custom_id"]: item["type"]
        for message in stored(env, channel)
        for item in walk(message.components)
        if item.get("custom_id")
    }


def forgeries(custom_id: str) -> Iterator[str]:
    """`custom_id` with each part after its prefix replaced by something wrong, one at a
    time; cut short; with a part too many; the prefix alone."""
    parts = custom_id.split(":")
    for i in range(1, len(parts)):
        for bad in BAD:
            if bad != parts[i]:
                yield ":".join([*parts[:i], bad, *parts[i + 1 :]])
    yield ":".join(parts[:-1])
    yield f"{custom_id}:x"
    yield f"{parts[0]}:"


async def click(env: Any, actor: Any, channel: Any, custom_id: str, kind: int) -> Any:
    """A click on a component of `custom_id` on a message of the bot's (one of another
    version of the bot, or hand-made: Discord delivers only what a message carries)."""
    item: discord.ui.Item[Any]
    if kind == SELECT:
        option = discord.SelectOption(label="x", value="x")
        item = discord.ui.Select(custom_id=custom_id, options=[option])
    else:
        item = discord.ui.Button(label="x", custom_id=custom_id)
    await post_component(env.bot, channel.id, item)
    message = channel.last_message
    if kind == SELECT:
        return await actor.select(message, ["x"], custom_id=custom_id)
    return await actor.click(message, custom_id=custom_id)


def private_answer(res: Any) -> str:
    assert res.acknowledged
    if res.response is not None and res.ephemeral:
        return res.response.content or "(an embed)"
    said = [m for m in res.followups if m.flags.ephemeral]
    assert said, "a private answer"
    return said[-1].content or "(an embed)"


async def versions(env: Any, games: list[int]) -> list[tuple[int, str]]:
    records = [await env.bot.store.get_game(g) for g in games]
    return [(r.version, r.status) for r in records]


async def test_every_forged_or_stale_id_of_every_prefix_gets_a_polite_private_answer(table):
    env, channel, ann, bob, cid = table
    members = {ann.id: ann, bob.id: bob}
    seen: dict[str, int] = {}

    # Every control on a message, in turn: the lobby, a banked turn (pass, hint), the kick
    # confirmation, a daily, the leaderboard's pages.
    lobby = (await ann.slash(channel, "poker new", rules="banked")).response
    await bob.click(lobby, label="Join")
    seen |= ids_shown(env, channel)
    await ann.click(lobby, label="Start")
    turn = turn_message(channel)
    mover = members[int(MENTION.search(turn.content)[1])]
    table_game = int(controls(turn)["roll"]["custom_id"].split(":")[2])
    await mover.click(turn, custom_id=controls(fresh(env, turn))["roll"]["custom_id"])
    assert (await ann.slash(channel, "poker kick", member=bob)).ephemeral
    dailies = []
    for rules in ("classic", "banked"):  # a thrown daily: its record menu, banked's Pass
        daily = (await ann.slash(channel, "poker daily play", rules=rules)).response
        roll = next(
            i["custom_id"]
            for i in walk(fresh(env, daily).components)
            if i.get("custom_id", "").startswith("daily:roll:")
        )
        await ann.click(daily, custom_id=roll)
        dailies.append(int(roll.split(":")[2]))
    assert (await ann.slash(channel, "poker leaderboard")).acknowledged
    # A tournament's sign-up (its buttons and computer-player select), then cancelled: its
    # real ids are stale from then on.
    signup = (await ann.slash(channel, "poker tournament new")).response
    seen |= ids_shown(env, channel)
    assert (await ann.click(signup, label=t("lobby.cancel"))).acknowledged
    seen |= ids_shown(env, channel)

    registered = [c for c in env.bot.controls if not getattr(c, "fallback", False)]
    real = {}
    for control in registered:
        shown = [i for i in seen if control.__discord_ui_compiled_template__.fullmatch(i)]
        assert shown, f"{control.__module__}.{control.__name__} never appeared: show it here"
        real[control] = shown[0]
    prefixes = {i.split(":")[0] for i in real.values()}
    assert prefixes == {"poker", "daily", "league", "tourn"}

    # A member of another server, who plays here too (the same user, elsewhere).
    elsewhere = env.create_guild("Elsewhere").create_text_channel("dice")
    twin = elsewhere.guild.add_member(mover.user)
    games = [table_game, *dailies]
    before = await versions(env, games)
    public = len([m for m in stored(env, channel) if not m.flags & EPHEMERAL])

    # (who, where, the id, its kind): forged, then real ones from the wrong server and
    # from a stranger; each as its own kind of component and as a button.
    cases = []
    for custom_id in real.values():
        for kind in sorted({seen[custom_id], BUTTON}):
            cases += [(cid, channel, forged, kind) for forged in forgeries(custom_id)]
            cases += [(twin, elsewhere, custom_id, kind), (cid, channel, custom_id, kind)]
    odd = ("zzz:1:2", "poker", "league:board", "daily", "tourn", "tourn:join", "x" * 100)
    cases += [(cid, channel, custom_id, BUTTON) for custom_id in odd]
    answered = 0
    for who, where, custom_id, kind in cases:
        res = await click(env, who, where, custom_id, kind)
        assert res.acknowledged, (custom_id, kind, who.name)
        text = private_answer(res)
        assert text not in FAILED, (custom_id, text)
        answered += 1
    assert answered > 250
    assert await versions(env, games) == before  # nothing changed …
    posted = len([m for m in stored(env, channel) if not m.flags & EPHEMERAL])
    assert posted == public + len([c for c in cases if c[1] is channel])  # … but ours


async def test_a_page_number_of_more_than_twenty_digits_is_answered(table):
    env, channel, ann, _bob, cid = table
    assert (await ann.slash(channel, "poker leaderboard")).acknowledged
    pager = next(i for i in ids_shown(env, channel) if i.startswith("league:board:"))
    parts = pager.split(":")
    for page in ("9" * 21, "1" + "0" * 40):
        forged = ":".join([*parts[:4], page, *parts[5:]])
        for who in (ann, cid):
            res = await click(env, who, channel, forged, BUTTON)
            assert private_answer(res) == t("controls.unclaimed")
