"""How legible a picture is on a phone, measured.

Legibility is measured, not assumed: each picture is scaled as Discord scales an embed
image on a phone (to fit its box, `image.BOX`: 292 px wide on a 412 px screen, about
300 px high: `min(1, 292 / width, 300 / height)`) and the ink of every number drawn on it
is measured there, as the rows at least half inked. Text that is not a number (names,
their second lines, column labels, the title) is measured by the digits its font draws
at its size: the same picture with every label replaced by "0" set in the label's font,
at its place, scaled and measured the same way.

The floor, `image.MIN_DIGIT_PX` = 10 px: Discord's own body text on a phone has a line
of about 15–16 px, a font of about 12–13 px, digits about 9–10 px high. A score in the
picture must read at least as easily as the message around it; the old pictures' 7 px
did not, nor their 8.8 px once measured at the 292 px a phone really gives them. (The
scorecards' text is 10–11 px there.)
"""

from __future__ import annotations

import io
import math
import re
from dataclasses import replace

import numpy as np
from PIL import Image

from bot.render.image import BOX, HEAD_INK, INK, Label, Page, encode, paint


def decode(png: bytes) -> Image.Image:
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    img = Image.open(io.BytesIO(png))
    img.verify()  # checks the chunks' CRCs; the image must be reopened afterwards
    img = Image.open(io.BytesIO(png))
    img.load()
    assert img.format == "PNG"
    return img


def labels(page: Page) -> list[Label]:
    return [item for item in page.items if isinstance(item, Label)]


DIGITS = re.compile(r"[-+]?\d+([.,]\d)?")  # 21.5, or 21,5 in ru and ro


def digit_heights(png: bytes, page: Page, box: tuple[int, int] = BOX) -> list[int]:
    """The ink height, in px as a phone shows the picture (in `box`), of every number in
    its tables."""
    img = decode(png).convert("RGB")
    assert img.size == (page.width, page.height)
    scale = min(1.0, box[0] / img.width, box[1] / img.height)
    shown = img.resize(
        (round(img.width * scale), round(img.height * scale)), Image.Resampling.LANCZOS
    )
    luma = np.asarray(shown.convert("L"), dtype=float)
    heights = []
    for label in labels(page):
        if not DIGITS.fullmatch(label.text) or label.colour == HEAD_INK:
            continue  # only the numbers of the table's body (dark on light)
        left, top, right, bottom = label.ink
        patch = luma[
            max(0, math.floor(top * scale) - 2) : math.ceil(bottom * scale) + 2,
            max(0, math.floor(left * scale) - 1) : math.ceil(right * scale) + 1,
        ]
        r, g, b = label.colour
        ink = (299 * r + 587 * g + 114 * b) / 1000
        # A row of the scaled picture is ink where its darkest pixel is at least half-way
        # from the background to the text's colour.
        rows = np.nonzero(patch.min(axis=1) <= (patch.max() + ink) / 2)[0]
        heights.append(int(rows[-1] - rows[0] + 1))
    return heights


def text_heights(page: Page) -> list[tuple[str, int]]:
    """(text, px) for every label of `page`: the height, as a phone shows the picture, of
    the digits the label's font (size, weight, width) draws, at the label's place."""
    twins = tuple(replace(label, text="0", colour=INK) for label in labels(page))
    twin = Page(page.width, page.height, twins)
    heights = digit_heights(encode(paint(twin)), twin)
    return [(label.text, h) for label, h in zip(labels(page), heights, strict=True)]
