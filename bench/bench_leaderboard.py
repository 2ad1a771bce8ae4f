"""Leaderboard pages over 100,000 stored results (target: ≤ 50 ms a page).

The results are written through the store, one finished game per save, as the bot writes
them; the database lives in a temporary folder (in /dev/shm when there is one, so filling it
is not a disk benchmark). Every metric is timed with and without a rule-set filter, on the
first page, a middle page and the last, each with the caller's own line. `fill` and
`time_reads` serve bench_store too, on PostgreSQL.
"""

from __future__ import annotations

import random
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

from db import METRICS, OVERALL, GameStore, RatingChange, SeatResult, SqliteStore

TARGET_MS = 50.0
RESULTS = 100_000
MEMBERS = 2_000
RULES = ("classic", "yatzy", "banked", "maxi", "generala")
GUILD = 1
REPEATS = 7


async def fill(store: GameStore, rng: random.Random) -> int:
    """RESULTS results in games of 2–5 of MEMBERS members, one finish per save, each
    with its players' new ratings (per rule set and overall) as the service writes them."""
    start = datetime(2025, 1, 1, tzinfo=UTC)
    written = games = 0
    rated: dict[tuple[str, int], int] = {}  # (scope, member) -> rated games stored
    while written < RESULTS:
        n = min(rng.randint(2, 5), RESULTS - written)
        members = rng.sample(range(1, MEMBERS + 1), n)
        totals = [rng.randint(120, 330) for _ in members]
        avg = sum(totals) / n
        seats = [
            SeatResult(
                seat=i,
                player_id=m,
                name=f"member{m}",
                is_bot=False,
                total=t,
                rank=1 + sum(o > t for o in totals),
                settlement=t - avg,
                ev_loss=rng.choice([None, round(rng.uniform(0, 3), 3)]),
            )
            for i, (m, t) in enumerate(zip(members, totals, strict=True))
        ]
        at = start + timedelta(minutes=games)
        rules = rng.choice(RULES)
        ratings = []
        for scope in (rules, OVERALL):
            for m in members:
                mu, sigma = rng.uniform(15, 35), rng.uniform(1, 8)
                before = rated.get((scope, m), 0)
                ratings.append(RatingChange(scope, m, mu, sigma, mu - 3 * sigma, before))
                rated[(scope, m)] = before + 1
        game = await store.create_game(
            guild_id=GUILD,
            channel_id=games,
            host_id=members[0],
            rules=rules,
            state={},
            now=at,
        )
        await store.save(
            game.id,
            expect_version=0,
            state={},
            status="finished",
            results=seats,
            ratings=ratings,
            actions=[(0, {"type": "pass"})],
            now=at + timedelta(minutes=10),
        )
        written += n
        games += 1
    return games


def _scratch_dir() -> str | None:
    shm = "/dev/shm"  # noqa: S108 (a private TemporaryDirectory inside it)
    return shm if Path(shm).is_dir() else None


async def time_reads(store: GameStore) -> float:
    """Print every board's page times and the other league reads'; the worst median (ms)."""
    worst = 0.0
    for rules in (None, "classic"):
        for metric in METRICS:
            first = await store.leaderboard(GUILD, metric=metric, rules=rules)
            samples = []
            for page in (0, first.pages // 2, first.pages - 1):
                for _ in range(REPEATS):
                    t = time.perf_counter()
                    await store.leaderboard(
                        GUILD, metric=metric, rules=rules, page=page, member_id=7
                    )
                    samples.append((time.perf_counter() - t) * 1000)
            median, high = statistics.median(samples), max(samples)
            worst = max(worst, median)
            print(
                f"{metric:>8} rules={rules or 'all':<8} {first.ranked:>5} ranked: "
                f"median {median:6.1f} ms  max {high:6.1f} ms"
            )
    verdict = "ok" if worst <= TARGET_MS else "OVER TARGET"
    print(f"worst median {worst:.1f} ms a page (target ≤ {TARGET_MS:.0f} ms): {verdict}")
    # The other league reads, for scale: one member's stats and chart, a history page.
    reads: dict[str, Callable[[], Awaitable[object]]] = {
        "stats": lambda: store.member_stats(GUILD, 7),
        "chart scores": lambda: store.recent_scores(GUILD, 7, 20),
        "history page": lambda: store.history(GUILD, limit=10, offset=100),
    }
    for name, read in reads.items():
        samples = []
        for _ in range(REPEATS):
            t = time.perf_counter()
            await read()
            samples.append((time.perf_counter() - t) * 1000)
        print(f"{name:>13}: median {statistics.median(samples):6.1f} ms")
    return worst


async def main() -> None:
    with tempfile.TemporaryDirectory(dir=_scratch_dir()) as tmp:
        store = await SqliteStore.open(Path(tmp) / "bench.sqlite3")
        try:
            began = time.perf_counter()
            games = await fill(store, random.Random(5))
            print(
                f"filled {RESULTS:,} results ({games:,} games) through the store in "
                f"{time.perf_counter() - began:.1f} s"
            )
            await time_reads(store)
        finally:
            await store.close()
