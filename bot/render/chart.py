"""A member's recent scores as a small bar chart (PNG), for `/poker stats`. Pure: no database.

Bars in game order (oldest left), coloured by result (won / not), the member's average of
those games as a dashed line, the highest and lowest score labelled on a light axis.

Drawn like the scorecard pictures (`image.py`): twice the size Discord shows it on a
phone (400 px wide), text the same sizes, so its digits are as legible as the card's;
text goes through the same glyph check, so an emoji in a member's name is left out
rather than drawn as a box.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.i18n import DEFAULT

from .image import (
    DENSITY,
    GOLD,
    GRID,
    HEAD,
    INK,
    MUTED,
    NAME_SIZE,
    PAGE_H,
    SIZE,
    WIDTH,
    Box,
    Label,
    Page,
    _stamp,
    encode,
    fit_text,
    number,
    paint,
    text_at,
)

HEIGHT = 460  # 230 px on a phone: well inside its 300 px box
assert HEIGHT <= PAGE_H
MARGIN = 16
LEFT, RIGHT, TOP, BOTTOM = 104, 16, 128, 24  # the plot inside the picture
WON = GOLD
PLAYED = HEAD
BAR_MAX = 36 * DENSITY
LINE = DENSITY  # the axis and dashes, 1 px on the phone (the dashes twice that)


def _page(
    scores: Sequence[int], title: str, flags: Sequence[bool], average_label: str, lang: str
) -> Page:
    items: list[Box | Label] = []
    text = fit_text(title, WIDTH - 2 * MARGIN, NAME_SIZE, bold=True)
    items.append(text_at(text, MARGIN, MARGIN + 30, INK, bold=True, size=NAME_SIZE))

    low, high = min(0, *scores), max(0, *scores)  # bars grow from zero; negatives allowed
    if low == high:
        high = low + 1
    plot_h = HEIGHT - TOP - BOTTOM
    plot_w = WIDTH - LEFT - RIGHT

    def y_of(value: float) -> int:
        return round(TOP + plot_h * (high - value) / (high - low))

    # The axis: the zero line, and the extremes labelled where their labels do not collide
    # (the highest first, then the lowest, then zero).
    zero = y_of(0)
    items.append(Box((LEFT, zero - LINE // 2, WIDTH - RIGHT, zero + LINE // 2), GRID))
    placed: list[int] = []
    for value in dict.fromkeys((max(scores), min(scores), 0)):
        y = y_of(value)
        if any(abs(y - other) < SIZE for other in placed):
            continue
        placed.append(y)
        items.append(Box((LEFT - 8, y - LINE // 2, WIDTH - RIGHT, y + LINE // 2), GRID))
        label = number(value, lang)
        stamp = _stamp(label)
        # Right-aligned before the axis, its digits centred on the line.
        items.append(Label(label, LEFT - 16 - stamp.mask.width, y + round(SIZE * 0.36), MUTED))

    slot = plot_w / len(scores)
    bar = min(BAR_MAX, max(4.0, slot * 0.7))
    for i, (score, flag) in enumerate(zip(scores, flags, strict=True)):
        x = round(LEFT + slot * i + (slot - bar) / 2)
        top, bottom = sorted((y_of(score), zero))
        items.append(
            Box((x, top, x + round(bar), max(bottom, top + LINE)), WON if flag else PLAYED)
        )

    mean = sum(scores) / len(scores)
    y = y_of(mean)
    items.extend(  # dashed
        Box((x, y - LINE, min(x + 10, WIDTH - RIGHT), y + LINE), INK)
        for x in range(LEFT, WIDTH - RIGHT, 20)
    )
    # The legend of the dashed line, under the title: two dashes, then "average 167.8".
    legend = MARGIN + 76
    dash = legend - 12
    items.extend(Box((x, dash - LINE, x + 10, dash + LINE), INK) for x in (MARGIN, MARGIN + 20))
    label = f"{average_label}{number(round(mean, 1), lang)}"
    items.append(text_at(fit_text(label, WIDTH - 2 * MARGIN - 44), MARGIN + 44, legend, INK))
    return Page(WIDTH, HEIGHT, tuple(items))


def scores_chart_png(
    scores: Sequence[int],
    *,
    title: str,
    won: Sequence[bool] | None = None,
    average_label: str = "",
    lang: str = DEFAULT,
) -> bytes:
    """Bars for `scores` (oldest first); `won[i]` marks a won game; the dashed line is the
    mean of `scores`, labelled `average_label` + the value, numbers as `lang` writes them."""
    if not scores:
        raise ValueError("a chart needs at least one score")
    if won is not None and len(won) != len(scores):
        raise ValueError("won must have one flag per score")
    flags = list(won) if won is not None else [False] * len(scores)
    return encode(paint(_page(scores, title, flags, average_label, lang)))
