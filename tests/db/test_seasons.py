"""Seasons in the store (issue 20): the [since, until) windows of the boards and the stats,
a season's rating scope, the season settings and the podium's claim. Both stores."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest

from db import GameStore, RatingChange
from db.store import OVERALL, season_scope

from .test_results import play

DEC, JAN, FEB = (datetime(2026, m, 1, tzinfo=UTC) for m in (12, 1, 2))
JAN27 = datetime(2027, 1, 1, tzinfo=UTC)
NOV = datetime(2026, 11, 20, tzinfo=UTC)


async def three_months(store: GameStore) -> None:
    """Player 7 wins in November, 8 twice in December, 7 again on 1 January 2027 (each
    game finishes 12 minutes after `at`)."""
    await play(store, [30, 10], [7, 8], at=NOV)
    await play(store, [10, 30], [7, 8], at=DEC)
    await play(store, [5, 25, 20], [7, 8, None], at=DEC + timedelta(days=3), rules="yatzy")
    await play(store, [40, 0], [7, 8], at=JAN27)


async def test_a_board_of_a_window_counts_the_results_finished_in_it(store: GameStore) -> None:
    await three_months(store)
    every = await store.leaderboard(1, metric="wins")
    assert [(x.player_id, x.value, x.games) for x in every.lines] == [(7, 2, 4), (8, 2, 4)]
    december = await store.leaderboard(1, metric="wins", since=DEC, until=JAN27)
    assert [(x.player_id, x.value, x.games) for x in december.lines] == [(8, 2, 2), (7, 0, 2)]
    assert [x.rank for x in december.lines] == [1, 2]
    net = await store.leaderboard(1, metric="net", since=DEC, until=JAN27, member_id=7)
    assert [(x.player_id, round(x.value, 2)) for x in net.lines] == [(8, 18.33), (7, -21.67)]
    assert net.me is not None
    assert net.me.player_id == 7
    yatzy = await store.leaderboard(1, metric="best", rules="yatzy", since=DEC, until=JAN27)
    assert [(x.player_id, x.value) for x in yatzy.lines] == [(8, 25), (7, 5)]
    # only an end: the other is open
    assert [x.games for x in (await store.leaderboard(1, since=JAN27)).lines] == [1, 1]
    assert (await store.leaderboard(1, until=DEC)).lines[0].player_id == 7


async def test_a_window_with_no_games_is_an_empty_board(store: GameStore) -> None:
    await three_months(store)
    empty = await store.leaderboard(1, metric="wins", since=FEB, until=datetime(2026, 3, 1,
                                                                                tzinfo=UTC))
    assert empty.lines == []
    assert empty.ranked == 0
    assert not empty.has_games
    assert empty.pages == 1
    assert await store.member_stats(1, 7, since=FEB, until=FEB + timedelta(days=28)) == []


async def test_member_stats_of_a_window(store: GameStore) -> None:
    await three_months(store)
    every, *by_rules = await store.member_stats(1, 8, since=DEC, until=JAN27)
    assert (every.games, every.wins, every.best) == (2, 2, 30)
    assert [(s.rules, s.games) for s in by_rules] == [("classic", 1), ("yatzy", 1)]
    assert (await store.member_stats(1, 8))[0].games == 4  # all time: nothing is deleted


async def test_a_window_is_aware_and_in_order(store: GameStore) -> None:
    with pytest.raises(ValueError, match="timezone-aware"):
        await store.leaderboard(1, since=datetime(2026, 12, 1), until=JAN27)
    with pytest.raises(ValueError, match="ends after it begins"):
        await store.member_stats(1, 7, since=JAN27, until=DEC)
    with pytest.raises(ValueError, match="both ends"):  # a season's rating board: its scope
        await store.leaderboard(1, metric="rating", since=DEC)


async def test_a_seasons_rating_board_reads_its_own_scope(store: GameStore) -> None:
    scope = season_scope(OVERALL, DEC, JAN27)
    assert scope == "*@202612-202701"
    g = await store.create_game(guild_id=1, channel_id=5, host_id=7, rules="classic", state={})
    await store.save(g.id, expect_version=0, state={}, status="finished", now=DEC,
                     results=(await _two()), ratings=[
                         RatingChange(OVERALL, 7, 26.0, 8.0, 1010.0, 0),
                         RatingChange(scope, 7, 27.0, 6.0, 1100.0, 0),
                         RatingChange(scope, 8, 23.0, 6.0, 900.0, 0)])  # fmt: skip
    season = await store.leaderboard(1, metric="rating", since=DEC, until=JAN27)
    assert [(x.player_id, x.value) for x in season.lines] == [(7, 1100.0), (8, 900.0)]
    every = await store.leaderboard(1, metric="rating")
    assert [(x.player_id, x.value) for x in every.lines] == [(7, 1010.0)]


async def _two():
    from .test_results import seats

    return seats([30, 10], [7, 8])


async def test_the_season_settings(store: GameStore) -> None:
    before = await store.guild_settings(1)
    assert (before.season, before.season_channel, before.season_since) == ("off", None, None)
    on = await store.update_settings(1, {"season": "monthly", "season_channel": 42}, now=DEC)
    assert (on.season, on.season_channel, on.season_since) == ("monthly", 42, DEC)
    again = await store.update_settings(1, {"season": "monthly"}, now=JAN27)
    assert again.season_since == DEC  # the same value again: the season goes on
    other = await store.update_settings(1, {"images": True}, now=JAN27)
    assert other.season_since == DEC
    quarterly = await store.update_settings(1, {"season": "quarterly"}, now=JAN27)
    assert quarterly.season_since == JAN27
    assert [s.guild_id for s in await store.season_guilds()] == [1]
    for bad in ({"season": "weekly"}, {"season_channel": -1}, {"season_channel": "x"}):
        with pytest.raises(ValueError, match="season"):
            await store.update_settings(1, bad)
    assert (await store.guild_settings(1)).season == "quarterly"


async def test_a_podium_is_claimed_once_and_posted_once(store: GameStore) -> None:
    lease = timedelta(minutes=2)
    assert await store.last_podium(1, "monthly") is None
    claims = await asyncio.gather(*(store.claim_podium(1, "monthly", 12, now=JAN27, lease=lease)
                                    for _ in range(4)))  # fmt: skip
    assert sorted(claims) == ["busy", "busy", "busy", "mine"]
    # a claimer that died: its lease runs out and another takes over
    later = JAN27 + lease
    assert await store.claim_podium(1, "monthly", 12, now=later, lease=lease) == "mine"
    await store.podium_posted(1, "monthly", 12, message_id=99, now=later)
    assert await store.claim_podium(1, "monthly", 12, now=later + lease * 9, lease=lease) == (
        "posted")
    assert await store.last_podium(1, "monthly") == 12
    assert await store.last_podium(1, "quarterly") is None


async def test_first_result(store: GameStore) -> None:
    assert await store.first_result(1) is None
    await three_months(store)
    assert await store.first_result(1) == NOV + timedelta(minutes=12)
