"""Load: 200 games at once (800 members) through simcord in one process.

Figures: clicks per second and click p50/p99 (each click timed with perf_counter around
the simulated member's click, Roll / hold / record interleaved across every game, so
each click runs with 200 games live in the cache and the store; simulated time stands
still, so no turn times out), errors
(refused or unanswered clicks and errors the bot raised: must be 0), memory per active
game, and the start-up time of a bot whose database holds 1,000 active games (inserted
through the SqliteStore). Run with `make bench` or `python -m bench load`.

Memory: the simulated Discord lives in the same process and keeps every message the bot
sent, so resident memory per game (shown too) mostly measures simcord. The target is
checked against what the bot holds: the bytes reachable from the bot object, without
simcord's objects, the event loop and code, measured after a warm-up game so lazy
imports and first-use caches are not counted per game.

simcord polls for the bot to go idle every 50 ms by default; as in bench_clicks, it polls
every millisecond here so the figures measure the bot rather than the harness.
"""

from __future__ import annotations

import gc
import random
import re
import statistics
import sys
import tempfile
import time
import types
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import simcord

from bot.app import DicePokerBot
from bot.engine import Game, RuleSet, Score
from bot.match import Match, Seat
from bot.settings import Settings
from db import SqliteStore

GAMES = 200
MEMBERS_PER_GAME = 4
TURNS_PER_GAME = 3  # each turn: Roll, hold, Roll, record
STARTUP_GAMES = 1_000
TARGET_P99_MS = 20.0
TARGET_KB_PER_GAME = 50.0
TARGET_STARTUP_S = 2.0
MENTION = re.compile(r"<@!?(\d+)>")

IDLE = 0.001
_settle = simcord.Env._settle_internal


async def _fast_settle(self: simcord.Env, **options: Any) -> None:
    options.setdefault("idle", IDLE)
    await _settle(self, **options)


def _settings(folder: Path, name: str) -> Settings:
    return Settings(
        _env_file=None,  # type: ignore[call-arg]
        discord_token=None,
        database_path=folder / name,
        dev_guild_id=None,
        log_level="WARNING",
        # An empty table cache of its own: a table left in data/strategy by an earlier run
        # would be loaded (14 MB) in the middle of the memory measurement.
        strategy_dir=folder / "strategy",
    )


def rss_kb() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


SHARED = (type, RuleSet, types.ModuleType, types.FrameType, types.CoroutineType)


def _foreign(obj: Any) -> bool:
    """Not the bot's own memory: simcord's simulated Discord, the event loop, code."""
    module = type(obj).__module__ or ""
    return module.startswith(("simcord", "asyncio")) or isinstance(obj, SHARED) or callable(obj)


def deep_size(roots: list[Any]) -> int:
    """Bytes reachable from `roots`, skipping shared and foreign objects (`_foreign`)."""
    seen: set[int] = set()
    total = 0
    stack = list(roots)
    while stack:
        obj = stack.pop()
        if id(obj) in seen or _foreign(obj):
            continue
        seen.add(id(obj))
        total += sys.getsizeof(obj)
        stack.extend(gc.get_referents(obj))
    return total


def controls(env: Any, message: Any) -> dict[str, Any]:
    stored = env.backend.get_message(message.channel.id, message.id)
    out: dict[str, Any] = {"hold": []}
    for row in stored.components:
        for item in row.get("components", []):
            action = (item.get("custom_id") or "::").split(":")[1]
            if action == "hold":
                out["hold"].append(item)
            else:
                out[action] = item
    return out


@dataclass
class Live:
    channel: Any
    members: dict[int, Any]
    message: Any = None
    step: int = 0
    turns: int = 0


@dataclass
class Load:
    samples: list[float] = field(default_factory=list)
    errors: int = 0
    seconds: float = 0.0
    kb_per_game: float = 0.0
    bot_kb_per_game: float = 0.0
    owned_kb_per_game: float = 0.0


async def _click(load: Load, live: Live, env: Any) -> None:
    """One click of the game's current turn: Roll, hold die 0, Roll, record."""
    message = live.message
    player = live.members[int(MENTION.search(message.content)[1])]
    c = controls(env, message)
    start = time.perf_counter()
    if live.step in (0, 2):
        res = await player.click(message, custom_id=c["roll"]["custom_id"])
    elif live.step == 1:
        res = await player.click(message, custom_id=c["hold"][0]["custom_id"])
    else:
        select = c["score"]
        value = select["options"][0]["value"]
        res = await player.select(message, [value], custom_id=select["custom_id"])
    load.samples.append((time.perf_counter() - start) * 1000)
    if not res.acknowledged or res.ephemeral:
        load.errors += 1
    live.step = (live.step + 1) % 4
    if live.step == 0:
        live.turns += 1
        live.message = live.channel.last_message


def _world(env: Any, games: int) -> list[Live]:
    tables: list[Live] = []
    guild = env.create_guild("Load")
    for g in range(games):
        channel = guild.create_text_channel(f"table-{g}")
        members = [guild.add_member(env.create_user(f"p{g}-{i}")) for i in range(MEMBERS_PER_GAME)]
        tables.append(Live(channel, {m.id: m for m in members}))
    return tables


async def _open(tables: list[Live]) -> None:
    for live in tables:
        host, *others = live.members.values()
        lobby = (await host.slash(live.channel, "poker new", rules="classic")).response
        for member in others:
            await member.click(lobby, label="Join")
        await host.click(lobby, label="Start")
        live.message = live.channel.last_message


async def _load(folder: Path) -> Load:
    load = Load()
    bot = DicePokerBot(_settings(folder, "load.sqlite3"), dice=random.Random(5), sync_globally=True)
    async with simcord.run(bot, check_errors=False) as env:
        warm, *tables = _world(env, GAMES + 1)
        await _open([warm])  # lazy imports and first-use caches are not per game
        for _ in range(TURNS_PER_GAME * 4):
            await _click(Load(), warm, env)
        gc.collect()
        empty, owned = rss_kb(), deep_size([bot])
        await _open(tables)
        start = time.perf_counter()
        for _ in range(TURNS_PER_GAME * 4):
            for live in tables:
                await _click(load, live, env)
        load.seconds = time.perf_counter() - start
        gc.collect()
        load.kb_per_game = (rss_kb() - empty) / GAMES
        load.owned_kb_per_game = (deep_size([bot]) - owned) / 1024 / GAMES
        active = bot.play.service.cached()  # type: ignore[union-attr]
        load.bot_kb_per_game = deep_size(active) / 1024 / max(1, len(active))
        load.errors += len(env.errors)
        await bot.close()
    return load


def _mid_game(match: Match, rng: random.Random, moves: int) -> tuple[Match, list[Any]]:
    """`match` some moves on, and the actions that took it there."""
    game: Game = match.require_game()
    actions: list[Any] = []
    for _ in range(moves):
        if game.finished:
            break
        player = game.player
        action = game.draw(player, rng) if game.throws < 2 else Score(player, game.options()[0].row)
        game, _ = game.apply(action)
        actions.append(action)
    return replace(match, game=game), actions


async def _seed(folder: Path) -> Path:
    """1,000 games in play, each a few turns in, written through the SqliteStore."""
    path = folder / "startup.sqlite3"
    store = await SqliteStore.open(path)
    rng = random.Random(9)
    try:
        for g in range(STARTUP_GAMES):
            seats = tuple(Seat(1000 * g + i, f"p{g}-{i}") for i in range(MEMBERS_PER_GAME))
            lobby = Match(
                id=0,
                channel_id=10_000 + g,
                guild_id=1,
                host_id=seats[0].user_id,
                rules="classic",
                seats=seats,
            )
            record = await store.create_game(
                guild_id=1,
                channel_id=10_000 + g,
                host_id=seats[0].user_id,
                rules="classic",
                state=lobby.to_dict(),
            )
            started = lobby.start(seats[0].user_id, rng, datetime(2026, 1, 1, tzinfo=UTC))
            played, moves = _mid_game(started, rng, rng.randrange(5, 40))
            actions = [(i, a.to_json()) for i, a in enumerate(moves)]
            await store.save(
                record.id,
                expect_version=record.version,
                state=played.to_dict(),
                status="playing",
                actions=actions,
            )
    finally:
        await store.close()
    return path


async def _startup(folder: Path) -> tuple[float, int]:
    await _seed(folder)
    start = time.perf_counter()
    bot = DicePokerBot(_settings(folder, "startup.sqlite3"), sync_globally=True)
    async with simcord.run(bot, check_errors=False):
        seconds = time.perf_counter() - start
        loaded = len(bot.play.service.cached())  # type: ignore[union-attr]
        await bot.close()
    return seconds, loaded


def _p(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def main() -> None:
    simcord.Env._settle_internal = _fast_settle  # type: ignore[method-assign]
    with tempfile.TemporaryDirectory() as folder:
        load = await _load(Path(folder))
        startup, loaded = await _startup(Path(folder))
    clicks = len(load.samples)
    p50, p99 = statistics.median(load.samples), _p(load.samples, 0.99)

    def ok(good: bool) -> str:
        return "ok" if good else "MISSED"

    rate = clicks / load.seconds
    lines = [
        ("games at once", f"{GAMES} ({GAMES * MEMBERS_PER_GAME} members)"),
        ("clicks", f"{clicks} in {load.seconds:.1f} s = {rate:.0f}/s"),
        (
            "click p50 / p99",
            f"{p50:.1f} / {p99:.1f} ms (target p99 <= {TARGET_P99_MS:.0f} ms: "
            f"{ok(p99 <= TARGET_P99_MS)})",
        ),
        ("errors", f"{load.errors} (target 0: {ok(load.errors == 0)})"),
        (
            "memory per active game",
            f"{load.owned_kb_per_game:.1f} KB held by the bot (target <= "
            f"{TARGET_KB_PER_GAME:.0f} KB: {ok(load.owned_kb_per_game <= TARGET_KB_PER_GAME)})",
        ),
        ("", f"{load.kb_per_game:.1f} KB more resident memory: bot and simulated Discord"),
        ("", f"{load.bot_kb_per_game:.1f} KB the cached table itself"),
        (
            f"start-up, {loaded} active",
            f"{startup:.2f} s (target <= {TARGET_STARTUP_S:.0f} s: "
            f"{ok(startup <= TARGET_STARTUP_S)})",
        ),
    ]
    for name, value in lines:
        print(f"{name:<26}{value}")
