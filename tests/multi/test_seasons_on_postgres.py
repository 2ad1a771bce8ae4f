"""Two processes on one PostgreSQL when a season ends: both see the server's next
interaction at once, and the podium is posted once (the store's claim, issue 20)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any

from tests.cogs.league.test_seasons import jump, podiums
from tests.multi.worlds import Layout, World, layout

FEB = datetime(2026, 2, 1, 8, tzinfo=UTC)


def with_podium(build: Layout) -> Layout:
    """The layout's first server gets a channel "podium" too (`world.podium`)."""

    def made(env: Any) -> list[Any]:
        tables = build(env)
        tables[0].members["podium"] = tables[0].guild.create_text_channel("podium")
        return tables

    return made


async def test_two_processes_post_a_season_s_podium_once(bot_factory) -> None:
    where = with_podium(layout(1))
    bot_a, bot_b = bot_factory("0-1"), bot_factory("1-2")
    async with World.open(bot_a, where, name="a") as a, World.open(bot_b, where, name="b") as b:

        async def turn_on(w: World) -> Any:
            return await w.ann.slash(w.channel, "poker settings", season="monthly",
                                     season_channel=w.podium)  # fmt: skip

        assert (await a.do(turn_on)).acknowledged

        async def new_month(w: World) -> None:
            jump(w.env, FEB)

        await asyncio.gather(a.do(new_month), b.do(new_month))

        async def interact(w: World) -> Any:
            return await w.bob.slash(w.channel, "poker rules")

        answers = await asyncio.gather(a.do(interact), b.do(interact))
        assert all(res.acknowledged for res in answers)

        async def posted(w: World) -> int:
            await w.env.bot.get_cog("League").podiums.check()  # the periodic check too
            return len(podiums(w.podium))

        counts = [await a.do(posted), await b.do(posted)]
        assert sorted(counts) == [0, 1]  # one process posted it, once
