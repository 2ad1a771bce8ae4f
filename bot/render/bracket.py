"""A tournament's bracket as PNG pictures made for a phone.

Rounds go left to right: each picture has two columns, a round's tables fill a column
top to bottom and go on in the next one, and a new round starts a new column. A table
is a box: its name and state on a dark header, then a row per player with their total
once the table is done; players who go on are marked (gold row, bold, ✓), players who
are out are struck through. Several pictures when one does not hold them all (16 tables
of four are four pictures, the last two rounds a fifth and sixth); the latest rounds are
kept when there are more than `MAX_PICTURES`.

Each picture is `WIDTH` px wide and at most `PAGE_H` high: on a phone Discord draws an
embed image 292 px wide (a 412 px screen), in a box about 300 px high, so each shows at
half size and its digits (21 px high here) at 10.7 px, above `image.MIN_DIGIT_PX`.
Drawn with the scorecard pictures' fonts, glyph checks and painter (`image.py`).
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.i18n import rules_name, t
from bot.match.tournament import Round, Table, Tournament

from .image import (
    GOLD_INK,
    GRID,
    HEAD,
    HEAD_INK,
    INK,
    MUTED,
    STRIPE,
    WINNER,
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
    text_at,
)

DISPLAY = (292, 300)  # the embed image's box on a phone, in px
DENSITY = 2
WIDTH = DISPLAY[0] * DENSITY
PAGE_H = DISPLAY[1] * DENSITY
MAX_PICTURES = 9  # a message holds ten embeds: the tournament's own and nine pictures
SIZE = 30  # totals: digits 21 px, 10.7 px on the phone
NAME_SIZE = 28  # names: a little smaller, so that a half-width box holds 11 letters or so
MARGIN = 8
GAP = 12  # between the two columns, and between boxes
PAD = 10
TITLE_H = 44
COLUMN_H = 42  # a column's round heading
HEAD_H = 40  # a box's header
ROW_H = 40
TOTAL_GAP = 12  # between a name and its total
MARK_W = 26  # the ✓ of a player who goes on
COLUMN_W = (WIDTH - 2 * MARGIN - GAP) // 2
ROOM = PAGE_H - 2 * MARGIN - TITLE_H - COLUMN_H  # for a column's boxes
CHECK = "✓"
FILENAME = "bracket-{n}.png"


@dataclass(frozen=True)
class _Column:
    round: Round
    tables: tuple[Table, ...]


def _box_h(table: Table) -> int:
    return HEAD_H + ROW_H * len(table.seats)


def _columns(tn: Tournament) -> list[_Column]:
    """Each round's tables in columns of at most ROOM px of boxes."""
    out: list[_Column] = []
    for rnd in tn.rounds:
        chunk: list[Table] = []
        used = 0
        for tb in rnd.tables:
            h = _box_h(tb) + (GAP if chunk else 0)
            if chunk and used + h > ROOM:
                out.append(_Column(rnd, tuple(chunk)))
                chunk, used = [], 0
                h = _box_h(tb)
            chunk.append(tb)
            used += h
        if chunk:
            out.append(_Column(rnd, tuple(chunk)))
    return out


def layout(tn: Tournament, lang: str) -> list[Page]:
    """The pictures of `bracket_pngs`, as sizes and drawing items (tests measure them)."""
    columns = _columns(tn)
    pairs = [columns[i : i + 2] for i in range(0, len(columns), 2)]
    while len(pairs) > MAX_PICTURES:  # the latest rounds matter most: drop the earliest
        first = columns[0].round.no
        columns = [c for c in columns if c.round.no != first]
        pairs = [columns[i : i + 2] for i in range(0, len(columns), 2)]
    title = t("tournament.picture_title", lang, id=tn.id, rules=rules_name(tn.rules, lang))
    pages = []
    for k, pair in enumerate(pairs, 1):
        items: list[Box | Label] = []
        text = title if len(pairs) == 1 else f"{title} · {k}/{len(pairs)}"
        text = fit_text(text, WIDTH - 2 * MARGIN - 2 * PAD, SIZE, bold=True)
        items.append(text_at(text, MARGIN + PAD, MARGIN + 32, INK, bold=True, size=SIZE))
        bottom = 0
        # A column alone in its picture (the final, as a rule) takes the whole width.
        width = COLUMN_W if len(pair) == 2 else WIDTH - 2 * MARGIN
        for i, column in enumerate(pair):
            left = MARGIN + i * (COLUMN_W + GAP)
            y = _column(items, tn, column, left, width, MARGIN + TITLE_H, lang)
            bottom = max(bottom, y)
        pages.append(Page(WIDTH, bottom + MARGIN, tuple(items)))
    return pages


def _column(  # noqa: PLR0913 - a column's place in the picture
    items: list[Box | Label],
    tn: Tournament,
    column: _Column,
    left: int,
    width: int,
    top: int,
    lang: str,
) -> int:
    """Draws a column (its round's heading, then its boxes); returns where it ends."""
    rnd = column.round
    heading = (
        t("tournament.final", lang) if rnd.final else t("tournament.round", lang, round=rnd.no)
    )
    heading = fit_text(heading, width - 2 * PAD, SIZE, bold=True)
    items.append(text_at(heading, left + PAD, top + 30, INK, bold=True, size=SIZE))
    y = top + COLUMN_H
    for n, tb in enumerate(column.tables):
        if n:
            y += GAP
        y = _box(items, tn, rnd, tb, left, width, y, lang)
    return y


def _box(  # noqa: PLR0913 - a box's place in the picture
    items: list[Box | Label],
    tn: Tournament,
    rnd: Round,
    tb: Table,
    left: int,
    width: int,
    top: int,
    lang: str,
) -> int:
    right = left + width
    items.append(Box((left, top, right, top + HEAD_H), HEAD))
    label = (
        t("tournament.final_table", lang) if rnd.final else t("tournament.table", lang, no=tb.no)
    )
    state = fit_text(t(f"tournament.picture_{tb.status}", lang), width // 2, SIZE - 4)
    base = top + HEAD_H // 2 + 10
    name_room = width - 3 * PAD - _width(state, SIZE - 4)
    label = fit_text(label, name_room, SIZE - 2, bold=True)
    items.append(text_at(label, left + PAD, base, HEAD_INK, bold=True, size=SIZE - 2))
    stamp = _stamp(state, SIZE - 4)
    items.append(Label(state, right - PAD - stamp.mask.width, base, HEAD_INK, SIZE - 4))
    placings = {p.player: p for p in tb.placings}
    # A finished table lists its players by place (any who never sat down: last).
    order = [p.player for p in tb.by_place(rnd.seeds)]
    order += [p for p in tb.seats if p not in placings]
    # The totals' column: as wide as this box's widest total (bold: who went on).
    total_w = TOTAL_GAP + max(
        (_width(number(p.total, lang), SIZE, bold=True) for p in tb.placings), default=0
    )
    y = top + HEAD_H
    for n, player in enumerate(order):
        went_on = tb.why(player) is not None
        entrant = tn.entrant(player)
        out = entrant is not None and entrant.out is not None and not went_on
        if went_on:
            items.append(Box((left, y, right, y + ROW_H), WINNER))
        elif n % 2:
            items.append(Box((left, y, right, y + ROW_H), STRIPE))
        colour = GOLD_INK if went_on else MUTED if out else INK
        base = y + ROW_H // 2 + 11
        room = width - 2 * PAD - total_w - MARK_W
        shown = fit_name(tn.name_of(player), room, NAME_SIZE, bold=went_on)
        if not shown:  # nothing of the name can be drawn: the seat's number instead
            shown = t("image.seat", lang, n=rnd.seed_of(player))
        name = text_at(shown, left + PAD, base, colour, bold=went_on, size=NAME_SIZE)
        items.append(name)
        if out:  # struck through
            x0, y0, x1, y1 = name.ink
            items.append(Box((x0, (y0 + y1) // 2, x1, (y0 + y1) // 2 + 2), MUTED))
        placing = placings.get(player)
        if placing is not None:
            total = number(placing.total, lang)
            w = _stamp(total, SIZE, went_on).mask.width
            x = right - PAD - MARK_W - w
            items.append(Label(total, x, base, colour, SIZE, went_on))
        if went_on:
            x = right - PAD - _stamp(CHECK, SIZE, bold=True).mask.width
            items.append(Label(CHECK, x, base, GOLD_INK, SIZE, bold=True))
        y += ROW_H
        items.append(Box((left, y - 1, right, y), GRID))
    items.append(Box((left, top, right, y), outline=HEAD, line=2))
    return y


def bracket_pngs(tn: Tournament, lang: str) -> list[bytes]:
    """The bracket as PNG pictures, in order (attach each to its own embed)."""
    return [encode(paint(page)) for page in layout(tn, lang)]
