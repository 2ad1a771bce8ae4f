"""A season's leaderboard pages: 100,000 stored results, of which the season holds the
last 10,000 (target: ≤ 50 ms a page, worst median, on SQLite and PostgreSQL).

The results are written through the store as bench_leaderboard writes them (one finish a
save); the season is the window [since, until) holding the newest 10,000 results. Every
metric summed from results (the rating board of a season is a rating scope, read like a
rule set's: bench_leaderboard) is timed with and without a rule-set filter, on its first,
middle and last page, with the caller's own line; wall time beside this process's CPU
time (on PostgreSQL most of the work is the server's, so CPU there is the client's share).
"""

from __future__ import annotations

import asyncio
import random
import statistics
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path

import sqlalchemy as sa

from bench.bench_leaderboard import GUILD, RESULTS, TARGET_MS, _scratch_dir, fill
from db import GameStore, PostgresStore, SqliteStore
from db.schema import results
from tests.pg import ThrowawayPostgres

SEASON_RESULTS = 10_000
METRICS = ("wins", "net", "average", "best", "skill", "daily")
REPEATS = 7


async def season_window(store: GameStore) -> tuple[datetime, datetime]:
    """The window holding the newest SEASON_RESULTS results."""
    r = results.c
    query = sa.select(r.finished_at).order_by(r.finished_at.desc()).offset(SEASON_RESULTS - 1)
    since = await store._db.run(lambda c: c.execute(query.limit(1)).scalar_one())  # type: ignore[attr-defined]
    return since, since + timedelta(days=365)


async def time_season(store: GameStore, name: str) -> float:
    since, until = await season_window(store)
    counted = await store.member_stats(GUILD, 7, since=since, until=until)
    print(f"{name}: the season holds {SEASON_RESULTS:,} of {RESULTS:,} results "
          f"(member 7: {counted[0].games if counted else 0} games in it)")
    worst = 0.0
    for rules in (None, "classic"):
        for metric in METRICS:
            first = await store.leaderboard(GUILD, metric=metric, rules=rules, since=since,
                                            until=until)
            wall, cpu = [], []
            for page in (0, first.pages // 2, first.pages - 1):
                for _ in range(REPEATS):
                    t, c = time.perf_counter(), time.process_time()
                    await store.leaderboard(GUILD, metric=metric, rules=rules, page=page,
                                            member_id=7, since=since, until=until)
                    wall.append((time.perf_counter() - t) * 1000)
                    cpu.append((time.process_time() - c) * 1000)
            median = statistics.median(wall)
            worst = max(worst, median)
            print(f"{metric:>8} rules={rules or 'all':<8} {first.ranked:>5} ranked: median "
                  f"{median:6.1f} ms (CPU {statistics.median(cpu):5.1f} ms)  "
                  f"max {max(wall):6.1f} ms")
    wall = []
    for _ in range(REPEATS):
        t = time.perf_counter()
        await store.member_stats(GUILD, 7, since=since, until=until)
        wall.append((time.perf_counter() - t) * 1000)
    print(f"   stats of the season: median {statistics.median(wall):6.1f} ms")
    verdict = "ok" if worst <= TARGET_MS else "OVER TARGET"
    print(f"{name}: worst median {worst:.1f} ms a season's page (target ≤ {TARGET_MS:.0f} ms): "
          f"{verdict}")
    return worst


async def _filled(store: GameStore, name: str) -> None:
    began = time.perf_counter()
    games = await fill(store, random.Random(5))
    print(f"{name}: filled {RESULTS:,} results ({games:,} games) through the store in "
          f"{time.perf_counter() - began:.1f} s")


async def _sqlite(folder: Path) -> None:
    store = await SqliteStore.open(folder / "bench.sqlite3")
    try:
        await _filled(store, "SQLite")
        await time_season(store, "SQLite")
    finally:
        await store.close()


async def _postgres(url: str) -> None:
    store = await PostgresStore.open(url)
    try:
        await _filled(store, "PostgreSQL")
        await store._db.run(lambda c: c.exec_driver_sql("ANALYZE"))  # as autovacuum keeps it
        await time_season(store, "PostgreSQL")
    finally:
        await store.close()


def main() -> None:
    with tempfile.TemporaryDirectory(dir=_scratch_dir()) as tmp:
        asyncio.run(_sqlite(Path(tmp)))
    server = ThrowawayPostgres.start(durable=True, where=_scratch_dir())
    try:
        asyncio.run(_postgres(server.url()))
    finally:
        server.stop()
