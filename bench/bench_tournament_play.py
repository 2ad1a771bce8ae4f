"""A 64-player tournament played through simcord: 16 tables of 4, then 4, then the final,
every seat a computer player (easy, no pause between steps; the host leaves once it has
started). Printed: the wall time and the CPU seconds beside it (on a shared machine wall
time counts others' work too), each table-game change's latency (median and p99: a
computer player's step takes the path of a member's click: lock, change, save, publish), the
messages posted in the channel and in the tables' threads, and the bytes stored (the
SQLite file with its WAL, and the tournament's own rows).
"""

from __future__ import annotations

import asyncio
import contextvars
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import discord
import simcord

from bot.app import DicePokerBot
from bot.match.tournament import Tournament
from bot.service import GameService, tournament_of
from bot.settings import Settings

from ._sim import answer, required

PLAYERS = 64
IDLE = 0.001  # simcord's settle polling (as bench_clicks: the figures measure the bot)
_settle = simcord.Env._settle_internal
# The host's clicks are sent without waiting for the whole bot to be idle (it is not until
# the tournament is over); each table-game change is timed inside the bot.
QUICK: contextvars.ContextVar[bool] = contextvars.ContextVar("quick", default=False)


async def _fast_settle(self: simcord.Env, **options: Any) -> None:
    if QUICK.get():
        await asyncio.sleep(0)
        return
    options.setdefault("idle", IDLE)
    await _settle(self, **options)


async def _until(check: Any, limit: float = 600.0) -> None:
    began = time.perf_counter()
    while not await check():
        if time.perf_counter() - began > limit:
            raise TimeoutError("the bot did not get there")
        await asyncio.sleep(0.01)


def _ids(env: Any, message: Any) -> dict[str, dict[str, Any]]:
    channel_id = getattr(message, "channel_id", None) or message.channel.id
    stored = env.backend.get_message(channel_id, message.id)
    out: dict[str, dict[str, Any]] = {"hold": {}}
    for row in stored.components:
        for item in row.get("components", []):
            parts = str(item.get("custom_id", "")).split(":")
            if len(parts) >= 2:
                out[parts[1]] = item
    return out


async def _run(folder: Path) -> None:
    path = folder / "bench.sqlite3"
    settings = Settings(_env_file=None, dev_guild_id=None, database_path=path,  # type: ignore[call-arg]
                        bot_pause=0.0, strategy_precompute=False)  # fmt: skip
    bot = DicePokerBot(settings, dice=random.Random(64), sync_globally=True)
    async with simcord.run(bot) as env:
        guild = env.create_guild("Bench")
        channel = guild.create_text_channel("night")
        host = guild.add_member(env.create_user("host"))
        message = answer(await host.slash(channel, "poker tournament new", rules="classic"))
        for _ in range(PLAYERS - 1):
            select = _ids(env, message)["addbot"]
            await host.select(message, ["easy"], custom_id=select["custom_id"])
        tid = int(_ids(env, message)["start"]["custom_id"].split(":")[2])
        env.settle_timeout = 3600.0
        changes: list[float] = []
        apply = GameService.apply

        async def timed(self: Any, *args: Any, **kwargs: Any) -> Any:
            began = time.perf_counter()
            try:
                return await apply(self, *args, **kwargs)
            finally:
                changes.append((time.perf_counter() - began) * 1000)

        GameService.apply = timed  # type: ignore[method-assign]

        store = required(bot.store, "the store")

        async def tournament() -> Tournament:
            return tournament_of(required(await store.get_tournament(tid), "the tournament"))

        async def state() -> str:
            return (await tournament()).status

        QUICK.set(True)
        wall, cpu = time.perf_counter(), time.process_time()
        await host.click(message, custom_id=_ids(env, message)["start"]["custom_id"])
        await _until(lambda: _is(state, "playing"))
        await host.click(message, custom_id=_ids(env, message)["leave"]["custom_id"])
        await _until(lambda: _over(state), limit=3600.0)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        QUICK.set(False)
        await env.settle()
        tn = await tournament()
        in_channel = [m for m in channel.history()
                      if m.type != discord.MessageType.thread_created]  # fmt: skip
        notes = len(channel.history()) - len(in_channel)
        in_threads = sum(len(h.history()) for h in channel.threads)
        await bot.close()
    stored = _bytes(folder)
    ordered = sorted(changes)
    p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))] if ordered else 0.0
    print(f"tournament #{tn.id}: {tn.status}, {len(tn.rounds)} rounds "
          f"({', '.join(str(len(r.tables)) for r in tn.rounds)} tables), champion {tn.champion}")
    print(f"wall {wall:.1f} s · CPU {cpu:.1f} s")
    median = statistics.median(ordered) if ordered else 0.0
    print(f"table-game changes (a computer's step takes a click's path: lock, change, save, "
          f"publish): {len(ordered)}, median {median:.1f} ms, p99 {p99:.1f} ms")
    print(f"messages: {len(in_channel)} in the channel (+{notes} Discord thread notes), "
          f"{in_threads} in {len(channel.threads)} threads")
    print(f"bytes stored: {stored:,} (the SQLite file and its WAL)")


def _bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.glob("bench.sqlite3*"))


async def _is(state: Any, status: str) -> bool:
    return bool(await state() == status)


async def _over(state: Any) -> bool:
    return await state() in ("finished", "cancelled")


def main() -> None:
    simcord.Env._settle_internal = _fast_settle  # type: ignore[method-assign]
    with tempfile.TemporaryDirectory() as folder:
        asyncio.run(_run(Path(folder)))
