"""/poker settings end to end through simcord: who may change them, what they show, and
what they change (moved here from tests/cogs/league/test_league.py with the admin cog)."""

from __future__ import annotations

import re

import pytest

from bot.i18n import LANGUAGES, catalog, t
from bot.match import SCORECARD_ROUNDS_FROM
from cogs.admin import parse_duration

# --- /poker settings ----------------------------------------------------------------------------


async def test_settings_change_and_show(server) -> None:
    env, guild, channel, (ann, _bob, _cid, _dan) = server
    res = await ann.slash(channel, "poker settings")
    assert res.ephemeral  # just looking: only the admin sees it
    shown = {f.name: f.value for f in res.response.embeds[0].fields}
    assert shown == {
        "Default rules": "classic (the bot's default)",
        "Turn timeout": "5 minutes",  # units in words, counted in the language
        "Computer players": "allowed",
        "Hints": "allowed",
        "Scorecard pictures": "not allowed",
        # ARCH.md: a finished turn's message carries the scorecard, as the server setting
        # `scorecards` (turn | round | end, default turn) says: shown with the rest. The
        # default shows it every round at a table of five or more (Match.shows_scorecard).
        "Scorecards": "every turn (every round from 5 players)",
        "Language": "each player's own",
        "Seasons": "off",  # the league is all-time until a manager turns seasons on
        "Podium channel": "none (no podium is posted)",
    }
    res = await ann.slash(
        channel,
        "poker settings",
        default_rules="yatzy",
        turn_timeout="1h30m",
        bots=False,
        images=True,
    )
    assert res.ephemeral  # the whole card for the manager alone…
    embed = res.response.embeds[0]
    assert embed.title == "Settings changed by ann"
    public = [m for m in res.followups if not m.flags.ephemeral]
    assert [m.content for m in public] == [  # …and one line in the channel
        "⚙️ ann changed the settings: Default rules: yatzy; Turn timeout: 1 hour 30 minutes;"
        " Computer players: not allowed; Scorecard pictures: allowed."
    ]
    assert not public[0].embeds
    shown = {f.name: f.value for f in embed.fields}
    assert shown["Default rules"] == "yatzy"
    assert shown["Turn timeout"] == "1 hour 30 minutes"
    assert shown["Computer players"] == "not allowed"
    assert shown["Hints"] == "allowed"
    assert shown["Scorecard pictures"] == "allowed"
    stored = await env.bot.store.guild_settings(guild.id)
    assert (stored.default_rules, stored.turn_timeout, stored.bots_allowed, stored.images) == (
        "yatzy",
        5400,
        False,
        True,
    )
    res = await ann.slash(channel, "poker settings", language="ru")
    # The public line speaks the server's (new) language; the card the manager's own.
    assert res.followups[-1].content == "⚙️ ann: новые настройки — Язык: Русский."
    assert res.response.embeds[0].fields[0].name == "Default rules"
    res = await ann.slash(channel, "poker settings", language="auto")
    assert (await env.bot.store.guild_settings(guild.id)).language is None


async def test_settings_refused_to_non_admin(server) -> None:
    env, guild, channel, (_ann, bob, _cid, _dan) = server
    res = await bob.slash(channel, "poker settings", turn_timeout="30s")
    assert res.acknowledged
    assert res.ephemeral
    assert "Manage Server" in res.response.content
    assert (await env.bot.store.guild_settings(guild.id)).turn_timeout == 300
    res = await bob.slash(channel, "poker settings")  # not even a look
    assert res.ephemeral
    assert not res.response.embeds


@pytest.mark.parametrize("value", ["29s", "25h", "soon", "5x", ""])
async def test_settings_bad_timeout_changes_nothing(server, value) -> None:
    env, guild, channel, (ann, _bob, _cid, _dan) = server
    res = await ann.slash(channel, "poker settings", turn_timeout=value, hints=False)
    assert res.ephemeral
    assert "is not a turn time" in res.response.content
    stored = await env.bot.store.guild_settings(guild.id)
    assert (stored.turn_timeout, stored.hints_allowed) == (300, True)


def test_parse_duration() -> None:
    assert parse_duration("90") == 90
    assert parse_duration("90s") == 90
    assert parse_duration("5m") == 300
    assert parse_duration("5min") == 300
    assert parse_duration("1h30m") == 5400
    assert parse_duration("2H") == 7200
    assert parse_duration("1h 2m 3s") == 3723
    for bad in ("", "m", "h5", "1.5h", "-3", "five"):
        assert parse_duration(bad) is None, bad


# --- the settings at work ---


async def test_new_game_uses_the_servers_default_rules(server) -> None:
    env, _guild, channel, (ann, bob, _cid, _dan) = server
    await ann.slash(channel, "poker settings", default_rules="yatzy")
    lobby = await bob.slash(channel, "poker new")
    assert lobby.acknowledged
    game = await env.bot.store.active_game(channel.id)
    assert game is not None
    assert game.rules == "yatzy"
    await bob.slash(channel, "poker cancel")
    await bob.slash(channel, "poker new", rules="banked")  # an explicit choice still wins
    game = await env.bot.store.active_game(channel.id)
    assert game is not None
    assert game.rules == "banked"


async def test_changes_leave_one_public_line_each_and_the_card_stays_private(server) -> None:
    _env, _guild, channel, (ann, bob, _cid, _dan) = server
    before = len(channel.history(viewer=bob))
    for change in ({"hints": False}, {"scorecards": "round"}, {"images": True, "bots": False}):
        res = await ann.slash(channel, "poker settings", **change)
        assert res.ephemeral
        assert res.response.embeds[0].title == "Settings changed by ann"
    seen = channel.history(viewer=bob)[before:]  # what the rest of the server sees
    assert [m.content for m in seen] == [
        "⚙️ ann changed the settings: Hints: not allowed.",
        "⚙️ ann changed the settings: Scorecards: every round.",
        "⚙️ ann changed the settings: Computer players: not allowed; Scorecard pictures: allowed.",
    ]
    assert not any(m.embeds for m in seen)


async def test_a_public_line_that_cannot_be_posted_says_the_change_was_saved(server) -> None:
    env, guild, channel, (ann, _bob, _cid, _dan) = server
    await ann.slash(channel, "poker settings")  # (the card alone: nothing to announce)
    env.inject_error("POST", "/webhooks/*/*", status=500, times=1)
    res = await ann.slash(channel, "poker settings", hints=False)
    assert res.acknowledged
    assert (await env.bot.store.guild_settings(guild.id)).hints_allowed is False
    said = [m.content for m in res.followups if m.flags.ephemeral]
    assert said == [t("errors.done_not_shown")]  # never "nothing was changed"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_default_is_named_with_the_size_the_bot_uses(lang: str) -> None:
    """The choice and the card say the number Match.shows_scorecard uses (written out in
    the catalog: a choice's name is sent to Discord as it is, unformatted)."""
    said = catalog(lang)["scorecards.turn"]
    assert re.findall(r"\d+", said) == [str(SCORECARD_ROUNDS_FROM)]
