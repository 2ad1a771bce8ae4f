"""The scorecard as PNG pictures made for a phone: one compact table per row group.

Discord shows an embed image inside a box on a phone and shrinks a larger one to fit:
292 px wide on a 412 px screen (the embed's width there, measured), up to about 300 px
high. A picture is only as legible as its text is at that size. Every picture here is
exactly `WIDTH` px wide (2.5 times the box: crisp on screens of two or three device
pixels per px) and at most `PAGE_H` high, so each shows at the same scale, 1/2.5, and all
its text — numbers, names and their second lines, the column labels, the title — at one
size whose digits are 10–11 px high there, as tall as those of the message around it
(the tests measure it at that width). The table is transposed (players down, scorecard
rows across, labelled as in the text table): the upper rows, the lower rows and the
totals are three tables, stacked into as few pictures as fit (one for two players, three
to five for eight; up to ten, a message's limit, when eight names all take two lines and
a table of rows is cut in two).

Fonts come from installed packages (Noto Sans for Latin and Cyrillic, Noto Sans
Devanagari for Hindi); nothing is downloaded at run time. A character neither font has
(emoji, other scripts) is never drawn as a box: a few are drawn as shapes (🤖, arrows,
check mark, die faces), the rest are left out. Pillow's raqm layout (bundled in its
wheels) shapes Devanagari conjuncts and vowel signs; without raqm Pillow falls back to its
basic layout, which misplaces some vowel signs, so `SHAPING` says which one is in use.

Pure: bytes out, no Discord, no database; the edge attaches one embed per picture.
"""

from __future__ import annotations

import io
import logging
import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cache, lru_cache
from typing import Literal

import fontpkg
from PIL import Image, ImageDraw, ImageFont, features

from bot.engine import FACE, Card, Game, RuleSet, standings_of, totals_of
from bot.i18n import LANGUAGES, catalog, t

from .text import number as text_number

log = logging.getLogger(__name__)

SHAPING = "raqm" if features.check("raqm") else "basic"

RGB = tuple[int, int, int]

# --- geometry: in px as the phone shows a picture, times DENSITY (picture pixels) --------

BOX = (292, 300)  # what Discord gives an embed image on a phone (a 412 px screen), in px
DENSITY = 2.5  # picture pixels per px of that box: crisp on screens of 2–3 device px a px


def px(size: float) -> int:
    """`size` px as the phone shows it, in picture pixels."""
    return round(size * DENSITY)


WIDTH = px(BOX[0])
PAGE_H = px(BOX[1])  # tables share a picture up to this height; a taller one is split
MIN_DIGIT_PX = 10.0  # Discord's body text on a phone (a 15–16 px line) has 9–10 px digits

# One text size for everything a picture says (its digits 10.5 px on the phone), bold for
# names and the title; a name's second line is as large, only not bold.
SIZE = px(14.8)
NAME_SIZE = SIZE
ROW_H = px(20)
ROW_H2 = px(38.7)  # a row whose name takes two lines
LINE_PITCH = px(18.7)  # between the baselines of those two lines (Devanagari marks clear)
HEAD_H = px(20)
TITLE_H = px(20)  # a line of the title (it takes two when one would cut it)
MARGIN = px(4)  # around the tables
GAP = px(6.7)  # between two tables of one picture
PAD = px(4)  # inside a name cell, left and right
NAME_MIN = px(88)  # the name column: ten or so letters a line


@dataclass(frozen=True)
class _Squeeze:
    """How tightly the number columns are set: font width (100 normal, 62 the most
    condensed), padding either side, narrowest column, and whether the upper and lower
    tables keep their sums (else only the totals show them)."""

    stretch: int
    pad: int
    col_min: int
    sums: bool = True


# Tried in turn until the name column keeps NAME_MIN; digits keep their height throughout.
# (A finished banked card is ten columns of penalties such as "−22": it needs the last.)
SQUEEZES = (
    _Squeeze(100, px(3.7), px(24)),
    _Squeeze(88, px(2.7), px(22)),
    _Squeeze(88, px(2.7), px(22), sums=False),
    _Squeeze(76, px(2), px(19.3), sums=False),
    _Squeeze(62, px(1.7), px(16.7), sums=False),
)

PAPER = (251, 248, 241)
INK = (31, 35, 40)
MUTED = (110, 112, 118)
GRID = (226, 220, 205)
STRIPE = (245, 241, 231)
SUBTOTAL = (236, 230, 214)
HEAD = (47, 59, 82)
HEAD_INK = (255, 255, 255)
NEGATIVE = (179, 38, 30)
MADE = (46, 125, 50)
WINNER = (246, 231, 176)
GOLD = (196, 150, 20)  # accents (the chart's won games)
GOLD_INK = (133, 92, 0)  # gold text, dark enough to read on WINNER

_REGULAR, _BOLD = 400, 700


# --- fonts and the glyphs they have -----------------------------------------------------


def _is_devanagari(ch: str) -> bool:
    return "\u0900" <= ch <= "\u097f" or "\ua8e0" <= ch <= "\ua8ff"


@cache
def _font(size: int, weight: int, devanagari: bool, stretch: int = 100) -> ImageFont.FreeTypeFont:
    family = "Noto Sans Devanagari" if devanagari else "Noto Sans"
    # Only Devanagari needs shaping; Pillow's basic layout is about three times faster and
    # draws Latin and Cyrillic the same, which keeps a picture inside its time budget.
    layout = ImageFont.Layout.RAQM if devanagari and SHAPING == "raqm" else ImageFont.Layout.BASIC
    font = ImageFont.truetype(str(fontpkg.path(family)), size, layout_engine=layout)
    # The packaged fonts are variable: a weight, and a width (100 normal, 62 condensed).
    chosen = {b"Weight": weight, b"Width": stretch}
    font.set_variation_by_axes(
        [
            float(chosen.get(axis["name"], axis["default"] or 0))
            for axis in font.get_variation_axes()
        ]
    )
    return font


def font_for(text: str, size: int = SIZE, *, bold: bool = False) -> ImageFont.FreeTypeFont:
    """Noto Sans Devanagari (which also has Latin) for text with Devanagari, else Noto Sans."""
    return _font(size, _BOLD if bold else _REGULAR, any(map(_is_devanagari, text)))


@cache
def _probe(devanagari: bool) -> tuple[ImageFont.FreeTypeFont, bytes, tuple[int, int]]:
    """A small unshaped font and what it draws for a character it lacks (.notdef)."""
    family = "Noto Sans Devanagari" if devanagari else "Noto Sans"
    font = ImageFont.truetype(str(fontpkg.path(family)), 16, layout_engine=ImageFont.Layout.BASIC)
    notdef = font.getmask("\ue000")  # a private-use code point: in neither font
    return font, bytes(notdef), notdef.size


@lru_cache(maxsize=8192)
def has_glyph(ch: str, *, devanagari: bool = False) -> bool:
    """Whether the font draws `ch` as itself: every missing character shares .notdef's box."""
    font, notdef, size = _probe(devanagari)
    mask = font.getmask(ch)
    return mask.size != size or bytes(mask) != notdef


# --- shapes drawn for characters the fonts lack ---------------------------------------

Draw = Callable[[ImageDraw.ImageDraw, float, float, float], None]  # (draw, x, baseline, em)


@dataclass(frozen=True)
class _Shape:
    advance: float  # in em
    top: float  # ink above the baseline, in em
    bottom: float  # ink below it
    draw: Draw


def _check(d: ImageDraw.ImageDraw, x: float, y: float, em: float) -> None:
    points = [(x + 0.1 * em, y - 0.36 * em), (x + 0.32 * em, y - 0.1 * em)]
    points.append((x + 0.72 * em, y - 0.66 * em))
    d.line(points, fill=255, width=max(2, round(em * 0.11)), joint="curve")


def _arrow(up: bool) -> Draw:
    def draw(d: ImageDraw.ImageDraw, x: float, y: float, em: float) -> None:
        top, bottom, mid, w = y - 0.72 * em, y, x + 0.28 * em, max(2, round(em * 0.08))
        tip, tail = (top, bottom) if up else (bottom, top)
        head = 0.22 * em * (1 if up else -1)
        d.line([(mid, tip), (mid, tail)], fill=255, width=w)
        d.line([(mid - 0.2 * em, tip + head), (mid, tip), (mid + 0.2 * em, tip + head)], 255, w)

    return draw


def _robot(d: ImageDraw.ImageDraw, x: float, y: float, em: float) -> None:
    # A robot's head: what the 🤖 of computer players' names stands for.
    left, right, top = x + 0.08 * em, x + 0.86 * em, y - 0.56 * em
    d.rounded_rectangle([left, top, right, y], radius=0.14 * em, fill=255)
    mid = (left + right) / 2
    d.line([(mid, top), (mid, top - 0.12 * em)], fill=255, width=max(2, round(em * 0.07)))
    d.ellipse([mid - 0.07 * em, top - 0.22 * em, mid + 0.07 * em, top - 0.08 * em], fill=255)
    for ex in (left + 0.22 * em, right - 0.22 * em):
        d.ellipse([ex - 0.08 * em, y - 0.4 * em, ex + 0.08 * em, y - 0.24 * em], fill=0)
    d.rectangle([mid - 0.16 * em, y - 0.15 * em, mid + 0.16 * em, y - 0.09 * em], fill=0)


_PIPS = {
    1: [(1, 1)],
    2: [(0, 0), (2, 2)],
    3: [(0, 0), (1, 1), (2, 2)],
    4: [(0, 0), (2, 0), (0, 2), (2, 2)],
    5: [(0, 0), (2, 0), (1, 1), (0, 2), (2, 2)],
    6: [(0, 0), (2, 0), (0, 1), (2, 1), (0, 2), (2, 2)],
}


def _die(face: int) -> Draw:
    # A die drawn solid with its pips cut out: on the dark header it reads as a white die.
    def draw(d: ImageDraw.ImageDraw, x: float, y: float, em: float) -> None:
        side, left, top = 0.84 * em, x + 0.04 * em, y - 0.78 * em
        d.rounded_rectangle([left, top, left + side, top + side], radius=0.16 * em, fill=255)
        r, step = 0.085 * em, side * 0.29
        for col, row in _PIPS[face]:
            cx, cy = left + side / 2 + (col - 1) * step, top + side / 2 + (row - 1) * step
            d.ellipse([cx - r, cy - r, cx + r, cy + r], fill=0)

    return draw


SHAPES: dict[str, _Shape] = {
    "✓": _Shape(0.8, 0.7, 0.0, _check),
    "↑": _Shape(0.56, 0.74, 0.0, _arrow(up=True)),
    "↓": _Shape(0.56, 0.74, 0.0, _arrow(up=False)),
    "🤖": _Shape(0.94, 0.8, 0.0, _robot),
    **{chr(0x2680 + f - 1): _Shape(0.92, 0.78, 0.06, _die(f)) for f in range(1, 7)},
}
DIE = {f: chr(0x2680 + f - 1) for f in range(1, 7)}  # ⚀ … ⚅


# --- text: runs of one font (or one shape), laid out once and pasted as a mask ----------

Run = tuple[Literal["sans", "deva", "shape"], str]


def _kind(ch: str, before: str | None) -> Literal["sans", "deva", "shape"] | None:  # noqa: PLR0911 - one answer per kind of character
    """Which font draws `ch` (after a run of `before`), a shape, or None: leave it out."""
    category = unicodedata.category(ch)
    if _is_devanagari(ch):
        return "deva" if has_glyph(ch, devanagari=True) else None
    if category == "Cf" or "\ufe00" <= ch <= "\ufe0f":
        # Joiners and variation selectors only matter inside Devanagari words; around a
        # left-out emoji they would be a stray zero-width glyph.
        return "deva" if before == "deva" and has_glyph(ch, devanagari=True) else None
    if ch in SHAPES and not has_glyph(ch):
        return "shape"
    neutral = category[0] in "ZPSN" or category == "Mn"
    if neutral and before == "deva" and has_glyph(ch, devanagari=True):
        return "deva"  # spaces, digits and marks stay in the Devanagari run: one shaping
    if has_glyph(ch):
        return "sans"
    if has_glyph(ch, devanagari=True):
        return "deva"
    return None


@lru_cache(maxsize=4096)
def runs(text: str) -> tuple[Run, ...]:
    """`text` cut into runs each drawn by one font, or one shape; characters neither font
    has and no shape stands for are left out."""
    out: list[tuple[Literal["sans", "deva", "shape"], str]] = []
    for ch in text:
        kind = _kind(ch, out[-1][0] if out else None)
        if kind is None:
            continue
        if out and out[-1][0] == kind and kind != "shape":
            out[-1] = (kind, out[-1][1] + ch)
        else:
            out.append((kind, ch))
    return tuple(out)


def drawable(text: str) -> str:
    """`text` as a picture shows it: without what the fonts cannot draw, spaces tidied."""
    return " ".join("".join(s for _, s in runs(text)).split())


@lru_cache(maxsize=8192)
def _advance(text: str, size: int, bold: bool, stretch: int = 100) -> float:
    """How far `text` moves the pen; cached: every picture of a game measures its names
    and title again (a Devanagari name's shaping is ~1 ms)."""
    weight = _BOLD if bold else _REGULAR
    total = 0.0
    for kind, s in runs(text):
        if kind == "shape":
            total += SHAPES[s].advance * size
        else:
            total += _font(size, weight, kind == "deva", stretch).getlength(s)
    return total


@dataclass(frozen=True)
class _Stamp:
    """A piece of text drawn once as an alpha mask, placed by its baseline origin."""

    mask: Image.Image
    dx: int  # the ink's top left relative to the start of the baseline
    dy: int

    @property
    def right(self) -> int:
        """Where the ink ends, measured from the start of the baseline."""
        return self.dx + self.mask.width


Piece = tuple[float, Run, tuple[int, int, int, int]]  # pen position, run, its ink's box


@lru_cache(maxsize=8192)
def _pieces(text: str, size: int, bold: bool, stretch: int) -> tuple[Piece, ...]:
    """Where each run of `text` starts and the box its ink covers, relative to the start
    of the baseline: measured, not drawn (the layout measures many more than it draws)."""
    weight = _BOLD if bold else _REGULAR
    pieces: list[Piece] = []
    pen = 0.0
    for run in runs(text):
        kind, s = run
        if kind == "shape":
            shape = SHAPES[s]
            box = (
                int(pen),
                -round(shape.top * size) - 2,
                int(pen + shape.advance * size) + 1,
                round(shape.bottom * size) + 2,
            )
            advance = shape.advance * size
        else:
            font = _font(size, weight, kind == "deva", stretch)
            left, top, right, bottom = (int(v) for v in font.getbbox(s, anchor="ls"))
            box = (int(pen) + left, top, int(pen) + right, bottom)
            advance = font.getlength(s)
        pieces.append((pen, run, box))
        pen += advance
    return tuple(pieces)


@lru_cache(maxsize=4096)
def _stamp(text: str, size: int = SIZE, bold: bool = False, stretch: int = 100) -> _Stamp:
    # Scorecards repeat the same labels and numbers over and over: laying out each string
    # once and pasting its mask is what keeps a picture of eight players fast.
    pieces = _pieces(text, size, bold, stretch)
    if not pieces:
        return _Stamp(Image.new("L", (1, 1)), 0, 0)
    left, top, right, bottom = _extent(pieces)
    mask = Image.new("L", (right - left, bottom - top))
    draw = ImageDraw.Draw(mask)
    weight = _BOLD if bold else _REGULAR
    for x, (kind, s), _ in pieces:
        if kind == "shape":
            SHAPES[s].draw(draw, x - left, -top, size)
        else:
            font = _font(size, weight, kind == "deva", stretch)
            draw.text((x - left, -top), s, font=font, fill=255, anchor="ls")
    return _Stamp(mask, left, top)


def _extent(pieces: Sequence[Piece]) -> tuple[int, int, int, int]:
    """The box all `pieces` cover, at least a pixel each way."""
    left = min(b[0] for *_, b in pieces)
    top = min(b[1] for *_, b in pieces)
    right = max(left + 1, *(b[2] for *_, b in pieces))
    return left, top, right, max(top + 1, *(b[3] for *_, b in pieces))


@lru_cache(maxsize=8192)
def _width(text: str, size: int = SIZE, *, bold: bool = False, stretch: int = 100) -> int:
    """Where `text`'s ink ends, from the start of its baseline (as its stamp's `right`);
    cached: a layout tries each column's texts at every squeeze (a fifth of a picture)."""
    pieces = _pieces(text, size, bold, stretch)
    return _extent(pieces)[2] if pieces else 1


def _fits(
    text: str, width: float, size: int = SIZE, *, bold: bool = False, stretch: int = 100
) -> bool:
    return _advance(text, size, bold, stretch) <= width


def _cut(text: str, width: float, size: int = SIZE, *, bold: bool = False) -> str:
    """`text` cut with "…" (between letters, never inside a Devanagari cluster) to fit."""
    if _fits(text, width, size, bold=bold):
        return text
    for end in sorted(_breaks(text), reverse=True):
        head = text[:end].rstrip()
        if head and _fits(head + "…", width, size, bold=bold):
            return head + "…"
    return "…"


def fit_text(text: str, width: int, size: int = SIZE, *, bold: bool = False) -> str:
    """`text` without what the fonts cannot draw, cut with "…" to fit `width` pixels."""
    return _cut(drawable(text), width, size, bold=bold)


def _breaks(text: str) -> list[int]:
    """Where `text` may be cut: before any character that does not join the one before it
    (a combining mark, a vowel sign, the letter after a virama)."""
    out = []
    for i in range(1, len(text)):
        if unicodedata.category(text[i])[0] == "M" or text[i] in "\u200c\u200d":
            continue
        if text[i - 1] in "\u094d\u200c\u200d":
            continue
        out.append(i)
    return out


# --- names: one line, else two, else two shortened ----------------------------------------

_TAIL = re.compile(r"(.+?)\s*\(([^()]+)\)")  # "Bot 1 (perfect)"
# A name's second line is condensed (as the numbers are) rather than cut ("идеальный").
_CONDENSED = SQUEEZES[1].stretch
_SEPARATORS = "_-.|/"


def _initials(text: str, width: float, size: int, *, bold: bool) -> str:
    """`text` with its later words shortened to initials until it fits, else cut."""
    words = text.split(" ")
    for n in range(len(words) - 1, 0, -1):
        short = " ".join(words[:n] + [w[0] + "." for w in words[n:] if w])
        if _fits(short, width, size, bold=bold):
            return short
    return _cut(text, width, size, bold=bold)


def fit_name(name: str, width: int, size: int, *, bold: bool = False) -> str:
    """A player's name on one line of `width` pixels: whole, else "🤖 Bot 1 (perfect)"
    as "🤖 Bot 1" (the number tells the computer players apart, and a level cut to
    "(pe…" says nothing), else cut with "…"."""
    text = drawable(name)
    if _fits(text, width, size, bold=bold):
        return text
    tail = _TAIL.fullmatch(text)
    if tail and _fits(tail[1], width, size, bold=bold):
        return tail[1]
    return _cut(text, width, size, bold=bold)


@lru_cache(maxsize=1024)
def name_lines(name: str, width: int) -> tuple[str, ...]:
    """A player's name in `width` pixels: one line (bold, `NAME_SIZE`), or two (the second
    as large, not bold: `SIZE`), keeping the part that tells players apart.

    "🤖 Bot 1 (perfect)" becomes "🤖 Bot 1" over "perfect"; a long name breaks at a space
    (else after "_", "-" or ".", else between letters); what still does not fit has its
    later words shortened to initials, or is cut with "…". Returns () when nothing of the
    name can be drawn.
    """
    text = drawable(name)
    if not text:
        return ()
    if _fits(text, width, NAME_SIZE, bold=True):
        return (text,)
    tail = _TAIL.fullmatch(text)
    if tail and _fits(tail[1], width, NAME_SIZE, bold=True):
        return (tail[1], _second_line(tail[2], width, _cut))

    def fits(end: int) -> bool:
        return _fits(text[:end].rstrip(), width, NAME_SIZE, bold=True)

    spaces = [i + 1 for i, ch in enumerate(text) if ch == " " and fits(i + 1)]
    marks = [i + 1 for i, ch in enumerate(text[:-1]) if ch in _SEPARATORS and fits(i + 1)]
    letters = [i for i in _breaks(text) if fits(i)]
    if spaces:
        end = max(spaces)
    elif marks and _advance(text[: max(marks)], NAME_SIZE, bold=True) >= 0.6 * width:
        end = max(marks)  # "a_player_" over "with_a_long_name"
    else:  # one long word: break it where it fills the line
        end = max(letters, default=1)
    head, rest = text[:end].rstrip(), text[end:].lstrip()
    return (head, _second_line(rest, width, _initials)) if rest else (head,)


def _second_line(text: str, width: int, shorten: Callable[..., str]) -> str:
    """A name's second line: whole, condensed if need be (`_second_stretch`), else
    shortened."""
    if _fits(text, width, SIZE, stretch=_CONDENSED):
        return text
    return shorten(text, width, SIZE, bold=False)


def _second_stretch(line: str, width: int) -> int:
    """The font width a name's second line of `name_lines` is drawn in."""
    return 100 if _fits(line, width, SIZE) else _CONDENSED


# --- what the tables say ----------------------------------------------------------------


def number(value: float, lang: str, *, sign: bool = False) -> str:
    """A score as printed in `lang`: as the text shows it, but one decimal at most (a
    picture's columns are narrow)."""
    return text_number(value, lang, sign=sign, places=1)


@dataclass(frozen=True)
class _Cell:
    text: str = ""
    colour: RGB = INK
    bold: bool = False


@dataclass(frozen=True)
class _Column:
    key: str  # a row key, or upper / bonus / lower / extra / banked / total / settlement / rank
    header: str
    cells: tuple[_Cell, ...]  # one per player, in seat order
    sum: bool = False  # a total: shaded and bold


@dataclass(frozen=True)
class _Table:
    key: str  # upper | lower | totals
    columns: tuple[_Column, ...]


def row_cell(card: Card, row: str, lang: str) -> _Cell:
    """A scorecard row as shown: blank while free; a 0 is ✓ when the figure was made (the
    engine says so), else a dash; any other value the number, red when negative."""
    value = card.rows[row]
    if value is None:
        return _Cell()
    if value == 0:
        return _Cell("✓", MADE, bold=True) if card.made(row) else _Cell("—", MUTED)
    return _Cell(number(value, lang), NEGATIVE if value < 0 else INK)


def _sum_cells(values: Iterable[float], lang: str, *, sign: bool = False) -> tuple[_Cell, ...]:
    return tuple(
        _Cell(number(v, lang, sign=sign), NEGATIVE if v < 0 else INK, bold=True) for v in values
    )


def _tables(rules: RuleSet, cards: Sequence[Card], lang: str, final: bool) -> list[_Table]:
    totals = [totals_of(rules, c) for c in cards]

    def rows(part: Sequence[str]) -> list[_Column]:
        return [
            _Column(
                row,
                DIE[FACE[row]] if row in FACE else t(f"image.rows.{row}", lang),
                tuple(row_cell(c, row, lang) for c in cards),
            )
            for row in part
        ]

    def total(key: str, header: str, values: Iterable[float]) -> _Column:
        return _Column(key, header, _sum_cells(values, lang), sum=True)

    upper = rows(rules.upper)
    upper.append(total("upper", t("rows_short.upper", lang), (x.upper for x in totals)))
    if rules.bonus:
        # An unearned bonus stays blank while the upper rows can still earn it.
        earned = _sum_cells((x.bonus for x in totals), lang)
        cells = tuple(
            _Cell() if x.bonus == 0 and not final and c.free(rules.upper) else cell
            for x, c, cell in zip(totals, cards, earned, strict=True)
        )
        upper.append(_Column("bonus", t("rows_short.bonus", lang), cells, sum=True))
    lower = rows(rules.lower)
    lower.append(total("lower", t("rows_short.lower", lang), (x.lower for x in totals)))

    # The totals repeat the part sums, plainly: the total is what stands out there.
    # (`layout` drops them where they do not fit.)
    end = [
        _Column(f"sum.{c.key}", c.header, tuple(replace(x, bold=False) for x in c.cells))
        for c in upper + lower
        if c.sum
    ]
    if rules.joker != "none":
        extra = _sum_cells((c.extra for c in cards), lang)  # the poker bonuses
        end.append(_Column("extra", t("rows_short.extra", lang), extra))
    if rules.banked:
        points = _sum_cells((x.bank_points for x in totals), lang)
        end.append(_Column("banked", t("rows_short.banked", lang), points))
    end.append(total("total", t("image.total", lang), (x.total for x in totals)))
    if final and len(cards) > 1:  # alone, the average is one's own score and the place 1
        standings = standings_of(rules, cards)
        settlement = _sum_cells((s.settlement for s in standings), lang, sign=True)
        end.append(_Column("settlement", t("image.settlement_short", lang), settlement))
        places = tuple(
            _Cell(str(s.rank), GOLD_INK if s.rank == 1 else INK, bold=True) for s in standings
        )
        end.append(_Column("rank", t("image.rank", lang), places))
    return [
        _Table("upper", tuple(upper)),
        _Table("lower", tuple(lower)),
        _Table("totals", tuple(end)),
    ]


# --- layout: what goes where, as a list of drawing items per picture -------------------


@dataclass(frozen=True)
class Box:
    """A rectangle, filled or outlined."""

    box: tuple[int, int, int, int]  # left, top, right, bottom (exclusive)
    fill: RGB | None = None
    outline: RGB | None = None
    line: int = 1


@dataclass(frozen=True)
class Label:
    """A piece of text, drawn from its cached stamp (glyph-checked, shapes included)."""

    text: str
    x: int  # the ink's left edge
    y: int  # the baseline
    colour: RGB
    size: int = SIZE
    bold: bool = False
    stretch: int = 100  # the font's width: under 100 condensed

    @property
    def ink(self) -> tuple[int, int, int, int]:
        """The box the label's ink covers, in picture pixels."""
        stamp = _stamp(self.text, self.size, self.bold, self.stretch)
        top = self.y + stamp.dy
        return (self.x, top, self.x + stamp.mask.width, top + stamp.mask.height)


@dataclass(frozen=True)
class Page:
    """One picture: its size and what is drawn on it, in order."""

    width: int
    height: int
    items: tuple[Box | Label, ...]
    tables: tuple[str, ...] = ()  # which tables it holds (upper, lower, totals)
    name_w: int = 0  # the name column's width


@dataclass(frozen=True)
class _Seat:
    lines: tuple[str, ...]
    colour: RGB
    height: int
    winner: bool
    stretch: int = 100  # the second line's font width


def _centred(text: str, cx: int, cy: int, colour: RGB, *, bold: bool, stretch: int) -> Label:  # noqa: PLR0913 - a label's text, place, colour and style
    """A label whose ink is centred on cx and whose digits are centred on cy."""
    stamp = _stamp(text, SIZE, bold, stretch)
    x = cx - stamp.mask.width // 2
    return Label(text, x, cy + round(SIZE * 0.36), colour, SIZE, bold, stretch)


def text_at(  # noqa: PLR0913 - a label's text, place, colour and style
    text: str,
    x: int,
    baseline: int,
    colour: RGB,
    *,
    bold: bool = False,
    size: int = SIZE,
    stretch: int = 100,
) -> Label:
    """A label whose text starts at x on the baseline (its ink may start a little right)."""
    dx = _stamp(text, size, bold, stretch).dx
    return Label(text, x + dx, baseline, colour, size, bold, stretch)


def _column_widths(table: _Table, squeeze: _Squeeze) -> list[int]:
    widths = []
    for col in table.columns:
        texts = [(col.header, True)] + [(c.text, c.bold) for c in col.cells if c.text]
        widths.append(
            max(
                squeeze.col_min,
                *(_width(s, bold=b, stretch=squeeze.stretch) + 2 * squeeze.pad for s, b in texts),
            )
        )
    return widths


def _draw_table(  # noqa: PLR0913 - the parts `layout` measured once
    table: _Table,
    widths: list[int],
    name_w: int,
    seats: Sequence[tuple[int, _Seat]],
    top: int,
    stretch: int,
) -> list[Box | Label]:
    """One table: a dark header of column labels, then a row per seat."""
    x0, right = MARGIN, WIDTH - MARGIN
    lefts = [x0 + name_w + sum(widths[:i]) for i in range(len(widths))]
    items: list[Box | Label] = [Box((x0, top, right, top + HEAD_H), HEAD)]
    for col, left, w in zip(table.columns, lefts, widths, strict=True):
        cy = top + HEAD_H // 2
        items.append(_centred(col.header, left + w // 2, cy, HEAD_INK, bold=True, stretch=stretch))
    y = top + HEAD_H
    for n, (index, seat) in enumerate(seats):
        bottom = y + seat.height
        if seat.winner:
            items.append(Box((x0, y, right, bottom), WINNER))
        elif n % 2:
            items.append(Box((x0, y, right, bottom), STRIPE))
        for col, left, w in zip(table.columns, lefts, widths, strict=True):
            if col.sum and not seat.winner:
                items.append(Box((left, y, left + w, bottom), SUBTOTAL))
        # The name: one line centred in the row, or two with the second one smaller.
        if len(seat.lines) == 1:
            base = y + seat.height // 2 + round(NAME_SIZE * 0.36)
            name = text_at(seat.lines[0], x0 + PAD, base, seat.colour, bold=True, size=NAME_SIZE)
            items.append(name)
        else:
            # Baselines LINE_PITCH apart: a Devanagari mark below the first line stays
            # clear of one above the second.
            base = y + (seat.height - LINE_PITCH) // 2 + round(NAME_SIZE * 0.36)
            name = text_at(seat.lines[0], x0 + PAD, base, seat.colour, bold=True, size=NAME_SIZE)
            items.append(name)
            second = base + LINE_PITCH
            line = text_at(seat.lines[1], x0 + PAD, second, seat.colour, stretch=seat.stretch)
            items.append(line)
        mid = y + (ROW_H // 2 if len(seat.lines) == 1 else seat.height // 2)
        for col, left, w in zip(table.columns, lefts, widths, strict=True):
            cell = col.cells[index]
            if cell.text:
                label = _centred(
                    cell.text, left + w // 2, mid, cell.colour, bold=cell.bold, stretch=stretch
                )
                items.append(label)
        items.append(Box((x0, bottom - 1, right, bottom), GRID))
        y = bottom
    items.extend(Box((left, top + HEAD_H, left + 1, y), GRID) for left in lefts)
    items.append(Box((x0, top, right, y), outline=HEAD, line=2))
    return items


def layout(  # noqa: PLR0912 - the page's parts, in drawing order
    rules: RuleSet,
    players: Sequence[tuple[str, Card]],
    lang: str,
    *,
    title: str,
    final: bool = False,
) -> list[Page]:
    """The pictures of `scorecard_pngs`, as sizes and drawing items (tests measure them)."""
    if not players:
        raise ValueError("a scorecard needs at least one player")
    cards = [card for _, card in players]
    full: list[_Table] | None = _tables(rules, cards, lang, final)
    # Every table spans the picture with the same name column: what the widest leaves.
    # When that is too narrow, the numbers are condensed (same height, narrower); when
    # even that leaves too little, the widest table of rows is cut in two (long labels:
    # Hindi's words), and so on.
    while full is not None:
        for squeeze in SQUEEZES:
            tables, widths = _set(full, squeeze)
            name_w = WIDTH - 2 * MARGIN - max(sum(w) for w in widths)
            if name_w >= NAME_MIN:
                break
        full = None if name_w >= NAME_MIN else _halved(full)
    if squeeze != SQUEEZES[0]:
        name_w = min(name_w, NAME_MIN)  # what squeezing won goes to the numbers' spacing
    for w in widths:
        spare = WIDTH - 2 * MARGIN - name_w - sum(w)
        for i in range(len(w)):
            w[i] += spare // len(w) + (1 if i < spare % len(w) else 0)

    ranked = final and len(cards) > 1
    winners = {s.name for s in standings_of(rules, cards) if s.rank == 1} if ranked else set()
    seats = []
    for n, (name, card) in enumerate(players, start=1):
        lines = name_lines(name, name_w - 2 * PAD) or (t("image.seat", lang, n=n),)
        if card.left and len(lines) == 1:
            lines = (*lines, _cut(t("card.left", lang), name_w - 2 * PAD, SIZE))
        colour = GOLD_INK if card.name in winners else MUTED if card.left else INK
        height = ROW_H if len(lines) == 1 else ROW_H2
        stretch = _second_stretch(lines[1], name_w - 2 * PAD) if len(lines) > 1 else 100
        seats.append(_Seat(lines, colour, height, card.name in winners, stretch))

    heading = title_lines(title, WIDTH - 2 * MARGIN - 2 * PAD) if title else ()
    groups = _pack(len(tables), [s.height for s in seats], TITLE_H * len(heading))
    pages = []
    for p, group in enumerate(groups):
        items: list[Box | Label] = []
        y = MARGIN
        for line in heading if p == 0 else ():
            base = y + TITLE_H // 2 + round(NAME_SIZE * 0.36)
            items.append(text_at(line, MARGIN + PAD, base, INK, bold=True, size=NAME_SIZE))
            y += TITLE_H
        for k, (i, part) in enumerate(group):
            if k:
                y += GAP
            shown = [(j, seats[j]) for j in part]
            items.extend(_draw_table(tables[i], widths[i], name_w, shown, y, squeeze.stretch))
            y += HEAD_H + sum(s.height for _, s in shown)
        pages.append(
            Page(WIDTH, y + MARGIN, tuple(items), tuple(tables[i].key for i, _ in group), name_w)
        )
    return pages


def title_lines(title: str, width: int) -> tuple[str, ...]:
    """The title in one line of `width` pixels, else two broken after a " · " (the rest
    cut with "…"): "Scorecard · classic · game #12" over "round 3"."""
    text = drawable(title)
    if _fits(text, width, NAME_SIZE, bold=True):
        return (text,)
    parts = text.split(" · ")
    for n in range(len(parts) - 1, 0, -1):
        head = " · ".join(parts[:n])
        if _fits(head, width, NAME_SIZE, bold=True):
            return (head, _cut(" · ".join(parts[n:]), width, NAME_SIZE, bold=True))
    return (_cut(text, width, NAME_SIZE, bold=True),)


def _pack(tables: int, rows: Sequence[int], title_h: int) -> list[list[tuple[int, range]]]:
    """Which tables (and which of their rows) each picture holds, the title atop the first.

    Tables of `rows` heights stack into a picture up to PAGE_H; one too tall even alone
    is split into pictures of even runs of rows, which nothing joins.
    """
    every = range(len(rows))
    height = HEAD_H + sum(rows)
    groups: list[list[tuple[int, range]]] = []
    used = 0  # the last picture's height without its margins
    for i in range(tables):
        head = 0 if groups else title_h
        if groups and used + GAP + height + 2 * MARGIN <= PAGE_H:
            groups[-1].append((i, every))
            used += GAP + height
        elif head + height + 2 * MARGIN <= PAGE_H:
            groups.append([(i, every)])
            used = head + height
        else:
            groups.extend([(i, part)] for part in _split(rows, PAGE_H - 2 * MARGIN - HEAD_H - head))
            used = PAGE_H
    return groups


def _set(full: Sequence[_Table], squeeze: _Squeeze) -> tuple[list[_Table], list[list[int]]]:
    """The tables (rows…, then the totals) as `squeeze` sets them, and their columns'
    widths."""
    *body, end = full
    if squeeze.sums:
        tables = [*body, end]
        widths = [_column_widths(tb, squeeze) for tb in tables]
        if sum(widths[-1]) > max(sum(w) for w in widths[:-1]):
            # The totals repeat the part sums only where that costs the names nothing.
            tables[-1] = _keep(end, lambda c: not c.key.startswith("sum."))
            widths[-1] = _column_widths(tables[-1], squeeze)
    else:
        tables = [*(_keep(tb, lambda c: not c.sum) for tb in body), end]
        widths = [_column_widths(tb, squeeze) for tb in tables]
    return tables, widths


def _halved(full: Sequence[_Table]) -> list[_Table] | None:
    """`full` with its widest table of rows (set as tightly as it can be) cut in two, its
    sums with the second half; None when that one has not four rows to cut."""
    *body, end = full
    tightest = SQUEEZES[-1]
    widest = max(range(len(body)), key=lambda i: sum(_column_widths(body[i], tightest)))
    table = body[widest]
    rows = [c for c in table.columns if not c.sum]
    if len(rows) < 4:
        return None
    half = (len(rows) + 1) // 2
    sums = tuple(c for c in table.columns if c.sum)
    parts = [_Table(table.key, tuple(rows[:half])), _Table(table.key, (*rows[half:], *sums))]
    return [*body[:widest], *parts, *body[widest + 1 :], end]


def _keep(table: _Table, keep: Callable[[_Column], bool]) -> _Table:
    return _Table(table.key, tuple(c for c in table.columns if keep(c)))


def _split(rows: Sequence[int], room: int) -> list[range]:
    """The rows (their heights) in as few consecutive, even runs as fit `room` px each."""
    for parts in range(2, len(rows) + 1):
        size = -(-len(rows) // parts)
        runs = [range(a, min(a + size, len(rows))) for a in range(0, len(rows), size)]
        if all(sum(rows[j] for j in run) <= room for run in runs):
            return runs
    return [range(j, j + 1) for j in range(len(rows))]


# A picture is painted straight in a palette: every colour it paints, and for each ink on
# each fill the shades between them (a text's anti-aliased edge). Mapping a painted RGB
# picture to a palette afterwards was half a picture's time, and a fixed palette's
# lookup is inexact; painted indices are exact by construction.
COLOURS = (PAPER, INK, MUTED, GRID, STRIPE, SUBTOTAL, HEAD, HEAD_INK, NEGATIVE, MADE, WINNER,
           GOLD, GOLD_INK)  # fmt: skip
FILLS = (PAPER, STRIPE, SUBTOTAL, HEAD, WINNER)  # what text is painted on
INKS = (INK, MUTED, HEAD_INK, GOLD_INK, NEGATIVE, MADE)  # what text is painted in
LEVELS = 9  # an edge's steps from fill to ink: 13 + 5 × 6 × 8 entries fit PNG's 256


def _blend(fill: RGB, ink: RGB, share: float) -> RGB:
    r, g, b = (round(f + (i - f) * share) for f, i in zip(fill, ink, strict=True))
    return r, g, b


def _palette() -> tuple[list[int], dict[RGB, int], dict[tuple[RGB, RGB], list[int]], list[RGB]]:
    entries = list(COLOURS)
    index = {c: i for i, c in enumerate(COLOURS)}
    ramps: dict[tuple[RGB, RGB], list[int]] = {}
    fill_of = list(COLOURS)
    for fill in FILLS:
        for ink in INKS:
            ramp = [index[fill]]
            for k in range(1, LEVELS):
                ramp.append(len(entries))
                entries.append(_blend(fill, ink, k / LEVELS))
                fill_of.append(fill)
            ramps[fill, ink] = [*ramp, index[ink]]
    return [v for e in entries for v in e], index, ramps, fill_of


_PALETTE, _INDEX, _RAMPS, _FILL_OF = _palette()
_SOLID = [0] + [255] * 255  # where a stamp has any ink


@lru_cache(maxsize=4096)
def _tile(
    style: tuple[str, int, bool, int], ink: RGB, fill: RGB
) -> tuple[Image.Image, Image.Image]:
    """A stamp (`style`: text, size, bold, stretch) in palette indices, `ink` over `fill`,
    and the mask of its ink."""
    mask = _stamp(*style).mask
    ramp = _RAMPS.get((fill, ink)) or _RAMPS[PAPER, ink]
    shades = mask.point([ramp[(v * LEVELS + 127) // 255] for v in range(256)])
    return Image.frombytes("P", mask.size, shades.tobytes()), mask.point(_SOLID)


def paint(page: Page) -> Image.Image:
    """The picture of `page` (palette mode): its boxes and labels drawn in order on paper;
    a label's edges are shaded towards the fill found at its ink's corner."""
    image = Image.new("P", (page.width, page.height), _INDEX[PAPER])
    image.putpalette(_PALETTE)
    draw = ImageDraw.Draw(image)
    for item in page.items:
        if isinstance(item, Box):
            left, top, right, bottom = item.box
            draw.rectangle(
                [left, top, right - 1, bottom - 1],
                fill=None if item.fill is None else _INDEX[item.fill],
                outline=None if item.outline is None else _INDEX[item.outline],
                width=item.line,
            )
        else:
            stamp = _stamp(item.text, item.size, item.bold, item.stretch)
            x, y = item.x, item.y + stamp.dy
            corner = (min(max(x, 0), page.width - 1), min(max(y, 0), page.height - 1))
            under = image.getpixel(corner)
            fill = _FILL_OF[under] if isinstance(under, int) else PAPER
            tile, ink = _tile((item.text, item.size, item.bold, item.stretch), item.colour, fill)
            image.paste(tile, (x, y, x + tile.width, y + tile.height), ink)
    return image


def encode(image: Image.Image) -> bytes:
    """`image` (painted: palette mode, a byte a pixel) as PNG bytes."""
    out = io.BytesIO()
    # Level 1 keeps encoding well inside the time budget; a flat-coloured table still
    # compresses to a few tens of kilobytes.
    image.save(out, "PNG", compress_level=1)
    return out.getvalue()


def scorecard_pngs(
    rules: RuleSet,
    players: Sequence[tuple[str, Card]],
    lang: str,
    *,
    title: str = "",
    final: bool = False,
) -> list[bytes]:
    """The scorecards of `players` (display name, card) in seat order as PNG pictures, in
    display order: the upper rows, the lower rows and the totals, as few pictures as keep
    them legible on a phone (one for up to two or three players, three to five for
    eight; more when long names take two lines).

    Attach each to its own embed (a message carries up to ten): `title` (if any) heads
    the first. Row labels come from the catalog of `lang`; when `final`, each player's
    result against the average and place are added and the winners' rows are gold (not
    for one player alone: a solo game or a daily has no one to be placed against).
    """
    return [encode(paint(page)) for page in layout(rules, players, lang, title=title, final=final)]


def warm_up() -> None:
    """Load the fonts, lay out a line of each script and encode a PNG once, at start-up.

    FreeType and raqm read a variable font's tables lazily and Pillow imports its PNG
    writer on first use, so the first pictures of a process would otherwise take about
    100 ms more than the next ones.
    """
    sample = "0123456789 −+—…. Total Итого Față जोड़ी संभावना"
    # Names and titles are never condensed, numbers and labels may be.
    fonts = [(NAME_SIZE, 100), (SIZE, 100)]
    fonts += [(SIZE, stretch) for stretch in sorted({s.stretch for s in SQUEEZES})]
    for weight in (_REGULAR, _BOLD):
        for devanagari in (False, True):
            for size, stretch in fonts:
                font = _font(size, weight, devanagari, stretch)
                font.getbbox(sample)
                font.getmask(sample)
    for text in sample.split():  # and the glyph probes
        for ch in text:
            has_glyph(ch)
            has_glyph(ch, devanagari=True)
    for ch in SHAPES:
        _stamp(ch)
    for lang in LANGUAGES:  # every label a picture can show, in every language
        for key, text in catalog(lang).items():
            if key.startswith(("rows_short.", "image.")) and "{" not in text:
                _stamp(text, SIZE, bold=True)
    Image.new("RGB", (1, 1)).save(io.BytesIO(), "PNG")


# --- the picture of a game ------------------------------------------------------------

FILENAME = "scorecard.png"


def picture_title(
    game: Game, game_id: int, lang: str, *, final: bool, round_no: int | None = None
) -> str:
    """The first picture's heading; `round_no` as in `scorecard_embed` (the round just
    played, when a turn's summary shows the card)."""
    rules = t(f"commands.choices.{game.rules.name}", lang)  # the name players know it by
    if final:
        key = "image.titles.final" if len(game.cards) > 1 else "image.solo.title"
        return t(key, lang, rules=rules, game=game_id)
    shown = game.round if round_no is None else round_no
    return t("image.titles.running", lang, rules=rules, game=game_id, round=shown)


def game_pngs(  # noqa: PLR0913 - the game, its names and id, and how it is shown
    game: Game,
    names: Mapping[str, str],
    game_id: int,
    lang: str,
    *,
    final: bool = False,
    round_no: int | None = None,
) -> list[bytes]:
    """The pictures of every card in seat order (what a game message attaches: one
    embed each, so every picture fits a phone's embed box)."""
    return scorecard_pngs(
        game.rules,
        [(names.get(c.name, c.name), c) for c in game.cards],
        lang,
        title=picture_title(game, game_id, lang, final=final, round_no=round_no),
        final=final,
    )
