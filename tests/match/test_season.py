"""Seasons of the league (`bot.match.season`): the calendar, the `season:` option, when a
podium is due (a setting changed mid-season included), and who is on it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.engine import GameError
from bot.match.season import (
    Season,
    SeasonRecord,
    parse_season,
    past_seasons,
    podium,
    podium_due,
    season_of,
)

NOW = datetime(2026, 12, 1, 20, 0, tzinfo=UTC)


def at(year: int, month: int, day: int = 1, hour: int = 0) -> datetime:
    return datetime(year, month, day, hour, tzinfo=UTC)


def test_seasons_are_calendar_months_or_quarters_numbered_from_january_2026():
    assert season_of("off", NOW) is None
    assert season_of("monthly", at(2026, 1)) == Season("monthly", 1)
    assert season_of("monthly", NOW) == Season("monthly", 12)
    assert season_of("monthly", at(2027, 1)) == Season("monthly", 13)
    assert season_of("quarterly", NOW) == Season("quarterly", 4)
    assert season_of("quarterly", at(2027, 3, 31, 23)) == Season("quarterly", 5)
    december = Season("monthly", 12)
    assert (december.start, december.end) == (at(2026, 12), at(2027, 1))
    q4 = Season("quarterly", 4)
    assert (q4.start, q4.end) == (at(2026, 10), at(2027, 1))
    assert q4.previous == Season("quarterly", 3)
    assert q4.next.start == at(2027, 1)


def test_a_result_belongs_to_the_season_its_game_finished_in_utc():
    last = datetime(2026, 11, 30, 23, 59, 59, tzinfo=UTC)
    assert season_of("monthly", last) == Season("monthly", 11)
    assert season_of("monthly", at(2026, 12)) == Season("monthly", 12)  # start included
    assert not Season("monthly", 11).contains(at(2026, 12))  # end excluded
    # 01:30 on 1 December in Bucharest is still November in UTC.
    bucharest = timezone(timedelta(hours=2))
    assert season_of("monthly", datetime(2026, 12, 1, 1, 30, tzinfo=bucharest)).number == 11
    with pytest.raises(ValueError, match="timezone"):
        season_of("monthly", datetime(2026, 12, 1))  # naive on purpose
    with pytest.raises(ValueError, match="season setting"):
        season_of("weekly", NOW)


@given(
    st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2200, 1, 1)),
    st.sampled_from(["monthly", "quarterly"]),
)
def test_every_instant_is_in_exactly_its_season(moment: datetime, mode: str):
    instant = moment.replace(tzinfo=UTC)
    season = season_of(mode, instant)
    assert season is not None
    assert season.contains(instant)
    assert not season.previous.contains(instant)
    assert not season.next.contains(instant)
    assert season.previous.end == season.start
    assert season_of(mode, season.start) == season


def test_the_season_option():
    assert parse_season(None, "monthly", NOW) == Season("monthly", 12)
    assert parse_season("current", "monthly", NOW) == Season("monthly", 12)
    assert parse_season(" Previous ", "monthly", NOW) == Season("monthly", 11)
    assert parse_season("3", "quarterly", NOW) == Season("quarterly", 3)
    assert parse_season("#4", "quarterly", NOW) == Season("quarterly", 4)
    assert parse_season("all", "monthly", NOW) is None
    # The words of the member's language too (and English in any language).
    assert parse_season("прошлый", "monthly", NOW, "ru") == Season("monthly", 11)
    assert parse_season("toate", "monthly", NOW, "ro") is None
    assert parse_season("पिछला", "monthly", NOW, "hi") == Season("monthly", 11)
    assert parse_season("previous", "monthly", NOW, "hi") == Season("monthly", 11)


@pytest.mark.parametrize(
    ("text", "mode", "code"),
    [
        ("13", "monthly", "season.not_yet"),
        ("0", "monthly", "season.before_first"),
        ("-2", "monthly", "season.before_first"),
        ("soon", "monthly", "season.bad"),
        ("3", "off", "season.off"),
        ("previous", "off", "season.off"),
    ],
)
def test_a_season_option_that_names_no_season_is_refused(text: str, mode: str, code: str):
    with pytest.raises(GameError) as info:
        parse_season(text, mode, NOW)
    assert info.value.code == code


def test_with_seasons_off_the_league_is_all_time():
    assert parse_season(None, "off", NOW) is None
    assert parse_season("all", "off", NOW) is None
    assert parse_season("current", "off", NOW) is None
    assert past_seasons("off", at(2026, 2), NOW) == []


def test_the_previous_season_of_season_one_does_not_exist():
    with pytest.raises(GameError) as info:
        parse_season("previous", "monthly", at(2026, 1, 15))
    assert info.value.code == "season.before_first"


def test_past_seasons_from_the_first_result_newest_first():
    assert past_seasons("monthly", at(2026, 9, 15), NOW) == [
        Season("monthly", n) for n in (11, 10, 9)
    ]
    assert past_seasons("monthly", None, NOW) == []  # no result yet
    assert past_seasons("monthly", at(2026, 12, 1, 5), NOW) == []  # only this season
    assert past_seasons("quarterly", at(2025, 6, 1), NOW) == [
        Season("quarterly", n) for n in (3, 2, 1)
    ]  # results before season 1 count from season 1


def test_the_podium_is_due_once_when_a_season_ends():
    on = at(2026, 10, 5)  # monthly seasons since October
    assert podium_due("monthly", at(2026, 10, 20), on, None) is None  # nothing ended yet
    assert podium_due("monthly", at(2026, 11, 1), on, None) == Season("monthly", 10)
    assert podium_due("monthly", at(2026, 11, 1), on, 10) is None  # posted
    assert podium_due("monthly", at(2026, 12, 3), on, 10) == Season("monthly", 11)
    # After a long downtime only the last season's podium is posted.
    assert podium_due("monthly", at(2027, 3, 2), on, 10) == Season("monthly", 14)
    assert podium_due("off", at(2027, 3, 2), on, None) is None


def test_a_setting_changed_mid_season():
    # Monthly until 15 November, then quarterly: November's podium is not posted (that
    # season did not end as one of the server's); Q4 started before the change, its
    # podium is due when it ends, and it holds October and November's results too.
    change = at(2026, 11, 15)
    assert podium_due("quarterly", at(2026, 12, 1), change, None) is None
    assert podium_due("quarterly", at(2027, 1, 1), change, None) == Season("quarterly", 4)
    assert season_of("quarterly", at(2026, 10, 2)) == Season("quarterly", 4)
    # Turned on in the last minute of a season: that season's podium is due.
    late = datetime(2026, 11, 30, 23, 59, tzinfo=UTC)
    assert podium_due("monthly", at(2026, 12, 1), late, None) == Season("monthly", 11)
    # Turned on exactly as a season ended: no podium for the one before.
    assert podium_due("monthly", at(2026, 12, 1, 1), at(2026, 12, 1), None) is None


# --- the podium ---------------------------------------------------------------------------


def record(pid: int, name: str, **values: object) -> SeasonRecord:
    base: dict[str, object] = {"games": 10, "wins": 0, "net": 0.0}
    base.update(values)
    return SeasonRecord(pid, name, **base)  # type: ignore[arg-type]


def test_the_podium_of_each_category():
    season = Season("monthly", 11)
    records = [
        record(1, "ann", wins=5, net=40.5, skill=1.2, analysed=8, tournament_wins=1, finals=2),
        record(2, "bob", wins=7, net=-3.0, skill=0.8, analysed=3, finals=1),
        record(3, "cat", wins=5, net=12.25, skill=2.0, analysed=6),
        record(4, "dan", wins=1, net=60.0, skill=0.5, analysed=9, tournament_wins=1, finals=1),
        record(5, "eve", wins=0, net=-50.0),
        record(-2, "🤖 Bot", wins=30, net=500.0, skill=0.1, analysed=50, finals=9),
        record(6, "left the server long ago", games=1, wins=1, net=1.0),
    ]
    board = podium(season, records, skill_min=5)
    lines = dict(board.categories)
    assert [(x.place, x.name) for x in lines["wins"]] == [
        (1, "bob"),
        (2, "ann"),
        (2, "cat"),  # a shared second place: then the fourth
    ]
    assert [x.name for x in lines["net"]] == ["dan", "ann", "cat"]
    assert [x.name for x in lines["skill"]] == ["dan", "ann", "cat"]  # bob: 3 analysed
    assert [(x.name, x.value, x.extra) for x in lines["tournaments"]] == [
        ("ann", 1, 2),
        ("dan", 1, 1),
        ("bob", 0, 1),
    ]
    assert board.players == 6  # members only: the computer player is never on a podium
    assert [x.name for x in board.champion("wins")] == ["bob"]
    assert not board.empty


def test_a_many_way_tie_is_cut_and_an_empty_season_has_an_empty_podium():
    season = Season("quarterly", 2)
    tied = [record(i, f"p{i}", wins=3) for i in range(1, 10)]
    lines = dict(podium(season, tied, skill_min=5).categories)["wins"]
    assert len(lines) == 5
    assert {x.place for x in lines} == {1}
    empty = podium(season, [], skill_min=5)
    assert empty.empty
    assert empty.players == 0
    assert empty.champion("net") == ()


def test_a_podium_from_the_boards_first_lines() -> None:
    from bot.match.season import podium_of
    from bot.records import BoardLine

    season = Season("monthly", 12)
    wins = [BoardLine(1, 1, 5, 3, 4, "ann"), BoardLine(2, 2, -2, 3, 3, "Easy bot"),
            BoardLine(2, 3, 6, 3, 3, "bob"), BoardLine(4, 4, 7, 1, 2, "cid"),
            BoardLine(5, 5, 8, 0, 1, "dan")]  # fmt: skip
    net = [BoardLine(1, 1, 8, 10.0, 1, "dan"), BoardLine(2, 2, 5, -10.0, 4, "ann")]
    empty = podium_of(season, [("wins", []), ("skill", [])], 0)
    assert empty.empty
    made = podium_of(season, [("wins", wins), ("net", net), ("skill", [])], 4)
    assert [(x.place, x.name) for x in dict(made.categories)["wins"]] == [(1, "ann"), (2, "bob")]
    assert [x.name for x in made.champion("net")] == ["dan"]
    assert made.players == 4
    assert dict(made.categories)["skill"] == ()
    no_win = podium_of(season, [("wins", [BoardLine(1, 1, 8, 0, 1, "dan")])], 1)
    assert no_win.empty  # a place on the wins board needs a win
