"""Milliseconds per click through simcord: Roll, hold, record — next to a trivial button,
on SQLite and on PostgreSQL in the same run.

The floor is the same harness (simcord + discord.py) answering a button that only edits
its message; the ratio says what the game adds on top (engine, the store's commit,
rendering). SQLite commits with synchronous=FULL; PostgreSQL is a throwaway server
(tests/pg.py) with its durable defaults (fsync, synchronous_commit on), on the same disk,
reached over a unix socket. Run with `make bench` or `python -m bench clicks`.
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
from db import GameStore, PostgresStore, SqliteStore
from tests.pg import ThrowawayPostgres, create_database

from ._sim import answer, mentioned

TURNS = 1000  # each turn: two Rolls, a hold, a record: at least 1,000 clicks of each
FLOOR_CLICKS = 1000


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


class Ping(discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"bench:ping:(?P<n>\d+)"):
    def __init__(self, n: int) -> None:
        super().__init__(discord.ui.Button(label=f"Ping {n}", custom_id=f"bench:ping:{n}"))
        self.n = n

    @classmethod
    async def from_custom_id(
        cls, _interaction: discord.Interaction, _item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> Ping:
        return cls(int(match["n"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        view = discord.ui.View(timeout=None)
        view.add_item(Ping(self.n + 1))
        await interaction.response.edit_message(content=f"pong {self.n}", view=view)


class TrivialBot(commands.Bot):
    async def setup_hook(self) -> None:
        self.add_dynamic_items(Ping)

        @self.tree.command(name="ping", description="a trivial button")
        async def ping(interaction: discord.Interaction) -> None:
            view = discord.ui.View(timeout=None)
            view.add_item(Ping(0))
            await interaction.response.send_message("ping", view=view)

        await self.tree.sync()


async def _floor() -> list[float]:
    bot = TrivialBot(command_prefix="!", intents=discord.Intents.default())
    samples: list[float] = []
    async with simcord.run(bot) as env:
        guild = env.create_guild("Bench")
        channel = guild.create_text_channel("floor")
        ann = guild.add_member(env.create_user("ann"))
        message = answer(await ann.slash(channel, "ping")).message
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


async def _game(store: dict[str, Any], *, quiet_gc: bool = True) -> dict[str, list[float]]:
    """`store`: the Settings field naming the database (database_path or database_url);
    `quiet_gc`: as the bot runs (bot/housekeeping.py), or with Python's automatic full
    collections, which were the tail's cause."""
    settings = Settings(
        _env_file=None,  # type: ignore[call-arg]
        dev_guild_id=None,
        quiet_gc=quiet_gc,
        **store,
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
            lobby = answer(await members[0].slash(channel, "poker new", rules="yatzy"))
            await members[1].click(lobby, label="Join")
            await members[0].click(lobby, label="Start")
            games += 1
            while turns < TURNS:
                turn = channel.last_message
                mover = mentioned(turn.content) if turn is not None else None
                if turn is None or mover is None:
                    break  # the final standings: start another game
                player = by_id[mover]
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


async def _commits(store: GameStore) -> list[float]:
    """One store save (an action + the snapshot, committed durably) alone: part of every
    click."""
    record = await store.create_game(
        guild_id=1, channel_id=1, host_id=1, rules="yatzy", state={"seats": []}
    )
    version, samples = record.version, []
    # About the snapshot of an 8-player game near its end (bench snapshot: 1.9 KB).
    state = {
        "game": {"cards": [{"rows": [-3, 0, 6, 4, -5, 12] + [None] * 9}] * 8},
        "pad": "x" * 1200,
    }
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


TARGET_P99_MS = {"sqlite": 10.0, "postgres": 15.0}


async def main() -> None:
    simcord.Env._settle_internal = _fast_settle  # type: ignore[method-assign]
    floor = await _floor()
    runs: dict[str, tuple[dict[str, list[float]], list[float]]] = {}
    with tempfile.TemporaryDirectory() as folder:
        runs["sqlite"] = (
            await _game({"database_path": Path(folder) / "bench.sqlite3"}),
            await _commits(await SqliteStore.open(Path(folder) / "commits.sqlite3")),
        )
        unquiet = await _game({"database_path": Path(folder) / "gc.sqlite3"}, quiet_gc=False)
        server = ThrowawayPostgres.start(durable=True, where=tempfile.gettempdir())
        try:
            game_url = await create_database(server.url(), "clicks")
            commits_url = await create_database(server.url(), "commits")
            runs["postgres"] = (
                await _game({"database_url": game_url}),
                await _commits(await PostgresStore.open(commits_url)),
            )
        finally:
            server.stop()
    f_median, f_p99 = _quantiles(floor)
    print(f"{'store':<10}{'control':<10}{'clicks':>8}{'median ms':>12}{'p99 ms':>10}{'ratio':>8}")
    print(f"{'':<10}{'trivial':<10}{len(floor):>8}{f_median:>12.2f}{f_p99:>10.2f}{1.0:>8.2f}")
    for name, samples in unquiet.items():
        median, p99 = _quantiles(samples)
        print(
            f"{'gc (*)':<10}{name:<10}{len(samples):>8}{median:>12.2f}{p99:>10.2f}"
            f"{median / f_median:>8.2f}"
        )
    for store, (times, commits) in runs.items():
        worst = 0.0
        for name, samples in times.items():
            median, p99 = _quantiles(samples)
            worst = max(worst, p99)
            print(
                f"{store:<10}{name:<10}{len(samples):>8}{median:>12.2f}{p99:>10.2f}"
                f"{median / f_median:>8.2f}"
            )
        median, p99 = _quantiles(commits)
        print(
            f"{store:<10}{'(commit)':<10}{len(commits):>8}{median:>12.2f}{p99:>10.2f}"
            f"{median / f_median:>8.2f}"
        )
        target = TARGET_P99_MS[store]
        print(f"{store:<10}click p99 {worst:.2f} ms (target <= {target:.0f} ms: "
              f"{'ok' if worst <= target else 'MISSED'})")  # fmt: skip
    print("ratio = median / trivial median; target: ratio ≤ 1.5, p99 ≤ 10 ms (SQLite), 15 (PG)")
    print("(*) SQLite with Python's automatic full collections inside clicks (the old tail)")
    print("(commit) = the store's save alone, outside Discord: the durable commit a click pays")
