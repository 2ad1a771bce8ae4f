"""Behaviour both stores share that the older tests did not pin down: shards, due games,
deadlines, what comes back of times and JSON, id ranges, open_store and migrate."""

from __future__ import annotations

import asyncio
from datetime import UTC, date, datetime, timedelta, timezone

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
    assert await db.migrate(backend.url) == db.latest_version()
    store = await db.open_store(backend.url)
    try:
        kind = {"sqlite": SqliteStore, "postgres": PostgresStore}[backend.kind]
        assert isinstance(store, kind)
        assert await store.schema_version() == db.latest_version()
    finally:
        await store.close()
    assert await db.migrate(backend.url) == db.latest_version()  # nothing to do


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


# --- the daily dice (V6) ------------------------------------------------------------------

DAY = date(2025, 6, 1)


async def _daily(store: GameStore, member: int, total: int, *, day=DAY, guild=1, rules="classic",
                 name=None, at=T0):  # fmt: skip
    g = await store.create_game(
        guild_id=guild, channel_id=50, host_id=member, rules=rules, state={"d": 1}, day=day, now=at
    )
    seat = SeatResult(0, member, name or f"m{member}", False, total, 1, 0.0)
    await store.save(g.id, expect_version=0, state={}, status="finished", results=[seat], now=at)
    return g.id


async def test_a_daily_is_in_play_at_once_and_blocks_nothing(store: GameStore) -> None:
    table = await new(store, 50)
    g = await store.create_game(
        guild_id=1, channel_id=50, host_id=7, rules="classic", state={"a": 1}, day=DAY
    )
    assert (g.kind, g.day, g.status, g.version) == ("daily", DAY, "playing", 0)
    assert (table.kind, table.day) == ("table", None)
    # Not the channel's game, not reloaded at start-up, not due.
    assert (await store.active_game(50)).id == table.id
    assert [x.id for x in await store.active_games()] == [table.id]
    await store.save(table.id, expect_version=0, state={}, status="cancelled")
    assert await store.active_game(50) is None
    assert (await new(store, 50)).kind == "table"  # a daily never blocks its channel
    assert await store.get_game(g.id) == g
    assert await store.daily_game(7, "classic", DAY) == g
    assert await store.daily_game(7, "yatzy", DAY) is None
    assert await store.daily_game(7, "classic", DAY + timedelta(days=1)) is None


async def test_one_daily_per_member_rules_and_day_in_any_server(store: GameStore) -> None:
    first = await store.create_game(
        guild_id=1, channel_id=50, host_id=7, rules="classic", state={}, day=DAY
    )
    for guild in (1, 2):  # another server too: the dice are the same everywhere
        with pytest.raises(db.DailyTaken) as taken:
            await store.create_game(
                guild_id=guild, channel_id=51, host_id=7, rules="classic", state={}, day=DAY
            )
        assert taken.value.game_id == first.id
    # Another rule set, day or member is another daily.
    await store.create_game(
        guild_id=1, channel_id=50, host_id=7, rules="yatzy", state={}, day=DAY
    )
    await store.create_game(
        guild_id=1, channel_id=50, host_id=7, rules="classic", state={}, day=DAY + timedelta(1)
    )
    await store.create_game(
        guild_id=1, channel_id=50, host_id=8, rules="classic", state={}, day=DAY
    )
    with pytest.raises(ValueError, match="server"):
        await store.create_game(
            guild_id=None, channel_id=50, host_id=9, rules="classic", state={}, day=DAY
        )


async def test_a_daily_result_is_no_table_result(store: GameStore) -> None:
    game_id = await _daily(store, 7, 250)
    assert await store.results(game_id) == []  # not in results: no wins, no history
    assert await store.history(1) == []
    assert await store.finished_count(1) == 0
    assert (await store.leaderboard(1)).lines == []
    assert await store.member_stats(1, 7) == []
    board = await store.daily_board(1, "classic", DAY, member_id=7)
    me = board.me
    assert (board.players, me.total, me.game_id, me.streak) == (1, 250, game_id, 1)
    # A daily has one seat, a member's.
    g = await store.create_game(guild_id=1, channel_id=5, host_id=8, rules="classic", state={},
                                day=DAY)  # fmt: skip
    two = [SeatResult(0, 8, "a", False, 1, 1, 0.0), SeatResult(1, 9, "b", False, 1, 1, 0.0)]
    with pytest.raises(ValueError, match="one seat"):
        await store.save(g.id, expect_version=0, state={}, status="finished", results=two)
    assert (await store.get_game(g.id)).version == 0


async def test_daily_board_ranks_ties_and_the_members_line(store: GameStore) -> None:
    totals = {1: 200, 2: 250, 3: 250, 4: 180, 5: 260, 6: 200}
    for member, total in totals.items():
        await _daily(store, member, total)
    await _daily(store, 9, 999, guild=2)  # another server's day
    await _daily(store, 9, 999, day=DAY + timedelta(days=1))  # another day
    board = await store.daily_board(1, "classic", DAY, limit=3, member_id=6)
    assert board.players == 6
    assert [(x.rank, x.position, x.player_id, x.total) for x in board.lines] == [
        (1, 1, 5, 260), (2, 2, 2, 250), (2, 3, 3, 250)
    ]  # fmt: skip
    assert (board.me.rank, board.me.position, board.me.total) == (4, 5, 200)  # 1 ties, before
    full = await store.daily_board(1, "classic", DAY, limit=10, member_id=4)
    assert [x.rank for x in full.lines] == [1, 2, 2, 4, 4, 6]
    assert full.me == full.lines[-1]
    assert (await store.daily_board(1, "classic", DAY, member_id=99)).me is None
    empty = await store.daily_board(1, "yatzy", DAY, member_id=1)
    assert (empty.players, empty.lines, empty.me) == (0, [], None)
    assert (await store.daily_board(1, "classic", DAY, limit=0)).lines == []


async def test_streaks_count_days_in_a_row_in_a_server_and_rule_set(store: GameStore) -> None:
    days = [DAY, DAY + timedelta(1), DAY + timedelta(2), DAY + timedelta(4), DAY + timedelta(5)]
    for n, day in enumerate(days):
        await _daily(store, 7, 100 + n, day=day)
    await _daily(store, 7, 100, day=DAY + timedelta(3), rules="yatzy")  # another rule set
    await _daily(store, 7, 100, day=DAY + timedelta(3), guild=2)  # nor another server
    streaks = [(await store.daily_board(1, "classic", d, member_id=7)).me.streak for d in days]
    assert streaks == [1, 2, 3, 1, 2]
    stats = await store.daily_stats(1, 7)
    assert [(s.rules, s.played, s.best_streak, s.best) for s in stats] == [
        (None, 6, 3, 104), ("classic", 5, 3, 104), ("yatzy", 1, 1, 100)
    ]  # fmt: skip
    assert await store.daily_stats(1, 8) == []


async def test_daily_wins_follow_the_days_best(store: GameStore) -> None:
    """A better total takes the day's win from its leaders so far; an equal one shares it."""
    await _daily(store, 1, 200)
    await _daily(store, 2, 200)  # shares the win
    await _daily(store, 3, 150)  # no win
    await _daily(store, 4, 250)  # takes it from 1 and 2
    await _daily(store, 1, 300, day=DAY + timedelta(1))
    await _daily(store, 2, 300, day=DAY + timedelta(1))
    board = await store.leaderboard(1, metric="daily", member_id=3)
    got = [(x.player_id, x.value, x.extra, x.games, x.rank, x.name) for x in board.lines]
    assert got == [
        (1, 1, 2, 2, 1, "m1"), (2, 1, 2, 2, 1, "m2"), (4, 1, 1, 1, 3, "m4"), (3, 0, 1, 1, 4, "m3")
    ]  # fmt: skip
    assert board.me.player_id == 3
    wins = {s.rules: s.wins for s in await store.daily_stats(1, 4)}
    assert wins == {None: 1, "classic": 1}
    by_rules = await store.leaderboard(1, metric="daily", rules="yatzy")
    assert (by_rules.lines, by_rules.has_games) == ([], False)
    assert (await store.leaderboard(2, metric="daily")).has_games is False


async def test_a_dailys_analysis_is_recorded_once(store: GameStore) -> None:
    game_id = await _daily(store, 7, 200)
    assert await store.record_analysis(game_id, {0: 1.25}) == 1
    assert await store.record_analysis(game_id, {0: 2.0}) == 0  # analysed once
    assert (await store.daily_board(1, "classic", DAY, member_id=7)).me.ev_loss == 1.25


async def test_daily_best_and_the_deployment_secret(store: GameStore) -> None:
    assert await store.daily_best("abc", "classic", DAY) is None
    await store.put_daily_best("abc", "classic", DAY, db.DailyBest(300, True))
    await store.put_daily_best("abc", "classic", DAY, db.DailyBest(1, False))  # first stays
    assert await store.daily_best("abc", "classic", DAY) == db.DailyBest(300, True)
    assert await store.daily_best("other", "classic", DAY) is None  # another secret's dice
    assert await store.daily_best("abc", "classic", DAY + timedelta(1)) is None
    made = b"s" * 32
    assert await store.deployment_secret("daily", made) == made
    assert await store.deployment_secret("daily", b"t" * 32) == made  # kept
    assert await store.deployment_secret("other", b"t" * 32) == b"t" * 32


async def test_daily_secret_is_shared_by_processes(backend) -> None:
    stores = [await backend.open() for _ in range(3)]
    try:
        got = await asyncio.gather(
            *(s.deployment_secret("daily", bytes([n]) * 32) for n, s in enumerate(stores))
        )
        assert len(set(got)) == 1
    finally:
        for s in stores:
            await s.close()


# --- ratings (V7) ---------------------------------------------------------------------------

# Two new players, the first wins: the hand-computed update of tests/strategy/test_rating.py.
WINNER_MU, LOSER_MU, BOTH_SIGMA = 27.63539, 22.36461, 8.06590


def _changes(rules: str, players: list[int], ranks: list[int], stored=()):
    from bot.match.ratings import rating_changes

    return rating_changes(rules, players, ranks, stored)


async def _rated(store: GameStore, channel: int, players: list[int], totals: list[int], *,
                 guild=1, rules="classic", stored=()):  # fmt: skip
    ranks = [1 + sum(o > t for o in totals) for t in totals]
    seats = [
        SeatResult(i, p if p > 0 else None, f"p{p}", p < 0, t, r, 0.0)
        for i, (p, t, r) in enumerate(zip(players, totals, ranks, strict=True))
    ]
    g = await new(store, channel, guild_id=guild, rules=rules)
    changes = _changes(rules, players, ranks, stored)
    return await store.save(
        g.id, expect_version=0, state={}, status="finished", results=seats, ratings=changes
    )


async def test_a_finish_writes_ratings_in_both_scopes(store: GameStore) -> None:
    await _rated(store, 60, [11, 12], [200, 150])
    got = await store.ratings(1, [11, 12])
    assert [(r.rules, r.player_id, r.games) for r in got] == [
        ("*", 11, 1), ("*", 12, 1), ("classic", 11, 1), ("classic", 12, 1)
    ]  # fmt: skip
    for r in got:
        mu = WINNER_MU if r.player_id == 11 else LOSER_MU
        assert r.mu == pytest.approx(mu, abs=1e-5)
        assert r.sigma == pytest.approx(BOTH_SIGMA, abs=1e-5)
        assert r.ordinal == pytest.approx(1000 + 30 * (r.mu - 3 * r.sigma))
    assert await store.ratings(1, [11], ["classic"]) == [got[2]]
    assert await store.ratings(2, [11, 12]) == []
    # The rating board: overall by default, a rule set's on asking; highest first.
    board = await store.leaderboard(1, metric="rating", member_id=12)
    assert [(x.player_id, x.rank, x.games) for x in board.lines] == [(11, 1, 1), (12, 2, 1)]
    assert board.lines[0].value == pytest.approx(got[0].ordinal)
    assert board.lines[0].extra == pytest.approx(BOTH_SIGMA, abs=1e-5)  # sigma
    assert board.me.player_id == 12
    assert (await store.leaderboard(1, metric="rating", rules="yatzy")).has_games is False
    assert (await store.leaderboard(1, metric="rating", rules="classic")).ranked == 2


async def test_a_rating_computed_from_an_older_one_writes_nothing(store: GameStore) -> None:
    await _rated(store, 60, [11, 12], [200, 150])
    stale = _changes("classic", [11, 13], [1, 2])  # as if 11 were new: read before the save
    g = await new(store, 61)
    seats = [SeatResult(0, 11, "a", False, 9, 1, 0.0), SeatResult(1, 13, "b", False, 1, 2, 0.0)]
    with pytest.raises(db.StaleRating):
        await store.save(
            g.id, expect_version=0, state={}, status="finished", results=seats, ratings=stale
        )
    assert (await store.get_game(g.id)).status == "lobby"  # nothing at all was written
    assert await store.results(g.id) == []
    assert await store.ratings(1, [13]) == []
    fresh = _changes("classic", [11, 13], [1, 2], await store.ratings(1, [11, 13]))
    await store.save(
        g.id, expect_version=0, state={}, status="finished", results=seats, ratings=fresh
    )
    assert {(r.rules, r.player_id): r.games for r in await store.ratings(1, [11, 13])} == {
        ("*", 11): 2, ("*", 13): 1, ("classic", 11): 2, ("classic", 13): 1
    }  # fmt: skip
    with pytest.raises(ValueError, match="results"):
        await store.save(g.id, expect_version=1, state={}, ratings=fresh)


async def test_computer_levels_are_rated_and_on_the_board(store: GameStore) -> None:
    await _rated(store, 60, [11, -3], [100, 300])  # the perfect computer player won
    board = await store.leaderboard(1, metric="rating")
    assert [x.player_id for x in board.lines] == [-3, 11]
    assert board.lines[0].name == ""  # named by its level where it is shown


async def test_concurrent_finishes_sharing_a_player_both_count(store: GameStore) -> None:
    """Each save reads the ratings, computes, saves; a loser of the race re-reads."""

    async def finish(channel: int, other: int) -> None:
        g = await new(store, channel)
        seats = [
            SeatResult(0, 11, "a", False, 9, 1, 0.0),
            SeatResult(1, other, "b", False, 1, 2, 0.0),
        ]
        for _ in range(10):
            stored = await store.ratings(1, [11, other])
            changes = _changes("classic", [11, other], [1, 2], stored)
            try:
                await store.save(g.id, expect_version=0, state={}, status="finished",
                                 results=seats, ratings=changes)  # fmt: skip
                return
            except db.StaleRating:
                continue
        raise AssertionError("never saved")

    await asyncio.gather(*(finish(70 + n, 20 + n) for n in range(4)))
    rows = {(r.rules, r.player_id): r.games for r in await store.ratings(1, [11])}
    assert rows == {("*", 11): 4, ("classic", 11): 4}
