"""The game store: every method, the one-active-game rule, versions, idempotent appends.

`store` and `backend` tests run against SQLite and PostgreSQL alike (conftest.py); the
`sqlite_store` and `tmp_path` ones look at SQLite's own file, pragmas and migrations.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy.exc import IntegrityError

import db
from db import (
    ActionConflict,
    ChannelBusy,
    GameNotFound,
    GameRecord,
    GameStore,
    PostgresStore,
    SqliteStore,
    StaleVersion,
)

T0 = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)


async def new(store: GameStore, channel: int = 10, **kw) -> GameRecord:
    args = {"guild_id": 1, "channel_id": channel, "host_id": 7, "rules": "classic", "state": {}}
    args.update(kw)
    return await store.create_game(**args)


async def test_create_and_get(store: GameStore) -> None:
    g = await new(store, state={"seats": [7], "name": "Аня"}, now=T0)
    # A table's host is in its snapshot only (member_id: a daily's member).
    assert (g.status, g.version, g.guild_id, g.channel_id, g.member_id, g.rules) == (
        "lobby",
        0,
        1,
        10,
        None,
        "classic",
    )
    assert g.state == {"seats": [7], "name": "Аня"}
    assert g.created_at == g.updated_at == T0
    assert g.created_at.tzinfo is not None
    assert await store.get_game(g.id) == g
    assert await store.get_game(g.id + 100) is None


async def test_dm_game_has_no_guild(store: GameStore) -> None:
    g = await new(store, guild_id=None)
    got = await store.get_game(g.id)
    assert got is not None
    assert got.guild_id is None


async def test_default_time_is_now_utc(store: GameStore) -> None:
    before = datetime.now(UTC)
    g = await new(store)
    assert before - timedelta(seconds=1) <= g.created_at <= datetime.now(UTC)
    assert g.created_at.utcoffset() == timedelta(0)


async def test_naive_time_is_refused(store: GameStore) -> None:
    with pytest.raises(ValueError, match="timezone"):
        await new(store, now=datetime(2025, 1, 1))


async def test_channel_busy_while_lobby_or_playing(store: GameStore) -> None:
    g = await new(store)
    with pytest.raises(ChannelBusy) as info:
        await new(store)
    assert info.value.game_id == g.id
    await store.save(g.id, expect_version=0, state={}, status="playing")
    with pytest.raises(ChannelBusy):
        await new(store)
    other = await new(store, channel=11)  # another channel is free
    assert other.id != g.id
    await store.save(g.id, expect_version=1, state={}, status="finished")
    again = await new(store)  # the channel is free once the game is over
    assert again.status == "lobby"


async def test_channel_busy_race_one_connection(store: GameStore) -> None:
    results = await asyncio.gather(*(new(store) for _ in range(8)), return_exceptions=True)
    made = [r for r in results if isinstance(r, GameRecord)]
    busy = [r for r in results if isinstance(r, ChannelBusy)]
    assert len(made) == 1
    assert len(busy) == 7
    assert all(b.game_id == made[0].id for b in busy)


async def test_channel_busy_race_two_connections(backend) -> None:
    # Two processes (two connections) checking and inserting at once: only the unique
    # index can stop the second one, a SELECT-then-INSERT could not.
    a, b = await backend.open(), await backend.open()
    try:
        results = await asyncio.gather(new(a), new(b), new(a), new(b), return_exceptions=True)
        made = [r for r in results if isinstance(r, GameRecord)]
        assert len(made) == 1
        assert all(isinstance(r, ChannelBusy) for r in results if r is not made[0])
    finally:
        await a.close()
        await b.close()


async def test_unique_index_enforced_without_the_store(tmp_path: Path) -> None:
    path = tmp_path / "raw.sqlite3"
    s = await SqliteStore.open(path)
    await new(s)
    await s.close()
    conn = sqlite3.connect(path)
    try:
        with pytest.raises(sqlite3.IntegrityError):
            conn.execute(
                "INSERT INTO games (channel_id, rules, status, state, created_at,"
                " updated_at) VALUES (10, 'classic', 'playing', '{}', 'x', 'x')"
            )
    finally:
        conn.close()


async def test_active_game_and_active_games(store: GameStore) -> None:
    assert await store.active_game(10) is None
    assert await store.active_games() == []
    a = await new(store, channel=10)
    b = await new(store, channel=11)
    c = await new(store, channel=12)
    await store.save(b.id, expect_version=0, state={"p": 1}, status="playing")
    await store.save(c.id, expect_version=0, state={}, status="cancelled")
    active_a = await store.active_game(10)
    assert active_a is not None
    assert active_a.id == a.id
    active_b = await store.active_game(11)
    assert active_b is not None
    assert (active_b.status, active_b.state) == ("playing", {"p": 1})
    assert await store.active_game(12) is None
    assert [g.id for g in await store.active_games()] == [a.id, b.id]


async def test_save_bumps_version_and_appends(store: GameStore) -> None:
    g = await new(store, now=T0)
    later = T0 + timedelta(minutes=3)
    saved = await store.save(
        g.id,
        expect_version=0,
        state={"game": 1},
        status="playing",
        actions=[(0, {"type": "roll"}), (1, {"type": "score", "row": "ones"})],
        now=later,
    )
    assert (saved.version, saved.status, saved.state) == (1, "playing", {"game": 1})
    assert saved.created_at == T0
    assert saved.updated_at == later
    assert await store.get_game(g.id) == saved
    assert await store.actions(g.id) == [{"type": "roll"}, {"type": "score", "row": "ones"}]
    # status=None keeps the status
    kept = await store.save(g.id, expect_version=1, state={"game": 2})
    assert (kept.version, kept.status) == (2, "playing")


async def test_actions_in_seq_order(store: GameStore) -> None:
    g = await new(store)
    await store.save(g.id, expect_version=0, state={}, actions=[(1, {"n": 1}), (0, {"n": 0})])
    await store.save(g.id, expect_version=1, state={}, actions=[(2, {"n": 2})])
    assert await store.actions(g.id) == [{"n": 0}, {"n": 1}, {"n": 2}]
    assert await store.actions(g.id + 1) == []


async def test_stale_version_writes_nothing(store: GameStore) -> None:
    g = await new(store, state={"v": 0})
    await store.save(g.id, expect_version=0, state={"v": 1}, actions=[(0, {"a": 0})])
    with pytest.raises(StaleVersion) as info:
        await store.save(
            g.id,
            expect_version=0,
            state={"v": "lost"},
            status="finished",
            actions=[(1, {"a": "lost"})],
        )
    assert (info.value.expected, info.value.actual) == (0, 1)
    got = await store.get_game(g.id)
    assert got is not None
    assert (got.version, got.state, got.status) == (1, {"v": 1}, "lobby")
    assert await store.actions(g.id) == [{"a": 0}]


async def test_concurrent_saves_one_wins(store: GameStore) -> None:
    g = await new(store)
    results = await asyncio.gather(
        *(store.save(g.id, expect_version=0, state={"by": i}) for i in range(5)),
        return_exceptions=True,
    )
    won = [r for r in results if isinstance(r, GameRecord)]
    assert len(won) == 1
    assert sum(isinstance(r, StaleVersion) for r in results) == 4
    assert await store.get_game(g.id) == won[0]


async def test_identical_reappend_is_ignored(store: GameStore) -> None:
    g = await new(store)
    await store.save(g.id, expect_version=0, state={}, actions=[(0, {"type": "roll", "k": [1]})])
    # A replayed write (same seq, same action, key order aside) changes nothing in actions.
    again = await store.save(
        g.id,
        expect_version=1,
        state={"s": 2},
        actions=[(0, {"k": [1], "type": "roll"}), (1, {"type": "pass"})],
    )
    assert again.version == 2
    assert await store.actions(g.id) == [{"type": "roll", "k": [1]}, {"type": "pass"}]


async def test_different_reappend_conflicts_and_rolls_back(store: GameStore) -> None:
    g = await new(store)
    await store.save(g.id, expect_version=0, state={"s": 1}, actions=[(0, {"type": "roll"})])
    with pytest.raises(ActionConflict):
        await store.save(
            g.id,
            expect_version=1,
            state={"s": 2},
            actions=[(1, {"type": "pass"}), (0, {"type": "score"})],
        )
    got = await store.get_game(g.id)
    assert got is not None
    assert (got.version, got.state) == (1, {"s": 1})
    assert await store.actions(g.id) == [{"type": "roll"}]


async def test_save_unknown_game_and_bad_status(store: GameStore) -> None:
    with pytest.raises(GameNotFound):
        await store.save(999, expect_version=0, state={})
    g = await new(store)
    with pytest.raises(ValueError, match="status"):
        await store.save(g.id, expect_version=0, state={}, status="paused")
    got = await store.get_game(g.id)
    assert got is not None
    assert got.version == 0


async def test_reviving_a_game_in_a_busy_channel(store: GameStore) -> None:
    old = await new(store)
    await store.save(old.id, expect_version=0, state={}, status="cancelled")
    fresh = await new(store)
    with pytest.raises(ChannelBusy) as info:
        await store.save(old.id, expect_version=1, state={}, status="lobby")
    assert info.value.game_id == fresh.id


async def test_actions_are_append_only(tmp_path: Path) -> None:
    path = tmp_path / "ao.sqlite3"
    s = await SqliteStore.open(path)
    g = await new(s)
    await s.save(g.id, expect_version=0, state={}, actions=[(0, {"a": 1})])
    await s.close()
    conn = sqlite3.connect(path)
    try:
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            conn.execute("UPDATE actions SET payload = '{}'")
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            conn.execute("DELETE FROM actions")
    finally:
        conn.close()


async def test_durable_after_close(backend) -> None:
    s = await backend.open()
    g = await new(s)
    saved = await s.save(
        g.id, expect_version=0, state={"k": "v"}, status="playing", actions=[(0, {"x": 1})]
    )
    await s.close()
    # Another connection, as after a restart: everything acknowledged is there.
    s2 = await backend.open()
    try:
        assert await s2.get_game(g.id) == saved
        assert await s2.actions(g.id) == [{"x": 1}]
        assert [a.id for a in await s2.active_games()] == [g.id]
    finally:
        await s2.close()


async def raw(store: SqliteStore, sql: str):
    """A statement on the store's own connection (its thread), its first value."""
    return await store._db.run(lambda c: c.exec_driver_sql(sql).scalar())


async def test_pragmas(tmp_path: Path) -> None:
    s = await SqliteStore.open(tmp_path / "p.sqlite3")
    try:
        assert await raw(s, "PRAGMA journal_mode") == "wal"
        assert await raw(s, "PRAGMA foreign_keys") == 1
        assert await raw(s, "PRAGMA synchronous") == 2  # FULL
    finally:
        await s.close()


async def test_foreign_key_on_actions(tmp_path: Path) -> None:
    s = await SqliteStore.open(tmp_path / "fk.sqlite3")
    try:
        with pytest.raises(IntegrityError):
            await raw(s, "INSERT INTO actions (game_id, seq, payload, created_at)"
                         " VALUES (42, 0, '{}', 'x')")
    finally:
        await s.close()


async def test_debug_logging_does_not_break_commits(tmp_path: Path, caplog) -> None:
    # A captured log record of every statement and row (SQLAlchemy's echo at DEBUG) must
    # not keep a statement in progress, which would make COMMIT fail.
    caplog.set_level(logging.DEBUG, logger="sqlalchemy.engine")
    s = await SqliteStore.open(tmp_path / "debug.sqlite3")
    try:
        g = await new(s)
        await s.save(g.id, expect_version=0, state={}, status="finished", actions=[(0, {})])
        await s.update_settings(1, {"images": True})
        assert (await s.guild_settings(1)).images
    finally:
        await s.close()


async def test_memory_store() -> None:
    s = await SqliteStore.open(":memory:")
    try:
        g = await new(s)
        assert await s.get_game(g.id) == g
        assert await s.schema_version() == db.latest_version()
    finally:
        await s.close()


# --- migrations (tests/db/test_migrations.py has the upgrades) -------------------------------


async def test_reopen_does_not_reapply(backend) -> None:
    s = await backend.open()
    g = await new(s)
    await s.close()
    s = await backend.open()  # CREATE TABLE again would fail: migrations are skipped
    try:
        assert await s.get_game(g.id) == g
    finally:
        await s.close()


@pytest.mark.parametrize("implementation", [SqliteStore, PostgresStore])
def test_store_implements_the_protocol(implementation: type) -> None:
    # The cogs type against GameStore; both stores implement the same methods.
    import inspect

    wanted = {
        name: member
        for name, member in vars(GameStore).items()
        if inspect.isfunction(member) and not name.startswith("_")
    }
    assert {"create_game", "save", "actions", "leaderboard", "update_settings"} <= set(wanted)
    for name, member in wanted.items():
        mine = getattr(implementation, name)
        assert inspect.iscoroutinefunction(mine), name
        assert list(inspect.signature(mine).parameters) == list(
            inspect.signature(member).parameters
        ), name
