"""Post-game analysis in the play cog: each human's mean loss per decision.

When a game finishes, the service runs `analyse_finished` (in a worker thread: a long
game has a few hundred decisions) before its last write, stores each human's mean loss
with their result (the skill leaderboard reads it) and adds it to the final standings.
Computer seats are not analysed; a rule set without a table (banked), or a table not
loaded (nor cached on disk: `python -m bot solve`), stores NULL and the standings say why.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

import discord

from bot.i18n import t
from bot.strategy.analysis import Proficiency, analyse

from ._table import Table

if TYPE_CHECKING:
    from bot.strategy.tables import TableManager

Report = dict[str, Proficiency]


def humans(table: Table) -> list[str]:
    """The engine names of the human seats that played, in seat order."""
    game = table.require_game()
    return [s.player for s in table.seats if not s.is_bot and s.player in game.players]


async def analyse_finished(tables: TableManager, table: Table) -> Report | None:
    """Each human's proficiency, or None when there is no table for this game now."""
    game = table.require_game()
    players = humans(table)
    if not players or game.rules.banked:
        return None
    # Never a computation here (a minute of CPU for some rule sets): the table loaded at
    # the game's start from the disk cache, or by a hint or a perfect computer player.
    strategy = tables.loaded(game.rules.name)
    if strategy is None:
        tables.preload(game.rules.name)  # a table cached meanwhile serves the next game
        return None
    return await asyncio.to_thread(analyse, strategy, game, players)


def ev_losses(report: Report | None) -> dict[str, float]:
    """What the results store: the mean, for players who made at least one decision.

    Without a report every seat stores NULL, as the standings say "not analysed"."""
    if report is None:
        return {}
    return {p: r.mean for p, r in report.items() if r.decisions}


def add_to_standings(embed: discord.Embed, table: Table, report: Report | None, lang: str) -> None:
    """The analysis as one field of the final standings embed."""
    players = humans(table)
    if not players:
        return
    name = t("analysis.title", lang)
    if report is None:
        rules = table.require_game().rules.name
        key = "analysis.banked" if rules == "banked" else "analysis.unavailable"
        embed.add_field(name=name, value=t(key, lang), inline=False)
        return
    ranked = sorted(players, key=lambda p: (report[p].mean, players.index(p)))
    lines = []
    for player in ranked:
        r = report[player]
        if not r.decisions:
            lines.append(t("analysis.none", lang, name=table.name_of(player)))
            continue
        lines.append(
            t(
                "analysis.line",
                lang,
                name=table.name_of(player),
                mean=f"{r.mean:.2f}",
                decisions=r.decisions,
                lost=f"{r.lost:.1f}",
            )
        )
    embed.add_field(name=name, value="\n".join(lines)[:1024], inline=False)
