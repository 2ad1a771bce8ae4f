"""Store figures, PostgreSQL beside SQLite (`python -m bench store`).

1. A save's latency: 1,000 saves of one action and an 8-player snapshot (a classic game
   half played, its seats and message ids), median and p99, on each store. Both run with
   their production durability — SQLite synchronous=FULL, PostgreSQL with fsync and
   synchronous_commit on — once in memory (/dev/shm: the stores' own cost, an fsync there
   being free) and once on this machine's disk (/tmp: what an fsync costs here).
2. The settings read every turn makes: SQLite's is cached, PostgreSQL's is not (another
   process may have changed it).
3. What SQLAlchemy costs a statement: one prebuilt SELECT by primary key on SQLite's
   thread, through the raw driver, through SQLAlchemy with its compiled cache (on in the
   store) and without it; and PostgreSQL's plain save as the one statement the store
   sends beside the generic transaction of two statements (BEGIN … COMMIT: four round
   trips) that SQLite's store runs.
4. The leaderboard over 100,000 results on PostgreSQL (target ≤ 50 ms a page), filled
   through the store as bench_leaderboard fills SQLite.

PostgreSQL is a throwaway server started here (tests/pg.py, as the tests start theirs),
on a unix socket, stopped at the end.
"""

from __future__ import annotations

import asyncio
import json
import random
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy.dialects import sqlite

from bench.bench_leaderboard import RESULTS, TARGET_MS, fill, time_reads
from bot.engine import Game
from db import GameStore, PostgresStore, SqliteStore
from db.engine import direct
from db.sql import _VERSION, Store
from tests.pg import ThrowawayPostgres

T = TypeVar("T")
SAVES = 1_000
SETTINGS_READS = 2_000
PLAYERS = 8


def snapshot() -> dict[str, Any]:
    """What the service saves beside an action mid-game: the engine's state of an 8-player
    classic game with half its rows filled, the seats and the posted messages' ids."""
    rng = random.Random(8)
    names = [f"Player {n} ✦ Игрок" for n in range(PLAYERS)]
    game = Game.new("classic", names).to_dict()
    for card in game["cards"]:
        for index in range(len(card["rows"]) // 2):
            card["rows"][index] = rng.randint(0, 30)
    game["dice"], game["throws"], game["held"] = [6, 6, 2, 5, 6], 2, [0, 1, 4]
    return {
        "game": game,
        "seats": [
            {"id": 10**17 + n, "name": names[n], "locale": "ru", "bot": False, "timeouts": 0}
            for n in range(PLAYERS)
        ],
        "turn_message_id": 10**18 + 1,
        "board_message_id": 10**18 + 2,
        "language": None,
    }


def _quantiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered), ordered[round(0.99 * (len(ordered) - 1))]


async def _saves(store: GameStore, channel: int) -> list[float]:
    state = snapshot()
    record = await store.create_game(
        guild_id=1, channel_id=channel, host_id=1, rules="classic", state=state
    )
    samples = []
    for seq in range(SAVES):
        action = {"type": "roll", "player": seq % PLAYERS, "dice": [6, 6, 2, 5, 6]}
        began = time.perf_counter()
        record = await store.save(
            record.id, expect_version=record.version, state=state, actions=[(seq, action)]
        )
        samples.append((time.perf_counter() - began) * 1000)
    return samples


async def _timed(read: Callable[[], Awaitable[Any]], times: int) -> list[float]:
    samples = []
    for _ in range(times):
        began = time.perf_counter()
        await read()
        samples.append((time.perf_counter() - began) * 1000)
    return samples


async def _figures(store: GameStore) -> tuple[list[float], list[float]]:
    """(save samples, settings read samples) of one store, in ms."""
    saves = await _saves(store, 1)
    reads = await _timed(lambda: store.guild_settings(1), SETTINGS_READS)
    return saves, reads


STATEMENTS = 20_000


async def _statement_cost(folder: Path) -> list[float]:
    """µs per execution of one prebuilt SELECT (a game's version, by id: no value to
    convert) on the store's SQLite thread: the raw driver, compiled by SQLAlchemy and run
    on the driver (`db.engine.direct`: the click's statements), SQLAlchemy's execute with
    its compiled cache (the store's other statements), and without the cache."""
    store = await SqliteStore.open(folder / "statements.sqlite3")
    try:
        game = await store.create_game(guild_id=1, channel_id=1, host_id=1, rules="classic",
                                       state=snapshot())
        sql = str(_VERSION.compile(dialect=_sqlite_dialect()))

        def work(conn: Any) -> list[float]:
            raw, uncached = conn.connection.driver_connection, conn.execution_options(
                compiled_cache=None)
            timings = []
            for run in (lambda: raw.execute(sql, (game.id,)).fetchone(),
                        lambda: direct(conn, _VERSION, {"id": game.id}),
                        lambda: conn.execute(_VERSION, {"id": game.id}).first(),
                        lambda: uncached.execute(_VERSION, {"id": game.id}).first()):
                run()
                began = time.perf_counter()
                for _ in range(STATEMENTS):
                    run()
                timings.append((time.perf_counter() - began) / STATEMENTS * 1e6)
            return timings

        return await store._db.run(work)
    finally:
        await store.close()


def _sqlite_dialect() -> Any:
    return sqlite.dialect()


async def _generic_saves(store: PostgresStore) -> list[float]:
    """PostgreSQL saves through the generic transaction (what SQLite's store runs)."""
    generic = Store._save.__get__(store)
    saving = store._save
    store._save = generic  # type: ignore[method-assign]
    try:
        return await _saves(store, 2)
    finally:
        store._save = saving  # type: ignore[method-assign]


async def _sqlite(folder: Path) -> tuple[list[float], list[float]]:
    store = await SqliteStore.open(folder / "bench.sqlite3")
    try:
        return await _figures(store)
    finally:
        await store.close()


async def _postgres(url: str, work: Callable[[PostgresStore], Awaitable[T]]) -> T:
    store = await PostgresStore.open(url)
    try:
        return await work(store)
    finally:
        await store.close()


async def _board(store: PostgresStore) -> float:
    began = time.perf_counter()
    games = await fill(store, random.Random(5))
    print(
        f"PostgreSQL: filled {RESULTS:,} results ({games:,} games) through the store in "
        f"{time.perf_counter() - began:.1f} s"
    )
    # Statistics, as autovacuum keeps them on a server that collected these results over
    # months (right after a bulk fill the planner would still think the tables empty).
    await store._db.run(lambda c: c.exec_driver_sql("ANALYZE"))
    return await time_reads(store)


async def _both_saves(store: PostgresStore) -> tuple[list[float], list[float]]:
    return await _saves(store, 3), await _generic_saves(store)


def _row(name: str, samples: list[float]) -> None:
    median, p99 = _quantiles(samples)
    print(f"{name:<34}{median:>10.3f}{p99:>9.3f}")


def main() -> None:
    print(f"snapshot: {len(json.dumps(snapshot())):,} bytes of JSON, {PLAYERS} seats")
    print(f"{'save (1 action + snapshot)':<34}{'median ms':>10}{'p99 ms':>9}")
    places = [("memory", "/dev/shm"), ("disk", "/tmp")]  # noqa: S108
    reads: dict[str, list[float]] = {}
    for place, folder in places:
        if not Path(folder).is_dir():
            continue
        with tempfile.TemporaryDirectory(dir=folder) as tmp:
            lite, lite_reads = asyncio.run(_sqlite(Path(tmp)))
        server = ThrowawayPostgres.start(durable=True, where=folder)
        try:
            pg, pg_reads = asyncio.run(_postgres(server.url(), _figures))
        finally:
            server.stop()
        _row(f"SQLite, {place}", lite)
        _row(f"PostgreSQL, {place}", pg)
        reads.setdefault("SQLite (cached)", lite_reads)
        reads.setdefault("PostgreSQL (read every time)", pg_reads)
    print(f"{'settings read':<34}{'median ms':>10}{'p99 ms':>9}")
    for name, samples in reads.items():
        _row(name, samples)
    shm = "/dev/shm" if Path("/dev/shm").is_dir() else None  # noqa: S108
    with tempfile.TemporaryDirectory(dir=shm) as tmp:
        raw, direct_, cached, uncached = asyncio.run(_statement_cost(Path(tmp)))
    print(f"one statement on SQLite, µs: driver {raw:.1f}; compiled by SQLAlchemy, run on the "
          f"driver {direct_:.1f} (+{direct_ - raw:.1f}); SQLAlchemy's execute {cached:.1f} with "
          f"its compiled cache (+{cached - raw:.1f}), {uncached:.1f} without")
    server = ThrowawayPostgres.start(durable=True, where=shm)
    try:
        one, generic = asyncio.run(_postgres(server.url(), _both_saves))
    finally:
        server.stop()
    print(f"{'PostgreSQL save, memory':<34}{'median ms':>10}{'p99 ms':>9}")
    _row("one statement (the store's)", one)
    _row("BEGIN, 2 statements, COMMIT", generic)

    server = ThrowawayPostgres.start(durable=True)
    try:
        worst = asyncio.run(_postgres(server.url(), _board))
    finally:
        server.stop()
    verdict = "ok" if worst <= TARGET_MS else "OVER TARGET"
    print(f"PostgreSQL leaderboard: worst median {worst:.1f} ms a page: {verdict}")


if __name__ == "__main__":
    main()
