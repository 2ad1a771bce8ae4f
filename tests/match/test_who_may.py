"""Who may do what: the rules the model decides for every edge (a click, a command, the
export), each refusal with its catalog code."""

from __future__ import annotations

import random
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from bot.engine import GameError
from bot.match import DEFAULT_RULES, Caller, Match, known_rules, rules_or_default
from bot.records import GuildSettings

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
TODAY = T0.date()
GUILD, CHANNEL = 7, 5
HOST, ANN, BOB = 11, 22, 33


def code_of(action) -> str:
    with pytest.raises(GameError) as refused:
        action()
    return refused.value.code


def table() -> Match:
    lobby = Match.lobby(Caller(HOST, GUILD, CHANNEL), "Host", rules="yatzy", lang="en", now=T0)
    return lobby.join(ANN, "Ann").start(HOST, random.Random(3), T0)


def daily() -> Match:
    return Match.new_daily(Caller(ANN, GUILD, CHANNEL), "Ann", rules="classic", lang="ru", now=T0)


def test_new_matches_are_the_models() -> None:
    lobby = Match.lobby(Caller(HOST, GUILD, CHANNEL), "Host", rules="classic", lang="ro", now=T0)
    assert (lobby.status, lobby.host_id, lobby.guild_id, lobby.channel_id) == (
        "lobby", HOST, GUILD, CHANNEL
    )  # fmt: skip
    assert [s.name for s in lobby.seats] == ["Host"]
    assert lobby.due_at() is not None  # a lobby nobody starts closes
    mine = daily()
    assert (mine.status, mine.kind, mine.day, mine.host_id) == ("playing", "daily", TODAY, ANN)
    assert list(mine.require_game().players) == [str(ANN)]
    assert mine.due_at() is None  # no timer
    assert code_of(lambda: Match.lobby(Caller(1, 2, 3), "x", rules="poker", lang="en",
                                       now=T0)) == "unknown_rules"  # fmt: skip


def test_the_rule_set_asked_for_else_the_servers_else_the_default() -> None:
    assert rules_or_default("yatzy", "banked") == "yatzy"
    assert rules_or_default(None, "banked") == "banked"
    assert rules_or_default(None, None) == DEFAULT_RULES == "classic"
    assert known_rules("banked") == "banked"
    assert code_of(lambda: rules_or_default("nope", None)) == "unknown_rules"


def test_a_table_is_reached_from_its_own_server_and_channel_only() -> None:
    game = table()
    game.verify_reach(Caller(BOB, GUILD, CHANNEL), TODAY)  # anyone there: the turn decides
    for elsewhere in (Caller(ANN, GUILD, CHANNEL + 1), Caller(ANN, GUILD + 1, CHANNEL),
                      Caller(ANN, None, CHANNEL)):  # fmt: skip
        assert not game.can_reach(elsewhere)
        assert code_of(lambda c=elsewhere: game.verify_reach(c, TODAY)) == "errors.stale"


def test_a_daily_is_its_members_on_its_day() -> None:
    mine = daily()
    mine.verify_reach(Caller(ANN, GUILD, CHANNEL + 9), TODAY)  # any channel of its server
    assert code_of(lambda: mine.verify_reach(Caller(BOB, GUILD, CHANNEL), TODAY)) == (
        "daily.not_yours"
    )
    assert code_of(lambda: mine.verify_reach(Caller(ANN, GUILD + 1, CHANNEL), TODAY)) == (
        "errors.stale"
    )
    tomorrow = TODAY + timedelta(days=1)
    assert code_of(lambda: mine.verify_reach(Caller(ANN, GUILD, CHANNEL), tomorrow)) == (
        "daily.over"
    )
    finished = replace(mine, status="finished")
    finished.verify_reach(Caller(ANN, GUILD, CHANNEL), tomorrow)  # its report, any day


def test_resume_is_for_the_players_the_host_and_managers() -> None:
    game = table()
    game.verify_resume(ANN, manager=False)
    game.verify_resume(HOST, manager=False)
    game.verify_resume(BOB, manager=True)
    assert code_of(lambda: game.verify_resume(BOB, manager=False)) == "resume.not_yours"


def test_a_dailys_log_is_its_members_until_the_day_is_over() -> None:
    mine = daily()
    mine.verify_export(ANN, TODAY)
    assert code_of(lambda: mine.verify_export(BOB, TODAY)) == "export.daily_hidden"
    mine.verify_export(BOB, TODAY + timedelta(days=1))
    table().verify_export(BOB, TODAY)  # a table's game: anyone of its server


def test_computer_players_and_hints_follow_the_servers_settings() -> None:
    off = GuildSettings(GUILD, bots_allowed=False, hints_allowed=False)
    lobby = Match.lobby(Caller(HOST, GUILD, CHANNEL), "Host", rules="classic", lang="en", now=T0)
    lobby.verify_computers(GuildSettings(GUILD))
    assert code_of(lambda: lobby.verify_computers(off)) == "bots.not_allowed"
    replace(lobby, guild_id=None).verify_computers(off)  # no server: nothing to turn off
    game = table()
    mover = game.current_id
    assert mover is not None
    other = ANN if mover == HOST else HOST
    assert game.hint_offered(GuildSettings(GUILD))
    assert not game.hint_offered(off)
    assert game.verify_hint(mover, GuildSettings(GUILD)) is game.game
    assert code_of(lambda: game.verify_hint(other, GuildSettings(GUILD))) == "hint.not_your_turn"
    assert code_of(lambda: game.verify_hint(mover, off)) == "hint.not_allowed"
    assert code_of(lambda: lobby.verify_hint(HOST, None)) == "errors.stale"
    seated = lobby.add_computer(HOST, "easy")
    starts = (seated.start(HOST, random.Random(seed), T0) for seed in range(100))
    with_computer = next(g for g in starts if g.computer_to_move is not None)
    assert not with_computer.hint_offered(GuildSettings(GUILD))  # a computer seat's turn


def test_the_scorecard_button_shows_the_clickers_card_else_the_movers() -> None:
    game = table()
    assert game.card_player(ANN) == str(ANN)
    assert game.card_player(BOB) == game.require_game().player
    assert daily().card_player(ANN) == str(ANN)


def test_one_link_to_a_matchs_latest_message() -> None:
    game = table()
    base = f"https://discord.com/channels/{GUILD}/{CHANNEL}"
    assert game.link == base
    assert replace(game, lobby_message_id=1).link == f"{base}/1"
    assert replace(game, lobby_message_id=1, turn_message_id=2).link == f"{base}/2"
    assert replace(game, turn_message_id=2, final_message_id=3).link == f"{base}/3"
    assert replace(game, guild_id=None).link == f"https://discord.com/channels/@me/{CHANNEL}"


def test_a_finish_is_rated_at_a_servers_table_of_two_or_more() -> None:
    game = table()
    assert game.rated
    assert sorted(game.rated_players()) == [HOST, ANN]
    assert not daily().rated
    assert not replace(game, guild_id=None).rated
    solo = Match.lobby(Caller(HOST, GUILD, CHANNEL), "Host", rules="classic", lang="en",
                       now=T0).start(HOST, random.Random(1), T0)  # fmt: skip
    assert not solo.rated
