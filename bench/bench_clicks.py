"""Milliseconds per click through simcord: Roll, hold, record — next to a trivial button.

The floor is the same harness (simcord + discord.py) answering a button that only edits
its message; the ratio says what the game adds on top (engine, SQLite commit with
synchronous=FULL, rendering). Run with `make bench` or `python -m bench clicks`.
"""

from __future__ import annotations

import random
import re
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import discord
import simcord
from discord.ext import commands

from bot.app import DicePokerBot
from bot.settings import Settings
from db import SqliteStore

TURNS = 1000  # each turn: two Rolls, a hold, a record: at least 1,000 clicks of each
FLOOR_CLICKS = 1000
MENTION = re.compile(r"<@!?(\d+)>")


# simcord settles each click by polling every `idle` seconds (50 ms) while a callback is
# pending; that polling, not the bot, dominated both the floor and the game. Both harnesses
# below poll every millisecond instead, so the figures measure the bot.
IDLE = 0.001
_settle = simcord.Env._settle_internal


async def _fast_settle(self: simcord.Env, **options: Any) -> None:
    options.setdefault("idle", IDLE)
    await _settle(self, **options)


def _quantiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
    return statistics.median(ordered), p99


class _Ping(discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"bench:ping:(?P<n>\d+)"):
    def __init__(self, n: int) -> None:
        super().__init__(discord.ui.Button(label=f"Ping {n}", custom_id=f"bench:ping:{n}"))
        self.n = n

    @classmethod
    async def from_custom_id(
        cls, _interaction: discord.Interaction, _item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> _Ping:
        return cls(int(match["n"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        view = discord.ui.View(timeout=None)
        view.add_item(_Ping(self.n + 1))
        await interaction.response.edit_message(content=f"pong {self.n}", view=view)


class _TrivialBot(commands.Bot):
    async def setup_hook(self) -> None:
        self.add_dynamic_items(_Ping)

        @self.tree.command(name="ping", description="a trivial button")
        async def ping(interaction: discord.Interaction) -> None:
            view = discord.ui.View(timeout=None)
            view.add_item(_Ping(0))
            await interaction.response.send_message("ping", view=view)

        await self.tree.sync()


async def _floor() -> list[float]:
    bot = _TrivialBot(command_prefix="!", intents=discord.Intents.default())
    samples: list[float] = []
    async with simcord.run(bot) as env:
        guild = env.create_guild("Bench")
        channel = guild.create_text_channel("floor")
        ann = guild.add_member(env.create_user("ann"))
        message = (await ann.slash(channel, "ping")).response.message
        for n in range(FLOOR_CLICKS):
            start = time.perf_counter()
            await ann.click(message, custom_id=f"bench:ping:{n}")
            samples.append((time.perf_counter() - start) * 1000)
        await bot.close()
    return samples


def _components(env: Any, message: discord.Message) -> dict[str, Any]:
    stored = env.backend.get_message(message.channel.id, message.id)
    out: dict[str, Any] = {"hold": []}
    for row in stored.components:
        for item in row.get("components", []):
            action = item.get("custom_id", "::").split(":")[1]
            if action == "hold":
                out["hold"].append(item)
            else:
                out[action] = item
    return out


async def _game(folder: Path, *, quiet_gc: bool = True) -> dict[str, list[float]]:
    settings = Settings(
        _env_file=None,  # type: ignore[call-arg]
        database_path=folder / f"bench-{quiet_gc}.sqlite3",
        dev_guild_id=None,
        quiet_gc=quiet_gc,  # as the bot runs (bot/housekeeping.py); off: the tail's cause
    )
    bot = DicePokerBot(settings, dice=random.Random(7), sync_globally=True)
    times: dict[str, list[float]] = {"roll": [], "hold": [], "record": []}
    async with simcord.run(bot) as env:
        guild = env.create_guild("Bench")
        channel = guild.create_text_channel("dice")
        members = [guild.add_member(env.create_user(n)) for n in ("ann", "bob")]
        by_id = {m.id: m for m in members}
        games = 0
        turns = 0
        while turns < TURNS:
            lobby = (await members[0].slash(channel, "poker new", rules="yatzy")).response
            await members[1].click(lobby, label="Join")
            await members[0].click(lobby, label="Start")
            games += 1
            while turns < TURNS:
                turn = channel.last_message
                if turn is None or not turn.content or not MENTION.search(turn.content):
                    break  # the final standings: start another game
                player = by_id[int(MENTION.search(turn.content)[1])]
                roll = _components(env, turn)["roll"]["custom_id"]
                start = time.perf_counter()
                await player.click(turn, custom_id=roll)
                times["roll"].append((time.perf_counter() - start) * 1000)
                hold = _components(env, turn)["hold"][0]["custom_id"]
                start = time.perf_counter()
                await player.click(turn, custom_id=hold)
                times["hold"].append((time.perf_counter() - start) * 1000)
                c = _components(env, turn)
                start = time.perf_counter()
                await player.click(turn, custom_id=c["roll"]["custom_id"])
                times["roll"].append((time.perf_counter() - start) * 1000)
                select = _components(env, turn)["score"]
                start = time.perf_counter()
                await player.select(
                    turn, [select["options"][0]["value"]], custom_id=select["custom_id"]
                )
                times["record"].append((time.perf_counter() - start) * 1000)
                turns += 1
        await bot.close()
    return times


async def _commits(folder: Path) -> list[float]:
    """One store save (an action + the snapshot, synchronous=FULL) alone: part of every click."""
    store = await SqliteStore.open(folder / "commits.sqlite3")
    record = await store.create_game(
        guild_id=1, channel_id=1, host_id=1, rules="yatzy", state={"seats": []}
    )
    version, samples = record.version, []
    state = {"game": {"history": [{"player": "1", "roll": [1, 2, 3, 4, 5]}] * 60}}
    for seq in range(FLOOR_CLICKS):
        start = time.perf_counter()
        record = await store.save(
            record.id,
            expect_version=version,
            state=state,
            actions=[(seq, {"player": "1", "roll": [6, 6, 6, 6, 6]})],
        )
        samples.append((time.perf_counter() - start) * 1000)
        version = record.version
    await store.close()
    return samples


async def main() -> None:
    simcord.Env._settle_internal = _fast_settle  # type: ignore[method-assign]
    floor = await _floor()
    with tempfile.TemporaryDirectory() as folder:
        times = await _game(Path(folder))
        unquiet = await _game(Path(folder), quiet_gc=False)
        commits = await _commits(Path(folder))
    f_median, _ = _quantiles(floor)
    print(f"{'control':<10}{'clicks':>8}{'median ms':>12}{'p99 ms':>10}{'ratio':>8}{'> 10 ms':>9}")

    def row(name: str, samples: list[float]) -> None:
        median, p99 = _quantiles(samples)
        slow = sum(s > 10 for s in samples)
        ratio = median / f_median
        print(f"{name:<10}{len(samples):>8}{median:>12.2f}{p99:>10.2f}{ratio:>8.2f}{slow:>9}")

    row("trivial", floor)
    for name, samples in times.items():
        row(name, samples)
    row("(commit)", commits)
    print("ratio = median / trivial median; target: every ratio ≤ 1.5 and every p99 ≤ 10 ms")
    print("(commit) = the store's save alone, outside Discord: the fsync every game click pays")
    print("the same game with Python's automatic full collections (the tail's cause):")
    for name, samples in unquiet.items():
        row(name, samples)
