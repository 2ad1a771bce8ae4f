"""The `/poker` slash command group, shared by every feature of a bot.

Each feature's `setup` adds its subcommands (`install(bot, *COMMANDS)`). One group per
bot, in the bot's own command tree: a process may run several bots (the tests do), and a
feature's extension is imported afresh for each bot that loads it after another closed,
so each bot's group holds the commands of the extension it loaded.
"""

from __future__ import annotations

from typing import Any

from discord import app_commands
from discord.ext import commands

from bot.i18n import t

NAME = "poker"


def poker_group(bot: commands.Bot) -> app_commands.Group:
    """The bot's `/poker` group (added to its command tree the first time)."""
    found = bot.tree.get_command(NAME)
    if isinstance(found, app_commands.Group):
        return found
    group = app_commands.Group(name=NAME, description=t("commands.group"), guild_only=True)
    bot.tree.add_command(group)
    return group


def install(
    bot: commands.Bot, *commands: app_commands.Command[Any, ..., Any] | app_commands.Group
) -> None:
    """Add a feature's subcommands to the bot's `/poker`, replacing older copies (an
    extension loaded again re-creates its command objects)."""
    group = poker_group(bot)
    for command in commands:
        group.remove_command(command.name)
        group.add_command(command)
