"""The daily's embeds in every language: within Discord's limits, names escaped, no dice
in the public line."""

from __future__ import annotations

import re
from datetime import date

import pytest

from bot.engine import Game
from bot.i18n import LANGUAGES, catalog
from bot.records import DailyBest, DailyBoard, DailyLine
from bot.render.daily import Analysed, Report, board_embed, public_line, report_embed
from bot.render.embed import length

DAY = date(2026, 1, 1)
LONG = "@everyone **Ann** " + "ж" * 80
UNESCAPED = re.compile(r"(?<!\\)@everyone")  # a mention that would ping


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_board_fits_and_escapes(lang: str) -> None:
    game = Game.new("yatzy", [str(n) for n in range(1, 5)])
    rows = [DailyLine(n, n, n, f"{LONG}{n}", 300 - n, 40 + n, None, n) for n in range(1, 11)]
    names = {str(n): f"{LONG}{n}" for n in range(1, 5)}
    me = DailyLine(9_999, 9_999, 99, LONG, 12, 1, None, 99)
    board = DailyBoard(1, "yatzy", DAY, 10_000, rows, me)
    for hidden in (True, False):
        data = board_embed(
            board, 99, names, lang, best=DailyBest(488, True),
            cards=None if hidden else game, cards_hidden=hidden,
        ).to_dict()  # fmt: skip
        assert length(data) <= 6000
        assert len(data["description"]) <= 4096
        assert not UNESCAPED.search(data["description"])
        assert bool(data.get("fields")) is not hidden
        if not hidden:
            assert len(data["fields"][0]["value"]) <= 1024


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_report_and_the_public_line(lang: str) -> None:
    for analysed in (Analysed(1.234, 45), Analysed(None, reason="banked"), Analysed(None)):
        for best in (None, 250, 300):
            report = Report("classic", DAY, 250, 3, 40, analysed, best, True)
            data = report_embed(report, lang).to_dict()
            assert length(data) <= 6000
            if lang != "en":
                assert data["description"] != report_embed(report, "en").to_dict()["description"]
    line = public_line(LONG, "banked", 250, 3, 40, 1.5, lang)
    assert len(line) <= 2000
    assert not UNESCAPED.search(line)
    assert not any(face in line for face in "⚀⚁⚂⚃⚄⚅")
    assert catalog(lang)["daily.public_loss"].split("{")[0] in line
