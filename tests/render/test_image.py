"""The scorecard pictures: legible on a phone for every rule set, language and table size."""

from __future__ import annotations

import random
from itertools import combinations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from PIL import ImageFont

from bot.engine import RULESETS, Card, Game, Pass, Score, get_rules, totals_of
from bot.i18n import t
from bot.render import image
from bot.render.image import (
    MIN_DIGIT_PX,
    PAGE_H,
    WIDTH,
    WINNER,
    Page,
    _is_devanagari,
    _tables,
    _width,
    drawable,
    encode,
    font_for,
    has_glyph,
    layout,
    name_lines,
    number,
    paint,
    picture_title,
    row_cell,
    runs,
    scorecard_pngs,
)

from .legibility import digit_heights, labels, text_heights

LANGS = ("en", "ru", "ro", "hi")
NAMES = [
    "Ann",
    "Борис",
    "अनीता",
    "Ștefan",
    "a_player_with_a_very_long_name",
    "Zoë",
    "Игорь",
    "राहुल",
]


def long_names(lang: str) -> list[str]:
    """Eight display names of the worst kind: 32 characters (Discord's limit) in Cyrillic,
    Devanagari and Latin without a space, emoji and a script the fonts lack, and two
    computer players named as the bot names them."""
    bots = [
        t("bots.name", lang, n=n, level=t(f"bots.level_{level}", lang))
        for n, level in ((1, "perfect"), (2, "normal"))
    ]
    names = [
        "Александра Константиновна Иванова",
        "अनीता कुमारी शर्मा वर्मा सिंह राठौड़ जी",
        "a_player_with_a_very_long_name_x",
        "Zoë 🎲✨ María-José Ștefănescu-Pop",
        "李小龍 Bruce Lee, the dragon king",
        "ШШШШШШШШШШШШШШШШШШШШШШШШШШШШШШШШ",
        *bots,
    ]
    return [n[:32] for n in names]


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


@pytest.mark.parametrize("rules", sorted(RULESETS))
@pytest.mark.parametrize("lang", LANGS)
def test_all_text_is_legible_on_a_phone_for_one_to_eight_long_named_players(rules, lang):
    """Measured as a 412 px phone shows the pictures (292 px wide): every number's digits
    at least 10 px high, and every other text — names and their second lines (a computer
    player's level), column labels, the title — set at a size whose digits are as high."""
    names = long_names(lang)
    title = picture_title(play(rules, names[:1], seed=0, turns=0), 1234, lang, final=False)
    for n in range(1, 9):
        for final in (False, True):
            game = play(rules, names[:n], seed=n, turns=None if final else 5 * n)
            players = seats(game)
            pages = layout(game.rules, players, lang, title=title, final=final)
            pngs = scorecard_pngs(game.rules, players, lang, title=title, final=final)
            assert len(pngs) == len(pages) <= 10  # a message holds ten embeds, one a picture
            heights = [digit_heights(png, page) for png, page in zip(pngs, pages, strict=True)]
            assert heights[-1], "the totals are numbers"
            for page, shown in zip(pages, heights, strict=True):  # banked's upper: ✓ and —
                assert min(shown, default=MIN_DIGIT_PX) >= MIN_DIGIT_PX, (n, final, page.tables)
                small = [(text, h) for text, h in text_heights(page) if h < MIN_DIGIT_PX]
                assert not small, (n, final, small)
            if n >= 7:  # the computer players' second lines (their level) among them
                texts = {label.text for page in pages for label in labels(page)}
                level = t("bots.level_perfect", lang)  # Bot 1, the seventh name
                cut = {text.rstrip("…") for text in texts} - {""}
                assert any(level in text or level.startswith(text) for text in cut), texts


def test_pictures_are_measured_at_a_phones_width():
    assert image.BOX == (292, 300)  # the embed's picture on a 412 px screen
    assert round(image.DENSITY * image.BOX[0]) == WIDTH
    assert image.SIZE == image.NAME_SIZE  # a name's second line is no smaller


@pytest.mark.parametrize("lang", LANGS)
def test_pictures_are_as_wide_as_the_phone_box_allows_and_few(lang: str):
    counts = {}
    halves = set()
    for n in (1, 2, 3, 5, 8):
        game = play("classic", NAMES[:n], seed=n, turns=4 * n)
        pages = layout(game.rules, seats(game), lang, title="t")
        # One width for all: every picture of a message shows at the same scale.
        assert {p.width for p in pages} == {WIDTH}
        for page in pages:
            assert page.height <= PAGE_H
        keys = [k for p in pages for k in p.tables]
        halves.add(keys.count("lower"))  # two when the labels are words (long)
        assert keys == ["upper", *["lower"] * keys.count("lower"), "totals"]
        counts[n] = len(pages)
    assert len(halves) == 1  # the labels decide it, not the table's size
    assert counts[1] == counts[2] == 1
    assert counts[8] == 2 + halves.pop()
    assert list(counts.values()) == sorted(counts.values())


def test_a_table_whose_labels_leave_the_names_too_little_is_cut_in_two(monkeypatch):
    """Labels that are words (long, as a language may write them) do not squeeze the
    names out: the lower rows become two tables, each as legible as the rest."""
    lower = get_rules("classic").lower  # Hindi's words for them
    hindi = ["जोड़ी", "2 जोड़ी", "तीन", "चार", "फुल", "छोटा", "बड़ा", "पोकर", "मौक़ा"]
    words = {f"image.rows.{row}": word for row, word in zip(lower, hindi, strict=True)}
    real = image.t

    def worded(key: str, lang: str = "en", /, **values: object) -> str:
        return words.get(key) or real(key, lang, **values)

    monkeypatch.setattr(image, "t", worded)
    game = play("classic", NAMES[:5], seed=5, turns=20)
    pages = layout(game.rules, seats(game), "en", title="t")
    assert [k for p in pages for k in p.tables] == ["upper", "lower", "lower", "totals"]
    assert pages[0].name_w == image.NAME_MIN
    pngs = [encode(paint(p)) for p in pages]
    for png, page in zip(pngs, pages, strict=True):
        assert min(h for _, h in text_heights(page)) >= MIN_DIGIT_PX
        assert min(digit_heights(png, page), default=MIN_DIGIT_PX) >= MIN_DIGIT_PX
    shown = [label.text for page in pages for label in labels(page)]
    assert all(word in shown for word in words.values())  # every row still has its column


@pytest.mark.parametrize("lang", LANGS)
def test_nothing_overlaps_or_leaves_its_picture(lang: str):
    game = play("yatzy", long_names(lang), seed=8)
    for page in layout(game.rules, seats(game), lang, title="T" * 80, final=True):
        inks = [label.ink for label in labels(page)]
        for left, top, right, bottom in inks:
            assert 0 <= left < right <= page.width
            assert 0 <= top < bottom <= page.height
        for a, b in combinations(inks, 2):
            assert a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1], (a, b)


@pytest.mark.parametrize("lang", LANGS)
def test_names_fit_their_column_and_keep_what_tells_players_apart(lang: str):
    names = long_names(lang)
    game = play("banked", names, seed=3, turns=20)
    page = layout(game.rules, seats(game), lang, title="")[0]
    column = image.MARGIN + page.name_w
    shown = [label for label in labels(page) if label.x < column]
    assert shown
    assert all(label.ink[2] <= column - image.PAD // 2 for label in shown)
    for name in names:
        lines = name_lines(name, page.name_w - 2 * image.PAD)
        if name.startswith("李"):  # the Han letters are left out, the rest is shown
            assert lines[0].startswith("Bruce Lee")
        else:
            assert lines, name
            head = lines[0].rstrip("…")
            assert len(head) >= 3  # never cut to nothing …
            assert drawable(name).startswith(head)  # … and always its beginning
        assert all(line.strip("…. ") for line in lines)
    # A computer player: "🤖 Bot 1" on the first line (the robot drawn), the level below,
    # unless all of it fits on one line.
    bot = names[-2]
    lines = name_lines(bot, page.name_w - 2 * image.PAD)
    assert runs(lines[0])[0] == ("shape", "🤖")
    if len(lines) == 1:
        assert lines[0] == bot
    else:
        head, level = lines
        assert head == bot.split(" (")[0]
        # The level whole in every language, condensed where it needs to be
        # ("идеальный"), rather than cut to "идеальн…".
        assert level == t("bots.level_perfect", lang)
        pages = layout(game.rules, seats(game), lang, title="")
        drawn = next(label for p in pages for label in labels(p) if label.text == level)
        room = page.name_w - 2 * image.PAD
        assert drawn.stretch == (100 if image._fits(level, room) else image._CONDENSED)
    assert len(name_lines(t("bots.name", "en", n=1, level="perfect"), 200)) == 2


def test_a_table_too_tall_for_one_picture_is_split_evenly():
    assert image._pack(3, [42] * 3, 40) == [[(0, range(3)), (1, range(3)), (2, range(3))]]
    parts = image._pack(2, [100] * 9, 40)  # taller than any real table
    assert [[run for _, run in group] for group in parts] == [
        [range(5)],
        [range(5, 9)],
        [range(5)],
        [range(5, 9)],
    ]


def test_a_name_the_fonts_cannot_draw_becomes_the_seat():
    game = Game.new("classic", ["张伟", "Ann"])
    pages = layout(game.rules, seats(game), "en", title="")
    texts = {label.text for label in labels(pages[0])}
    assert t("image.seat", "en", n=1) in texts
    assert "Ann" in texts


def test_only_glyphs_the_fonts_have_are_drawn():
    assert not has_glyph("🤖")
    assert not has_glyph("↑")
    assert has_glyph("Ж")
    assert has_glyph("ș")
    assert has_glyph("ज", devanagari=True)
    assert drawable("Zoë 🎲✨") == "Zoë"
    assert drawable("张伟") == ""
    assert drawable("🤖 Bot 1 (easy)") == "🤖 Bot 1 (easy)"  # the robot is drawn as a shape
    assert [kind for kind, _ in runs("🤖 Бот 1 राहुल")] == ["shape", "sans", "deva"]
    # Every piece of text of every picture: each character in its run's font, or a shape.
    for lang in LANGS:
        game = play("yatzy", long_names(lang), seed=1)
        for page in layout(game.rules, seats(game), lang, title="Σ↑ · 🤖 · ✓", final=True):
            for label in labels(page):
                for kind, text in runs(label.text):
                    if kind == "shape":
                        assert text in image.SHAPES
                    else:
                        assert all(has_glyph(ch, devanagari=kind == "deva") for ch in text)


def test_each_script_gets_a_font_that_has_its_letters():
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


def test_cells_follow_the_engine_on_what_was_made():
    classic = get_rules("classic")
    rows = {**dict.fromkeys(classic.rows), "ones": 0, "twos": 0, "threes": -9}
    card = Card(
        "ann", {**rows, "pair": 0, "chance": 19}, unmade=frozenset({"twos", "threes", "pair"})
    )
    assert row_cell(card, "ones", "en").text == "✓"  # exactly three: made, worth 0
    assert row_cell(card, "twos", "en").text == "—"  # a 0 the engine says was not made
    assert row_cell(card, "threes", "en").text == "-9"
    assert row_cell(card, "threes", "en").colour == image.NEGATIVE
    assert row_cell(card, "pair", "en").text == "—"  # a scratch
    assert row_cell(card, "chance", "en").text == "19"
    assert row_cell(card, "fours", "en").text == ""  # free
    # The same 0 in a sum rule set is whatever the engine says, too.
    yatzy = get_rules("yatzy")
    made = Card("bob", {**dict.fromkeys(yatzy.rows), "ones": 0})
    unmade = Card("bob", {**dict.fromkeys(yatzy.rows), "ones": 0}, unmade=frozenset({"ones"}))
    assert row_cell(made, "ones", "en").text == "✓"
    assert row_cell(unmade, "ones", "en").text == "—"


def columns(rules: str, cards: list[Card], lang: str = "en", *, final: bool = False):
    return {
        c.key: c for tb in _tables(get_rules(rules), cards, lang, final=final) for c in tb.columns
    }


def test_an_undecided_bonus_is_blank_and_the_bank_shows_its_points():
    classic = get_rules("classic")
    card = Card("ann", {**dict.fromkeys(classic.rows), "ones": 0})
    assert columns("classic", [card])["bonus"].cells[0].text == ""  # upper rows still free
    banked = get_rules("banked")
    card = Card("bob", {**dict.fromkeys(banked.rows), "pair": 12}, bank=4)
    shown = columns("banked", [card])["banked"].cells[0].text
    assert shown == number(totals_of(banked, card).bank_points, "en") == "12"


@pytest.mark.parametrize("lang", LANGS)
def test_columns_are_named_from_the_catalog(lang: str):
    game = play("classic", NAMES[:2], seed=3, turns=6)
    tables = _tables(game.rules, list(game.cards), lang, final=True)
    upper, lower, totals = ([c.header for c in tb.columns] for tb in tables)
    assert upper[:6] == [image.DIE[f] for f in range(1, 7)]  # die faces, in any language
    assert upper[6:] == [t("rows_short.upper", lang), t("rows_short.bonus", lang)]
    # The lower rows by the picture's labels: the text table's in en, ru, ro; Hindi words
    # (not the text table's Latin letters) in hi.
    assert lower == [t(f"image.rows.{r}", lang) for r in game.rules.lower] + [
        t("rows_short.lower", lang)
    ]
    if lang == "hi":
        assert all(any(_is_devanagari(ch) for ch in label) for label in lower[:-1]), lower
    assert totals[-3:] == [
        t("image.total", lang),
        t("image.settlement_short", lang),
        t("image.rank", lang),
    ]


@pytest.mark.parametrize("rules", sorted(RULESETS))
def test_a_finished_game_adds_settlement_and_place_and_marks_the_winner(rules: str):
    game = play(rules, NAMES[:4], seed=11)
    assert game.finished
    running = layout(game.rules, seats(game), "en", title="t")
    final = layout(game.rules, seats(game), "en", title="t", final=True)
    places = {
        label.text
        for page in final
        for label in labels(page)
        if label.text in "1234" and label.bold
    }
    assert "1" in places

    def colours(pages: list[Page]) -> set[tuple[int, int, int]]:
        out = set()
        for page in pages:
            img = paint(page).convert("RGB")
            out |= {colour for _, colour in img.getcolors(img.width * img.height)}
        return out

    assert WINNER in colours(final)
    assert WINNER not in colours(running)


def test_an_empty_table_is_refused():
    with pytest.raises(ValueError, match="at least one player"):
        scorecard_pngs(get_rules("classic"), [], "en", title="t")


def test_a_long_title_is_cut_and_the_picture_keeps_its_width():
    game = play("classic", NAMES[:1], seed=2, turns=2)
    page = layout(game.rules, seats(game), "en", title="Scorecard · " * 30)[0]
    assert page.width == WIDTH
    first, second = labels(page)[:2]  # two lines, broken after a " · ", the rest cut
    assert first.text.startswith("Scorecard · Scorecard")
    assert not first.text.endswith(("…", "·"))
    assert second.text.endswith("…")
    assert second.y - first.y == image.TITLE_H
    assert max(first.ink[2], second.ink[2]) <= WIDTH - image.MARGIN
    short = layout(game.rules, seats(game), "en", title="Scorecard")[0]
    assert labels(short)[0].text == "Scorecard"
    assert labels(short)[1].y > labels(short)[0].y + image.TITLE_H // 2  # one line: a table


def test_the_pngs_are_the_painted_layout():
    game = play("yatzy", NAMES[:5], seed=4, turns=30)
    pages = layout(game.rules, seats(game), "ru", title="t")
    pngs = scorecard_pngs(game.rules, seats(game), "ru", title="t")
    assert pngs == [encode(paint(p)) for p in pages]


@given(
    st.floats(min_value=-1000, max_value=1000, allow_nan=False).map(lambda v: round(v, 1)),
    st.sampled_from(LANGS),
)
def test_numbers_read_back(value: float, lang: str):
    text = number(value, lang, sign=True)
    comma = lang in ("ru", "ro")  # their decimal comma: 21,5
    assert ("." not in text) if comma else ("," not in text)
    back = float(text.replace(",", "."))
    assert back == pytest.approx(round(value, 1), abs=0.051)
    assert text.startswith("-") == (back < 0)
    assert "−" not in text  # one kind of minus sign everywhere: the plain one


@pytest.mark.parametrize("lang", LANGS)
def test_a_game_played_alone_ends_in_a_score_not_in_standings(lang: str):
    game = play("classic", NAMES[:1], seed=5)
    assert game.finished
    pages = image_layout_of(game, lang)
    headers = {label.text for page in pages for label in labels(page)}
    assert t("image.settlement_short", lang) not in headers  # "± avg 0": nobody to beat
    assert t("image.rank", lang) not in headers  # "Place 1" of one
    assert t("image.total", lang) in headers
    assert picture_title(game, 7, lang, final=True) == t(
        "image.solo.title", lang, rules=t("commands.choices.classic", lang), game=7
    )
    two = play("classic", NAMES[:2], seed=5)
    assert picture_title(two, 7, lang, final=True) == t(
        "image.titles.final", lang, rules=t("commands.choices.classic", lang), game=7
    )


def image_layout_of(game: Game, lang: str) -> list[Page]:
    return layout(game.rules, seats(game), lang, title="t", final=True)
