"""The one-line summary a finished turn's message becomes, as each language says it."""

from __future__ import annotations

import pytest

from bot.engine import Game, Leave, Roll, Score
from bot.i18n import LANGUAGES, catalog, t
from bot.render import scorecard_embed, standings_embed, summary_line
from bot.render.text import number

NAMES = {"1": "Ann", "2": "Bob"}


def _left(rules: str, throws: int = 0, bank: int = 0):
    game = Game.new(rules, ["1", "2"])
    for _ in range(bank // 2):  # a record after one throw banks two
        game, _ = game.apply(Roll("1", (1, 1, 1, 2, 2)))
        game, _ = game.apply(Score("1", game.options()[0].row))
        game, _ = game.apply(Roll("2", (1, 1, 1, 2, 2)))
        game, _ = game.apply(Score("2", game.options()[0].row))
    for _ in range(throws):
        game, _ = game.apply(Roll("1", (6, 5, 4, 2, 1)))
    return game.apply(Leave("1"))[1]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_leaver_is_told_what_happens_to_their_rows(lang: str):
    classic = summary_line(_left("classic"), NAMES, lang)
    assert classic == t("summary.left", lang, name="Ann")
    banked = summary_line(_left("banked"), NAMES, lang)  # rows kept for the end's penalties
    assert banked == t("summary.left_banked", lang, name="Ann", extra="")
    spent = summary_line(_left("banked", throws=5, bank=2), NAMES, lang)
    assert spent == t("summary.left_banked", lang, name="Ann",
                      extra=t("summary.passed_spent", lang, n=2))  # fmt: skip


def test_hindi_scratches_a_row_in_the_feminine():
    """पंक्ति is feminine: "**Pair** पंक्ति काटी", whatever the row's own name."""
    game = Game.new("yatzy", ["1", "2"])
    game, _ = game.apply(Roll("1", (1, 2, 3, 4, 6)))
    _, event = game.apply(Score("1", "poker"))
    line = summary_line(event, NAMES, "hi")
    assert f"**{t('rows.poker', 'hi')}** पंक्ति काटी" in line
    assert "काटा" not in line


@pytest.mark.parametrize("lang", LANGUAGES)
def test_standings_of_one_player_measure_against_nobody(lang: str):
    """A game that ended with one player shows their total, not a settlement "against
    the average" of one; two or more still do."""
    alone = Game.new("classic", ["1"]).apply(Leave("1"))[0]
    solo = standings_embed(alone, NAMES, 7, lang)
    (mine,) = alone.standings()
    total = number(mine.totals.total, lang)  # a leaver's unfilled rows count against them
    assert solo.description == t("final.solo_line", lang, name="Ann", total=total)
    assert solo.footer == t("final.solo_footer", lang, game=7)
    pair = Game.new("classic", ["1", "2"])
    for who in ("1", "2"):
        pair = pair.apply(Leave(who))[0]
    both = standings_embed(pair, NAMES, 7, lang)
    assert both.description.count("\n") == 1
    average = number(sum(s.totals.total for s in pair.standings()) / 2, lang)
    assert both.footer == t("final.footer", lang, game=7, average=average)


def _upper_done() -> Game:
    """A classic game (figures doubled on a first throw) whose upper rows are all filled."""
    game = Game.new("classic", ["1", "2"])
    while any(game.card_of(p).rows[r] is None for p in ("1", "2") for r in game.rules.upper):
        game, _ = game.apply(Roll(game.player, (1, 2, 3, 4, 6)))
        game, _ = game.apply(Score(game.player, game.options()[0].row))
    return game


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_doubled_figure_says_first_throw_once(lang: str):
    """A figure made on the first throw is doubled: its line says "×2 first throw", not
    also "(throw 1)"; the same figure on a later throw says which throw it was."""
    assert "{throw}" not in catalog(lang)["summary.scored_doubled"]
    game = _upper_done()
    first, _ = game.apply(Roll("1", (3, 3, 3, 5, 5)))
    option = next(o for o in first.options() if o.row == "full_house")
    assert option.doubled
    row = t("rows.full_house", lang)
    line = summary_line(first.apply(Score("1", "full_house"))[1], NAMES, lang)
    points = number(option.points, lang)
    assert line == t("summary.scored_doubled", lang, name="Ann", row=row, points=points, extra="")
    assert line.count("×2") == 1
    later, _ = game.apply(Roll("1", (1, 2, 4, 6, 6)))
    later, _ = later.apply(Roll("1", (3, 3, 3, 5, 5)))
    option = next(o for o in later.options() if o.row == "full_house")
    line = summary_line(later.apply(Score("1", "full_house"))[1], NAMES, lang)
    points = number(option.points, lang)
    assert line == t("summary.scored", lang, name="Ann", row=row, points=points, extra="", throw=2)
    assert "×2" not in line


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_frame_of_a_pictured_scorecard_is_the_text_cards_without_its_tables(lang: str):
    game = _upper_done()
    card = scorecard_embed(game, NAMES, 7, lang, round_no=3)
    frame = scorecard_embed(game, NAMES, 7, lang, round_no=3, tables=False)
    assert card.fields
    assert not frame.fields
    assert (frame.title, frame.colour, frame.footer) == (card.title, card.colour, card.footer)
