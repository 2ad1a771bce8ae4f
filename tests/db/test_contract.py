"""Behaviour both stores share that the older tests did not pin down: shards, due games,
deadlines, what comes back of times and JSON, id ranges, open_store and migrate."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta, timezone

import pytest

import db
from db import ID_MAX, GameStore, PostgresStore, SeatResult, Shards, SqliteStore, shard_of

T0 = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)
# Guild ids whose shard (of 4) is 0, 1, 2 and 3: Discord puts guild g on (g >> 22) % count.
GUILD_ON = {n: (1000 + n) << 22 for n in range(4)}


async def new(store: GameStore, channel: int, **kw):
    args = {"guild_id": 1, "channel_id": channel, "host_id": 7, "rules": "classic", "state": {}}
    args.update(kw)
    return await store.create_game(**args)


def test_guilds_of_the_test_are_on_their_shards() -> None:
    assert [shard_of(GUILD_ON[n], 4) for n in range(4)] == [0, 1, 2, 3]
    assert shard_of(None, 4) == 0


async def test_active_games_by_shard(store: GameStore) -> None:
    games = {n: await new(store, 100 + n, guild_id=GUILD_ON[n]) for n in range(4)}
    dm = await new(store, 200, guild_id=None)
    over = await new(store, 201, guild_id=GUILD_ON[1])
    await store.save(over.id, expect_version=0, state={}, status="cancelled")
    every = [g.id for g in await store.active_games()]
    assert every == [*(games[n].id for n in range(4)), dm.id]
    on = {
        ids: [g.id for g in await store.active_games(shards=Shards(4, frozenset(ids)))]
        for ids in ((0,), (1, 3), (2,), ())
    }
    assert on[(0,)] == [games[0].id, dm.id]  # direct messages are on shard 0
    assert on[(1, 3)] == [games[1].id, games[3].id]
    assert on[(2,)] == [games[2].id]
    assert on[()] == []
    assert [g.id for g in await store.active_games(shards=Shards(1, frozenset({0})))] == every


async def test_due_games_most_overdue_first_by_shard_and_limit(store: GameStore) -> None:
    made = []
    for n, minutes in enumerate([5, 1, 3, 30]):  # deadlines T0+5, +1, +3, +30 min
        made.append(
            await new(
                store, 300 + n, guild_id=GUILD_ON[n % 2], deadline=T0 + timedelta(minutes=minutes)
            )
        )
    no_deadline = await new(store, 310)
    over = await new(store, 311, deadline=T0)
    await store.save(over.id, expect_version=0, state={}, status="finished", deadline=T0)
    now = T0 + timedelta(minutes=10)
    assert await store.due_games(now) == [made[1].id, made[2].id, made[0].id]
    assert await store.due_games(now, limit=2) == [made[1].id, made[2].id]
    assert await store.due_games(now, limit=0) == []
    odd = Shards(2, frozenset({1}))
    assert await store.due_games(now, shards=odd) == [made[1].id]
    assert await store.due_games(T0 + timedelta(minutes=3)) == [made[1].id, made[2].id]  # <=
    assert await store.due_games(T0) == []
    assert no_deadline.id not in await store.due_games(now + timedelta(days=9))
    with pytest.raises(ValueError, match="timezone"):
        await store.due_games(datetime(2025, 3, 1))


async def test_deadlines_are_saved_replaced_and_cleared(store: GameStore) -> None:
    g = await new(store, 400, deadline=T0)
    assert g.deadline == T0
    later = T0 + timedelta(seconds=90, microseconds=123)
    g = await store.save(g.id, expect_version=0, state={}, status="playing", deadline=later)
    assert g.deadline == later
    got = await store.get_game(g.id)
    assert got is not None
    assert got.deadline == later
    # save_messages keeps the deadline; a save without one clears it (the turn was played).
    g = await store.save_messages(g.id, expect_version=1, state={"m": 1})
    assert g.deadline == later
    g = await store.save(g.id, expect_version=1, state={})
    assert g.deadline is None
    assert await store.due_games(T0 + timedelta(days=1)) == []


LEASE = timedelta(seconds=30)


async def test_claim_due_takes_each_due_game_once_until_its_lease_ends(store: GameStore) -> None:
    made = [
        await new(store, 700 + n, guild_id=GUILD_ON[n % 2], deadline=T0 + timedelta(minutes=m))
        for n, m in enumerate([5, 1, 3, 30])
    ]
    now = T0 + timedelta(minutes=10)
    assert await store.claim_due(now, lease=LEASE) == [made[1].id, made[2].id, made[0].id]
    assert await store.claim_due(now, lease=LEASE) == []  # claimed: nobody else gets them
    assert await store.claim_due(now + LEASE - timedelta(microseconds=1), lease=LEASE) == []
    # The lease ran out (the claimer died before acting): the next claimer gets them.
    assert await store.claim_due(now + LEASE, lease=LEASE) == [made[1].id, made[2].id, made[0].id]
    # They stay due (and listed) while claimed: claiming is not acting.
    assert await store.due_games(now) == [made[1].id, made[2].id, made[0].id]
    with pytest.raises(ValueError, match="lease"):
        await store.claim_due(now, lease=timedelta(0))


async def test_claim_due_among_ids_by_shard_and_limit(store: GameStore) -> None:
    made = [
        await new(store, 720 + n, guild_id=GUILD_ON[n % 2], deadline=T0 + timedelta(minutes=n))
        for n in range(4)
    ]
    now = T0 + timedelta(hours=1)
    assert await store.claim_due(now, lease=LEASE, ids=[made[3].id, made[2].id, 10**9]) == [
        made[2].id,
        made[3].id,
    ]
    assert await store.claim_due(now, lease=LEASE, ids=[]) == []
    odd = Shards(2, frozenset({1}))
    assert await store.claim_due(now, lease=LEASE, shards=odd) == [made[1].id]
    assert await store.claim_due(now, lease=LEASE, limit=1) == [made[0].id]
    assert await store.claim_due(now, lease=LEASE) == []


async def test_a_save_clears_the_claim(store: GameStore) -> None:
    g = await new(store, 740, deadline=T0)
    assert await store.claim_due(T0, lease=LEASE) == [g.id]
    # The timer (or a click) saved: the next deadline is claimable once due, lease or not.
    g = await store.save(g.id, expect_version=0, state={}, deadline=T0 + timedelta(seconds=1))
    assert await store.claim_due(T0 + timedelta(seconds=1), lease=LEASE) == [g.id]
    # Finished, cancelled or without a deadline: never claimed.
    await store.save(g.id, expect_version=1, state={}, status="cancelled", deadline=T0)
    assert await store.claim_due(T0 + timedelta(days=1), lease=LEASE) == []


async def test_active_versions_by_shard(store: GameStore) -> None:
    games = [await new(store, 760 + n, guild_id=GUILD_ON[n]) for n in range(3)]
    await store.save(games[1].id, expect_version=0, state={})
    await store.save(games[2].id, expect_version=0, state={}, status="finished")
    assert await store.active_versions() == {games[0].id: 0, games[1].id: 1}
    assert await store.active_versions(shards=Shards(4, frozenset({1, 2}))) == {games[1].id: 1}
    assert await store.active_versions(shards=Shards(4, frozenset())) == {}


async def test_times_come_back_aware_utc_to_the_microsecond(store: GameStore) -> None:
    made = datetime(2025, 6, 1, 14, 30, 15, 123456, tzinfo=timezone(timedelta(hours=3)))
    g = await new(store, 500, now=made, deadline=made + timedelta(microseconds=1))
    got = await store.get_game(g.id)
    assert got is not None
    for moment in (g.created_at, g.updated_at, got.created_at, got.updated_at):
        assert moment == made
        assert moment.utcoffset() == timedelta(0)
        assert (moment.hour, moment.microsecond) == (11, 123456)
    assert got.deadline == made + timedelta(microseconds=1)
    finished = made + timedelta(minutes=7, microseconds=5)
    await store.save(
        g.id,
        expect_version=0,
        state={},
        status="finished",
        results=[SeatResult(0, 1, "a", False, 10, 1, 0.0)],
        now=finished,
    )
    (result,) = await store.results(g.id)
    assert result.finished_at == finished
    assert result.finished_at.utcoffset() == timedelta(0)
    assert result.duration_s == (finished - made).total_seconds()


async def test_json_comes_back_equal(store: GameStore) -> None:
    state = {
        "names": ["Аня", "राम", "Ștefan", "emoji 🎲", 'quote " and \\ back'],
        "nested": {"z": [1, 2.5, -3, None, True, False], "a": {}},
        "big": 2**62,
        "float": 0.1 + 0.2,
        "empty": [],
    }
    action = {"type": "score", "row": "ones", "keep": [1, 1, 5], "by": 2**53 + 1}
    g = await new(store, 600, state=state)
    assert g.state == state
    g = await store.save(g.id, expect_version=0, state=state, actions=[(0, action)])
    got = await store.get_game(g.id)
    assert got is not None
    assert got.state == state
    assert await store.actions(g.id) == [action]


async def test_ids_past_64_bits_are_refused_before_any_query(store: GameStore) -> None:
    huge = ID_MAX + 1
    g = await new(store, 700)
    await new(store, ID_MAX, guild_id=ID_MAX, host_id=ID_MAX)  # the largest is fine
    refused = [
        new(store, huge),
        new(store, 701, guild_id=huge),
        new(store, 702, host_id=-1),
        store.get_game(huge),
        store.active_game(huge),
        store.save(huge, expect_version=0, state={}),
        store.save(g.id, expect_version=huge, state={}),
        store.save(g.id, expect_version=0, state={}, actions=[(huge, {})]),
        store.save_messages(huge, expect_version=0, state={}),
        store.actions(huge),
        store.results(huge),
        store.record_analysis(huge, {0: 1.0}),
        store.leaderboard(huge),
        store.leaderboard(1, member_id=huge),
        store.member_stats(1, huge),
        store.recent_scores(huge, 1),
        store.recent_scores(1, 1, limit=huge),
        store.history(huge),
        store.history(1, offset=-1),
        store.finished_count(huge),
        store.guild_settings(huge),
        store.update_settings(huge, {"images": True}),
        store.due_games(T0, limit=-1),
    ]
    for call in refused:
        with pytest.raises(ValueError, match="2\\*\\*63 - 1"):
            await call
    got = await store.get_game(g.id)
    assert got is not None
    assert got.version == 0  # nothing was written
    # A page far past the end is the last page, not an overflow.
    page = await store.leaderboard(1, page=huge, per_page=10)
    assert (page.page, page.lines) == (0, [])
    page = await store.leaderboard(1, page=huge, per_page=ID_MAX)
    assert page.page == 0


async def test_concurrent_saves_of_many_games(store: GameStore) -> None:
    games = [await new(store, 800 + n) for n in range(6)]

    async def play(game_id: int) -> None:
        for seq in range(8):
            await store.save(
                game_id, expect_version=seq, state={"seq": seq}, actions=[(seq, {"s": seq})]
            )

    await asyncio.gather(*(play(g.id) for g in games))
    for g in games:
        assert await store.actions(g.id) == [{"s": s} for s in range(8)]
        got = await store.get_game(g.id)
        assert got is not None
        assert (got.version, got.state) == (8, {"seq": 7})


async def test_a_seq_twice_in_one_save(store: GameStore) -> None:
    g = await new(store, 900)
    saved = await store.save(
        g.id, expect_version=0, state={}, actions=[(0, {"a": 1}), (0, {"a": 1})]
    )
    assert saved.version == 1
    assert await store.actions(g.id) == [{"a": 1}]
    with pytest.raises(db.ActionConflict):
        await store.save(g.id, expect_version=1, state={}, actions=[(1, {"a": 1}), (1, {"b": 2})])
    assert await store.actions(g.id) == [{"a": 1}]


async def test_empty_settings_change_is_the_defaults(store: GameStore) -> None:
    # The PostgreSQL table's column defaults are GuildSettings' defaults.
    assert await store.update_settings(5, {}) == db.GuildSettings(5)
    assert await store.guild_settings(5) == db.GuildSettings(5)


async def test_open_store_and_migrate_by_url(backend) -> None:
    assert await db.migrate(backend.url) == len(db.sqlite.migrations())
    store = await db.open_store(backend.url)
    try:
        kind = {"sqlite": SqliteStore, "postgres": PostgresStore}[backend.kind]
        assert isinstance(store, kind)
        assert await store.schema_version() == len(db.sqlite.migrations())
    finally:
        await store.close()
    assert await db.migrate(backend.url) == len(db.sqlite.migrations())  # nothing to do


async def _finish(store: GameStore, channel: int, seats: list[SeatResult], *, guild=1, at=T0):
    g = await new(store, channel, guild_id=guild, now=at)
    await store.save(g.id, expect_version=0, state={}, status="finished", results=seats, now=at)


def _seat(n: int, player: int | None, name: str, total: int = 10) -> SeatResult:
    return SeatResult(n, player, name, player is None, total, 1, 0.0)


async def test_board_lines_carry_the_name_last_played_under(store: GameStore) -> None:
    await _finish(store, 1, [_seat(0, 1, "Аня"), _seat(1, 2, "bob", 5)], at=T0)
    await _finish(store, 2, [_seat(0, 1, "Anya ✦")], at=T0 + timedelta(hours=1))
    # An older finish saved later renames nobody; a DM game and another server neither.
    await _finish(store, 3, [_seat(0, 1, "old name")], at=T0 - timedelta(days=1))
    await _finish(store, 4, [_seat(0, 1, "in a DM")], guild=None, at=T0 + timedelta(days=1))
    await _finish(store, 5, [_seat(0, 1, "elsewhere")], guild=2, at=T0 + timedelta(days=1))
    await _finish(store, 6, [_seat(0, 2, "bobby", 1), _seat(1, None, "Bot", 99)], at=T0)
    board = await store.leaderboard(1, metric="best", member_id=2)
    assert [(x.player_id, x.name) for x in board.lines] == [(1, "Anya ✦"), (2, "bobby")]
    assert board.me is not None
    assert board.me.name == "bobby"  # same time as "bob": the later save wins
    assert [x.name for x in (await store.leaderboard(2)).lines] == ["elsewhere"]


async def test_names_of_results_before_v5_are_filled_in(backend) -> None:
    old = await backend.open(upto=4)
    try:
        await _finish(old, 1, [_seat(0, 1, "first"), _seat(1, 2, "two")], at=T0)
        await _finish(old, 2, [_seat(0, 1, "latest")], at=T0 + timedelta(hours=1))
    finally:
        await old.close()
    store = await backend.open()
    try:
        board = await store.leaderboard(1, metric="best")
        assert sorted((x.player_id, x.name) for x in board.lines) == [(1, "latest"), (2, "two")]
    finally:
        await store.close()
