"""Many shards on one PostgreSQL: 200 games at once, split over two bot processes.

Two real processes (this module run as a child, `--child`), each a sharded bot holding
half of 4 shards in a simcord world of its own, play 100 games each in their own server
(both servers exist in both worlds, so channel ids never collide) on one throwaway
PostgreSQL server (tests/pg.py, with PostgreSQL's durable defaults). Both open their
games, then start clicking at the same moment: Roll, hold, Roll, record interleaved over
every game, each click timed as in bench_load. Figures: clicks per second of the two
together, click p50/p99 over both, errors (refused or unanswered clicks and errors the
bots raised), and the database connections the two held at most; then how many durable
saves per second the server takes over 1, 4 and 16 connections at once (for sizing many
processes' pools: README "Running many shards"). Run with `make bench` or
`python -m bench shards`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import asyncpg
import simcord

from bench.bench_load import MEMBERS_PER_GAME, STEPS, Live, _click, _fast_settle, _open
from bot.app import create_bot
from bot.settings import Settings
from db import PostgresStore, migrate
from tests.pg import ThrowawayPostgres, create_database

GAMES = 200
TURNS_PER_GAME = 3
PROCESSES = (("0-1", 1), ("2-3", 3))  # (shards held of 4, the shard of its server)
TARGET_P99_MS = 20.0
ROOT = Path(__file__).resolve().parents[1]


def _worlds(env: Any, games: int) -> dict[int, list[Live]]:
    """Every process's server (the same in each world); its tables by shard."""
    tables: dict[int, list[Live]] = {}
    for _, shard in PROCESSES:
        guild = env.create_guild(f"Load {shard}", shard_id=shard)
        tables[shard] = []
        for g in range(games):
            channel = guild.create_text_channel(f"table-{g}")
            members = [
                guild.add_member(env.create_user(f"s{shard}-p{g}-{i}"))
                for i in range(MEMBERS_PER_GAME)
            ]
            tables[shard].append(Live(channel, {m.id: m for m in members}))
    return tables


async def child(url: str, shards: str, shard: int, games: int) -> None:
    simcord.Env._settle_internal = _fast_settle  # type: ignore[method-assign]
    settings = Settings(
        _env_file=None,  # type: ignore[call-arg]
        discord_token=None,
        database_url=url,
        dev_guild_id=None,
        log_level="WARNING",
        shard_count=4,
        shard_ids=shards,
    )
    bot = create_bot(settings, dice=random.Random(shard), sync_globally=True)
    samples: list[float] = []
    errors = 0
    async with simcord.run(bot, check_errors=False) as env:
        mine = _worlds(env, games)[shard]
        await _open(mine)
        print("ready", flush=True)
        await asyncio.to_thread(sys.stdin.readline)  # "go": both processes at once
        start = time.perf_counter()
        for _ in range(TURNS_PER_GAME * len(STEPS)):
            for live in mine:
                began = time.perf_counter()
                _kind, answered, done = await _click(env, live)
                samples.append((done - began) * 1000)
                errors += not answered
        seconds = time.perf_counter() - start
        errors += len(env.errors)
        await bot.close()
    print(json.dumps({"samples": samples, "errors": errors, "seconds": seconds}))


def _p(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


_CONNECTIONS = "SELECT count(*) - 1 FROM pg_stat_activity WHERE datname = current_database()"


async def _peak_connections(url: str, procs: list[subprocess.Popen[str]]) -> int:
    """The most connections the processes held while they played (looked at every 50 ms)."""
    conn = await asyncpg.connect(url)
    peak = 0
    try:
        while any(proc.poll() is None for proc in procs):
            peak = max(peak, int(await conn.fetchval(_CONNECTIONS)))
            await asyncio.sleep(0.05)
    finally:
        await conn.close()
    return peak


async def _saves_per_second(url: str, connections: int, saves: int = 2_000) -> float:
    """Durable saves per second with `connections` at once (each its own game): how much
    of the database one click's commit uses, for sizing many processes' pools."""
    pool = f"pool_min_size={connections}&pool_max_size={connections}"
    store = await PostgresStore.open(f"{url}{'&' if '?' in url else '?'}{pool}")
    try:
        games = [
            await store.create_game(
                guild_id=1, channel_id=10_000 + n, host_id=1, rules="classic",
                state={"seats": [], "n": n},
            )
            for n in range(connections)
        ]  # fmt: skip
        state = {"game": {"seq": 0, "cards": [{"rows": {"ones": 3}}] * 4}, "seats": [1, 2, 3, 4]}

        async def run(record: Any) -> None:
            version = record.version
            for seq in range(saves // connections):
                action = [(seq, {"player": "1", "roll": [6, 6, 6, 6, 6]})]
                saved = await store.save(record.id, expect_version=version, state=state,
                                         actions=action)  # fmt: skip
                version = saved.version

        start = time.perf_counter()
        await asyncio.gather(*(run(g) for g in games))
        return saves / (time.perf_counter() - start)
    finally:
        await store.close()


def main() -> None:
    server = ThrowawayPostgres.start(durable=True, where=tempfile.gettempdir())
    try:
        url = asyncio.run(create_database(server.url(), "shards"))
        asyncio.run(migrate(url))  # the deploy step, before the processes start
        per = GAMES // len(PROCESSES)
        procs = [
            subprocess.Popen(  # noqa: S603 - this module, fixed arguments
                [sys.executable, "-m", "bench.bench_shards", "--child", url, shards, str(shard),
                 str(per)],
                cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
            )
            for shards, shard in PROCESSES
        ]
        for proc in procs:
            assert proc.stdout is not None
            line = proc.stdout.readline().strip()
            if line != "ready":
                raise RuntimeError(f"a bench process did not start: {line!r}")
        for proc in procs:
            assert proc.stdin is not None
            proc.stdin.write("go\n")
            proc.stdin.flush()
        outputs: list[str] = []

        def collect() -> None:
            outputs.extend(proc.communicate(timeout=600)[0] for proc in procs)

        async def watch() -> int:
            reader = asyncio.create_task(asyncio.to_thread(collect))
            peak = await _peak_connections(url, procs)
            await reader
            return peak

        held = asyncio.run(watch())
        results = [json.loads(out) for out in outputs]
        capacity = {}
        for n in (1, 4, 16):
            fresh = asyncio.run(create_database(server.url(), f"capacity{n}"))
            capacity[n] = asyncio.run(_saves_per_second(fresh, n))
    finally:
        server.stop()
    samples = [s for r in results for s in r["samples"]]
    errors = sum(r["errors"] for r in results)
    wall = max(r["seconds"] for r in results)
    p50, p99 = statistics.median(samples), _p(samples, 0.99)

    def ok(good: bool) -> str:
        return "ok" if good else "MISSED"

    lines = [
        ("games at once", f"{GAMES} over {len(PROCESSES)} processes (shards 0-1 and 2-3 of 4)"),
        ("clicks", f"{len(samples)} in {wall:.1f} s = {len(samples) / wall:.0f}/s together"),
        *(
            (f"  process {shards}", f"{len(r['samples']) / r['seconds']:.0f}/s")
            for (shards, _), r in zip(PROCESSES, results, strict=True)
        ),
        (
            "click p50 / p99",
            f"{p50:.1f} / {p99:.1f} ms (target p99 <= {TARGET_P99_MS:.0f} ms: "
            f"{ok(p99 <= TARGET_P99_MS)})",
        ),
        ("errors", f"{errors} (target 0: {ok(errors == 0)})"),
        ("database connections", f"{held} at most, both processes (pool_max_size 10 each)"),
    ]
    lines += [
        (f"saves/s, {n} connection{'s' if n > 1 else ''}", f"{rate:,.0f} (one action + snapshot)")
        for n, rate in capacity.items()
    ]
    for name, value in lines:
        print(f"{name:<26}{value}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="python -m bench.bench_shards")
    parser.add_argument("--child", nargs=4, metavar=("URL", "SHARDS", "SHARD", "GAMES"))
    args = parser.parse_args()
    if args.child:
        url, shards, shard, games = args.child
        asyncio.run(child(url, shards, int(shard), int(games)))
    else:
        main()
