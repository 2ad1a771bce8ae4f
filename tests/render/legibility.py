"""How legible a picture is on a phone, measured.

Legibility is measured, not assumed: each picture is scaled as Discord scales an embed
image on a phone (to fit 400 × 300 px, `min(1, 400 / width, 300 / height)`) and the ink
of every number drawn on it is measured there, as the rows at least half inked.

The floor, `image.MIN_DIGIT_PX` = 10 px: Discord's own body text on a phone has a line
of about 15–16 px, a font of about 12–13 px, digits about 9–10 px high. A score in the
picture must read at least as easily as the message around it; the old pictures' 7 px
did not. (The pictures aim higher: 11–12 px, 10 px only for eight two-line names.)
"""

from __future__ import annotations

import io
import math
import re

import numpy as np
from PIL import Image

from bot.render.image import BOX, HEAD_INK, Label, Page


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
