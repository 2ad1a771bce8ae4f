"""`/poker daily play|board` and the daily cog's wiring.

Discord does not let a command and a subcommand group share a name, so the daily dice
are a group of their own under `/poker`: `/poker daily play [rules]` (start, or bring
back, your game of today's dice) and `/poker daily board [rules] [day]`. Both answer only
the member who asked: a game nobody else may see, a board whose cards nobody may see
before they have played or the day is over.
"""

from __future__ import annotations

import io
import logging
from dataclasses import replace
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.engine import RULESETS, Game, GameError, get_rules
from bot.i18n import rules_name, t
from bot.match import Match, rules_or_default
from bot.records import DailyBest, DailyBoard
from bot.render.daily import CARDS_SHOWN, board_embed, day_text
from bot.render.image import FILENAME, scorecard_pngs
from bot.service import Services, match_of
from cogs._edge import (
    caller_of,
    check_permissions,
    guard,
    public_language,
    reply_language,
    shown_name,
    to_discord,
)

from ._controls import CONTROLS, DailyDeps, unknown_control
from ._publish import turn_fields

log = logging.getLogger(__name__)

RULE_CHOICES = [app_commands.Choice(name=t(f"commands.choices.{n}"), value=n) for n in RULESETS]
BOARD_LINES = 10

daily_group = app_commands.Group(name="daily", description=t("commands.daily"))


def _deps(interaction: discord.Interaction[Any]) -> DailyDeps:
    return DailyDeps.of(interaction.client)


async def _rules(interaction: discord.Interaction[Any], deps: DailyDeps, rules: str | None) -> str:
    """The rule set asked for, else the server's default (read only then)."""
    default = None
    if rules is None:
        default = (await deps.settings.fresh(interaction.guild_id)).default_rules
    return rules_or_default(rules, default)


def _tomorrow(day: date) -> str:
    """Midnight UTC after `day`, as a Discord timestamp (shown in the reader's time)."""
    moment = datetime.combine(day + timedelta(days=1), time(0), tzinfo=UTC)
    return f"<t:{int(moment.timestamp())}:R>"


@daily_group.command(name="play", description=t("commands.play"))
@app_commands.describe(rules=t("commands.play_rules"))
@app_commands.choices(rules=RULE_CHOICES)
async def play(interaction: discord.Interaction[Any], rules: str | None = None) -> None:
    lang = reply_language(interaction)
    async with guard(interaction, lang, "/poker daily play"):
        deps = _deps(interaction)
        rules = await _rules(interaction, deps, rules)
        guild_id = interaction.guild_id
        if guild_id is None:
            raise GameError("errors.dm_only")
        day = deps.dailies.today()
        match = await deps.dailies.find(interaction.user.id, rules, day)
        resumed = match is not None
        if match is None:
            check_permissions(interaction)  # its finish posts a line in this channel
            games = deps.dailies.games
            draft = Match.new_daily(
                caller_of(interaction),
                shown_name(interaction.user),
                rules=rules,
                lang=await public_language(interaction, deps.store),  # its public line's
                now=games.clock(),
            )
            match = await games.open(draft)
            deps.best.start(day, rules)  # ready, most likely, by the time they finish
            deps.solutions.preload(rules)  # the analysis's table, if it is on disk
        if match.status == "finished":
            await _played(interaction, deps, match, lang)
            return
        if match.guild_id != guild_id:
            raise GameError("daily.elsewhere", rules=rules_name(rules, lang))
        fields = turn_fields(replace(match, events=()), lang, resumed=resumed)
        await interaction.response.send_message(ephemeral=True, **fields)


async def _played(
    interaction: discord.Interaction[Any], deps: DailyDeps, match: Match, lang: str
) -> None:
    """A second attempt: refused politely, with the member's report again."""
    await interaction.response.defer(ephemeral=True, thinking=True)
    fields = await deps.finisher.fields(match, lang)
    game = match.require_game()
    assert match.day is not None
    text = t(
        "daily.played",
        lang,
        rules=rules_name(match.rules, lang),
        total=game.totals(game.players[0]).total,
        when=_tomorrow(match.day),
    )
    files = fields.pop("attachments")
    fields.pop("view")
    await interaction.followup.send(text, ephemeral=True, files=files, **fields)


def parse_day(text: str | None, today: date) -> date:
    if not text:
        return today
    try:
        day = date.fromisoformat(text.strip())
    except ValueError:
        raise GameError("daily_board.bad_day", value=text[:40]) from None
    if day > today:
        raise GameError("daily_board.bad_day", value=text[:40])
    return day


@daily_group.command(name="board", description=t("commands.board"))
@app_commands.describe(rules=t("commands.board_rules"), day=t("commands.board_day"))
@app_commands.choices(rules=RULE_CHOICES)
async def board(
    interaction: discord.Interaction[Any], rules: str | None = None, day: str | None = None
) -> None:
    lang = reply_language(interaction)
    async with guard(interaction, lang, "/poker daily board"):
        deps = _deps(interaction)
        rules = await _rules(interaction, deps, rules)
        today = deps.dailies.today()
        when = parse_day(day, today)
        guild_id = interaction.guild_id or 0
        # Working out a day's best takes up to a few tenths of a second: answer first.
        await interaction.response.defer(ephemeral=True, thinking=True)
        found = await deps.store.daily_board(
            guild_id, rules, when, limit=BOARD_LINES, member_id=interaction.user.id
        )
        mine = await deps.store.daily_game(interaction.user.id, rules, when)
        # Cards only once the dice are no secret to the reader: the day is over, or they
        # played it (here or in another server: the dice are the same).
        hidden = when >= today and (mine is None or mine.status != "finished")
        # Worked out for a day someone played (or today); any other day's only if it was.
        if found.players or when == today:
            best: DailyBest | None = await deps.best.wait(when, rules)
        else:
            best = await deps.best.lookup(when, rules)
        cards = None if hidden else await _cards(deps, found)
        names = {str(x.player_id): x.name for x in found.lines}
        embed = board_embed(
            found, interaction.user.id, names, lang, best=best, cards=cards, cards_hidden=hidden
        )
        files: list[discord.File] = []
        if cards is not None and (await deps.settings.fresh(guild_id)).images:
            title = t("daily_board.title", lang, rules=rules_name(rules, lang), day=day_text(when))
            top = [(names.get(c.name, c.name), c) for c in cards.cards[:CARDS_SHOWN]]
            pictures = Services.of(interaction.client).pictures  # answer deferred: no budget
            pngs = await pictures.draw(
                scorecard_pngs, cards.rules, top, lang, title=title, final=True
            )
            files = [discord.File(io.BytesIO(pngs[0]), filename=FILENAME)] if pngs else []
            if files:
                embed.fields.clear()  # the picture replaces the text table
                embed.image = f"attachment://{FILENAME}"
        await interaction.followup.send(
            embed=to_discord(embed),
            files=files,
            ephemeral=True,
            allowed_mentions=discord.AllowedMentions.none(),
        )


async def _cards(deps: DailyDeps, found: DailyBoard) -> Game | None:
    """The first members' final cards, as one game holding them (for the table)."""
    games: list[Game] = []
    for line in found.lines[:CARDS_SHOWN]:
        record = await deps.store.get_game(line.game_id)
        game = match_of(record).game if record is not None else None
        if game is not None:
            games.append(game)
    if not games:
        return None
    cards = tuple(g.cards[0] for g in games)
    return Game(rules=get_rules(found.rules), cards=cards, finished=True)


COMMANDS: tuple[app_commands.Group, ...] = (daily_group,)


class DailyCog(commands.Cog, name="Daily"):
    def __init__(self, bot: commands.Bot, deps: DailyDeps) -> None:
        self.bot = bot
        self.deps = deps
        self._unknown = unknown_control(CONTROLS.values())

    async def cog_load(self) -> None:
        # Stateless by id: registering them is all a restart needs for old messages.
        self.bot.add_dynamic_items(*CONTROLS.values(), self._unknown)

    async def cog_unload(self) -> None:
        await self.deps.finisher.stop()
        await self.deps.best.stop()
        self.bot.remove_dynamic_items(*CONTROLS.values(), self._unknown)


__all__ = ["COMMANDS", "DailyCog", "daily_group", "parse_day"]
