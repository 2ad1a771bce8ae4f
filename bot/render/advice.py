"""Perfect-play advice in words: the hint and the post-game analysis (pure)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from bot.engine import Game
from bot.i18n import decimal, rules_name, t
from bot.strategy import Decision, Hold, PassTurn, Record
from bot.strategy.analysis import Proficiency

from .embed import YELLOW, Embed, safe

BEST = 0.005  # a loss below this is rounding: the choice was the best one


def describe(decision: Decision, game: Game, lang: str) -> str:
    """A decision in words, for the dice `game` shows."""
    if isinstance(decision, Record):
        return t("hint.record", lang, row=t(f"rows.{decision.row}", lang))
    if isinstance(decision, PassTurn):
        return t("hint.pass", lang)
    if not game.dice:
        return t("hint.throw", lang)
    assert isinstance(decision, Hold)
    if not decision.positions:
        return t("hint.reroll_all", lang)
    dice = " ".join(str(game.dice[p]) for p in sorted(decision.positions))
    if len(decision.positions) == len(game.dice):
        return t("hint.hold_all", lang, dice=dice)
    return t("hint.hold", lang, dice=dice)


@dataclass(frozen=True)
class Previous:
    """The player's previous decision as judged against the table."""

    before: Game
    decision: Decision
    lost: float | None  # None: a forced choice the table does not model
    better: Decision | None = None


def previous_text(previous: Previous | None, lang: str) -> str:
    if previous is None:
        return t("hint.no_previous", lang)
    choice = describe(previous.decision, previous.before, lang)
    if previous.lost is None:
        return t("hint.previous_unjudged", lang, choice=choice)
    if previous.lost < BEST or previous.better is None:
        return t("hint.previous_best", lang, choice=choice)
    better = describe(previous.better, previous.before, lang)
    lost = decimal(previous.lost, lang, 2)
    return t("hint.previous_cost", lang, choice=choice, n=lost, best=better)


def hint_embed(
    game: Game,
    choices: Sequence[tuple[Decision, float]],
    previous: Previous | None,
    lang: str,
) -> Embed:
    """The best choices now (decision, expected final score), best first."""
    best = choices[0][0]
    embed = Embed(
        title=t("hint.title", lang),
        description=t("hint.best", lang, choice=describe(best, game, lang)),
        colour=YELLOW,
    )
    lines = [
        t("hint.choice", lang, n=i, choice=describe(d, game, lang), expected=decimal(v, lang, 1))
        for i, (d, v) in enumerate(choices, 1)
    ]
    embed.add_field(t("hint.top", lang), "\n".join(lines))
    embed.add_field(t("hint.previous", lang), previous_text(previous, lang))
    embed.footer = t("hint.footer", lang)
    return embed


def banked_hint_embed(game: Game, decision: Decision, lang: str) -> Embed:
    return Embed(
        title=t("hint.title", lang),
        description=describe(decision, game, lang),
        colour=YELLOW,
        footer=t("hint.banked", lang),
    )


def hint_not_ready(rules: str, lang: str) -> str:
    return t("hint.not_ready", lang, rules=rules_name(rules, lang))


def analysis_lines(
    players: Sequence[str],
    report: Mapping[str, Proficiency] | None,
    names: Mapping[str, str],
    rules: str,
    lang: str,
) -> tuple[str, str] | None:
    """(field name, value) of the final standings' analysis, or None without humans."""
    if not players:
        return None
    title = t("analysis.title", lang)
    if report is None:
        key = "analysis.banked" if rules == "banked" else "analysis.unavailable"
        return title, t(key, lang)
    ranked = sorted(players, key=lambda p: (report[p].mean, players.index(p)))
    lines = []
    for player in ranked:
        r = report[player]
        name = safe(names.get(player, player))
        if not r.decisions:
            lines.append(t("analysis.none", lang, name=name))
            continue
        lines.append(
            t(
                "analysis.line",
                lang,
                name=name,
                mean=decimal(r.mean, lang, 2),
                n=r.decisions,
                lost=decimal(r.lost, lang, 1),
            )
        )
    return title, "\n".join(lines)
