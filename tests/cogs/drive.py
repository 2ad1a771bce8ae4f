"""Helpers that drive a game the way a player does: slash commands, clicks, menu choices.

They only read what Discord shows (messages, their components and custom_ids); the
`poker:<action>:<game>:<version>[:<arg>]` scheme is the one contract they rely on.
"""

from __future__ import annotations

import copy
import json
import re
import subprocess
import sys
from collections import Counter
from typing import Any

from simcord import actors as simcord_actors

MENTION = re.compile(r"<@!?(\d+)>")
STANDING = re.compile(r"\*\*(\d+)\.\*\* (.+?) — \*\*(-?\d+)\*\*")


def controls(message: Any) -> dict[str, Any]:
    """Raw component dicts by action (`hold` is a list in position order).

    `message` is a discord.Message or simcord's stored message (raw dicts)."""
    out: dict[str, Any] = {"hold": []}
    rows = message.components
    for row in rows:
        children = (
            row.get("components", [])
            if isinstance(row, dict)
            else [c.to_dict() for c in getattr(row, "children", [])]
        )
        for item in children:
            cid = item.get("custom_id") or ""
            if not cid.startswith("poker:"):
                continue
            action = cid.split(":")[1]
            if action == "hold":
                out["hold"].append(item)
            else:
                out[action] = item
    return out


def fresh(env: Any, message: Any) -> Any:
    """The message as it is now (simcord's stored copy: cheap, raw components)."""
    channel_id = getattr(message, "channel_id", None) or message.channel.id
    return env.backend.get_message(channel_id, message.id)


def turn_message(channel: Any) -> Any | None:
    """The live turn message: one of the channel's last messages with a Roll button."""
    for message in reversed(channel.history()[-4:]):
        if "roll" in controls(message):
            return message
    return None


def standings(channel: Any) -> dict[str, int] | None:
    """Display name → total from the final standings embed, if posted."""
    for message in reversed(channel.history()[-3:]):
        for embed in message.embeds:
            if embed.title and embed.title.startswith("🏁"):
                return {m[2]: int(m[3]) for m in STANDING.finditer(embed.description or "")}
    return None


def game_id_of(message: Any) -> int:
    return int(controls(message)["roll"]["custom_id"].split(":")[2])


async def open_game(channel: Any, host: Any, others: list[Any], rules: str = "classic") -> Any:
    """`/poker new`, everyone joins, the host starts; returns the lobby result."""
    res = await host.slash(channel, "poker new", rules=rules)
    assert res.acknowledged
    assert not res.ephemeral
    lobby = res.response
    for member in others:
        joined = await member.click(lobby, label="Join")
        assert joined.acknowledged
        assert not joined.ephemeral
    started = await host.click(lobby, label="Start")
    assert started.acknowledged
    return res


def keep(dice: list[int]) -> list[int]:
    """A simple policy: keep the dice of the most frequent face (highest on ties)."""
    counts = Counter(dice)
    face = max(counts, key=lambda f: (counts[f], f))
    return [i for i, d in enumerate(dice) if d == face]


async def play_turn(env: Any, channel: Any, members: dict[int, Any], *, rolls: int = 3) -> bool:
    """Play the current turn by clicks; False when no turn message is left (game over)."""
    message = turn_message(channel)  # clicked as it is; read through `fresh`
    if message is None:
        return False
    player = members[int(MENTION.search(message.content)[1])]
    for _ in range(rolls):
        c = controls(fresh(env, message))
        if c["roll"].get("disabled"):
            break
        res = await player.click(message, custom_id=c["roll"]["custom_id"])
        assert res.acknowledged
        assert not res.ephemeral, res.response and res.response.content
        c = controls(fresh(env, message))
        if c["roll"].get("disabled"):
            break
        dice = [int(b["label"]) for b in c["hold"]]
        for pos in keep(dice):
            hold = controls(fresh(env, message))["hold"][pos]["custom_id"]
            res = await player.click(message, custom_id=hold)
            assert res.acknowledged
    c = controls(fresh(env, message))
    select = c.get("score")
    if select is not None and select.get("options"):
        value = select["options"][0]["value"]
        res = await player.select(message, [value], custom_id=select["custom_id"])
    else:
        res = await player.click(message, custom_id=c["pass"]["custom_id"])
    assert res.acknowledged
    assert not res.ephemeral
    return True


async def play_to_the_end(env: Any, channel: Any, members: dict[int, Any], limit: int = 400) -> int:
    turns = 0
    while await play_turn(env, channel, members):
        turns += 1
        assert turns < limit, "the game does not end"
    return turns


def replay_cli(document: dict[str, Any]) -> dict[str, Any]:
    """`python -m bot replay -` on a stored game, as a subprocess."""
    done = subprocess.run(
        [sys.executable, "-m", "bot", "replay", "-"],
        input=json.dumps(document).encode(),
        capture_output=True,
        check=True,
    )
    return json.loads(done.stdout)


async def stored_document(bot: Any, game_id: int) -> dict[str, Any]:
    record = await bot.store.get_game(game_id)
    players = [c["name"] for c in record.state["game"]["cards"]]
    return {"rules": record.rules, "players": players, "actions": await bot.store.actions(game_id)}


async def click_snapshot(actor: Any, snapshot: Any, custom_id: str) -> Any:
    """Click a component on a copy of a message as it was (a double click, a slow client).

    simcord always clicks the message as it is now; a real client may send a click from
    the message as it was before the bot's edit arrived. This replays exactly that.
    """
    button = next(
        c
        for c in simcord_actors.walk_components(snapshot.components)
        if c.get("custom_id") == custom_id
    )
    data = {"custom_id": custom_id, "component_type": button["type"]}
    return await simcord_actors._component_interaction(actor, snapshot, data)


def snapshot(env: Any, message: Any) -> Any:
    return copy.deepcopy(fresh(env, message))


# --- lobbies with computer players, the final standings ---------------------------------


def service_of(env: Any) -> Any:
    """The bot's game service (the play feature's dependencies)."""
    return env.bot.play.service


async def new_lobby(channel: Any, host: Any, rules: str = "classic") -> Any:
    res = await host.slash(channel, "poker new", rules=rules)
    assert res.acknowledged
    assert not res.ephemeral
    return res.response


async def add_bot(env: Any, member: Any, lobby: Any, level: str) -> Any:
    """`member` chooses `level` in the lobby's "Add a computer player…" select."""
    select = controls(fresh(env, lobby))["addbot"]
    res = await member.select(lobby, [level], custom_id=select["custom_id"])
    assert res.acknowledged
    return res


def lobby_players(env: Any, lobby: Any) -> str:
    """The text of the lobby embed's players field."""
    embed = fresh(env, lobby).embeds[0]
    fields = embed["fields"] if isinstance(embed, dict) else [f.to_dict() for f in embed.fields]
    return "\n".join(f["value"] for f in fields)


def final_embed(channel: Any) -> Any:
    """The final standings embed (title starting 🏁), if posted."""
    for message in reversed(channel.history()[-4:]):
        for embed in message.embeds:
            if embed.title and embed.title.startswith("🏁"):
                return embed
    return None


# --- what a member sees (helper B: strategy and league tests) ------------------------------

_ESCAPED = re.compile(r"\\([^\w\s])")


def as_shown(text: str) -> str:
    """Markdown as Discord shows it: names are escaped once when shown (`render.safe`), so
    "1\\. 🤖 Bot 1 \\(easy\\)" reads "1. 🤖 Bot 1 (easy)"."""
    return _ESCAPED.sub(r"\1", text)
