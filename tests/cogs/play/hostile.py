"""What the hostile-server tests look at: the pings Discord would send, the messages with
live controls, what a member was told. They read only what simcord recorded (the REST
requests and the messages as Discord stores them) and the `poker:` custom_id scheme."""

from __future__ import annotations

import re
from typing import Any

import discord

CALLBACK = "/interactions/*/*/callback"
MESSAGES = "/channels/*/messages"
MESSAGE = "/channels/*/messages/*"
EPHEMERAL = 1 << 6
RAW_MENTION = re.compile(r"(?<!\\)<(@[!&]?|#)\d+>|(?<!\\)@(everyone|here)")
CODE_BLOCK = re.compile(r"```.*?```", re.S)


def stored(env: Any, channel: Any) -> list[Any]:
    """The channel's messages as Discord stores them, oldest first (ephemerals too)."""
    return sorted(env.backend.messages.get(channel.id, {}).values(), key=lambda m: m.id)


def walk(components: Any) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for item in components or ():
        data = item if isinstance(item, dict) else item.to_dict()
        out.append(data)
        out += walk(data.get("components"))
    return out


def live_messages(env: Any, channel: Any, game_id: int) -> list[Any]:
    """Public messages showing an enabled control of `game_id`."""
    found = []
    for message in stored(env, channel):
        if message.flags & EPHEMERAL:
            continue
        for item in walk(message.components):
            parts = (item.get("custom_id") or "").split(":")
            if (
                len(parts) >= 4
                and parts[0] == "poker"
                and parts[2] == str(game_id)
                and not item.get("disabled")
            ):
                found.append(message)
                break
    return found


def policy_of(entry: Any) -> dict[str, Any] | None:
    """The allowed_mentions a REST request carried (None: it carries no message)."""
    body = entry.json if isinstance(entry.json, dict) else None
    if body is None:
        return None
    if "/callback" in entry.path:
        body = body.get("data") if isinstance(body.get("data"), dict) else None
        if body is None:
            return None
    if not any(k in body for k in ("content", "embeds", "components", "allowed_mentions")):
        return None
    return body.get("allowed_mentions", {"missing": True})


def ping_problems(env: Any, turn_pings: set[int]) -> list[str]:
    """Every request that could ping someone the bot did not mean to ping: only a new
    message naming one of `turn_pings` (the players whose turn messages were posted) may
    allow that one user; everything else allows nobody."""
    problems = []
    for entry in env.http_requests:
        if entry.method not in ("POST", "PATCH"):
            continue
        policy = policy_of(entry)
        if policy is None:
            continue
        users = set(map(int, policy.get("users", ())))
        if (
            policy.get("missing")
            or policy.get("parse")
            or policy.get("roles")
            or policy.get("replied_user")
            or len(users) > 1
            or (users and (entry.method != "POST" or not users <= turn_pings))
        ):
            problems.append(f"{entry.method} {entry.path}: {policy}")
    return problems


def pinged(env: Any, channel: Any) -> list[tuple[int, list[int], list[int], bool]]:
    """(message id, users pinged, roles pinged, @everyone) of every message that pings."""
    return [
        (m.id, list(m.ping_user_ids), list(m.ping_role_ids), bool(m.mention_everyone))
        for m in stored(env, channel)
        if m.ping_user_ids or m.ping_role_ids or m.mention_everyone
    ]


def texts(message: Any) -> list[str]:
    """Every piece of text of a stored message: content, embeds, component labels."""
    parts = [message.content or ""]
    for embed in message.embeds or ():
        data = embed if isinstance(embed, dict) else embed.to_dict()
        parts += [data.get("title", ""), data.get("description", "")]
        parts.append((data.get("footer") or {}).get("text", ""))
        parts += [f"{f['name']}\n{f['value']}" for f in data.get("fields", ())]
    for item in walk(message.components):
        parts += [item.get("label") or "", item.get("placeholder") or ""]
        parts += [o.get("label", "") for o in item.get("options", ())]
    return parts


def raw_mentions(message: Any, allowed: str | None = None) -> list[str]:
    """Mentions, @everyone and markdown links that would be interpreted (outside code
    blocks, where nothing is), other than `allowed` (the turn message's own mention)."""
    found = []
    for part in texts(message):
        text = CODE_BLOCK.sub("", part)
        if allowed:
            text = text.replace(allowed, "")
        found += [m.group(0) for m in RAW_MENTION.finditer(text)]
        # A markdown link, other than the bot's own jump links to Discord messages.
        found += re.findall(r"(?<!\\)\[[^\]]*(?<!\\)\]\((?!https://discord\.com/channels/)", text)
    return found


def told(res: Any) -> str:
    """What the member alone was told (the ephemeral answer or follow-up)."""
    assert res.acknowledged
    if res.response is not None and res.ephemeral:
        return res.response.content or ""
    for followup in reversed(res.followups):
        if followup.flags.ephemeral:
            return followup.content or ""
    return ""


async def post_component(bot: Any, channel_id: int, item: discord.ui.Item[Any]) -> None:
    """Post `item` without registering a view: only the bot's dynamic items can claim it."""
    view = discord.ui.View(timeout=None)
    view.add_item(item)
    with discord.http.handle_message_parameters(content="forged", view=view) as params:
        await bot.http.send_message(channel_id, params=params)
