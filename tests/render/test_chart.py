"""The stats chart: a PNG of the right size whose bars follow the scores, legible on a phone."""

from __future__ import annotations

import io
from itertools import pairwise

import pytest
from PIL import Image

from bot.render import chart
from bot.render.chart import scores_chart_png
from bot.render.image import MIN_DIGIT_PX

from .legibility import digit_heights, labels


def bar_top(image: Image.Image, index: int, count: int, colour) -> int | None:
    """The highest pixel row of bar `index`'s centre column with `colour`, if any."""
    slot = (chart.WIDTH - chart.LEFT - chart.RIGHT) / count
    x = int(chart.LEFT + slot * index + slot / 2)
    rows = [y for y in range(chart.HEIGHT) if image.getpixel((x, y)) == colour]
    return min(rows) if rows else None


def test_png_with_bars_by_score_and_result() -> None:
    scores = [100, 300, 200]
    png = scores_chart_png(scores, title="ann", won=[False, True, False], average_label="avg ")
    image = Image.open(io.BytesIO(png)).convert("RGB")
    assert image.size == (chart.WIDTH, chart.HEIGHT)
    tops = [bar_top(image, i, 3, c) for i, c in enumerate([chart.PLAYED, chart.WON, chart.PLAYED])]
    assert None not in tops
    # a higher score is a taller bar (smaller y), and the won game is drawn in gold
    assert tops[1] < tops[2] < tops[0]
    assert bar_top(image, 1, 3, chart.PLAYED) is None


def test_negative_and_single_scores_draw() -> None:
    for scores in ([0], [-12], [-5, 0, 12], list(range(20))):
        image = Image.open(io.BytesIO(scores_chart_png(scores, title="Аня")))
        assert image.size == (chart.WIDTH, chart.HEIGHT)


def test_bad_input_is_refused() -> None:
    with pytest.raises(ValueError, match="at least one"):
        scores_chart_png([], title="x")
    with pytest.raises(ValueError, match="one flag per score"):
        scores_chart_png([1, 2], title="x", won=[True])


@pytest.mark.parametrize(
    "scores", [[150], [-5, 0, 12], [120, 200, -15, 180, 240, 90, 310], list(range(-30, 1170, 60))]
)
def test_digits_are_legible_on_a_phone(scores: list[int]) -> None:
    page = chart._page(scores, "Борис — последние результаты", [False] * len(scores), "avg ", "ru")
    heights = digit_heights(
        scores_chart_png(
            scores, title="Борис — последние результаты", average_label="avg ", lang="ru"
        ),
        page,
    )
    assert len(heights) >= 2  # the axis, at least the highest score and zero
    assert min(heights) >= MIN_DIGIT_PX
    # The average is drawn too, and the axis labels never overlap.
    texts = [label.text for label in labels(page)]
    assert any(text.startswith("avg ") for text in texts)
    inks = sorted(label.ink[1:4:2] for label in labels(page) if label.colour == chart.MUTED)
    assert all(a[1] <= b[0] for a, b in pairwise(inks))


def test_a_name_with_emoji_keeps_its_letters_and_loses_the_boxes() -> None:
    page = chart._page([1, 2], "Zoë ✨🎲 — last 2 scores", [True, False], "", "en")
    assert labels(page)[0].text == "Zoë — last 2 scores"
