"""The command tree's shared parts, an extension the wiring loads after the features
(`cogs._tree`): the catalog translator (command names and descriptions in every catalog
language, sent with each sync) and the one answer to the tree's errors (log with context,
answer ephemerally), which the wiring's command tree hands them to (`TreeErrors`)."""

from __future__ import annotations

import logging
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.i18n import t

from ._edge import reply, reply_language
from ._ids import answer_unclaimed
from ._translator import CatalogTranslator

log = logging.getLogger(__name__)


COG_NAME = "Commands"  # the cog the wiring's tree asks (bot.app.TREE_COG)


class TreeErrors(commands.Cog, name=COG_NAME):
    @commands.Cog.listener()
    async def on_interaction(self, interaction: discord.Interaction[Any]) -> None:
        # A click no feature's control claims (forged, or from an older version) is
        # answered, not left to fail; `controls` is the wiring's record of them.
        await answer_unclaimed(interaction, getattr(interaction.client, "controls", frozenset()))

    async def on_tree_error(
        self, interaction: discord.Interaction[Any], error: app_commands.AppCommandError
    ) -> None:
        await answer_tree_error(interaction, error)


async def answer_tree_error(
    interaction: discord.Interaction[Any], error: app_commands.AppCommandError
) -> None:
    command = interaction.command.qualified_name if interaction.command else "?"
    lang = reply_language(interaction)
    if isinstance(error, app_commands.BotMissingPermissions):
        names = ", ".join(_permission_name(p, lang) for p in error.missing_permissions)
        text = t(
            "errors.missing_permissions",
            lang,
            permissions=names,
            n=len(error.missing_permissions),
        )
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
        await reply(interaction, text)
    except discord.HTTPException:
        log.exception("could not answer the failed /%s", command)


def _permission_name(permission: str, lang: str) -> str:
    try:
        return t(f"permissions.{permission}", lang)
    except KeyError:
        return permission.replace("_", " ").title()


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(TreeErrors())
    await bot.tree.set_translator(CatalogTranslator())
