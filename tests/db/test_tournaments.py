"""The tournaments' storage: a sign-up, its log, one change of two at one version, the
table games found by id, the results counted on the `tournaments` board and in the stats,
in a window of finish times (SQLite and PostgreSQL alike)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from bot.records import TournamentResult
from db import GameStore, StaleVersion

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


async def _finished(store: GameStore, guild: int, results: list[TournamentResult], at: datetime):
    made = await store.create_tournament(guild_id=guild, channel_id=50, state={"rules": "classic"},
                                         actions=[{"open": {}}], now=at)
    return await store.save_tournament(made.id, expect_version=0, state={"rules": "classic"},
                                       status="finished", actions=[{"advance": {}}],
                                       results=results, now=at)


async def test_a_change_at_an_old_version_writes_nothing(store: GameStore) -> None:
    made = await store.create_tournament(guild_id=1, channel_id=2, state={"a": 1},
                                         actions=[{"open": {"x": 1}}, {"join": {}}], now=T0)
    assert (made.status, made.version) == ("signup", 0)
    assert [t.id for t in await store.active_tournaments()] == [made.id]
    game = await store.create_game(guild_id=1, channel_id=3, host_id=5, rules="classic",
                                   state={"host_id": 5}, now=T0)
    saved = await store.save_tournament(made.id, expect_version=0, state={"a": 2},
                                        status="playing", actions=[{"start": {}}],
                                        games=[game.id], now=T0)
    assert (saved.status, saved.version, saved.state) == ("playing", 1, {"a": 2})
    with pytest.raises(StaleVersion):  # the other process's advance of the same round
        await store.save_tournament(made.id, expect_version=0, state={"a": 3},
                                    actions=[{"advance": {}}], now=T0)
    assert await store.tournament_actions(made.id) == [{"open": {"x": 1}}, {"join": {}},
                                                       {"start": {}}]
    assert (await store.get_tournament(made.id)).state == {"a": 2}
    assert await store.tournament_of_game(game.id) == made.id
    assert await store.tournament_of_game(game.id + 1) is None
    done = await store.save_tournament(made.id, expect_version=1, state={"a": 4},
                                       status="cancelled", now=T0 + timedelta(hours=1))
    assert done.finished_at == T0 + timedelta(hours=1)
    assert await store.active_tournaments() == []


async def test_the_tournaments_board_ranks_wins_then_finals_in_a_window(store: GameStore) -> None:
    def r(player: int, final: bool, place: int | None, champion: bool) -> TournamentResult:
        return TournamentResult(player, f"p{player}", 2 if final else 1, final, place, champion)

    await _finished(store, 1, [r(7, True, 1, True), r(8, True, 2, False), r(9, False, None, False)],
                    T0)
    await _finished(store, 1, [r(8, True, 1, True), r(9, True, 2, False)], T0 + timedelta(days=40))
    board = await store.leaderboard(1, metric="tournaments")
    assert [(x.player_id, x.value, x.extra, x.games, x.rank) for x in board.lines] == [
        (8, 1, 2, 2, 1), (7, 1, 1, 1, 2), (9, 0, 1, 2, 3)]
    stats = await store.tournament_stats(1, 8)
    assert (stats.played, stats.wins, stats.finals, stats.best_place) == (2, 1, 2, 1)
    first = await store.tournament_stats(1, 8, since=T0, until=T0 + timedelta(days=30))
    assert (first.played, first.wins, first.best_place) == (1, 0, 2)
    assert (await store.tournament_stats(2, 8)).played == 0
    assert (await store.leaderboard(2, metric="tournaments")).has_games is False
