"""The daily's board, clicks that must be refused, other servers, other days, exports,
languages and pictures."""

from __future__ import annotations

import copy
import json

from bot.i18n import t
from bot.render import image
from tests.cogs.drive import click_snapshot, fresh, replay_cli, snapshot
from tests.render.legibility import labels

from .drive import daily_controls, game_of, keep_most, never_hold, next_day, play_daily, start
from .test_daily import final_game, total_of


async def board(member, channel, **options):
    res = await member.slash(channel, "poker daily board", **options)
    assert res.acknowledged
    assert res.ephemeral  # only for whoever asked
    return res.response


async def test_the_board_hides_the_cards_until_the_day_is_over(casino):
    env, _, channel, (ann, bob, cid) = casino
    for member, policy in ((ann, never_hold), (bob, keep_most)):
        await play_daily(env, member, await start(member, channel), policy)
    got = await board(cid, channel)  # cid has not played: ranking, no cards
    embed = got.embeds[0]
    assert embed.title == "📅 Daily dice — classic — 2026-01-01"
    lines = embed.description.splitlines()
    assert lines[0].startswith("1. ")
    assert " · streak: 1" in lines[0]
    assert "You have not played this daily yet." in embed.description
    assert t("daily_board.cards_hidden", "en") in embed.description
    assert "Best score the dice allowed: **" in embed.description
    assert not embed.fields
    assert embed.footer.text == "2 played · days are UTC"
    seen = await board(ann, channel)  # ann has played: the cards are hers to see
    assert seen.embeds[0].fields[0].name == "Cards of the first 2"
    assert "```" in seen.embeds[0].fields[0].value
    assert "__" in seen.embeds[0].description  # her own line
    assert t("daily_board.cards_hidden", "en") not in seen.embeds[0].description
    next_day(env)
    later = await board(cid, channel, day="2026-01-01")  # the day is over: for everyone
    assert later.embeds[0].fields[0].name == "Cards of the first 2"
    today = await board(cid, channel)
    assert today.embeds[0].title.endswith("2026-01-02")
    assert "Nobody in this server has finished this daily yet." in today.embeds[0].description
    for bad in ("tomorrow", "2026-01-03", "2026-13-01"):
        res = await cid.slash(channel, "poker daily board", day=bad)
        assert res.ephemeral
        assert "is not a day to look at" in res.response.content


async def test_streaks_and_the_daily_league(casino):
    env, _, channel, (ann, bob, _) = casino
    for _ in range(3):
        await play_daily(env, ann, await start(ann, channel), keep_most)
        next_day(env)
    await play_daily(env, bob, await start(bob, channel), never_hold)
    await play_daily(env, ann, await start(ann, channel), keep_most)
    got = await board(ann, channel)
    lines = got.embeds[0].description.splitlines()
    assert any(" ann — " in x and x.endswith("· streak: 4__") for x in lines)  # her own line
    assert any(" bob — " in x and x.endswith("· streak: 1") for x in lines)
    res = await ann.slash(channel, "poker leaderboard", metric="daily")
    text = res.response.embeds[0].description
    assert "ann — 3 days won · best streak: 4 · days played: 4" in text or (
        "ann — 4 days won · best streak: 4 · days played: 4" in text
    )
    assert "days finished first in the server" in res.response.embeds[0].footer.text
    stats = await ann.slash(channel, "poker stats")
    daily = {f.name: f.value for f in stats.response.embeds[0].fields}["Daily dice"]
    assert "Days played: 4" in daily
    assert "Best streak: 4" in daily
    # Dailies are no table games: no wins on the table boards, no history.
    assert (await env.bot.store.member_stats(channel.guild.id, ann.id)) == []
    history = await ann.slash(channel, "poker history")
    assert history.response.embeds[0].description == t("history.empty", "en")


async def test_stale_and_foreign_clicks_change_nothing(casino):
    env, _, channel, (ann, bob, _) = casino
    message = await start(ann, channel)
    game_id = game_of(message)
    old = snapshot(env, message)
    roll = daily_controls(old)["roll"]["custom_id"]
    await ann.click(message, custom_id=roll)
    actions = len(await env.bot.store.actions(game_id))
    # ann clicks an out-of-date copy: refused, and that copy is redrawn as the game is.
    res = await click_snapshot(ann, old, roll)
    assert res.acknowledged
    assert t("errors.stale", "en") in _answer(res)
    # bob cannot see ann's message; a click forged from its ids is refused by name.
    now = snapshot(env, message)
    again = daily_controls(now)["roll"]["custom_id"]
    res = await click_snapshot(bob, now, again)
    assert _answer(res) == "This is ann's daily game: play your own with /poker daily play."
    # A damaged id of the daily's namespace is out of date, not a failure.
    broken = copy.deepcopy(now)
    for row in broken.components:
        for item in row.get("components", []):
            if item.get("custom_id") == again:
                item["custom_id"] = "daily:nope:1:2"
    res = await click_snapshot(ann, broken, "daily:nope:1:2")
    assert t("errors.stale", "en") in _answer(res)
    assert len(await env.bot.store.actions(game_id)) == actions  # nothing was played
    # The play cog's ids cannot reach a daily either (a poker: id with the daily's number).
    forged = copy.deepcopy(now)
    for row in forged.components:
        for item in row.get("components", []):
            if item.get("custom_id") == again:
                item["custom_id"] = again.replace("daily:", "poker:")
    res = await click_snapshot(ann, forged, again.replace("daily:", "poker:"))
    assert t("errors.stale", "en") in _answer(res)
    assert len(await env.bot.store.actions(game_id)) == actions


def _answer(res) -> str:
    """The refusal a click got (its own answer, or a follow-up after a redraw)."""
    if res.followups:
        return res.followups[-1].content
    return res.response.content


async def test_yesterdays_daily_is_over(casino):
    env, _, channel, (ann, _, _) = casino
    message = await start(ann, channel)
    await play_daily(env, ann, message, never_hold, turns=1)
    next_day(env)
    roll = daily_controls(fresh(env, message))["roll"]["custom_id"]
    res = await ann.click(message, custom_id=roll)
    assert res.ephemeral
    assert res.response.content == (
        "The daily of 2026-01-01 is over: start today's with /poker daily play."
    )
    fresh_start = await start(ann, channel)  # today's is another game
    assert game_of(fresh_start) != game_of(message)


async def test_one_attempt_wherever_the_member_plays(casino):
    env, _, channel, (ann, _, _) = casino
    elsewhere = env.create_guild("Elsewhere")
    other = elsewhere.create_text_channel("dice")
    there = elsewhere.add_member(ann.user)  # the same member, in a second server
    await start(ann, channel)
    res = await there.slash(other, "poker daily play", rules="classic")
    assert res.ephemeral
    assert res.response.content.startswith(
        "You started today's classic daily in another server: finish it there"
    )


async def test_a_daily_blocks_no_channel_and_is_no_table_game(casino):
    _, _, channel, (ann, bob, _) = casino
    await start(ann, channel)
    lobby = await bob.slash(channel, "poker new")
    assert not lobby.ephemeral  # the channel's table is free
    res = await ann.slash(channel, "poker scorecard")
    assert res.response.content == t("errors.not_started", "en")  # the table's lobby


async def test_export_and_replay_of_a_daily(casino):
    env, _, channel, (ann, bob, _) = casino
    message = await start(ann, channel, "banked")
    game_id = game_of(message)
    await play_daily(env, ann, message, never_hold)
    total = total_of(await final_game(env, game_id))
    refused = await bob.slash(channel, "poker export", game=game_id)
    assert refused.response.content.startswith(f"Game #{game_id} is a daily of 2026-01-01")
    mine = await ann.slash(channel, "poker export", game=game_id)
    document = json.loads(await mine.response.attachments[0].read())
    assert document["rules"] == "banked"
    assert document["players"] == ["ann"]
    result = replay_cli(document)
    assert result["finished"] is True
    assert result["players"][0]["total"] == total
    next_day(env)
    later = await bob.slash(channel, "poker export", game=game_id)  # the day is over
    assert later.response.attachments


async def test_public_line_in_the_servers_language_private_in_the_members(casino):
    env, guild, channel, (ann, _, _) = casino
    await env.bot.store.update_settings(guild.id, {"language": "ru"})
    message = await start(ann, channel)
    assert message.content.startswith("🎲 **Daily dice**")  # ann's client is English
    await play_daily(env, ann, message, never_hold)
    assert fresh(env, message).embeds[0]["title"].startswith("🏁 Your daily dice")
    line = channel.last_message.content
    assert line.startswith("🎲 ann сыграл(а) кости дня (классика): **")
    assert "-е место из 1" in line


async def test_pictures_when_the_server_has_them_on(casino):
    env, guild, channel, (ann, _, _) = casino
    await env.bot.store.update_settings(guild.id, {"images": True})
    message = await start(ann, channel)
    await play_daily(env, ann, message, never_hold)
    shown = fresh(env, message)
    assert shown.embeds[1]["image"]["url"] == "attachment://scorecard.png"
    assert shown.attachments
    seen = await board(ann, channel)
    assert seen.embeds[0].image.url == "attachment://scorecard.png"
    assert not seen.embeds[0].fields  # the picture replaces the table
    png = await seen.attachments[0].read()
    assert png.startswith(b"\x89PNG")


async def test_a_new_day_leaves_yesterdays_dailies_out_of_memory(casino):
    env, _, channel, (ann, bob, _) = casino
    old = game_of(await start(ann, channel))
    service = env.bot.daily.dailies.games
    assert old in {m.id for m in service.cached()}
    next_day(env)
    new = game_of(await start(bob, channel))
    assert {m.id for m in service.cached()} == {new}
    # A day nobody here played is not worked out on asking (no CPU for any date typed).
    quiet = await board(ann, channel, day="2025-06-01")
    assert "Best score the dice allowed: not worked out yet." in quiet.embeds[0].description


async def test_a_daily_picture_shows_a_score_not_standings(casino, monkeypatch):
    drawn = []
    real = image.layout

    def spy(*args, **kwargs):
        drawn.append(pages := real(*args, **kwargs))
        return pages

    monkeypatch.setattr(image, "layout", spy)
    env, guild, channel, (ann, _, _) = casino
    # Drawn in a thread of this process, where the spy is (a worker process has none).
    monkeypatch.setattr(env.bot.services.pictures, "workers", 0)
    await env.bot.store.update_settings(guild.id, {"images": True})
    message = await start(ann, channel)
    game_id = game_of(message)
    await play_daily(env, ann, message, never_hold)
    assert fresh(env, message).attachments
    assert drawn  # the member's card, as a picture
    for pages in drawn:
        texts = {label.text for page in pages for label in labels(page)}
        assert f"Final score · classic · game #{game_id}" in texts
        assert not texts & {t("image.settlement_short"), t("image.rank")}
        assert not any(text.startswith("Final standings") for text in texts)
