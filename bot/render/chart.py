"""A member's recent scores as a small bar chart (PNG), for `/poker stats`. Pure: no database.

Bars in game order (oldest left), coloured by result (won / not), the member's average of
those games as a dashed line, the highest and lowest score labelled on a light axis; the
legend under the title says what the dashes and the gold bars are. A long name is cut in
the title, never the title's own words.

Drawn like the scorecard pictures (`image.py`): 2.5 times the size Discord shows it on a
phone (292 px wide), text the same size, so its digits are as legible as the card's;
text goes through the same glyph check, so an emoji in a member's name is left out
rather than drawn as a box.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.i18n import DEFAULT, t

from .image import (
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
    _width,
    encode,
    fit_name,
    fit_text,
    number,
    paint,
    px,
    text_at,
)

# In px as the phone shows them (`px`: times DENSITY).
HEIGHT = px(230)  # inside the phone's 300 px box
assert HEIGHT <= PAGE_H
MARGIN = px(8)
LEFT, RIGHT, TOP, BOTTOM = px(52), px(8), px(64), px(12)  # the plot inside the picture
DASH = px(5)  # a dash of the average's line, and the gap after it
WON = GOLD
PLAYED = HEAD
BAR_MAX = px(36)
LINE = px(1)  # the axis and dashes, 1 px on the phone (the dashes twice that)


def _title(name: str, n: int, lang: str) -> str:
    """ "Ann — last 20 scores" in the picture's width: a long name is cut, not the words."""
    room = WIDTH - 2 * MARGIN
    words = _width(t("stats.chart_title", lang, name="", n=n), NAME_SIZE, bold=True)
    shown = fit_name(name, max(1, room - words), NAME_SIZE, bold=True)
    return fit_text(t("stats.chart_title", lang, name=shown, n=n), room, NAME_SIZE, bold=True)


def _page(scores: Sequence[int], name: str, flags: Sequence[bool], lang: str) -> Page:
    items: list[Box | Label] = []
    text = _title(name, len(scores), lang)
    items.append(text_at(text, MARGIN, MARGIN + px(15), INK, bold=True, size=NAME_SIZE))

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
        items.append(Box((LEFT - px(4), y - LINE // 2, WIDTH - RIGHT, y + LINE // 2), GRID))
        label = number(value, lang)
        stamp = _stamp(label)
        # Right-aligned before the axis, its digits centred on the line.
        x = LEFT - px(8) - stamp.mask.width
        items.append(Label(label, x, y + round(SIZE * 0.36), MUTED))

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
        Box((x, y - LINE, min(x + DASH, WIDTH - RIGHT), y + LINE), INK)
        for x in range(LEFT, WIDTH - RIGHT, 2 * DASH)
    )
    # The legend, under the title: two dashes, then "average 167.8"; a gold square and
    # "won" at the right when a bar is gold.
    legend = MARGIN + px(38)
    dash = legend - px(6)
    items.extend(
        Box((x, dash - LINE, x + DASH, dash + LINE), INK) for x in (MARGIN, MARGIN + 2 * DASH)
    )
    end = WIDTH - MARGIN
    if any(flags):
        won = t("stats.chart_won", lang)
        x = end - _width(won)
        items.append(text_at(won, x, legend, INK))
        square = px(9)
        items.append(
            Box((x - px(4) - square, dash - square // 2, x - px(4), dash + square // 2), WON)
        )
        end = x - px(4) - square - px(10)
    label = f"{t('stats.chart_average', lang)}{number(round(mean, 1), lang)}"
    indent = MARGIN + px(22)
    items.append(text_at(fit_text(label, end - indent), indent, legend, INK))
    return Page(WIDTH, HEIGHT, tuple(items))


def scores_chart_png(
    scores: Sequence[int],
    *,
    name: str,
    won: Sequence[bool] | None = None,
    lang: str = DEFAULT,
) -> bytes:
    """`name`'s bars for `scores` (oldest first); `won[i]` marks a won game; the dashed line
    is the mean of `scores`; words and numbers in `lang`."""
    if not scores:
        raise ValueError("a chart needs at least one score")
    if won is not None and len(won) != len(scores):
        raise ValueError("won must have one flag per score")
    flags = list(won) if won is not None else [False] * len(scores)
    return encode(paint(_page(scores, name, flags, lang)))
