"""`/poker new|scorecard|rules|leave|cancel` and the cog that owns the game service."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot import render
from bot.engine import RULESETS
from bot.i18n import LANGUAGES, t
from bot.i18n.translator import game_language, reply_language

from . import _fallback, _hint, _views
from ._service import GameService
from ._table import Refusal
from ._timers import TurnTimers
from ._views import check_permissions, guard, is_manager, service_of, shown_name

if TYPE_CHECKING:
    from db import GuildSettings

log = logging.getLogger(__name__)

# Choice names from the catalog (translated for other locales by bot.i18n.translator).
RULE_CHOICES = [app_commands.Choice(name=t(f"commands.choices.{n}"), value=n) for n in RULESETS]
LANGUAGE_CHOICES = [
    app_commands.Choice(name=t(f"commands.choices.{lang}"), value=lang) for lang in LANGUAGES
]


class PlayCog(commands.Cog, name="Play"):
    def __init__(self, bot: commands.Bot) -> None:
        self.bot = bot
        self.service = GameService(bot)  # type: ignore[arg-type]
        self.timers = TurnTimers(self.service)

    async def cog_load(self) -> None:
        self.bot.add_dynamic_items(*_views.CONTROLS.values())
        # Any other `poker:` id (damaged, from another version) is answered politely.
        self._unknown = _fallback.unknown_control(_views.CONTROLS.values())
        self.bot.add_dynamic_items(self._unknown)
        count = await self.service.load_active()
        log.info("loaded %d active game(s)", count)
        await _hint.follow_setting(self.service)  # hints may have been turned off meanwhile
        # Games whose computer seat was to move when the bot stopped continue now.
        self.service.computer.resume(self.service._cache.values())
        self.timers.start()  # deadlines come back with the games' snapshots
        if getattr(getattr(self.bot, "settings", None), "precompute_tables", False):
            # Hints, perfect computer players, the timer and the analysis then find their
            # table without anyone asking first (a worker process computes the missing ones).
            self.service.tables.precompute()

    @commands.Cog.listener()
    async def on_poker_settings_changed(self, settings: GuildSettings) -> None:
        """`/poker settings` changed something: the Hint buttons follow (next redraw)."""
        await _hint.follow_setting(self.service, settings)

    async def cog_unload(self) -> None:
        await self.service.computer.stop()
        self.service.tables.close()
        self.timers.stop()
        self.bot.remove_dynamic_items(self._unknown)
        self.bot.remove_dynamic_items(*_views.CONTROLS.values())


def _lang(interaction: discord.Interaction) -> str:
    """The language of an ephemeral answer: the member's own."""
    return reply_language(interaction)


async def _game_language(interaction: discord.Interaction, chosen: str | None) -> str:
    """`language:` first, then the server's setting, its preferred locale, then English."""
    store = getattr(interaction.client, "store", None)
    default = None
    if store is not None and interaction.guild_id is not None:
        default = (await store.guild_settings(interaction.guild_id)).language
    guild = interaction.guild
    return game_language(chosen, default, guild.preferred_locale if guild else None)


async def _default_rules(interaction: discord.Interaction) -> str:
    """The server's default rule set (`/poker settings`), else classic."""
    store = getattr(interaction.client, "store", None)
    if store is not None and interaction.guild_id is not None:
        return (await store.guild_settings(interaction.guild_id)).default_rules or "classic"
    return "classic"


@app_commands.command(name="new", description=t("commands.new"))
@app_commands.describe(rules=t("commands.new_rules"), language=t("commands.new_language"))
@app_commands.choices(rules=RULE_CHOICES, language=LANGUAGE_CHOICES)
async def new(
    interaction: discord.Interaction, rules: str | None = None, language: str | None = None
) -> None:
    async with guard(interaction, _lang(interaction), "/poker new"):
        lang = await _game_language(interaction, language)
        if rules is None:
            rules = await _default_rules(interaction)
        if rules not in RULESETS:
            raise Refusal("errors.unknown_rules", rules=rules, known=", ".join(RULESETS))
        check_permissions(interaction)
        service = service_of(interaction.client)
        user = interaction.user
        table = await service.create(
            guild_id=interaction.guild_id,
            channel_id=interaction.channel_id or 0,
            host_id=user.id,
            host_name=shown_name(user),
            rules=rules,
            lang=lang,
        )
        # Hold the lock until the lobby message id is stored: a quick Join waits for it.
        async with service.locked(table.id) as loaded:
            current = loaded or table
            await interaction.response.send_message(
                embed=service.lobby_embed(current), view=_views.lobby_view(current)
            )
            message = await interaction.original_response()
            await service.remember(current, lobby_message_id=message.id)


@app_commands.command(name="scorecard", description=t("commands.scorecard"))
@app_commands.describe(member=t("commands.scorecard_member"))
async def scorecard(interaction: discord.Interaction, member: discord.Member | None = None) -> None:
    service = service_of(interaction.client)
    table = await service.in_channel(interaction.channel_id or 0)
    lang = _lang(interaction)  # every answer here is ephemeral
    async with guard(interaction, lang, "/poker scorecard"):
        if table is None:
            raise Refusal("errors.no_game")
        if table.game is None:
            raise Refusal("errors.not_started")
        target = member or interaction.user
        if str(target.id) not in table.game.players:
            raise Refusal("errors.no_card", name=target.display_name)
        embed = render.card_embed(table.game, str(target.id), table.names, table.id, lang)
        await interaction.response.send_message(embed=embed, ephemeral=True)


@app_commands.command(name="rules", description=t("commands.rules"))
@app_commands.describe(rules=t("commands.rules_rules"))
@app_commands.choices(rules=RULE_CHOICES)
async def rules_card(interaction: discord.Interaction, rules: str = "classic") -> None:
    lang = _lang(interaction)
    async with guard(interaction, lang, "/poker rules"):
        if rules not in RULESETS:
            raise Refusal("errors.unknown_rules", rules=rules, known=", ".join(RULESETS))
        await interaction.response.send_message(
            embed=render.rules_embed(rules, lang), ephemeral=True
        )


@app_commands.command(name="leave", description=t("commands.leave"))
async def leave(interaction: discord.Interaction) -> None:
    service = service_of(interaction.client)
    table = await service.in_channel(interaction.channel_id or 0)
    lang = _lang(interaction)  # every answer here is ephemeral
    async with guard(interaction, lang, "/poker leave"):
        if table is None:
            raise Refusal("errors.no_game")
        user_id = interaction.user.id
        if table.status == "lobby":
            await service.apply(table.id, lambda tb: tb.leave_lobby(user_id))
            await interaction.response.send_message(t("info.left_lobby", lang), ephemeral=True)
            return
        check_permissions(interaction)
        await service.apply(table.id, lambda tb: tb.leave_game(user_id))
        await interaction.response.send_message(t("info.left_game", lang), ephemeral=True)


@app_commands.command(name="cancel", description=t("commands.cancel"))
async def cancel(interaction: discord.Interaction) -> None:
    service = service_of(interaction.client)
    table = await service.in_channel(interaction.channel_id or 0)
    lang = _lang(interaction)  # every answer here is ephemeral
    async with guard(interaction, lang, "/poker cancel"):
        if table is None:
            raise Refusal("errors.no_game")
        user_id, manager = interaction.user.id, is_manager(interaction)
        await service.apply(
            table.id, lambda tb: tb.cancel(user_id, manager=manager), interaction=interaction
        )
        await interaction.response.send_message(t("info.cancelled", lang), ephemeral=True)


COMMANDS = (new, scorecard, rules_card, leave, cancel)
