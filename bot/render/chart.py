"""A member's recent scores as a small bar chart (PNG), for `/poker stats`. Pure: no database.

Bars in game order (oldest left), coloured by result (won / not), the member's average of
those games as a dashed line, the highest and lowest score labelled on a light axis.
"""

from __future__ import annotations

import io
from collections.abc import Sequence

from PIL import Image, ImageDraw

from .image import GOLD, GRID, HEAD, INK, MUTED, PAPER, font_for, number

WIDTH, HEIGHT = 560, 220
LEFT, RIGHT, TOP, BOTTOM = 52, 16, 40, 30
SIZE = 15
TITLE_SIZE = 18
WON = GOLD
PLAYED = HEAD


def scores_chart_png(
    scores: Sequence[int],
    *,
    title: str,
    won: Sequence[bool] | None = None,
    average_label: str = "",
) -> bytes:
    """Bars for `scores` (oldest first); `won[i]` marks a won game; the dashed line is the
    mean of `scores`, labelled `average_label` + the value."""
    if not scores:
        raise ValueError("a chart needs at least one score")
    if won is not None and len(won) != len(scores):
        raise ValueError("won must have one flag per score")
    flags = list(won) if won is not None else [False] * len(scores)
    image = Image.new("RGB", (WIDTH, HEIGHT), PAPER)
    draw = ImageDraw.Draw(image)
    draw.text((LEFT, 10), title, font=font_for(title, TITLE_SIZE, bold=True), fill=INK)

    low, high = min(0, *scores), max(0, *scores)  # bars grow from zero; negatives allowed
    if low == high:
        high = low + 1
    plot_h = HEIGHT - TOP - BOTTOM
    plot_w = WIDTH - LEFT - RIGHT

    def y_of(value: float) -> float:
        return TOP + plot_h * (high - value) / (high - low)

    # axis: zero line and the extremes
    zero = y_of(0)
    draw.line([(LEFT, zero), (WIDTH - RIGHT, zero)], fill=GRID, width=1)
    for value in sorted({0, min(scores), max(scores)}):
        y = y_of(value)
        draw.line([(LEFT - 4, y), (WIDTH - RIGHT, y)], fill=GRID, width=1)
        label = number(value)
        font = font_for(label, SIZE)
        draw.text((LEFT - 8, y), label, font=font, fill=MUTED, anchor="rm")

    slot = plot_w / len(scores)
    bar = min(36.0, max(2.0, slot * 0.7))
    for i, (score, flag) in enumerate(zip(scores, flags, strict=True)):
        x = LEFT + slot * i + (slot - bar) / 2
        top, bottom = sorted((y_of(score), zero))
        draw.rectangle([(x, top), (x + bar, max(bottom, top + 1))], fill=WON if flag else PLAYED)

    mean = sum(scores) / len(scores)
    y = y_of(mean)
    for x in range(LEFT, WIDTH - RIGHT, 10):  # dashed
        draw.line([(x, y), (min(x + 5, WIDTH - RIGHT), y)], fill=INK, width=2)
    label = f"{average_label}{number(round(mean, 1))}"
    font = font_for(label, SIZE)
    draw.text((WIDTH - RIGHT, TOP - 6), label, font=font, fill=INK, anchor="rs")
    out = io.BytesIO()
    image.save(out, "PNG", optimize=False)
    return out.getvalue()
