"""`/poker tournament new|export` and the tournament cog's wiring."""

from __future__ import annotations

import io
import json
import logging
from typing import Any

import discord
from discord import app_commands
from discord.app_commands import locale_str
from discord.ext import commands, tasks

from bot.engine import RULESETS, GameError
from bot.i18n import LANGUAGES, t
from bot.match import rules_or_default
from bot.match.tournament import DEFAULT_ADVANCE, DEFAULT_TABLE_SIZE, Tournament, export
from bot.match.tournament import parse_action as tournament_action
from cogs._edge import (
    caller_of,
    check_permissions,
    cog_of,
    guard,
    reply_language,
    shown_name,
    table_language,
)
from cogs._ids import GAME_MAX

from ._controls import CONTROLS, TournamentDeps, unknown_control
from ._publish import TournamentPublisher

log = logging.getLogger(__name__)

COG_NAME = "Tournaments"
EXPIRY_CHECK_MINUTES = 10  # how often sign-ups nobody started are looked for (24 h each)
RULE_CHOICES = [app_commands.Choice(name=t(f"commands.choices.{n}"), value=n) for n in RULESETS]
LANGUAGE_CHOICES = [
    app_commands.Choice(name=t(f"commands.choices.{lang}"), value=lang) for lang in LANGUAGES
]


def _text(key: str) -> locale_str:
    """A string of the command tree under its own catalog key (the subcommands' names are
    other commands' too: `new`, `export`)."""
    return locale_str(t(key), key=key)


group = app_commands.Group(name="tournament", description=t("commands.tournament"))


def _deps(interaction: discord.Interaction[Any]) -> TournamentDeps:
    return TournamentDeps.of(interaction.client)


def _publisher(interaction: discord.Interaction[Any]) -> TournamentPublisher:
    return cog_of(interaction, COG_NAME, TournamentCog).publisher


@group.command(name="new", description=_text("commands.tournament_new"))
@app_commands.describe(
    rules=_text("commands.new_rules"), table_size=_text("commands.new_table_size"),
    advance=_text("commands.new_advance"), language=_text("commands.new_language"),
)  # fmt: skip
@app_commands.choices(rules=RULE_CHOICES, language=LANGUAGE_CHOICES)
async def new(
    interaction: discord.Interaction[Any],
    rules: str | None = None,
    table_size: app_commands.Range[int, 2, 8] = DEFAULT_TABLE_SIZE,
    advance: app_commands.Range[int, 1, 7] = DEFAULT_ADVANCE,
    language: str | None = None,
) -> None:
    deps = _deps(interaction)
    async with guard(interaction, reply_language(interaction), "/poker tournament new") as done:
        settings = await deps.settings.fresh(interaction.guild_id)
        lang = table_language(interaction, language, settings.language)
        rules = rules_or_default(rules, settings.default_rules)
        check_permissions(interaction)
        caller = caller_of(interaction)
        draft = Tournament.new(
            id=0, channel_id=caller.channel_id or 0, guild_id=caller.guild_id,
            host_id=caller.user_id, host_name=shown_name(interaction.user), rules=rules,
            now=deps.service.clock(), table_size=table_size, advance=advance, lang=lang,
        )  # fmt: skip
        tn = await deps.service.open(draft)
        done.stored = True
        fields = await _publisher(interaction).fields(tn)
        files = fields.pop("attachments")
        await interaction.response.send_message(**fields, files=files)
        message = await interaction.original_response()
        await deps.service.note_message(tn.id, message.id)


@group.command(name="export", description=_text("commands.tournament_export"))
@app_commands.describe(number=_text("commands.export_number"))
async def export_tournament(
    interaction: discord.Interaction[Any], number: app_commands.Range[int, 1]
) -> None:
    """Its tables, rounds, who went on and why, and its log (each table's game replays
    with `python -m bot replay` of that game's export)."""
    lang = reply_language(interaction)
    async with guard(interaction, lang, "/poker tournament export"):
        service = _deps(interaction).service
        tn = await service.get(number) if number <= GAME_MAX else None
        if tn is None or tn.guild_id != interaction.guild_id:
            raise GameError("tournament.not_found", id=number)
        log_ = [tournament_action(a) for a in await service.actions(tn)]
        if Tournament.replay(log_, id=tn.id, channel_id=tn.channel_id,
                             guild_id=tn.guild_id).rounds != tn.rounds:  # fmt: skip
            log.error("tournament %s: its log does not replay to its snapshot", tn.id)
        name = f"dicepoker-tournament-{tn.id}.json"
        data = json.dumps(export(tn, log_), ensure_ascii=False, indent=1).encode()
        await interaction.response.send_message(
            t("tournament.exported", lang, id=tn.id, file=name),
            file=discord.File(io.BytesIO(data), filename=name),
            ephemeral=True,
        )


COMMANDS: tuple[app_commands.Group, ...] = (group,)


class TournamentCog(commands.Cog, name=COG_NAME):
    def __init__(self, bot: commands.Bot, deps: TournamentDeps,
                 publisher: TournamentPublisher) -> None:  # fmt: skip
        self.bot = bot
        self.deps = deps
        self.publisher = publisher
        self._unknown = unknown_control(CONTROLS.values())

    async def cog_load(self) -> None:
        self.bot.add_dynamic_items(*CONTROLS.values(), self._unknown)
        # Rounds that finished while the bot was down advance now (once), after the
        # tables' games are loaded (the play feature's cog loads first).
        resumed = await self.deps.service.resume()
        log.info("resumed %d active tournament(s)", len(resumed))
        self.expiry.start()

    @tasks.loop(minutes=EXPIRY_CHECK_MINUTES)
    async def expiry(self) -> None:
        try:
            await self.deps.service.expire_due()
        except Exception:  # the next check tries again
            log.exception("the tournaments' sign-up check failed")

    async def cog_unload(self) -> None:
        self.expiry.cancel()
        await self.deps.service.stop()
        self.bot.remove_dynamic_items(*CONTROLS.values(), self._unknown)


__all__ = ["COMMANDS", "TournamentCog"]
