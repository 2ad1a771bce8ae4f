"""Playing across processes: the same message in two worlds, who committed what, and a
player who notes every action Discord acknowledged (to compare with the store's log)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import discord

from tests.cogs.drive import MENTION, controls, fresh, keep, turn_message
from tests.multi.worlds import Table, World

HELD = 3  # discord.ButtonStyle.success: a held die


def _item(raw: dict[str, Any], row: int) -> discord.ui.Item[Any]:
    if raw["type"] == 2:
        return discord.ui.Button(
            style=discord.ButtonStyle(raw.get("style", 2)),
            label=raw.get("label"),
            custom_id=raw.get("custom_id"),
            disabled=bool(raw.get("disabled")),
            row=row,
        )
    return discord.ui.Select(
        custom_id=raw["custom_id"],
        placeholder=raw.get("placeholder"),
        options=[
            discord.SelectOption(
                label=o["label"], value=o["value"], description=o.get("description")
            )
            for o in raw.get("options", [])
        ],
        disabled=bool(raw.get("disabled")),
        row=row,
    )


async def post_copy(world: World, table: Table, message: Any) -> Any:
    """Post `message` (simcord's stored copy of another world's message, as it is there
    now) in `world`'s same channel, by its bot, components and all: the one message both
    processes' members see on one Discord. Posted over plain HTTP, so only the bot's
    registered dynamic items answer it. Returns the copy, to click."""
    view = discord.ui.View(timeout=None)
    for n, row in enumerate(message.components):
        for raw in row.get("components", []):
            view.add_item(_item(raw, n))
    content = message.content or None
    with discord.http.handle_message_parameters(content=content, view=view) as params:
        await world.env.bot.http.send_message(table.channel.id, params=params)
    return table.channel.last_message


@dataclass
class Commits:
    """Every save one process's store tried, and those it committed."""

    name: str
    made: list[tuple[int, int]] = field(default_factory=list)
    tried: list[tuple[int, int]] = field(default_factory=list)  # (game, expected version)

    @property
    def games(self) -> set[int]:
        return {g for g, _ in self.made}


def watch(world: World, name: str) -> Commits:
    """Note each change `world`'s process stores (its store's `save`, wrapped)."""
    commits = Commits(name)
    store = world.env.bot.store
    save = store.save

    async def noted(game_id: int, **kw: Any) -> Any:
        commits.tried.append((game_id, kw["expect_version"]))
        record = await save(game_id, **kw)
        commits.made.append((record.id, record.version))
        return record

    store.save = noted
    return commits


def _applied(res: Any) -> None:
    assert res.acknowledged, res
    assert not res.ephemeral, res.response and res.response.content


@dataclass
class Player:
    """Plays turns by clicks like a member and notes each acknowledged action as the
    replay format writes it (the dice shown after a Roll, the row chosen)."""

    acknowledged: list[tuple[int, int, dict[str, Any]]] = field(default_factory=list)

    async def turn(
        self, world: World, table: Table, *, rolls: int = 3, score: bool = True
    ) -> bool:
        """Play the current turn in `world` (up to `rolls` more throws, holding the most
        frequent face, then record unless `score` is False); False when the game is over."""
        env = world.env
        message = turn_message(table.channel)
        if message is None:
            return False
        player = table.by_id()[int(MENTION.search(message.content)[1])]
        game_id = int(controls(message)["roll"]["custom_id"].split(":")[2])
        seq = len(await world.store.actions(game_id))
        for _ in range(rolls):
            shown = controls(fresh(env, message))
            if shown["roll"].get("disabled"):
                break
            held = [i for i, b in enumerate(shown["hold"]) if b.get("style") == HELD]
            res = await player.click(message, custom_id=shown["roll"]["custom_id"])
            _applied(res)
            dice = [int(b["label"]) for b in controls(fresh(env, message))["hold"]]
            action: dict[str, Any] = {"player": str(player.id)}
            if held:
                action["hold"] = held
            action["roll"] = [d for i, d in enumerate(dice) if i not in held]
            self.acknowledged.append((game_id, seq, action))
            seq += 1
            after = controls(fresh(env, message))
            if after["roll"].get("disabled"):
                break
            want = set(keep(dice))
            for pos, button in enumerate(after["hold"]):
                if (button.get("style") == HELD) != (pos in want):
                    now = controls(fresh(env, message))["hold"][pos]["custom_id"]
                    _applied(await player.click(message, custom_id=now))
        if not score:
            return True
        select = controls(fresh(env, message))["score"]
        row = select["options"][0]["value"]
        _applied(await player.select(message, [row], custom_id=select["custom_id"]))
        self.acknowledged.append((game_id, seq, {"player": str(player.id), "score": row}))
        return True

    async def lost(self, world: World) -> list[tuple[int, int, dict[str, Any]]]:
        """The acknowledged actions the store does not hold as acknowledged."""
        stored = {g: await world.store.actions(g) for g in {g for g, _, _ in self.acknowledged}}
        return [
            (g, seq, a)
            for g, seq, a in self.acknowledged
            if seq >= len(stored[g]) or stored[g][seq] != a
        ]


class Rendezvous:
    """Two processes meet before each of their next `rounds` steps, so both take the same
    step on the same version: the race a rolling deploy makes, every time, not by chance."""

    def __init__(self, rounds: int, parties: int = 2) -> None:
        self.rounds = rounds
        self._barrier = threading.Barrier(parties, timeout=30)
        self._left = dict.fromkeys(range(parties), rounds)

    def wrap(self, party: int, decide: Callable[..., Any]) -> Callable[..., Any]:
        async def met(*args: Any) -> Any:
            decision = await decide(*args)
            if self._left[party] > 0:
                self._left[party] -= 1
                await asyncio.to_thread(self._barrier.wait)
            return decision

        return met
