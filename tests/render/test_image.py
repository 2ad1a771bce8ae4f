"""The scorecard picture: a valid PNG of sensible size for every rule set, language and table."""

from __future__ import annotations

import io
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st
from PIL import Image, ImageFont

from bot.engine import RULESETS, Card, Game, Pass, Score, get_rules
from bot.i18n import t
from bot.render import image
from bot.render.image import ROW_H, WINNER, _fit, _rows, _width, font_for, number, scorecard_png

LANGS = ("en", "ru", "ro", "hi")
NAMES = [
    "Ann",
    "Борис",
    "अनीता",
    "Ștefan",
    "a_player_with_a_very_long_name_indeed",
    "Zoë",
    "Игорь",
    "राहुल",
]


def play(rules: str, players: list[str], seed: int, turns: int | None = None) -> Game:
    """A game played by a seeded random player (the highest-scoring option, with noise)."""
    rng = random.Random(seed)
    game = Game.new(rules, players)
    done = 0
    while not game.finished and (turns is None or done < turns):
        who = game.player
        game, _ = game.apply(game.draw(who, rng))
        while game.can_roll(who) and rng.random() < 0.5:
            game, _ = game.apply(game.draw(who, rng))
        options = game.options()
        if options:
            best = max(options, key=lambda o: o.points + rng.random() * 10)
            game, _ = game.apply(Score(who, best.row))
        else:
            game, _ = game.apply(Pass(who))
        done += 1
    return game


def seats(game: Game) -> list[tuple[str, Card]]:
    return [(c.name, c) for c in game.cards]


def decode(png: bytes) -> Image.Image:
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    img = Image.open(io.BytesIO(png))
    img.verify()  # checks the chunks' CRCs; the image must be reopened afterwards
    img = Image.open(io.BytesIO(png))
    img.load()
    assert img.format == "PNG"
    return img


@pytest.mark.parametrize("rules", sorted(RULESETS))
@pytest.mark.parametrize("lang", LANGS)
def test_every_rule_set_language_and_table_size_gives_a_readable_png(rules: str, lang: str):
    widths = []
    for n in (1, 2, 3, 5, 8):
        game = play(rules, NAMES[:n], seed=n, turns=4 * n)
        img = decode(scorecard_png(game.rules, seats(game), lang, title=f"Dice poker · {rules}"))
        # One row per scorecard row plus totals: taller than the rows alone, and never
        # wider than a desktop screen even with eight long names.
        assert img.height > ROW_H * (len(game.rules.rows) // 2)
        assert img.height < 1200
        assert 200 < img.width < 1400
        widths.append(img.width)
    assert widths[-1] > widths[0]


@pytest.mark.parametrize("rules", sorted(RULESETS))
def test_a_finished_game_adds_settlement_and_place_and_marks_the_winner(rules: str):
    game = play(rules, NAMES[:4], seed=11)
    assert game.finished
    running = decode(scorecard_png(game.rules, seats(game), "en", title="t"))
    final = decode(scorecard_png(game.rules, seats(game), "en", title="t", final=True))
    grown = _rows(game.rules, seats(game), "en", final=True)
    assert len(grown) == len(_rows(game.rules, seats(game), "en", final=False)) + 2
    assert final.height * final.width > running.height * running.width

    def colours(img: Image.Image) -> set[tuple[int, int, int]]:
        return {colour for _, colour in img.getcolors(img.width * img.height)}

    assert WINNER in colours(final)
    assert WINNER not in colours(running)


def test_rows_are_named_from_the_catalog_in_the_games_language():
    game = play("classic", NAMES[:2], seed=3, turns=6)
    for lang in LANGS:
        labels = [r.label for r in _rows(game.rules, seats(game), lang, final=True)]
        expected = [t(f"rows.{row}", lang) for row in game.rules.rows]
        assert [lab for lab in labels if lab in expected] == expected
        assert labels[-1] == t("image.rank", lang)
        assert t("image.total", lang) in labels
    ru = [r.label for r in _rows(game.rules, seats(game), "ru", final=False)]
    assert "Каре" in ru
    assert "Фул" in ru


def test_cells_show_checks_dashes_minus_signs_and_blanks():
    classic = get_rules("classic")
    card = Card("ann", dict.fromkeys(classic.rows))
    card.rows.update(ones=0, twos=-4, pair=0, chance=19)
    cells = {r.label: r.cells[0] for r in _rows(classic, [("ann", card)], "en", final=False)}
    assert cells["Ones"].check  # exactly three: made, worth 0
    assert cells["Twos"].text == "−4"
    assert cells["Pair"].text == "—"  # a scratch
    assert not cells["Pair"].check
    assert cells["Chance"].text == "19"
    assert cells["Threes"].text == ""
    assert not cells["Threes"].check
    assert cells["Bonus"].text == ""  # undecided while upper rows are free
    yatzy = get_rules("yatzy")
    card = Card("bob", dict.fromkeys(yatzy.rows))
    card.rows.update(ones=0)
    cells = {r.label: r.cells[0] for r in _rows(yatzy, [("bob", card)], "en", final=False)}
    assert cells["Ones"].text == "—"  # a sum rule's 0 is a scratch, not a made figure
    assert not cells["Ones"].check


def test_long_names_are_cut_to_fit():
    name = NAMES[4]
    cut = _fit(name, 120, bold=True)
    assert cut.endswith("…")
    assert name.startswith(cut[:-1])
    assert _width(cut, bold=True) <= 120
    assert _fit("Ann", 120) == "Ann"


def test_an_empty_table_is_refused():
    with pytest.raises(ValueError, match="at least one player"):
        scorecard_png(get_rules("classic"), [], "en", title="t")


def test_each_script_gets_a_font_that_has_its_letters():
    # A letter the font lacks renders as the same box as any other missing glyph.
    def missing(text: str) -> bool:
        font = font_for(text)
        return font.getmask(text).getbbox() == font.getmask("\ue000").getbbox() and bytes(
            font.getmask(text)
        ) == bytes(font.getmask("\ue000"))

    for text in ("Ж", "ș", "ज", "ă", "ё"):
        assert not missing(text), text
    assert "Devanagari" in font_for("जोड़ी").getname()[0]
    assert "Devanagari" not in font_for("Каре").getname()[0]


@pytest.mark.skipif(image.SHAPING != "raqm", reason="Pillow was built without raqm")
def test_devanagari_is_shaped():
    # Shaped, the halant joins the two letters into one conjunct, narrower than the
    # three glyphs set side by side; the i-matra moves before its consonant.
    assert _width("क्क") < _width("क") + _width("्") + _width("क")
    shaped = font_for("कि")
    plain = ImageFont.truetype(shaped.path, shaped.size, layout_engine=ImageFont.Layout.BASIC)
    assert bytes(shaped.getmask("कि")) != bytes(plain.getmask("कि"))


@given(st.floats(min_value=-1000, max_value=1000, allow_nan=False).map(lambda v: round(v, 1)))
def test_numbers_read_back(value: float):
    text = number(value, sign=True)
    assert float(text.replace("−", "-")) == pytest.approx(round(value, 1), abs=0.051)
    assert text.startswith("−") == (float(text.replace("−", "-")) < 0)
    assert "-" not in text  # a true minus sign, not a hyphen


def test_few_players_get_two_tables_side_by_side_many_get_one():
    # Discord fits an embed image into a box about 4:3: a tall, narrow card would shrink.
    two = play("classic", NAMES[:2], seed=5)
    eight = play("classic", NAMES, seed=5, turns=16)
    small = decode(scorecard_png(two.rules, seats(two), "en", title="t", final=True))
    large = decode(scorecard_png(eight.rules, seats(eight), "en", title="t"))
    rows = len(two.rules.rows)
    assert small.width > small.height
    # One table would need a line per row plus six totals and a header: more than this.
    assert small.height < ROW_H * (rows + 7)
    assert large.height > ROW_H * rows  # all in one table
    assert 0.75 < small.width / small.height < 2.0


def test_a_long_title_widens_a_narrow_card_up_to_a_limit():
    game = play("classic", NAMES[:1], seed=2, turns=2)
    short = decode(scorecard_png(game.rules, seats(game), "en", title="t"))
    long = decode(scorecard_png(game.rules, seats(game), "en", title="Scorecard · " * 30))
    assert long.width > short.width
    assert long.width <= image.TITLE_MAX + 2 * image.MARGIN
