"""What the daily dice show: a member's private game and report, the public line, the board.

Pure: engine objects and the store's records (`bot.records`) in, `Embed`s and strings out.
The public line and the board's ranking give no dice away (names, totals, places, streaks,
the day's best score); the cards are drawn only when the caller says they may be seen.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date

from bot.engine import Game
from bot.i18n import decimal, rules_name, t
from bot.records import DailyBest, DailyBoard, DailyLine

from .embed import GOLD, Embed, safe
from .text import number, scorecard_table, turn_embed

CARDS_SHOWN = 4  # the board's cards: one table of four columns (narrow enough for a phone)


def day_text(day: date) -> str:
    return day.isoformat()


def header(rules: str, day: date, lang: str) -> str:
    """The first line of the member's private daily message."""
    return t("daily.header", lang, rules=rules_name(rules, lang), day=day_text(day))


def daily_turn_embed(
    game: Game, names: Mapping[str, str], game_id: int, day: date, lang: str
) -> Embed:
    """The turn as a table's turn message shows it, with the daily's footer."""
    embed = turn_embed(game, names, game_id, lang)
    embed.footer = t(
        "daily.footer", lang, rules=rules_name(game.rules.name, lang), day=day_text(day),
        game=game_id,
    )  # fmt: skip
    return embed


@dataclass(frozen=True)
class Analysed:
    """The member's points lost per decision against perfect play (None: not analysed,
    `reason` says why: "banked" or "unavailable")."""

    mean: float | None
    decisions: int | None = None
    reason: str = "unavailable"


@dataclass(frozen=True)
class Report:
    """A finished daily, as the member is told it privately."""

    rules: str
    day: date
    total: int
    rank: int | None  # place so far today in the server
    players: int
    analysed: Analysed
    best: int | None  # the hindsight optimum (None: not worked out yet)
    exact: bool = True


def best_how(exact: bool, lang: str) -> str:
    return t("daily.exact" if exact else "daily.bounded", lang)


def analysis_text(analysed: Analysed, lang: str) -> str:
    if analysed.mean is None:
        key = "daily.analysis_banked" if analysed.reason == "banked" else (
            "daily.analysis_unavailable"
        )
        return t(key, lang)
    mean = decimal(analysed.mean, lang, 2)
    if analysed.decisions is None:
        return t("daily.analysis_mean", lang, mean=mean)
    return t("daily.analysis", lang, mean=mean, decisions=analysed.decisions)


def report_embed(report: Report, lang: str) -> Embed:
    """Score, place so far, the best the dice allowed and how far off, the analysis."""
    lines = [t("daily.score", lang, total=number(report.total, lang))]
    if report.rank is not None:
        lines.append(t("daily.place", lang, rank=report.rank, players=report.players))
    if report.best is None:
        lines.append(t("daily.best_pending", lang))
    else:
        how = best_how(report.exact, lang)
        gap = report.best - report.total
        key = "daily.best" if gap > 0 else "daily.best_reached"
        lines.append(t(key, lang, best=number(report.best, lang), how=how, gap=number(gap, lang)))
    lines.append(analysis_text(report.analysed, lang))
    return Embed(
        title=t("daily.report_title", lang, rules=rules_name(report.rules, lang),
                day=day_text(report.day)),
        description="\n".join(lines),
        colour=GOLD,
    )  # fmt: skip


def public_line(  # noqa: PLR0913 - each fact of the one public line
    name: str, rules: str, total: int, rank: int, players: int, mean: float | None, lang: str
) -> str:
    """The one public line of a finish: no dice, no rows."""
    loss = t("daily.public_loss", lang, mean=decimal(mean, lang, 2)) if mean is not None else ""
    return t(
        "daily.public", lang, name=safe(name), rules=rules_name(rules, lang),
        total=number(total, lang), rank=rank, players=players, loss=loss,
    )  # fmt: skip


# --- the board ------------------------------------------------------------------------------


def _board_line(row: DailyLine, lang: str, *, me: bool) -> str:
    text = t(
        "daily_board.line", lang, rank=row.rank, member=safe(row.name),
        total=number(row.total, lang), streak=row.streak,
    )  # fmt: skip
    return f"__{text}__" if me else text


def board_embed(  # noqa: PLR0913 - the board, its reader and what they may see
    board: DailyBoard,
    member_id: int,
    names: Mapping[str, str],
    lang: str,
    *,
    best: DailyBest | None = None,
    cards: Game | None = None,
    cards_hidden: bool = False,
) -> Embed:
    """The server's ranking of a day's daily, the best score its dice allowed (`best`,
    when worked out) and the first members' cards (`cards`: a game of their cards), unless
    `cards_hidden` (the day is not over and the reader has not played it)."""
    embed = Embed(
        title=t("daily_board.title", lang, rules=rules_name(board.rules, lang),
                day=day_text(board.day)),
        colour=GOLD,
    )  # fmt: skip
    if board.lines:
        lines = [_board_line(r, lang, me=r.player_id == member_id) for r in board.lines]
        if board.me is not None and all(r.player_id != member_id for r in board.lines):
            lines += ["…", _board_line(board.me, lang, me=True)]
    else:
        lines = [t("daily_board.empty", lang)]
    if board.me is None:
        lines += ["", t("daily_board.not_played", lang)]
    lines.append("")
    if best is None:
        lines.append(t("daily_board.best_unknown", lang))
    else:
        how = best_how(best.exact, lang)
        lines.append(t("daily_board.best", lang, best=number(best.score, lang), how=how))
    if cards_hidden and board.lines:
        lines += ["", t("daily_board.cards_hidden", lang)]
    embed.description = "\n".join(lines)
    if cards is not None and not cards_hidden:
        shown = list(cards.cards[:CARDS_SHOWN])
        embed.add_field(
            t("daily_board.cards", lang, n=len(shown)),
            scorecard_table(cards, shown, names, lang),
        )
    embed.footer = t("daily_board.footer", lang, players=board.players)
    return embed


__all__ = [
    "CARDS_SHOWN",
    "Analysed",
    "Report",
    "analysis_text",
    "board_embed",
    "daily_turn_embed",
    "day_text",
    "header",
    "public_line",
    "report_embed",
]
