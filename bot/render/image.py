"""The scorecard as a PNG picture: rows × players, totals, bonus, and the result when final.

A picture reads better than a code-block table on a phone, and it can show Devanagari and
Cyrillic row names at full width. Fonts come from installed packages (Noto Sans for Latin and
Cyrillic, Noto Sans Devanagari for Hindi); nothing is downloaded at run time. Pillow's raqm
layout (bundled in its wheels, with the system's fribidi) shapes Devanagari conjuncts and
vowel signs; without raqm Pillow falls back to its basic layout, which draws the letters in
logical order and misplaces some vowel signs, so `SHAPING` says which one is in use.
"""

from __future__ import annotations

import io
import logging
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache

import fontpkg
from PIL import Image, ImageDraw, ImageFont, features

from bot.engine import FACE, Card, Game, RuleSet, standings_of, totals_of
from bot.i18n import LANGUAGES, catalog, rules_name, t

log = logging.getLogger(__name__)

SHAPING = "raqm" if features.check("raqm") else "basic"

# Sizes in pixels. Discord shows an embed image about 400–550 px wide, so a two-player card
# (~450 px) shows at full size and an eight-player one (~1000 px) is scaled down a little.
SIZE = 19
TITLE_SIZE = 23
ROW_H = 30
PAD = 12  # inside a cell
MARGIN = 14  # around the table
NAME_MAX = 150  # a player's column never grows past this; longer names get "…"
COL_MIN = 64
TITLE_MAX = 640  # a longer title is cut with "…" rather than widen the picture

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
GOLD = (196, 150, 20)

_REGULAR, _BOLD = 400, 700


def _is_devanagari(ch: str) -> bool:
    return "\u0900" <= ch <= "\u097f" or "\ua8e0" <= ch <= "\ua8ff"


@cache
def _font(size: int, weight: int, devanagari: bool) -> ImageFont.FreeTypeFont:
    family = "Noto Sans Devanagari" if devanagari else "Noto Sans"
    # Only Devanagari needs shaping; Pillow's basic layout is about three times faster and
    # draws Latin and Cyrillic the same, which keeps a picture inside its time budget.
    layout = ImageFont.Layout.RAQM if devanagari and SHAPING == "raqm" else ImageFont.Layout.BASIC
    font = ImageFont.truetype(str(fontpkg.path(family)), size, layout_engine=layout)
    # The packaged fonts are variable; axes are (weight, width) in the font's order.
    axes = {a["name"]: a["default"] for a in font.get_variation_axes()}
    axes[b"Weight"] = weight
    font.set_variation_by_axes(list(axes.values()))
    return font


def font_for(text: str, size: int = SIZE, *, bold: bool = False) -> ImageFont.FreeTypeFont:
    """Noto Sans Devanagari (which also has Latin) for text with Devanagari, else Noto Sans."""
    return _font(size, _BOLD if bold else _REGULAR, any(map(_is_devanagari, text)))


def warm_up() -> None:
    """Load the fonts, lay out a line of each script and encode a PNG once, at start-up.

    FreeType and raqm read a variable font's tables lazily and Pillow imports its PNG
    writer on first use, so the first picture of a process would otherwise take about
    100 ms more than the next ones.
    """
    sample = "0123456789 −+—… Total Итого Față जोड़ी संभावना"
    for weight in (_REGULAR, _BOLD):
        for devanagari in (False, True):
            for size in (SIZE, TITLE_SIZE):
                _font(size, weight, devanagari).getmask(sample)
    for lang in LANGUAGES:  # every row label a picture can show, in every language
        for key, text in catalog(lang).items():
            if key.startswith(("rows.", "image.")) and "{" not in text:
                for bold in (False, True):
                    _stamp(text, SIZE, bold)
    Image.new("RGB", (1, 1)).save(io.BytesIO(), "PNG")


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


@lru_cache(maxsize=4096)
def _stamp(text: str, size: int = SIZE, bold: bool = False) -> _Stamp:
    # Scorecards repeat the same labels and numbers over and over: laying out each string
    # once and pasting its mask is what keeps an eight-player card well under 50 ms.
    font = font_for(text, size, bold=bold)
    left, top, right, bottom = (int(v) for v in font.getbbox(text, anchor="ls"))
    mask = Image.new("L", (max(1, right - left), max(1, bottom - top)))
    ImageDraw.Draw(mask).text((-left, -top), text, font=font, fill=255, anchor="ls")
    return _Stamp(mask, left, top)


def _width(text: str, size: int = SIZE, *, bold: bool = False) -> int:
    return _stamp(text, size, bold).right


def _text(
    image: Image.Image,
    xy: tuple[int, int],
    text: str,
    colour: tuple[int, int, int],
    *,
    size: int = SIZE,
    bold: bool = False,
    centre: bool = True,
) -> None:
    """Draw `text` centred on xy, or starting at xy[0] when not `centre`.

    Text sits on a common baseline rather than on each font's own middle: Noto Sans
    Devanagari's taller ascender would otherwise lift Hindi labels above the numbers.
    """
    stamp = _stamp(text, size, bold)
    x = xy[0] - stamp.mask.width // 2 if centre else xy[0] + stamp.dx
    y = xy[1] + round(size * 0.36) + stamp.dy
    image.paste(colour, (x, y, x + stamp.mask.width, y + stamp.mask.height), stamp.mask)


def _fit(text: str, width: int, size: int = SIZE, *, bold: bool = False) -> str:
    """`text` cut with "…" so that it fits `width` pixels."""
    font = font_for(text, size, bold=bold)  # measured directly: prefixes are not worth caching
    if font.getlength(text) <= width:
        return text
    while text and font.getlength(text + "…") > width:
        text = text[:-1]
    return text.rstrip() + "…"


def number(value: float, *, sign: bool = False) -> str:
    """A score as printed: a true minus sign, `+` when asked, one decimal only when needed."""
    text = f"{abs(value):.0f}" if float(value).is_integer() else f"{abs(value):.1f}"
    if value < 0:
        return "−" + text
    return ("+" if sign and value > 0 else "") + text


@dataclass(frozen=True)
class _Cell:
    text: str = ""
    colour: tuple[int, int, int] = INK
    bold: bool = False
    check: bool = False  # draw a check mark (a made figure worth 0)


@dataclass(frozen=True)
class _Row:
    label: str
    cells: tuple[_Cell, ...]
    kind: str = "row"  # row | subtotal | total | result


def _row_cell(rules: RuleSet, row: str, value: int | None) -> _Cell:
    if value is None:
        return _Cell()
    if value == 0:
        # Classic and banked upper rows score 0 for exactly three (or more) dice: a made
        # figure, shown as a check mark; any other 0 is a scratch, shown as a dash.
        if row in FACE and rules.upper_value(FACE[row], 3) == 0:
            return _Cell(check=True)
        return _Cell("—", MUTED)
    return _Cell(number(value), NEGATIVE if value < 0 else INK)


def _upper_done(rules: RuleSet, card: Card) -> bool:
    return all(card.rows[r] is not None for r in rules.upper)


def _rows(
    rules: RuleSet, players: Sequence[tuple[str, Card]], lang: str, final: bool
) -> list[_Row]:
    cards = [card for _, card in players]
    totals = [totals_of(rules, c) for c in cards]

    def line(key: str, values: Sequence[float], kind: str, *, sign: bool = False) -> _Row:
        cells = tuple(
            _Cell(number(v, sign=sign), NEGATIVE if v < 0 else INK, bold=kind != "row")
            for v in values
        )
        return _Row(t(f"image.{key}", lang), cells, kind)

    out: list[_Row] = []
    for part in (rules.upper, rules.lower):
        out.extend(
            _Row(t(f"rows.{row}", lang), tuple(_row_cell(rules, row, c.rows[row]) for c in cards))
            for row in part
        )
        if part == rules.upper:
            out.append(line("upper", [x.upper for x in totals], "subtotal"))
            if rules.bonus:
                # An unearned bonus stays blank while the upper rows can still earn it.
                bonus = line("bonus", [x.bonus for x in totals], "subtotal")
                cells = tuple(
                    _Cell() if x.bonus == 0 and not final and not _upper_done(rules, c) else cell
                    for x, c, cell in zip(totals, cards, bonus.cells, strict=True)
                )
                out.append(_Row(bonus.label, cells, bonus.kind))
        else:
            out.append(line("lower", [x.lower for x in totals], "subtotal"))
    if rules.joker != "none":
        out.append(line("poker_bonus", [c.extra for c in cards], "subtotal"))
    if rules.banked:
        out.append(line("banked", [3 * x.banked for x in totals], "subtotal"))
    out.append(line("total", [x.total for x in totals], "total"))
    if final:
        standings = standings_of(rules, cards)
        out.append(line("settlement", [s.settlement for s in standings], "result", sign=True))
        out.append(
            _Row(
                t("image.rank", lang),
                tuple(
                    _Cell(str(s.rank), GOLD if s.rank == 1 else INK, bold=True) for s in standings
                ),
                "result",
            )
        )
    return out


def _draw_check(draw: ImageDraw.ImageDraw, cx: int, cy: int) -> None:
    s = SIZE * 0.32
    points = [(cx - s, cy), (cx - s * 0.3, cy + s * 0.7), (cx + s, cy - s * 0.8)]
    draw.line(points, fill=MADE, width=3, joint="curve")


@dataclass(frozen=True)
class _Block:
    """One table of the picture: a label column and one column per player."""

    rows: list[_Row]
    label_w: int

    @classmethod
    def of(cls, rows: list[_Row]) -> _Block:
        widest = max(_width(r.label, bold=r.kind != "row") for r in rows)
        return cls(rows, int(widest) + 2 * PAD)


def _layout(
    rules: RuleSet, rows: list[_Row], col_w: list[int], title_w: int
) -> tuple[list[_Block], int, int]:
    """The blocks and the picture's (width, height): one tall table, or two side by side.

    Discord shows an embed image inside a box about 4:3 and shrinks anything else to fit,
    so a two-player card (tall and narrow as one table) is drawn as two tables side by
    side, upper rows left and lower rows right; a wide table of many players stays one.
    """
    split = len(rules.upper) + 1 + (1 if rules.bonus else 0)  # upper rows, total, bonus
    options = [[_Block.of(rows)], [_Block.of(rows[:split]), _Block.of(rows[split:])]]
    best: tuple[float, list[_Block], int, int] | None = None
    for blocks in options:
        tables = [b.label_w + sum(col_w) for b in blocks]
        width = max(sum(tables) + MARGIN * (len(blocks) - 1), title_w) + 2 * MARGIN
        height = 2 * MARGIN + TITLE_SIZE + 2 * PAD + ROW_H * (1 + max(len(b.rows) for b in blocks))
        score = abs(math.log(width / height / (4 / 3)))
        if best is None or score < best[0]:
            best = (score, blocks, width, height)
    assert best is not None
    return best[1], best[2], best[3]


def scorecard_png(
    rules: RuleSet,
    players: list[tuple[str, Card]],
    lang: str,
    *,
    title: str,
    final: bool = False,
) -> bytes:
    """The scorecards of `players` (display name, card) in seat order as a PNG.

    Row names come from the catalog of `lang`; when `final`, the settlement against the
    average and each player's place are added and the winners' columns are highlighted.
    """
    if not players:
        raise ValueError("a scorecard needs at least one player")
    rows = _rows(rules, players, lang, final)
    names = []
    col_w = []
    for i, (name, _) in enumerate(players):
        shown = _fit(name, NAME_MAX - 2 * PAD, bold=True)
        widest = max(
            [_width(shown, bold=True)] + [_width(r.cells[i].text, bold=True) for r in rows]
        )
        names.append(shown)
        col_w.append(max(COL_MIN, int(widest) + 2 * PAD))
    winners = (
        {i for i, s in enumerate(standings_of(rules, [c for _, c in players])) if s.rank == 1}
        if final
        else set()
    )

    title_w = min(int(_width(title, TITLE_SIZE, bold=True)) + 2 * PAD, TITLE_MAX)
    blocks, width, height = _layout(rules, rows, col_w, title_w)
    image = Image.new("RGB", (width, height), PAPER)
    draw = ImageDraw.Draw(image)

    # Title bar across the picture.
    inner = width - 2 * MARGIN
    title_h = TITLE_SIZE + 2 * PAD
    draw.rectangle([MARGIN, MARGIN, MARGIN + inner - 1, MARGIN + title_h - 1], fill=HEAD)
    _text(
        image,
        (MARGIN + PAD, MARGIN + title_h // 2),
        _fit(title, inner - 2 * PAD, TITLE_SIZE, bold=True),
        HEAD_INK,
        size=TITLE_SIZE,
        bold=True,
        centre=False,
    )

    # Spare width (a long title over a narrow table) goes to the player columns.
    tables = sum(b.label_w + sum(col_w) for b in blocks) + MARGIN * (len(blocks) - 1)
    spare = (inner - tables) // (len(col_w) * len(blocks))
    col_w = [w + spare for w in col_w]
    x = MARGIN
    for block in blocks:
        _draw_block(image, draw, block, (x, MARGIN + title_h), names, col_w, winners)
        x += block.label_w + sum(col_w) + MARGIN

    out = io.BytesIO()
    # Level 1 keeps encoding well inside the time budget; a flat-coloured table still
    # compresses to a few tens of kilobytes.
    image.save(out, "PNG", compress_level=1)
    return out.getvalue()


def _draw_block(
    image: Image.Image,
    draw: ImageDraw.ImageDraw,
    block: _Block,
    origin: tuple[int, int],
    names: list[str],
    col_w: list[int],
    winners: set[int],
) -> None:
    x0, y = origin
    top = y
    label_w, rows = block.label_w, block.rows
    table_w = label_w + sum(col_w)
    lefts = [x0 + label_w + sum(col_w[:i]) for i in range(len(names))]

    # Winners' columns, under everything else.
    for i in winners:
        draw.rectangle(
            [lefts[i], y, lefts[i] + col_w[i] - 1, y + ROW_H * (len(rows) + 1) - 1], fill=WINNER
        )

    # Player names.
    for i, name in enumerate(names):
        colour = GOLD if i in winners else INK
        _text(image, (lefts[i] + col_w[i] // 2, y + ROW_H // 2), name, colour, bold=True)
    y += ROW_H
    draw.line([x0, y - 1, x0 + table_w - 1, y - 1], fill=INK, width=2)

    for n, row in enumerate(rows):
        shade = {"subtotal": SUBTOTAL, "result": SUBTOTAL}.get(row.kind, STRIPE if n % 2 else None)
        if row.kind == "total":
            draw.rectangle([x0, y, x0 + table_w - 1, y + ROW_H - 1], fill=HEAD)
        elif shade is not None:
            draw.rectangle([x0, y, x0 + label_w - 1, y + ROW_H - 1], fill=shade)
            for i in range(len(names)):
                if i not in winners:
                    draw.rectangle(
                        [lefts[i], y, lefts[i] + col_w[i] - 1, y + ROW_H - 1], fill=shade
                    )
        ink = HEAD_INK if row.kind == "total" else INK
        bold = row.kind != "row"
        _text(image, (x0 + PAD, y + ROW_H // 2), row.label, ink, bold=bold, centre=False)
        for i, cell in enumerate(row.cells):
            cx, cy = lefts[i] + col_w[i] // 2, y + ROW_H // 2
            if cell.check:
                _draw_check(draw, cx, cy)
            elif cell.text:
                colour = HEAD_INK if row.kind == "total" else cell.colour
                _text(image, (cx, cy), cell.text, colour, bold=cell.bold)
        y += ROW_H
        draw.line([x0, y - 1, x0 + table_w - 1, y - 1], fill=GRID)

    # Column rules and the frame.
    for left in lefts:
        draw.line([left, top, left, y - 1], fill=GRID)
    draw.rectangle([x0, top, x0 + table_w - 1, y - 1], outline=HEAD, width=2)


# --- the picture of a game ------------------------------------------------------------

FILENAME = "scorecard.png"


def picture_title(game: Game, game_id: int, lang: str, *, final: bool) -> str:
    rules = rules_name(game.rules.name, lang)
    if final:
        return t("image.titles.final", lang, rules=rules, game=game_id)
    return t("image.titles.running", lang, rules=rules, game=game_id, round=game.round)


def game_pngs(
    game: Game, names: Mapping[str, str], game_id: int, lang: str, *, final: bool = False
) -> list[bytes]:
    """The pictures of every card in seat order (what a game message attaches)."""
    return [
        scorecard_png(
            game.rules,
            [(names.get(c.name, c.name), c) for c in game.cards],
            lang,
            title=picture_title(game, game_id, lang, final=final),
            final=final,
        )
    ]
