"""What seasons show: their names and dates in each language, the podium and
`/poker seasons`, inside Discord's limits and without a word of English elsewhere."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.i18n import LANGUAGES, t
from bot.match.season import Season, SeasonRecord, podium
from bot.render.embed import safe
from bot.render.season import dates, period, podium_embed, season_name, seasons_embed
from bot.render.tournament import tournament_embed
from tests.i18n.test_no_english import embed_text, english_in
from tests.match.tourney import run, signup

from .test_embed_limits import NAMES, fits

DECEMBER = Season("monthly", 12)
Q4 = Season("quarterly", 4)


@pytest.mark.parametrize(
    ("lang", "month", "quarter"),
    [
        ("en", "December 2026", "4th quarter 2026"),
        ("ru", "декабрь 2026\u202fг.", "4-й квартал 2026\u202fг."),  # CLDR: a narrow space
        ("ro", "decembrie 2026", "trimestrul al IV-lea 2026"),
        ("hi", "दिसंबर 2026", "चौथी तिमाही 2026"),
    ],
)
def test_seasons_are_named_as_each_language_writes_months_and_quarters(lang, month, quarter):
    assert period(DECEMBER, lang) == month
    assert period(Q4, lang) == quarter
    assert season_name(DECEMBER, lang) == t("season.name", lang, number=12, period=month)


def test_a_seasons_dates_are_its_first_and_last_day():
    assert dates(DECEMBER, "en") == "Dec 1, 2026 – Dec 31, 2026 (UTC)"
    assert dates(Q4, "en") == "Oct 1, 2026 – Dec 31, 2026 (UTC)"
    assert dates(Season("monthly", 2), "en") == "Feb 1, 2026 – Feb 28, 2026 (UTC)"


def records() -> list[SeasonRecord]:
    return [
        SeasonRecord(1, "ann", 12, 5, 40.5, 1.2, 8, 1, 2),
        SeasonRecord(2, "bob", 9, 7, -3.0, 0.8, 6, 0, 1),
        SeasonRecord(3, "*cat*", 7, 2, 12.25, None, 0, 0, 0),
    ]


def test_the_podium_embed():
    embed = podium_embed(podium(DECEMBER, records(), skill_min=5), "en")
    assert embed.title == "🏅 The podium of Season 12 · December 2026"
    assert embed.description == "3 members played this season. Congratulations to the best!"
    fields = {f.name: f.value for f in embed.fields}
    assert list(fields) == [
        "Most wins",
        "Best net settlement",
        "Best play (fewest points lost per decision)",
        "Tournaments",
    ]
    assert fields["Most wins"].split("\n") == [
        "🥇 bob — 7 wins",
        "🥈 ann — 5 wins",
        "🥉 \\*cat\\* — 2 wins",
    ]
    assert fields["Best net settlement"].startswith("🥇 ann — +40.50\n🥈 \\*cat\\* — +12.25")
    assert fields["Best play (fewest points lost per decision)"].split("\n") == [
        "🥇 bob — 0.80 points lost per decision",
        "🥈 ann — 1.20 points lost per decision",
    ]
    assert fields["Tournaments"].split("\n") == [
        "🥇 ann — 1 win, 2 final tables",
        "🥈 bob — 0 wins, 1 final table",
    ]
    assert embed.footer == "Dec 1, 2026 – Dec 31, 2026 (UTC) · monthly"


def test_an_empty_season_and_an_empty_category():
    assert podium_embed(podium(DECEMBER, [], 5), "en").description == t("season.podium_empty")
    lone = [SeasonRecord(1, "ann", 1, 0, 0.0)]
    fields = {f.name: f.value for f in podium_embed(podium(DECEMBER, lone, 5), "en").fields}
    assert fields["Most wins"] == "nobody this season"
    assert fields["Best net settlement"] == "🥇 ann — 0.00"


def test_the_seasons_list():
    past = [podium(Season("monthly", n), records() if n % 2 else [], 5) for n in (11, 10, 9)]
    embed = seasons_embed("monthly", DECEMBER, past, "en", page=0, pages=1)
    lines = (embed.description or "").split("\n")
    assert embed.title == "📅 Seasons (monthly)"
    assert lines[0] == "Now: **Season 12 · December 2026**, Dec 1, 2026 – Dec 31, 2026 (UTC)"
    assert lines[2] == (
        "**Season 11 · November 2026** — wins: bob · net: ann · skill: bob · tournaments: ann"
    )
    assert lines[3] == "**Season 10 · October 2026** — no games"
    assert embed.footer == "Page 1/1 · seasons run in UTC"
    assert seasons_embed("off", None, [], "en").description == t("season.list_off", "en")
    none_yet = seasons_embed("quarterly", Q4, [], "en").description or ""
    assert none_yet.endswith(t("season.list_empty", "en"))


EXAMPLES = settings(
    max_examples=25, deadline=None, suppress_health_check=list(HealthCheck), database=None
)


@EXAMPLES
@given(st.lists(NAMES, min_size=40, max_size=40), st.sampled_from(LANGUAGES), st.integers())
def test_podiums_and_the_list_fit_every_limit(names: list[str], lang: str, seed: int):
    rng = random.Random(seed)
    recs = [
        SeasonRecord(
            i + 1,
            name,
            10,
            rng.randint(0, 2),
            rng.choice([1.0, 2.0]),
            rng.choice([0.5, 1.0]),
            9,
            rng.randint(0, 1),
            rng.randint(0, 2),
        )
        for i, name in enumerate(names)
    ]
    board = podium(DECEMBER, recs, 5)
    fits(podium_embed(board, lang))
    past = [podium(Season("monthly", n), recs, 5) for n in range(11, -1, -1) if n]
    fits(seasons_embed("monthly", DECEMBER, past, lang, page=3, pages=9))


@pytest.mark.parametrize("lang", ["ru", "ro", "hi"])
def test_no_english_in_tournament_and_season_messages(lang: str):
    tn = run(signup(9, bots=2, lang=lang), random.Random(4), leave=0.1)
    embeds = [tournament_embed(signup(5, lang=lang), lang), tournament_embed(tn, lang)]
    embeds.append(podium_embed(podium(DECEMBER, records(), 5), lang))
    embeds.append(podium_embed(podium(DECEMBER, [], 5), lang))
    embeds.append(seasons_embed("quarterly", Q4, [podium(Q4.previous, records(), 5)], lang))
    embeds.append(seasons_embed("off", None, [], lang))
    for embed in embeds:
        text = embed_text(embed).replace(safe("member"), " ").replace("host", " ")
        assert not english_in(text, lang), (lang, english_in(text, lang))
