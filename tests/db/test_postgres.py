"""What only the PostgreSQL store has: several processes on one database (migrating at once,
saving the same game from two pools, settings changed by another process), the database's
own refusals (append-only tables, the one-active-game index, foreign keys), the plans of
the hot reads, and the store's URL options. The behaviour both stores share is tested in
the other modules, against each."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import asyncpg
import pytest

import db
from db import ChannelBusy, GameRecord, PostgresStore, SeatResult, StaleVersion
from db import sql as pg_store
from db.engine import split_options

T0 = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)
LATEST = db.latest_version()


async def new(store: PostgresStore, channel: int = 10, **kw) -> GameRecord:
    args = {"guild_id": 1, "channel_id": channel, "host_id": 7, "rules": "classic", "state": {}}
    args.update(kw)
    return await store.create_game(**args)


def seat(n: int, player: int, total: int, rank: int) -> SeatResult:
    return SeatResult(n, player, f"p{player}", False, total, rank, 0.0)


# --- many processes -------------------------------------------------------------------------


async def test_processes_starting_at_once_migrate_once(pg) -> None:
    # Four pools (as four processes) open an empty database at the same moment: the
    # advisory lock queues them, the first makes the schema, the others find it made.
    stores = await asyncio.gather(*(pg.open() for _ in range(4)))
    try:
        assert [await s.schema_version() for s in stores] == [LATEST] * 4
    finally:
        await asyncio.gather(*(s.close() for s in stores))
    conn = await pg.connect()
    try:
        rows = await conn.fetch("SELECT version_num FROM alembic_version")
    finally:
        await conn.close()
    assert [r["version_num"] for r in rows] == [f"{LATEST:04d}"]


def test_two_real_processes_migrate_one_database(pg) -> None:
    # The same with two interpreters, the way two bot processes start.
    script = (
        "import asyncio, sys; import db\n"
        "print(asyncio.run(db.migrate(sys.argv[1])))\n"
    )
    root = str(Path(__file__).parents[2])
    runs = [
        subprocess.Popen(
            [sys.executable, "-c", script, pg.url], cwd=root, stdout=subprocess.PIPE, text=True
        )
        for _ in range(2)
    ]
    outputs = [run.communicate(timeout=60)[0] for run in runs]
    assert [run.returncode for run in runs] == [0, 0]
    assert [out.strip() for out in outputs] == [str(LATEST)] * 2


async def test_concurrent_saves_from_two_pools_one_wins(pg) -> None:
    a, b = await pg.open(), await pg.open()
    try:
        g = await new(a)
        for version in range(5):
            # Each pool saves the same version at once, with an action of its own.
            results = await asyncio.gather(
                *(
                    s.save(
                        g.id,
                        expect_version=version,
                        state={"by": name, "v": version},
                        actions=[(version, {"by": name})],
                    )
                    for s, name in ((a, "a"), (b, "b"), (a, "a2"), (b, "b2"))
                ),
                return_exceptions=True,
            )
            won = [r for r in results if isinstance(r, GameRecord)]
            lost = [r for r in results if isinstance(r, StaleVersion)]
            assert (len(won), len(lost)) == (1, 3), results
            assert all(r.actual == version + 1 for r in lost)
            winner = won[0].state["by"]
            assert (await b.actions(g.id))[version] == {"by": winner}  # only the winner's
            assert await a.get_game(g.id) == won[0]
        assert len(await a.actions(g.id)) == 5
    finally:
        await a.close()
        await b.close()


async def test_processes_claiming_due_games_at_once_never_share_one(pg) -> None:
    # Four pools (four processes holding the same shards) claim 200 due games at once, in
    # batches smaller than the whole: each game goes to exactly one of them.
    stores = [await pg.open() for _ in range(4)]
    try:
        made = [
            await new(stores[0], 1000 + n, deadline=T0 + timedelta(seconds=n)) for n in range(200)
        ]
        now, lease = T0 + timedelta(hours=1), timedelta(seconds=30)

        async def claim_all(store: PostgresStore) -> list[int]:
            got: list[int] = []
            while batch := await store.claim_due(now, lease=lease, limit=7):
                got += batch
            return got

        claimed = await asyncio.gather(*(claim_all(s) for s in stores))
        every = [g for batch in claimed for g in batch]
        assert sorted(every) == sorted(g.id for g in made)  # each once, none left over
        assert sum(1 for batch in claimed if batch) >= 2  # they really raced
    finally:
        await asyncio.gather(*(s.close() for s in stores))


async def test_a_claim_skips_rows_another_transaction_holds(pg) -> None:
    # While one process's claim (or save) holds a due row locked, another claimer passes
    # it by at once rather than waiting for it: SKIP LOCKED.
    store = await pg.open()
    conn = await pg.connect()
    try:
        a = await new(store, 1300, deadline=T0)
        b = await new(store, 1301, deadline=T0 + timedelta(seconds=1))
        async with conn.transaction():
            await conn.execute("SELECT 1 FROM games WHERE id = $1 FOR UPDATE", a.id)
            got = await asyncio.wait_for(
                store.claim_due(T0 + timedelta(minutes=1), lease=timedelta(seconds=30)), 5
            )
            assert got == [b.id]
        assert await store.claim_due(T0 + timedelta(minutes=1), lease=timedelta(seconds=30)) == [
            a.id
        ]
    finally:
        await conn.close()
        await store.close()


async def test_settings_changed_by_one_process_are_seen_by_another_at_once(pg) -> None:
    a, b = await pg.open(), await pg.open()
    try:
        assert (await b.guild_settings(1)).turn_timeout == 300  # read (would be cached) first
        await a.update_settings(1, {"turn_timeout": 45, "language": "ro"})
        got = await b.guild_settings(1)  # no wait, no notification: the very next read
        assert (got.turn_timeout, got.language) == (45, "ro")
        await b.update_settings(1, {"images": True})
        got = await a.guild_settings(1)
        assert (got.turn_timeout, got.language, got.images) == (45, "ro", True)
    finally:
        await a.close()
        await b.close()


async def test_different_settings_changed_at_once_both_stay(pg) -> None:
    # Two processes change two settings of a new server at the same moment: an upsert of the
    # changed columns only, so neither puts the other's back to its default.
    stores = [await pg.open() for _ in range(2)]
    try:
        for guild in range(1, 21):
            await asyncio.gather(
                stores[0].update_settings(guild, {"turn_timeout": 31}),
                stores[1].update_settings(guild, {"images": True}),
            )
            got = await stores[0].guild_settings(guild)
            assert (got.turn_timeout, got.images) == (31, True), guild
    finally:
        for s in stores:
            await s.close()


async def test_games_finishing_at_once_with_the_same_members_do_not_deadlock(pg) -> None:
    # Each game seats members 1–4 in another order; the standings trigger takes their rows
    # in key order, so concurrent finishes queue instead of deadlocking.
    stores = [await pg.open() for _ in range(3)]
    try:
        games = [await new(stores[0], channel=c) for c in range(12)]
        orders = [[1, 2, 3, 4], [4, 3, 2, 1], [2, 4, 1, 3]]

        async def finish(n: int, game: GameRecord) -> None:
            order = orders[n % 3]
            await stores[n % 3].save(
                game.id,
                expect_version=0,
                state={},
                status="finished",
                results=[seat(i, p, 10 * p, 5 - p) for i, p in enumerate(order)],
            )
            await stores[(n + 1) % 3].record_analysis(game.id, dict.fromkeys(range(4), 0.5))

        await asyncio.gather(*(finish(n, g) for n, g in enumerate(games)))
        board = await stores[0].leaderboard(1, metric="best")
        assert [(x.player_id, x.value, x.games) for x in board.lines] == [
            (4, 40, 12), (3, 30, 12), (2, 20, 12), (1, 10, 12)
        ]
        stats = await stores[1].member_stats(1, 4)
        assert (stats[0].games, stats[0].wins, stats[0].analysed) == (12, 12, 12)
    finally:
        for s in stores:
            await s.close()


async def test_channel_busy_race_across_pools(pg) -> None:
    stores = [await pg.open() for _ in range(3)]
    try:
        results = await asyncio.gather(
            *(new(s) for s in stores for _ in range(3)), return_exceptions=True
        )
        made = [r for r in results if isinstance(r, GameRecord)]
        assert len(made) == 1
        busy = [r for r in results if isinstance(r, ChannelBusy)]
        assert len(busy) == 8
        assert all(b.game_id == made[0].id for b in busy)
    finally:
        for s in stores:
            await s.close()


# --- the database's own refusals -----------------------------------------------------------


async def test_actions_and_results_are_append_only(pg) -> None:
    s = await pg.open()
    g = await new(s)
    await s.save(g.id, expect_version=0, state={}, actions=[(0, {"a": 1})])
    await s.save(
        g.id, expect_version=1, state={}, status="finished", results=[seat(0, 1, 10, 1)]
    )
    await s.close()
    conn = await pg.connect()
    try:
        for sql in (
            "UPDATE actions SET payload = '{}'",
            "DELETE FROM actions",
            "TRUNCATE actions",
            "UPDATE results SET total = 99",
            "UPDATE results SET name = name",
            "DELETE FROM results",
            "TRUNCATE results",
        ):
            with pytest.raises(asyncpg.RestrictViolationError, match="append-only"):
                await conn.execute(sql)
        # ev_loss is filled once, never changed or taken back
        await conn.execute("UPDATE results SET ev_loss = 1.5")
        for sql in ("UPDATE results SET ev_loss = 2", "UPDATE results SET ev_loss = NULL"):
            with pytest.raises(asyncpg.RestrictViolationError, match="analysed once"):
                await conn.execute(sql)
    finally:
        await conn.close()


async def test_unique_index_and_foreign_keys_hold_without_the_store(pg) -> None:
    s = await pg.open()
    await new(s)
    await s.close()
    conn = await pg.connect()
    try:
        with pytest.raises(asyncpg.UniqueViolationError, match="games_one_active_per_channel"):
            await conn.execute(
                "INSERT INTO games (channel_id, rules, status, state, created_at,"
                " updated_at) VALUES (10, 'classic', 'playing', '{}', now(), now())"
            )
        with pytest.raises(asyncpg.ForeignKeyViolationError):
            await conn.execute(
                "INSERT INTO actions (game_id, seq, payload, created_at)"
                " VALUES (42, 0, '{}', now())"
            )
    finally:
        await conn.close()


# --- plans of the hot reads -------------------------------------------------------------------


async def _plan(conn: asyncpg.Connection, statement, **params: object) -> str:
    """PostgreSQL's plan of a store statement, compiled as the store sends it. The tables
    are tiny, so a sequential scan would win; without it the planner shows which index it
    can use at all."""
    from sqlalchemy.dialects.postgresql import asyncpg as dialect

    state = statement.compile(dialect=dialect.dialect()).construct_expanded_state(params)
    async with conn.transaction():
        await conn.execute("SET LOCAL enable_seqscan = off")
        rows = await conn.fetch("EXPLAIN " + state.statement, *state.positional_parameters)
    return "\n".join(r[0] for r in rows)


async def test_hot_game_reads_use_their_partial_indexes(pg) -> None:
    s = await pg.open()
    await new(s, deadline=T0)
    await s.close()
    conn = await pg.connect()
    try:
        for shards in ((1, [0]), (2, [0])):
            plan = await _plan(conn, pg_store._DUE, now=T0, limit=10, count=shards[0],
                               shards=shards[1])
            assert "games_due" in plan, plan
            assert "Sort" not in plan, plan  # read in the index's order
        # (V6: the start-up load and the history leave the dailies out, as their indexes.)
        plan = await _plan(conn, pg_store._ACTIVE_GAMES, count=1, shards=[0])
        assert "games_active" in plan, plan
        plan = await _plan(conn, pg_store._HISTORY, guild=1, limit=10, offset=0)
        assert "Index Scan Backward using games_finished" in plan, plan
        assert "Sort" not in plan, plan
    finally:
        await conn.close()


async def test_daily_and_rating_boards_read_by_index(pg) -> None:
    from sqlalchemy import select

    from db.schema import daily_results as d

    s = await pg.open()
    await s.close()
    conn = await pg.connect()
    day = T0.date()
    try:
        top = select(d).where(d.c.guild_id == 1, d.c.rules == "classic", d.c.day == day
                              ).order_by(d.c.total.desc(), d.c.player_id).limit(10)
        plan = await _plan(conn, top)
        assert "daily_results_board" in plan, plan
        assert "Sort" not in plan, plan  # the first page in the index's order
        plan = await _plan(conn, pg_store._DAILY_MINE, g=1, r="classic", d=day, m=7)
        assert "daily_results_board" in plan, plan  # the count of those ahead: a range
        plan = await _plan(conn, pg_store._BOARDS["rating", True, False][0], guild=1,
                           rules="classic",
                           lo=0, hi=10, me=7)
        assert "ratings_pkey" in plan, plan  # the scope's rows by the key's prefix
    finally:
        await conn.close()


async def test_board_reads_the_running_totals_by_index(pg) -> None:
    conn = await pg.connect()
    s = await pg.open()
    try:
        for by_rules in (False, True):
            plan = await _plan(conn, pg_store._BOARDS["net", by_rules, False][0], guild=1,
                               rules="classic", lo=0, hi=10, me=None)
            assert "standings" in plan, plan
            assert "Index" in plan, plan
            assert "results" not in plan, plan
            assert "Seq Scan" not in plan, plan  # names by primary key too
            assert "member_names_pkey" in plan, plan
    finally:
        await s.close()
        await conn.close()


# --- the URL --------------------------------------------------------------------------------


def test_store_options_are_taken_off_the_url() -> None:
    url, options = split_options(
        "postgresql://bot@db:5432/poker?sslmode=require&pool_max_size=4"
        "&statement_cache_size=0&pool_min_size=2"
    )
    assert url == "postgresql://bot@db:5432/poker?sslmode=require"
    assert (options.min_size, options.max_size, options.statement_cache_size) == (2, 4, 0)
    url, options = split_options("postgres:///poker?host=/run/postgresql")
    assert url == "postgres:///poker?host=/run/postgresql"
    assert (options.min_size, options.max_size) == (1, 10)
    for bad in ("pool_max_size=x", "pool_max_size=0", "pool_min_size=5&pool_max_size=2"):
        with pytest.raises(ValueError, match="pool"):
            split_options(f"postgresql://h/db?{bad}")


async def test_a_pool_of_one_and_no_statement_cache_works(pg) -> None:
    s = await PostgresStore.open(f"{pg.url}&pool_max_size=1&statement_cache_size=0")
    try:
        g = await new(s)
        results = await asyncio.gather(
            *(s.save(g.id, expect_version=0, state={"n": n}) for n in range(3)),
            s.guild_settings(1),
            return_exceptions=True,
        )
        assert sum(isinstance(r, GameRecord) for r in results) == 1
        assert sum(isinstance(r, StaleVersion) for r in results) == 2
    finally:
        await s.close()


async def test_times_are_stored_as_timestamptz(pg) -> None:
    s = await pg.open()
    made = T0 + timedelta(microseconds=7)
    g = await new(s, now=made)
    await s.close()
    conn = await pg.connect()
    try:
        await conn.execute("SET TIME ZONE 'Asia/Kolkata'")  # the session's zone changes nothing
        row = await conn.fetchrow(
            "SELECT created_at, pg_typeof(created_at)::text AS t FROM games WHERE id = $1", g.id
        )
        assert row["t"] == "timestamp with time zone"
        assert row["created_at"] == made
    finally:
        await conn.close()
