"""Processes holding different shards of one bot, on one PostgreSQL database.

Each process loads, times out and plays only the games of the servers on its shards; a
server's leaderboard, stats and history hold every process's games; a process stopped
mid-game hands its shards to a new one, whose old buttons keep working and which loses
nothing that was acknowledged.
"""

from __future__ import annotations

import asyncio

from bot.i18n import t
from tests.cogs.drive import controls, fresh, game_id_of, open_game, play_to_the_end, turn_message
from tests.cogs.league.test_league import board_lines_of
from tests.multi.play import Player, watch
from tests.multi.worlds import World, layout

TIMEOUT = 301  # seconds: past the default turn time (300)


def first_game(w: World, n: int):
    async def start(world: World) -> int:
        table = world.tables[n]
        await open_game(table.channel, table.ann, [table.bob])
        return game_id_of(turn_message(table.channel))

    return start


async def test_each_process_plays_only_the_games_of_its_own_shards(bot_factory) -> None:
    where = layout(1, 3)  # one Discord: a server on shard 1 and one on shard 3
    async with (
        World.open(bot_factory("0-1"), where, name="a") as a,
        World.open(bot_factory("2-3"), where, name="b") as b,
    ):
        seen_a, seen_b = watch(a, "a"), watch(b, "b")
        # At the same time, each process's members start a game in the server it holds.
        ga, gb = await asyncio.gather(a.do(first_game(a, 0)), b.do(first_game(b, 1)))
        assert [m.id for m in a.service.cached()] == [ga]
        assert [m.id for m in b.service.cached()] == [gb]
        # A server on shards a process does not hold never reaches it.
        other = await a.do(lambda w: w.tables[1].ann.slash(w.tables[1].channel, "poker leave"))
        assert not other.acknowledged
        # Both turns time out: each process plays the absent turn of its own game only
        # (its timer scans its own games, and the store's due games of its own shards).
        await asyncio.gather(a.advance(TIMEOUT + 60), b.advance(TIMEOUT + 60))
        assert seen_a.games == {ga}
        assert seen_b.games == {gb}
        for world, n, game in ((a, 0, ga), (b, 1, gb)):
            summary = world.tables[n].channel.history()[-2].content
            assert "ran out of time" in summary, summary
            assert (await world.do(lambda w, g=game: w.store.get_game(g))).version > 2
        # A new process for each half, started afresh, loads only its half's games.
        a2, b2 = bot_factory("0-1"), bot_factory("2-3")
        await asyncio.gather(a.restart(a2), b.restart(b2))
        assert [m.id for m in a.service.cached()] == [ga]
        assert [m.id for m in b.service.cached()] == [gb]


async def test_leaderboards_stats_and_history_hold_every_process_s_games(bot_factory) -> None:
    where = layout(1, 3)
    async with (
        World.open(bot_factory("0-1"), where, name="a") as a,
        World.open(bot_factory("2-3"), where, name="b") as b,
    ):
        played: dict[int, list[tuple[str, int]]] = {0: [], 1: []}  # server → (process, game)

        def whole_game(n: int):
            async def play(world: World) -> None:
                table = world.tables[n]
                await open_game(table.channel, table.ann, [table.bob])
                played[n].append((world.name, game_id_of(turn_message(table.channel))))
                await play_to_the_end(world.env, table.channel, table.by_id())

            return play

        await asyncio.gather(a.do(whole_game(0)), b.do(whole_game(1)))
        # The shards change hands (a redeploy with another split): each process now holds
        # the other half, and each server gets a second game, from the other process.
        await asyncio.gather(a.restart(bot_factory("2-3")), b.restart(bot_factory("0-1")))
        await asyncio.gather(a.do(whole_game(1)), b.do(whole_game(0)))
        assert [p for p, _ in played[0]] == ["a", "b"]
        assert [p for p, _ in played[1]] == ["b", "a"]

        for world, n in ((a, 1), (b, 0)):

            async def ask(w: World, n: int = n) -> tuple[object, ...]:
                table = w.tables[n]
                board = await table.ann.slash(table.channel, "poker leaderboard")
                stats = await table.bob.slash(table.channel, "poker stats")
                history = await table.ann.slash(table.channel, "poker history")
                return board.response, stats.response, history.response

            board, stats, history = await world.do(ask)
            lines = board_lines_of(board)
            assert sorted((name, games) for _, name, _, games in lines) == [("ann", 2), ("bob", 2)]
            assert stats.embeds[0].fields[0].value.startswith("Games: 2 ·")
            shown = [f.name for f in history.embeds[0].fields]
            assert shown == [f"Game #{g} · classic" for _, g in reversed(played[n])]


async def test_a_stopped_process_s_shards_taken_over_mid_game(bot_factory) -> None:
    async with World.open(bot_factory("0-1"), layout(1), name="w") as w:
        player = Player()

        async def begin(world: World) -> None:
            table = world.table
            await open_game(table.channel, table.ann, [table.bob])
            for _ in range(3):
                await player.turn(world, table)
            await player.turn(world, table, rolls=1, score=False)  # mid-turn: dice held

        await w.do(begin)
        turn = turn_message(w.table.channel)
        game = game_id_of(turn)
        held = [b.get("style") for b in controls(fresh(w.env, turn))["hold"]]
        assert 3 in held  # a die is held on the turn message the old process left
        # The process stops; a new one holding an overlapping set of shards takes over.
        await w.restart(bot_factory("1-2"))
        assert [m.id for m in w.service.cached()] == [game]

        async def go_on(world: World) -> int:
            table = world.table
            # The old turn message's buttons: the same message, clicked after the takeover.
            assert turn_message(table.channel).id == turn.id
            turns = 0
            while await player.turn(world, table):
                turns += 1
            return turns

        assert await w.do(go_on) > 0
        assert await w.do(player.lost) == []
        assert len(await w.do(lambda w: w.store.actions(game))) == len(player.acknowledged)
        record = await w.do(lambda w: w.store.get_game(game))
        assert record.status == "finished"
        assert t("errors.stale") not in [m.content for m in w.table.channel.history()]
