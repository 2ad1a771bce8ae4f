"""The stats chart: a PNG of the right size whose bars follow the scores, legible on a phone."""

from __future__ import annotations

import io
from itertools import pairwise

import pytest
from PIL import Image

from bot.i18n import LANGUAGES, t
from bot.render import chart
from bot.render.chart import scores_chart_png
from bot.render.image import MIN_DIGIT_PX, Box

from .legibility import digit_heights, labels, text_heights


def bar_top(image: Image.Image, index: int, count: int, colour) -> int | None:
    """The highest pixel row of bar `index`'s centre column with `colour`, if any."""
    slot = (chart.WIDTH - chart.LEFT - chart.RIGHT) / count
    x = int(chart.LEFT + slot * index + slot / 2)
    rows = [y for y in range(chart.HEIGHT) if image.getpixel((x, y)) == colour]
    return min(rows) if rows else None


def test_png_with_bars_by_score_and_result() -> None:
    scores = [100, 300, 200]
    png = scores_chart_png(scores, name="ann", won=[False, True, False])
    image = Image.open(io.BytesIO(png)).convert("RGB")
    assert image.size == (chart.WIDTH, chart.HEIGHT)
    tops = [bar_top(image, i, 3, c) for i, c in enumerate([chart.PLAYED, chart.WON, chart.PLAYED])]
    assert None not in tops
    # a higher score is a taller bar (smaller y), and the won game is drawn in gold
    assert tops[1] < tops[2] < tops[0]
    assert bar_top(image, 1, 3, chart.PLAYED) is None


def test_negative_and_single_scores_draw() -> None:
    for scores in ([0], [-12], [-5, 0, 12], list(range(20))):
        image = Image.open(io.BytesIO(scores_chart_png(scores, name="Аня")))
        assert image.size == (chart.WIDTH, chart.HEIGHT)


def test_bad_input_is_refused() -> None:
    with pytest.raises(ValueError, match="at least one"):
        scores_chart_png([], name="x")
    with pytest.raises(ValueError, match="one flag per score"):
        scores_chart_png([1, 2], name="x", won=[True])


@pytest.mark.parametrize(
    "scores", [[150], [-5, 0, 12], [120, 200, -15, 180, 240, 90, 310], list(range(-30, 1170, 60))]
)
def test_digits_are_legible_on_a_phone(scores: list[int]) -> None:
    flags = [i % 3 == 0 for i in range(len(scores))]
    page = chart._page(scores, "Борис", flags, "ru")
    heights = digit_heights(scores_chart_png(scores, name="Борис", won=flags, lang="ru"), page)
    assert len(heights) >= 2  # the axis, at least the highest score and zero
    assert min(heights) >= MIN_DIGIT_PX
    assert min(h for _, h in text_heights(page)) >= MIN_DIGIT_PX  # the title, the legend too
    # The average is drawn too, and the axis labels never overlap.
    texts = [label.text for label in labels(page)]
    assert any(text.startswith(t("stats.chart_average", "ru")) for text in texts)
    inks = sorted(label.ink[1:4:2] for label in labels(page) if label.colour == chart.MUTED)
    assert all(a[1] <= b[0] for a, b in pairwise(inks))


def test_a_name_with_emoji_keeps_its_letters_and_loses_the_boxes() -> None:
    page = chart._page([1, 2], "Zoë ✨🎲", [True, False], "en")
    assert labels(page)[0].text == "Zoë — last 2 scores"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_long_name_is_cut_in_the_title_and_the_titles_words_stay(lang: str) -> None:
    name = "Bartholomew_the_very_long_named_player_of_dice"
    page = chart._page(list(range(12)), name, [False] * 12, lang)
    title = labels(page)[0]
    words = t("stats.chart_title", lang, name="", n=12).strip()
    assert title.text.endswith(words)
    assert title.text.startswith(name[:2])
    assert "…" in title.text
    assert title.ink[2] <= chart.WIDTH - chart.MARGIN


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_legend_names_the_gold_bars_when_there_are_any(lang: str) -> None:
    won = t("stats.chart_won", lang)
    some = chart._page([5, 9, 7], "Ann", [False, True, False], lang)
    none = chart._page([5, 9, 7], "Ann", [False, False, False], lang)
    assert won in [label.text for label in labels(some)]
    assert won not in [label.text for label in labels(none)]
    gold = [box for box in some.items if isinstance(box, Box) and box.fill == chart.WON]
    assert len(gold) == 2  # the won game's bar and the legend's square
    shown = {label.text: label for label in labels(some)}
    average = next(v for k, v in shown.items() if k.startswith(t("stats.chart_average", lang)))
    assert average.ink[2] < gold[1].box[0] < gold[1].box[2] < shown[won].ink[0]  # in a row
