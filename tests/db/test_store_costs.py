"""What the click-cost work changed in the store: one-trip saves, `save_messages`, the settings
cache. Behaviour only (never timings): the same results, errors and pragmas as before.

Every test runs against both stores; the pragma checks are SQLite's alone."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest

from db import ActionConflict, GameNotFound, GameStore, SqliteStore, StaleVersion

T0 = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)


async def _synchronous(store: GameStore) -> int:
    return int(await store._db.run(lambda c: c.exec_driver_sql("PRAGMA synchronous").scalar()))


async def test_save_messages_replaces_the_snapshot_and_keeps_synchronous_full(
    store: GameStore,
) -> None:
    g = await store.create_game(
        guild_id=1, channel_id=5, host_id=7, rules="yatzy", state={"turn_message_id": None}
    )
    g = await store.save(g.id, expect_version=0, state={"a": 1}, actions=[(0, {"x": 1})])
    r = await store.save_messages(g.id, expect_version=1, state={"turn_message_id": 99}, now=T0)
    # The version stays: the message just posted carries it in its custom_ids.
    assert (r.version, r.state, r.updated_at, r.status) == (1, {"turn_message_id": 99}, T0, "lobby")
    stored = await store.get_game(g.id)
    assert stored is not None
    assert stored.state == {"turn_message_id": 99}
    assert await store.actions(g.id) == [{"x": 1}]  # no action of its own
    # The next save's transaction is FULL again (the NORMAL was for save_messages only).
    if isinstance(store, SqliteStore):
        assert await _synchronous(store) == 2


async def test_save_messages_refuses_a_stale_version_and_an_unknown_game(
    store: GameStore,
) -> None:
    g = await store.create_game(guild_id=1, channel_id=5, host_id=7, rules="yatzy", state={})
    with pytest.raises(StaleVersion):
        await store.save_messages(g.id, expect_version=3, state={"turn_message_id": 1})
    with pytest.raises(GameNotFound):
        await store.save_messages(g.id + 100, expect_version=0, state={})
    stored = await store.get_game(g.id)
    assert stored is not None
    assert (stored.version, stored.state) == (0, {})
    if isinstance(store, SqliteStore):
        assert await _synchronous(store) == 2  # restored after the failure too


async def test_a_failed_save_rolls_back_everything_in_its_one_trip(store: GameStore) -> None:
    g = await store.create_game(guild_id=1, channel_id=5, host_id=7, rules="yatzy", state={})
    await store.save(g.id, expect_version=0, state={"n": 1}, actions=[(0, {"x": 1})])
    with pytest.raises(ActionConflict):
        await store.save(
            g.id, expect_version=1, state={"n": 2}, actions=[(1, {"x": 2}), (0, {"x": 9})]
        )
    stored = await store.get_game(g.id)
    assert stored is not None
    assert (stored.version, stored.state) == (1, {"n": 1})
    assert await store.actions(g.id) == [{"x": 1}]
    # The connection is usable (no transaction left open).
    await store.save(g.id, expect_version=1, state={"n": 3}, actions=[(1, {"x": 2})])
    assert await store.actions(g.id) == [{"x": 1}, {"x": 2}]


async def test_saves_from_many_tasks_serialise(store: GameStore) -> None:
    games = [
        await store.create_game(guild_id=1, channel_id=c, host_id=7, rules="yatzy", state={})
        for c in range(1, 6)
    ]

    async def play(game_id: int) -> None:
        for seq in range(10):
            await store.save(
                game_id, expect_version=seq, state={"seq": seq}, actions=[(seq, {"s": seq})]
            )

    await asyncio.gather(*(play(g.id) for g in games))
    for g in games:
        assert await store.actions(g.id) == [{"s": s} for s in range(10)]


async def test_settings_cache_follows_updates_and_ignores_refused_ones(backend) -> None:
    store = await backend.open()
    try:
        assert (await store.guild_settings(1)).turn_timeout == 300  # default, now cached
        await store.update_settings(1, {"turn_timeout": 60, "images": True})
        got = await store.guild_settings(1)
        assert (got.turn_timeout, got.images) == (60, True)
        with pytest.raises(ValueError, match="turn_timeout"):
            await store.update_settings(1, {"turn_timeout": 5})
        # A flag is true or false, on either store, before any query.
        with pytest.raises(ValueError, match="bots_allowed"):
            await store.update_settings(1, {"bots_allowed": 7})
        got = await store.guild_settings(1)
        assert (got.turn_timeout, got.images, got.bots_allowed) == (60, True, True)
    finally:
        await store.close()
    reopened = await backend.open()
    try:
        got = await reopened.guild_settings(1)
        assert (got.turn_timeout, got.images, got.bots_allowed) == (60, True, True)
    finally:
        await reopened.close()
