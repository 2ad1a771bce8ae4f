"""The stats chart: a PNG of the right size whose bars follow the scores."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from bot.render import chart
from bot.render.chart import scores_chart_png


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
