"""Numbers as each language writes them (Babel's CLDR data for the game's locale): a
decimal comma in Russian and Romanian, "100 %" with its space, one minus sign."""

from __future__ import annotations

import pytest

from bot.engine import Game, Leave, Roll, Score
from bot.i18n import decimal, percent, plural_category, t
from bot.records import GuildSettings
from bot.render import image
from bot.render.league import settings_embed, value_text
from bot.render.text import number, standings_embed

NBSP = "\xa0"


@pytest.mark.parametrize(
    ("lang", "two", "share", "third"),
    [
        ("en", "132.00", "100%", "33.3%"),
        ("ru", "132,00", f"100{NBSP}%", f"33,3{NBSP}%"),
        ("ro", "132,00", f"100{NBSP}%", f"33,3{NBSP}%"),
        ("hi", "132.00", "100%", "33.3%"),
    ],
)
def test_decimals_and_shares(lang: str, two: str, share: str, third: str):
    assert decimal(132, lang, 2) == two
    assert percent(1.0, lang) == share
    assert percent(1 / 3, lang) == third
    assert value_text("average", 132, lang) == two


@pytest.mark.parametrize(("lang", "text"), [("en", "-21.50"), ("ru", "-21,50"), ("ro", "-21,50")])
def test_a_score_keeps_the_one_minus_sign_and_the_languages_comma(lang: str, text: str):
    assert number(-21.5, lang) == text
    assert number(21.5, lang, sign=True) == "+" + text[1:]
    assert number(12, lang) == "12"  # whole numbers stay whole
    assert image.number(-21.5, lang) == text[:-1]  # a picture's one decimal


def test_a_decimal_count_takes_its_languages_form():
    # Russian: 1,5 очка (a fraction takes the genitive singular); the comma is read.
    assert plural_category("ru", decimal(1.5, "ru", 2)) == "other"
    assert "1,50** очка" in t("hint.previous_cost", "ru", choice="x", n=decimal(1.5, "ru", 2),
                              best="y")  # fmt: skip
    assert "очка потеряно" in t("daily.public_loss", "ru", mean=decimal(2.25, "ru", 2))


def test_the_standings_write_the_settlement_as_the_game_speaks():
    game = Game.new("classic", ["a", "b", "c"])
    for action in (Roll("a", (4, 4, 4, 4, 1)), Score("a", "fours"), *map(Leave, "abc")):
        game, _ = game.apply(action)
    names = {"a": "Ann", "b": "Bob", "c": "Cid"}
    ru = standings_embed(game, names, 1, "ru").description
    en = standings_embed(game, names, 1, "en").description
    assert "+10,67" in ru  # -47, -63, -63: the average is -57.67
    assert "-5,33" in ru
    assert "+10.67" in en
    assert "," not in en


def test_romanian_settings_agree_with_their_nouns():
    view = GuildSettings(1, None, 300, True, True, False, None, "turn")
    fields = {f.name: f.value for f in settings_embed(view, "ro").fields}
    assert fields["Jucători calculator"] == "permiși"  # masculine plural
    assert fields["Indicii"] == "permise"  # neuter plural
    assert fields["Imagini ale tabelelor"] == "nepermise"  # feminine plural
