"""Seasons end to end through simcord (issue 20): the virtual clock across a month
boundary, the board and stats of the current and the previous season, the podium posted
once in the season channel, a setting change mid-season, a season with no games, a
member who left, and the `season:` option's bad input.

simcord's clock starts at 2026-01-01 00:00 UTC, the first instant of season 1. A month
is jumped at once (`jump`): `advance_time` would run every loop tick of the month (the
turn timers tick every few seconds), so the clock is moved and no time is advanced after.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

import discord

from bot.i18n import t
from bot.records import OVERALL, season_scope
from tests.cogs.drive import open_game, play_to_the_end
from tests.cogs.test_forged_ids import BUTTON, click, ids_shown, private_answer

JAN, FEB, APR = (datetime(2026, m, 1, tzinfo=UTC) for m in (1, 2, 4))
PODIUM = "🏅 The podium of Season {n} · {period}"


def jump(env: Any, to: datetime) -> None:
    env.backend.clock.advance((to - env.now()).total_seconds())


def podiums(channel: Any) -> list[discord.Embed]:
    return [e for m in channel.history() for e in m.embeds if "podium" in (e.title or "")]


def board_names(res: Any) -> list[str]:
    """The names on a leaderboard page, best first."""
    text = res.response.embeds[0].description or ""
    lines = [x.split(" — ")[0].replace("*", "") for x in text.splitlines() if " — " in x]
    return [re.sub(r"^\W*\d+\.\s*", "", x).strip() for x in lines]


async def game(env: Any, channel: Any, players: list[Any]) -> None:
    await open_game(channel, players[0], players[1:])
    await play_to_the_end(env, channel, {p.id: p for p in players})


async def turn_on(ann: Any, channel: Any, podium: Any, season: str = "monthly") -> None:
    res = await ann.slash(channel, "poker settings", season=season, season_channel=podium)
    assert res.acknowledged
    assert res.ephemeral
    shown = {f.name: f.value for f in res.response.embeds[0].fields}
    assert shown["Seasons"] == season
    assert shown["Podium channel"] == f"<#{podium.id}>"


async def test_a_month_of_seasons_through_the_clock(league) -> None:  # noqa: PLR0915 - one story
    env, guild, channel, (ann, bob, cid, dan) = league
    podium = guild.create_text_channel("podium")
    assert env.now() == JAN
    await turn_on(ann, channel, podium)
    await game(env, channel, [ann, bob])  # January: season 1
    store = env.bot.store
    january = {r.player_id for r in await store.results((await store.history(guild.id))[0].game.id)}
    assert january == {ann.id, bob.id}
    # the season's ratings start from the all-time ones, a scope of their own
    scope = season_scope(OVERALL, JAN, FEB)
    rated = {r.rules for r in await store.ratings(guild.id, [ann.id])}
    assert {OVERALL, scope} <= rated

    jump(env, datetime(2026, 2, 1, 9, tzinfo=UTC))  # the season ended overnight
    assert podiums(podium) == []
    now = await cid.slash(channel, "poker leaderboard")  # the next interaction …
    assert now.acknowledged
    assert not now.ephemeral
    assert board_names(now) == []  # … sees February's board: nobody played yet
    assert now.response.embeds[0].footer.text.startswith("Season 2 · February 2026")
    posted = podiums(podium)  # … and the podium of January is posted
    assert [p.title for p in posted] == [PODIUM.format(n=1, period="January 2026")]
    fields = {f.name: f.value for f in posted[0].fields}
    categories = ("wins", "net", "skill", "tournaments")
    assert set(fields) == {t(f"season.category_{c}") for c in categories}
    winner = fields[t("season.category_wins")].split("\n")[0]
    assert winner.startswith("🥇 ")
    assert ("ann" in winner or "bob" in winner)
    assert not [m for m in podium.history() if m.mentions or m.role_mentions]

    # once: more interactions, the periodic check, another process's claim all find it done
    await dan.slash(channel, "poker leaderboard")
    await env.bot.get_cog("League").podiums.check()
    assert len(podiums(podium)) == 1

    previous = await cid.slash(channel, "poker leaderboard", season="previous")
    assert sorted(board_names(previous)) == ["ann", "bob"]
    assert previous.response.embeds[0].footer.text.startswith("Season 1 · January 2026")
    by_number = await cid.slash(channel, "poker leaderboard", season="1", metric="rating")
    assert sorted(board_names(by_number)) == ["ann", "bob"]
    stats = await ann.slash(channel, "poker stats", season="previous")
    assert stats.acknowledged
    assert not stats.ephemeral
    assert stats.response.embeds[0].description.startswith("Season 1 · January 2026")
    none_yet = await ann.slash(channel, "poker stats")  # February: none of hers yet
    assert none_yet.ephemeral

    await game(env, channel, [cid, dan])  # February: season 2
    current = await bob.slash(channel, "poker leaderboard")
    assert sorted(board_names(current)) == ["cid", "dan"]
    every = await bob.slash(channel, "poker leaderboard", season="all")
    assert sorted(board_names(every)) == ["ann", "bob", "cid", "dan"]  # nothing deleted
    assert every.response.embeds[0].footer.text.startswith("All time")

    # Mid-season to quarterly: its current season is the quarter holding the change, and
    # January's games count in it; February's monthly season gets no podium.
    await turn_on(ann, channel, podium, "quarterly")
    quarter = await bob.slash(channel, "poker leaderboard")
    assert sorted(board_names(quarter)) == ["ann", "bob", "cid", "dan"]
    assert quarter.response.embeds[0].footer.text.startswith("Season 1 · 1st quarter 2026")
    jump(env, datetime(2026, 4, 2, tzinfo=UTC))
    await bob.slash(channel, "poker seasons")
    assert [p.title for p in podiums(podium)] == [
        PODIUM.format(n=1, period="January 2026"),
        PODIUM.format(n=1, period="1st quarter 2026"),
    ]
    listed = await bob.slash(channel, "poker seasons")
    text = listed.response.embeds[0].description
    assert "Season 2 · 2nd quarter 2026" in text
    assert "Season 1 · 1st quarter 2026" in text


async def test_a_season_with_no_games_and_a_member_who_left(league) -> None:
    env, guild, channel, (ann, bob, cid, _dan) = league
    podium = guild.create_text_channel("podium")
    await turn_on(ann, channel, podium)
    jump(env, datetime(2026, 2, 3, tzinfo=UTC))  # January: nobody played
    await bob.slash(channel, "poker rules")
    (empty,) = podiums(podium)
    assert empty.description == t("season.podium_empty")
    await game(env, channel, [bob, cid])  # February
    guild.remove_member(bob)  # bob leaves the server: he keeps his place, by his name
    jump(env, datetime(2026, 3, 1, 0, 5, tzinfo=UTC))
    await env.bot.get_cog("League").podiums.check()  # the periodic check comes first
    titles = [p.title for p in podiums(podium)]
    assert titles[-1] == PODIUM.format(n=2, period="February 2026")
    net = {f.name: f.value for f in podiums(podium)[-1].fields}[t("season.category_net")]
    assert "bob" in net
    assert "cid" in net
    await cid.slash(channel, "poker leaderboard")
    assert len(podiums(podium)) == 2  # once


async def test_the_season_option_refuses_politely(league) -> None:
    env, guild, channel, (ann, bob, _cid, _dan) = league
    off = await bob.slash(channel, "poker leaderboard", season="previous")
    assert off.ephemeral
    assert off.response.content == t("season.off")
    assert (await bob.slash(channel, "poker leaderboard", season="all")).acknowledged
    await turn_on(ann, channel, guild.create_text_channel("podium"))
    before = len(channel.history(viewer=ann))
    for typed, key, kw in (
        ("banana", "season.bad", {"value": "banana"}),
        ("previous", "season.before_first", {}),  # January 2026 is season 1
        ("99", "season.not_yet", {"number": 99, "current": 1}),
    ):
        res = await bob.slash(channel, "poker leaderboard", season=typed)
        assert res.acknowledged
        assert res.ephemeral
        assert res.response.content == t(f"season.{key.split('.')[1]}", **kw)
        res = await bob.slash(channel, "poker stats", season=typed)
        assert res.ephemeral
        assert res.response.content == t(key, **kw)
    assert len(channel.history(viewer=ann)) == before  # nothing public, nothing changed
    assert (await env.bot.store.guild_settings(guild.id)).season == "monthly"


async def test_a_pager_keeps_its_season_and_a_forged_one_is_answered(league) -> None:
    env, guild, channel, (ann, bob, _cid, _dan) = league
    await turn_on(ann, channel, guild.create_text_channel("podium"))
    res = await bob.slash(channel, "poker leaderboard", season="all")
    pager = next(i for i in ids_shown(env, channel) if i.startswith("league:board:"))
    assert pager.endswith(":a")  # the season drawn travels with the page
    first = await bob.slash(channel, "poker leaderboard")
    assert any(i.endswith(":m1") for i in ids_shown(env, channel))
    assert first.acknowledged
    base = pager.rsplit(":", 1)[0]
    for forged in ("m0", "m99999999", "q10001"):
        answer = await click(env, bob, channel, f"{base}:{forged}", BUTTON)
        assert private_answer(answer) == t("errors.stale")
    assert res.acknowledged
