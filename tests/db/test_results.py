"""Results, leaderboards, member stats, history and server settings (migration V2).

`store` and `backend` tests run against SQLite and PostgreSQL alike (conftest.py).
"""

from __future__ import annotations

from collections import defaultdict
from datetime import UTC, date, datetime, timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from db import GameStore, SeatResult, SqliteStore, StaleVersion
from db.sql import _BOARDS, _DAILY_MINE
from db.store import GuildSettings

T0 = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)


def seats(totals: list[int], players: list[int | None], losses=None) -> list[SeatResult]:
    avg = sum(totals) / len(totals)
    losses = losses or [None] * len(totals)
    return [
        SeatResult(
            seat=i,
            player_id=p,
            name=f"p{p}" if p is not None else "Bot",
            is_bot=p is None,
            total=t,
            rank=1 + sum(o > t for o in totals),
            settlement=t - avg,
            ev_loss=loss,
        )
        for i, (t, p, loss) in enumerate(zip(totals, players, losses, strict=True))
    ]


async def play(
    store: GameStore,
    totals: list[int],
    players: list[int | None],
    *,
    guild: int | None = 1,
    rules: str = "classic",
    at: datetime = T0,
    losses=None,
    channel: int = 10,
) -> int:
    g = await store.create_game(
        guild_id=guild,
        channel_id=channel,
        host_id=players[0] or 0,
        rules=rules,
        state={"final_message": 555},
        now=at,
    )
    await store.save(
        g.id,
        expect_version=0,
        state={"final_message": 555},
        status="playing",
        actions=[(0, {"type": "roll"})],
        now=at,
    )
    await store.save(
        g.id,
        expect_version=1,
        state={"final_message": 555},
        status="finished",
        actions=[(1, {"type": "score"})],
        results=seats(totals, players, losses),
        now=at + timedelta(minutes=12),
    )
    return g.id


async def test_results_written_with_the_last_action(store: GameStore) -> None:
    gid = await play(store, [200, 150, 150], [1, 2, None])
    got = await store.results(gid)
    assert [(r.seat, r.player_id, r.total, r.rank, r.is_bot) for r in got] == [
        (0, 1, 200, 1, False),
        (1, 2, 150, 2, False),
        (2, None, 150, 2, True),
    ]
    assert got[0].settlement == pytest.approx(200 - 500 / 3)
    assert got[0].duration_s == 12 * 60
    assert got[0].finished_at == T0 + timedelta(minutes=12)
    assert (got[0].guild_id, got[0].rules) == (1, "classic")
    game = await store.get_game(gid)
    assert game is not None
    assert game.status == "finished"


async def test_results_need_a_finish(store: GameStore) -> None:
    g = await store.create_game(guild_id=1, channel_id=1, host_id=1, rules="classic", state={})
    for status in (None, "playing", "cancelled"):
        with pytest.raises(ValueError, match="finishes"):
            await store.save(
                g.id,
                expect_version=0,
                state={},
                status=status,
                actions=[(0, {"a": 1})],
                results=seats([1], [1]),
            )
    # nothing of the refused saves was written
    assert await store.actions(g.id) == []
    assert await store.results(g.id) == []
    got = await store.get_game(g.id)
    assert got is not None
    assert got.version == 0


async def test_stale_finish_writes_no_results(store: GameStore) -> None:
    g = await store.create_game(guild_id=1, channel_id=1, host_id=1, rules="classic", state={})
    await store.save(g.id, expect_version=0, state={}, status="playing")
    with pytest.raises(StaleVersion):
        await store.save(
            g.id, expect_version=0, state={}, status="finished", results=seats([5, 3], [1, 2])
        )
    assert await store.results(g.id) == []


async def test_cancelled_game_has_no_results(store: GameStore) -> None:
    g = await store.create_game(guild_id=1, channel_id=1, host_id=1, rules="classic", state={})
    await store.save(g.id, expect_version=0, state={}, status="cancelled")
    assert await store.results(g.id) == []
    assert await store.history(1) == []
    assert (await store.leaderboard(1)).ranked == 0


# --- leaderboards -------------------------------------------------------------------------


async def test_empty_board(store: GameStore) -> None:
    page = await store.leaderboard(1, metric="net", member_id=5)
    assert (page.lines, page.me, page.pages, page.ranked, page.page) == ([], None, 1, 0, 0)
    page = await store.leaderboard(1, page=3)
    assert (page.page, page.lines) == (0, [])


async def test_wins_with_fair_ties(store: GameStore) -> None:
    await play(store, [100, 100, 50], [1, 2, 3])  # 1 and 2 share the win
    await play(store, [80, 90], [3, 4])
    await play(store, [10, 90], [1, 4])
    page = await store.leaderboard(1, metric="wins")
    assert [(line.rank, line.player_id, line.value) for line in page.lines] == [
        (1, 4, 2),
        (2, 1, 1),
        (2, 2, 1),
        (4, 3, 0),
    ]


async def test_each_metric_orders_its_way(store: GameStore) -> None:
    # member 1: scores 300, 100 → avg 200, best 300; member 2: 250, 250 → avg 250, best 250
    await play(store, [300, 250], [1, 2], losses=[1.0, 2.0])
    await play(store, [100, 250, 40], [1, 2, 3], losses=[3.0, 0.5, None])
    board = {}
    for metric in ("wins", "net", "average", "best", "skill"):
        page = await store.leaderboard(1, metric=metric)
        board[metric] = [(line.player_id, round(line.value, 4)) for line in page.lines]
    assert board["wins"] == [(2, 1), (1, 1), (3, 0)] or board["wins"] == [(1, 1), (2, 1), (3, 0)]
    assert board["net"] == [
        (2, (-25 + 250 - 130)),
        (1, (25 + 100 - 130)),
        (3, -90.0),
    ]
    assert board["average"] == [(2, 250.0), (1, 200.0), (3, 40.0)]
    assert board["best"] == [(1, 300), (2, 250), (3, 40)]
    assert board["skill"] == []  # nobody has 5 analysed games yet


async def test_skill_needs_five_analysed_games_lower_is_better(store: GameStore) -> None:
    for i in range(5):
        await play(
            store,
            [100, 90, 80],
            [1, 2, 3],
            losses=[0.5, 0.25, None if i else 0.1],
            at=T0 + timedelta(hours=i),
        )
    page = await store.leaderboard(1, metric="skill")
    assert [(line.player_id, line.value, line.rank) for line in page.lines] == [
        (2, 0.25, 1),
        (1, 0.5, 2),
    ]
    me = (await store.leaderboard(1, metric="skill", member_id=3)).me
    assert me is None  # member 3 has one analysed game: not ranked


async def test_an_empty_skill_board_knows_there_were_games(store: GameStore) -> None:
    assert not (await store.leaderboard(1, metric="skill")).has_games
    await play(store, [10, 20], [1, 2], losses=[0.5, 0.5])
    page = await store.leaderboard(1, metric="skill")
    assert (page.ranked, page.has_games) == (0, True)
    assert not (await store.leaderboard(1, metric="skill", rules="yatzy")).has_games
    assert (await store.leaderboard(1, metric="wins")).has_games


async def test_rules_filter_and_guild_scope(store: GameStore) -> None:
    await play(store, [100, 50], [1, 2], rules="classic")
    await play(store, [10, 50], [1, 2], rules="yatzy")
    await play(store, [10, 500], [1, 9], guild=2)
    classic = await store.leaderboard(1, metric="best", rules="classic")
    assert [(x.player_id, x.value) for x in classic.lines] == [(1, 100), (2, 50)]
    yatzy = await store.leaderboard(1, metric="best", rules="yatzy")
    assert [(x.player_id, x.value) for x in yatzy.lines] == [(2, 50), (1, 10)]
    every = await store.leaderboard(1, metric="best")
    assert [(x.player_id, x.value) for x in every.lines] == [(1, 100), (2, 50)]
    assert (await store.leaderboard(1, rules="banked")).ranked == 0


async def test_bots_are_not_on_the_board(store: GameStore) -> None:
    await play(store, [10, 500], [1, None])
    page = await store.leaderboard(1, metric="best")
    assert [x.player_id for x in page.lines] == [1]


async def test_pagination_and_own_line(store: GameStore) -> None:
    # 25 members, member m scored m*10 once: best board is 25, 24, … 1
    for m in range(1, 26):
        await play(store, [m * 10], [m], channel=m)
    p0 = await store.leaderboard(1, metric="best", member_id=3)
    assert (p0.pages, p0.ranked, p0.page) == (3, 25, 0)
    assert [x.player_id for x in p0.lines] == list(range(25, 15, -1))
    assert p0.me is not None
    assert (p0.me.player_id, p0.me.rank, p0.me.position) == (3, 23, 23)
    p2 = await store.leaderboard(1, metric="best", page=2, member_id=3)
    assert [x.player_id for x in p2.lines] == [5, 4, 3, 2, 1]
    assert p2.me is not None
    assert p2.me.rank == 23
    past = await store.leaderboard(1, metric="best", page=9, member_id=25)
    assert past.page == 2  # clamped to the last page
    assert [x.player_id for x in past.lines] == [5, 4, 3, 2, 1]
    assert past.me is not None
    assert past.me.rank == 1
    assert (await store.leaderboard(1, metric="best", member_id=99)).me is None


async def _plan(store: SqliteStore, statement, params: dict) -> str:
    """SQLite's query plan of a store statement (compiled as the store runs it)."""
    def explain(conn):
        state = statement.compile(dialect=conn.dialect).construct_expanded_state(params)
        rows = conn.exec_driver_sql("EXPLAIN QUERY PLAN " + state.statement,
                                    state.positional_parameters).all()
        return " | ".join(str(tuple(r)) for r in rows)

    return await store._db.run(explain)


async def test_daily_board_reads_by_index(sqlite_store: SqliteStore) -> None:
    from sqlalchemy import select

    from db.schema import daily_results as d

    day = date(2025, 6, 1)
    top = select(d).where(d.c.guild_id == 1, d.c.rules == "classic", d.c.day == day).order_by(
        d.c.total.desc(), d.c.player_id).limit(10)
    for statement, params in ((top, {}), (_DAILY_MINE, {"g": 1, "r": "classic", "d": day, "m": 7})):
        plan = await _plan(sqlite_store, statement, params)
        assert "daily_results_board" in plan or "PRIMARY KEY" in plan, plan
        assert "SCAN daily_results" not in plan, plan
        assert "TEMP B-TREE" not in plan, plan  # read in the index's order, never sorted


async def test_board_reads_the_running_totals_by_index(sqlite_store: SqliteStore) -> None:
    for by_rules, index in (
        (False, "USING INDEX standings_by_member (guild_id=?)"),
        (True, "USING PRIMARY KEY (guild_id=? AND rules=?)"),
    ):
        params = {"guild": 1, "rules": "classic", "lo": 0, "hi": 10, "me": None}
        plan = await _plan(sqlite_store, _BOARDS["net", by_rules, False][0], params)
        assert f"SEARCH standings {index}" in plan, plan
        assert "SCAN results" not in plan, plan
        assert "SCAN member_names" not in plan, plan  # names by primary key
        assert "SEARCH results" not in plan, plan


def fair_ranks(values: dict[int, float], reverse: bool) -> dict[int, int]:
    key = (lambda v: -v) if reverse else (lambda v: v)
    return {p: 1 + sum(key(o) < key(v) for o in values.values()) for p, v in values.items()}


game_st = st.tuples(
    st.lists(st.integers(0, 6), min_size=1, max_size=5, unique=True),  # member ids
    st.lists(st.integers(0, 40), min_size=5, max_size=5),  # totals (small: many ties)
    st.lists(st.one_of(st.none(), st.sampled_from([0.0, 0.5, 1.0, 2.5])), min_size=5, max_size=5),
    st.sampled_from(["classic", "yatzy"]),
)


# `backend` only makes a new empty database per example, so sharing it is fine.
@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    games=st.lists(game_st, max_size=12),
    metric=st.sampled_from(["wins", "net", "average", "best", "skill"]),
    rules=st.sampled_from([None, "classic"]),
)
async def test_board_matches_an_independent_computation(backend, games, metric, rules) -> None:
    store = await backend.scratch()
    try:
        rows: list[tuple[int, int, int, float, float | None, str]] = []
        for n, (members, totals, losses, rs) in enumerate(games):
            k = len(members)
            gid = await play(
                store, totals[:k], list(members), rules=rs, losses=losses[:k], channel=n
            )
            rows += [
                (r.player_id, r.total, r.rank, r.settlement, r.ev_loss, rs)
                for r in await store.results(gid)
            ]
        per: dict[int, list] = defaultdict(list)
        for row in rows:
            if rules is None or row[5] == rules:
                per[row[0]].append(row)
        if metric == "wins":
            values = {p: sum(r[2] == 1 for r in rs) for p, rs in per.items()}
        elif metric == "net":
            values = {p: round(sum(r[3] for r in rs), 6) for p, rs in per.items()}
        elif metric == "average":
            values = {p: sum(r[1] for r in rs) / len(rs) for p, rs in per.items()}
        elif metric == "best":
            values = {p: max(r[1] for r in rs) for p, rs in per.items()}
        else:
            analysed = {p: [r[4] for r in rs if r[4] is not None] for p, rs in per.items()}
            values = {p: sum(v) / len(v) for p, v in analysed.items() if len(v) >= 5}
        expected = fair_ranks(values, reverse=metric != "skill")
        got: dict[int, tuple[int, float]] = {}
        page, pages = 0, 1
        while page < pages:
            board = await store.leaderboard(1, metric=metric, rules=rules, page=page, per_page=3)
            pages = board.pages
            got.update({x.player_id: (x.rank, x.value) for x in board.lines})
            page += 1
        assert {p: r for p, (r, _) in got.items()} == expected
        for p, (_, v) in got.items():
            assert v == pytest.approx(values[p])
    finally:
        await store.close()


# --- stats and history --------------------------------------------------------------------


async def test_member_stats(store: GameStore) -> None:
    await play(store, [100, 50], [1, 2], rules="classic", losses=[1.0, None])
    await play(store, [30, 50], [1, 2], rules="yatzy", losses=[2.0, None])
    await play(store, [70, 70], [1, 2], rules="classic")
    stats = await store.member_stats(1, 1)
    assert [s.rules for s in stats] == [None, "classic", "yatzy"]
    overall, classic, yatzy = stats
    assert (overall.games, overall.wins, overall.best, overall.analysed) == (3, 2, 100, 2)
    assert overall.average == pytest.approx(200 / 3)
    assert overall.net == pytest.approx(25 - 10 + 0)
    assert overall.skill == pytest.approx(1.5)
    assert overall.win_rate == pytest.approx(2 / 3)
    assert (classic.games, classic.wins, classic.average) == (2, 2, 85)
    assert (yatzy.games, yatzy.wins, yatzy.skill) == (1, 0, 2.0)
    assert (await store.member_stats(1, 2))[0].skill is None
    assert await store.member_stats(1, 99) == []
    assert await store.member_stats(2, 1) == []


async def test_recent_scores_last_twenty_oldest_first(store: GameStore) -> None:
    for i in range(25):
        await play(store, [i], [1], at=T0 + timedelta(hours=i))
    scores = await store.recent_scores(1, 1)
    assert [s.total for s in scores] == list(range(5, 25))
    assert await store.recent_scores(1, 2) == []


async def test_history_newest_first_with_seats(store: GameStore) -> None:
    a = await play(store, [10, 20], [1, 2], at=T0)
    b = await play(store, [30, 5, 7], [2, 3, None], at=T0 + timedelta(days=1), rules="yatzy")
    await play(store, [1], [1], guild=2)
    g = await store.create_game(guild_id=1, channel_id=77, host_id=1, rules="classic", state={})
    await store.save(g.id, expect_version=0, state={}, status="cancelled")
    hist = await store.history(1)
    assert [h.game.id for h in hist] == [b, a]
    assert [r.total for r in hist[0].results] == [30, 5, 7]
    assert hist[0].game.state == {"final_message": 555}
    assert await store.finished_count(1) == 2
    assert [h.game.id for h in await store.history(1, limit=1, offset=1)] == [a]
    assert await store.history(3) == []


# --- settings -----------------------------------------------------------------------------


async def test_settings_defaults_update_and_validation(store: GameStore) -> None:
    assert await store.guild_settings(1) == GuildSettings(
        guild_id=1,
        default_rules=None,
        turn_timeout=300,
        bots_allowed=True,
        hints_allowed=True,
        images=False,
        language=None,
    )
    s = await store.update_settings(1, {"turn_timeout": 60, "default_rules": "yatzy"})
    assert (s.turn_timeout, s.default_rules, s.bots_allowed) == (60, "yatzy", True)
    s = await store.update_settings(1, {"bots_allowed": False, "images": True, "language": "ru"})
    assert s == await store.guild_settings(1)
    assert (s.turn_timeout, s.bots_allowed, s.images, s.language) == (60, False, True, "ru")
    assert (await store.guild_settings(2)).turn_timeout == 300  # other servers untouched
    for bad in ({"turn_timeout": 29}, {"turn_timeout": 86401}, {"colour": "red"}):
        with pytest.raises(ValueError):  # noqa: PT011
            await store.update_settings(1, bad)
    assert await store.guild_settings(1) == s
    s = await store.update_settings(1, {"language": None})
    assert s.language is None
