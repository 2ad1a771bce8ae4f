"""The bot: opens the store, loads the cogs, syncs commands. Nothing else lives here."""

from __future__ import annotations

import logging
import secrets
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.engine import DiceSource
from bot.i18n import language_of, t
from bot.i18n.translator import CatalogTranslator
from bot.render.image import warm_up
from bot.settings import Settings
from db import Store

log = logging.getLogger(__name__)

# Feature packages, loaded in order; each adds its subcommands to `cogs._group.poker_group`.
COGS: list[str] = ["cogs.play", "cogs.stats"]


class PokerTree(app_commands.CommandTree["DicePokerBot"]):
    """The command tree's one error handler: log with context, answer ephemerally."""

    async def on_error(
        self, interaction: discord.Interaction[DicePokerBot], error: app_commands.AppCommandError
    ) -> None:
        command = interaction.command.qualified_name if interaction.command else "?"
        lang = language_of(str(interaction.locale) if interaction.locale else None)
        if isinstance(error, app_commands.BotMissingPermissions):
            names = ", ".join(_permission_name(p, lang) for p in error.missing_permissions)
            text = t("errors.missing_permissions", lang, permissions=names)
        elif isinstance(error, app_commands.NoPrivateMessage):
            text = t("errors.dm_only", lang)
        else:
            log.error(
                "/%s failed (user %s, guild %s, channel %s)",
                command,
                interaction.user.id,
                interaction.guild_id,
                interaction.channel_id,
                exc_info=error,
            )
            text = t("errors.internal", lang)
        try:
            if interaction.response.is_done():
                await interaction.followup.send(text, ephemeral=True)
            else:
                await interaction.response.send_message(text, ephemeral=True)
        except discord.HTTPException:
            log.exception("could not answer the failed /%s", command)


def _permission_name(permission: str, lang: str) -> str:
    try:
        return t(f"permissions.{permission}", lang)
    except KeyError:
        return permission.replace("_", " ").title()


class DicePokerBot(commands.Bot):
    def __init__(
        self,
        settings: Settings,
        *,
        dice: DiceSource | None = None,
        sync_globally: bool | None = None,
        **options: Any,
    ) -> None:
        # Game messages are edited by id and a click carries its message: the bot never
        # reads discord.py's message cache, which would hold the last 1,000 messages.
        options.setdefault("max_messages", None)
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=discord.Intents.default(),
            tree_cls=PokerTree,
            # Names are shown in content too: only the explicit player mention may ping.
            allowed_mentions=discord.AllowedMentions(everyone=False, roles=False, users=True),
            help_command=None,
            **options,
        )
        self.settings = settings
        self.dice: DiceSource = dice if dice is not None else secrets.SystemRandom()
        # Production syncs to DEV_GUILD_ID here, globally only through `python -m bot sync`.
        # A bot built without a token runs in an offline harness (simcord, the tests, the
        # benchmark), which needs a synced tree to invoke commands: it syncs where it runs.
        if sync_globally is None:
            sync_globally = settings.discord_token is None and not settings.dev_guild_id
        self.sync_globally = sync_globally
        self.store: Store | None = None

    async def setup_hook(self) -> None:
        self.store = await Store.open(self.settings.database_path)
        from cogs._group import poker_group  # noqa: PLC0415 - after the cogs' imports

        for name in COGS:
            await self.load_extension(name)
        if self.tree.get_command(poker_group.name) is None:
            self.tree.add_command(poker_group)
        # Command names and descriptions in every catalog language, sent with each sync.
        await self.tree.set_translator(CatalogTranslator())
        # Load the picture fonts now: the first scorecard picture then takes no longer
        # than the others (once per process; later bots find them loaded).
        warm_up()
        if self.sync_globally:
            await self.tree.sync()
        elif self.settings.dev_guild_id:
            guild = discord.Object(self.settings.dev_guild_id)
            self.tree.copy_global_to(guild=guild)
            await self.tree.sync(guild=guild)
            log.info("commands synced to guild %s", self.settings.dev_guild_id)

    async def close(self) -> None:
        try:
            await super().close()
        finally:
            if self.store is not None:
                store, self.store = self.store, None
                await store.close()
