"""The tournament's message, thread names and bracket pictures: what they say at each
stage, in every language, inside Discord's limits for 64 players with the worst names,
and legible on a phone (digits at least 10 px where the embed is drawn 292 px wide)."""

from __future__ import annotations

import random
from itertools import combinations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.i18n import LANGUAGES, catalog, rules_name, t
from bot.match.tournament import DONE, MAX_PLAYERS, OPEN, WAITING, Placing, Tournament
from bot.render import bracket
from bot.render.bracket import (
    DISPLAY,
    MAX_PICTURES,
    PAGE_H,
    WIDTH,
    bracket_pngs,
    layout,
)
from bot.render.embed import safe
from bot.render.image import MIN_DIGIT_PX, drawable, runs
from bot.render.tournament import THREAD_NAME_MAX, thread_name, tournament_embed, welcome
from tests.match.tourney import HOST, T0, made_up, run, signup

from .legibility import digit_heights, labels
from .test_embed_limits import NAMES, fits
from .test_image import long_names

LANGS = ("en", "ru", "ro", "hi")


def links_of(tn: Tournament) -> dict[tuple[int, int], str]:
    """The thread links the edge would give: Discord's longest (two 19-digit ids)."""
    return {
        (tb.round, tb.no): f"https://discord.com/channels/{2**63 - 1}/{tb.thread_id}"
        for rnd in tn.rounds
        for tb in rnd.tables
        if tb.thread_id is not None
    }


def stages(players: int, size: int, advance: int, names: list[str], seed: int) -> list[Tournament]:
    """A tournament at each stage: the sign-up, every state it went through, cancelled."""
    rng = random.Random(seed)
    tn = signup(players, size=size, advance=advance, names=names, bots=2)
    seen = [tn]
    run(tn, rng, leave=0.05, check=seen.append)
    middle = next((s for s in seen if s.status == "playing" and s.to_open == ()), seen[-1])
    seen.append(middle.cancel(HOST, T0))
    seen.append(signup(3).expire(T0 + (tn.due_at() - T0)))
    return seen


def opened_round(tn: Tournament) -> Tournament:
    for i, tb in enumerate(tn.to_open, 1):
        tn = tn.open_table(tb.round, tb.no, 10**18 + i, 10**18 + i)
    return tn


EXAMPLES = settings(
    max_examples=12, deadline=None, suppress_health_check=list(HealthCheck), database=None
)


@EXAMPLES
@given(
    st.lists(NAMES, min_size=MAX_PLAYERS, max_size=MAX_PLAYERS),
    st.sampled_from(LANGUAGES),
    st.sampled_from([(2, 1), (4, 1), (4, 3), (8, 1), (8, 7), (3, 2)]),
    st.integers(0, 2**16),
)
def test_the_tournament_message_fits_every_limit_for_64_players(names, lang, shape, seed):
    size, advance = shape
    for tn in stages(MAX_PLAYERS, size, advance, names, seed):
        fits(tournament_embed(tn, lang, links_of(tn)))
        for rnd in tn.rounds:
            for tb in rnd.tables:
                assert len(thread_name(tn, tb, lang)) <= THREAD_NAME_MAX


@pytest.mark.parametrize("lang", LANGS)
def test_every_table_of_a_64_player_round_is_shown_with_its_link(lang: str):
    names = [("*_`|" * 8)[:32]] * MAX_PLAYERS  # doubles when escaped
    tn = opened_round(
        signup(MAX_PLAYERS, size=2, names=names).start(HOST, {}, random.Random(1), T0)
    )
    embed = tournament_embed(tn, lang, links_of(tn))
    fits(embed)
    data = embed.to_dict()
    text = "\n".join(f["value"] for f in data["fields"])
    for tb in tn.current.tables:
        label = t("tournament.table", lang, no=tb.no)
        assert f"[{label}](https://discord.com/channels/{2**63 - 1}/{tb.thread_id})" in text
    assert "\\*" in text  # names are escaped, never formatting
    assert data["title"] == t(
        "tournament.title_round", lang, rules=rules_name("classic", lang), round=1
    )


def test_the_sign_up_lists_the_players_and_the_format():
    tn = signup(3, size=3, advance=2).add_computer(HOST, "easy")
    embed = tournament_embed(tn, "en")
    assert embed.title == "🏆 Tournament — classic"
    assert "host, member 1, member 2, 🤖 Bot 1 \\(easy\\)" in (embed.description or "")
    assert "Players (4/64)" in (embed.description or "")
    assert embed.footer == "Tournament #7 · tables of 3 · 2 players go on from each table"


def _finish_with_a_rolloff() -> Tournament:
    tn = opened_round(signup(8).start(HOST, {}, random.Random(2), T0))
    for tb in tn.current.tables:
        a, b, c, d = tb.players
        rows = [(a, 200), (b, 200), (c, 150), (d, 100)]
        average = 162.5
        placings = [Placing(p, 1 + sum(o > v for _, o in rows), v, v - average) for p, v in rows]
        tn = tn.record(1, tb.no, placings, random.Random(tb.no))
    return tn


def test_who_went_on_and_why_and_the_roll_off_are_shown():
    tn = _finish_with_a_rolloff()
    embed = tournament_embed(tn, "en", links_of(tn))
    value = embed.fields[0].value
    for tb in tn.current.tables:
        ((winner, why),) = tb.advanced
        assert why in ("rolloff", "seed")
        assert (
            f"⏫ **{safe(tn.name_of(winner))} 200** ({t(f'tournament.why_{why}', 'en')})" in value
        )
        for p, dice in tb.rolloff:
            assert f"{safe(tn.name_of(p))} " in value
            assert f"= {sum(dice)}" in value
    assert value.count("🎲 Roll-off for the last place that goes on:") == 2
    assert (embed.description or "").startswith("Round 1 is over (2 tables, 8 players).")


def test_the_end_shows_the_champion_and_the_final_standings():
    tn = run(signup(8), random.Random(5))
    assert tn.champion is not None
    embed = tournament_embed(tn, "en")
    champion = safe(tn.name_of(tn.champion))
    assert embed.title == f"🏆 {champion} wins the tournament — classic"
    assert (embed.description or "").startswith(f"🏆 The champion: **{champion}**")
    assert "Round 1: 2 tables, 2 went on" in (embed.description or "")
    final = embed.fields[0]
    assert final.name == "The final"
    lines = final.value.split("\n")
    placings = sorted(tn.final.placings, key=lambda p: (p.place, -p.settlement))
    assert len([x for x in lines if x.startswith(("**", "🏆 **"))]) == len(placings) + 1
    assert any(x.startswith("🏆 **") and champion in x for x in lines)


def test_cancelled_and_expired_and_left_players():
    tn = opened_round(signup(8).start(HOST, {}, random.Random(2), T0))
    leaver = tn.current.tables[0].seats[1]
    tn = tn.leave(leaver)
    shown = tournament_embed(tn, "en").fields[0].value
    assert f"~~{safe(tn.name_of(leaver))}~~ (left)" in shown
    cancelled = tournament_embed(tn.cancel(HOST, T0), "en")
    assert cancelled.title == "🏆 Tournament — classic · cancelled"
    assert (
        cancelled.description
        == "Cancelled by host: its tables are closed and the tournament counts for nobody."
    )
    expired = tournament_embed(signup(2).expire(T0 + (signup(2).due_at() - T0)), "ru")
    assert expired.description == t("tournament.expired", "ru", n=24)
    assert "24 часа" in (expired.description or "")


def test_no_champion_when_everyone_left():
    tn = opened_round(signup(3).start(HOST, {}, random.Random(2), T0))
    for p in tn.final.seats:
        tn = tn.leave(p)
    placings = [Placing(p, 1, 0, 0.0, left=True) for p in tn.final.players]
    done = tn.record(1, 1, placings, random.Random(1)).advance_round({}, T0)
    assert tournament_embed(done, "en").description == t("tournament.no_champion", "en")


@pytest.mark.parametrize("lang", LANGS)
def test_thread_names_and_the_welcome_line(lang: str):
    tn = opened_round(signup(9).start(HOST, {}, random.Random(2), T0))
    table = tn.current.tables[2]
    name = thread_name(tn, table, lang)
    assert name == t("tournament.thread", lang, id=7, round=1, no=3)
    line = welcome(tn, table, ["<@1>", "<@2>"], lang)
    assert line.startswith("<@1> <@2> — ")
    assert t("tournament.welcome_goes_on", lang, n=1) in line
    final = run(signup(4), random.Random(1))
    assert thread_name(final, final.final, lang) == t("tournament.thread_final", lang, id=7)
    assert t("tournament.welcome_final", lang) in welcome(final, final.final, [], lang)


# --- the bracket pictures -------------------------------------------------------------------


def bracket_of(players: int, size: int, advance: int, lang: str, seed: int = 3) -> Tournament:
    names = long_names(lang)
    tn = signup(players, size=size, advance=advance, names=names, bots=3, lang=lang)
    return run(tn, random.Random(seed), leave=0.05)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize(("size", "advance"), [(2, 1), (4, 1), (8, 2)])
def test_the_bracket_is_legible_at_a_phones_width_for_64_players(lang, size, advance):
    tn = bracket_of(MAX_PLAYERS, size, advance, lang)
    pages = layout(tn, lang)
    pngs = bracket_pngs(tn, lang)
    assert 1 <= len(pngs) == len(pages) <= MAX_PICTURES
    for png, page in zip(pngs, pages, strict=True):
        assert page.width == WIDTH
        assert page.height <= PAGE_H
        heights = digit_heights(png, page, box=DISPLAY)
        assert heights, "the totals are numbers"
        assert min(heights) >= MIN_DIGIT_PX, (size, min(heights))


@pytest.mark.parametrize("lang", LANGS)
def test_sixteen_tables_of_four_show_every_table_and_who_went_on(lang: str):
    tn = bracket_of(MAX_PLAYERS, 4, 1, lang)
    pages = layout(tn, lang)
    assert len(pages) == 6  # round 1: four pictures; round 2; the final
    drawn = [label for page in pages for label in labels(page)]
    seats = sum(len(tb.seats) for rnd in tn.rounds for tb in rnd.tables)
    went_on = sum(len(tb.advanced) for rnd in tn.rounds for tb in rnd.tables)
    assert sum(label.text == bracket.CHECK for label in drawn) == went_on
    headings = [
        t("tournament.table", lang, no=tb.no) for rnd in tn.rounds[:-1] for tb in rnd.tables
    ]
    texts = [label.text for label in drawn]
    for heading in headings:
        assert heading in texts
    # One row per seat: a name (or the seat's number) for every player of every table.
    top = bracket.MARGIN + bracket.TITLE_H + bracket.COLUMN_H
    rows = [
        label
        for label in drawn
        if label.y > top
        and label.colour != bracket.HEAD_INK
        and label.text != bracket.CHECK
        and not label.text.lstrip("-").isdigit()
    ]
    assert len(rows) == seats


@pytest.mark.parametrize("lang", LANGS)
def test_nothing_overlaps_or_leaves_its_picture(lang: str):
    tn = bracket_of(40, 4, 2, lang)
    for page in layout(tn, lang):
        inks = [label.ink for label in labels(page)]
        for left, top, right, bottom in inks:
            assert 0 <= left < right <= page.width
            assert 0 <= top < bottom <= page.height
        for a, b in combinations(inks, 2):
            assert a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1], (a, b)


def test_only_glyphs_the_fonts_have_are_drawn():
    tn = bracket_of(20, 4, 1, "hi")
    for page in layout(tn, "hi"):
        for label in labels(page):
            for kind, text in runs(label.text):
                assert kind != "shape" or text in bracket.CHECK + "🤖"


def test_the_latest_rounds_are_kept_when_there_are_too_many_pictures():
    tn = bracket_of(MAX_PLAYERS, 2, 1, "en")
    pages = layout(tn, "en")
    assert len(pages) <= MAX_PICTURES
    texts = {label.text for page in pages for label in labels(page)}
    assert t("tournament.final", "en") in texts  # the final is always there
    assert len(tn.rounds) == 6


def test_a_running_table_has_no_totals_yet():
    tn = opened_round(signup(8, names=["Ann"]).start(HOST, {}, random.Random(1), T0))
    (page,) = layout(tn, "en")
    assert not [label for label in labels(page) if label.text.isdigit()]
    assert all(tb.status == OPEN for tb in tn.current.tables)
    done = tn.record(1, 1, made_up(tn.current.tables[0], tn, random.Random(1)), random.Random(1))
    (page,) = layout(done, "en")
    totals = [label.text for label in labels(page) if label.text.isdigit()]
    assert len(totals) == 4


def test_a_name_the_fonts_cannot_draw_becomes_the_seat():
    tn = signup(2, names=["张伟"]).start(HOST, {}, random.Random(1), T0)
    (page,) = layout(tn, "en")
    texts = {label.text for label in labels(page)}
    assert {t("image.seat", "en", n=1), t("image.seat", "en", n=2)} <= texts
    assert drawable("张伟") == ""


@pytest.mark.parametrize("lang", LANGS)
def test_the_picture_words_come_from_the_catalog(lang: str):
    tn = bracket_of(12, 4, 1, lang)
    texts = {label.text for page in layout(tn, lang) for label in labels(page)}
    assert t("tournament.final", lang) in texts
    assert catalog(lang)["tournament.picture_finished"] in texts


@pytest.mark.parametrize("lang", LANGS)
def test_a_table_header_is_never_cut_from_its_forming_to_its_end(lang: str):
    """The final beside the last round, in half a picture's width: its name ("Final
    table") and its state ("waiting", "in play", "done") both whole in its dark header."""
    states: list[Tournament] = []
    run(signup(11, advance=2, bots=2, lang=lang), random.Random(5), check=states.append)
    finals = [s for s in states if s.current is not None and s.current.final]
    shown = {tb.status for s in finals for tb in s.current.tables}
    assert {WAITING, OPEN, DONE} <= shown
    half = 0
    for tn in finals:
        for page in layout(tn, lang):
            header = [label for label in labels(page) if label.colour == bracket.HEAD_INK]
            assert header
            assert not [label.text for label in header if label.text.endswith("…")]
            half += any(
                label.text == t("tournament.final_table", lang) and label.x > WIDTH // 2
                for label in header
            )
    assert half, "the final is drawn in the right half of a picture"


@pytest.mark.parametrize("lang", LANGS)
def test_a_computer_player_whose_level_does_not_fit_keeps_its_number_not_a_cut_level(lang):
    """In a half-width box "🤖 Bot 3 (perfect)" is shown as "🤖 Bot 3" (whole where it
    fits), never as "🤖 Bot 3 (pe…": no computer player's name is cut."""
    tn = run(signup(8, advance=2, names=["Ann", "Bob"], bots=3, lang=lang), random.Random(5))
    computers = {drawable(e.name) for e in tn.entrants if e.level is not None}
    shown = [label.text for page in layout(tn, lang) for label in labels(page)]
    drawn = [text for text in shown if "🤖" in text]
    assert len(drawn) >= len(computers)
    for text in drawn:
        assert text in computers or any(c.startswith(text + " (") for c in computers), text
    assert any(text not in computers for text in drawn), "a level did not fit: dropped"
