"""The `/poker` slash command group, shared by every feature cog.

Each cog adds its subcommands here (`@poker_group.command(...)`); `bot/app.py` adds the
group to the command tree once, after loading the cogs.
"""

from __future__ import annotations

from typing import Any

from discord import app_commands

from bot.i18n import t

poker_group = app_commands.Group(name="poker", description=t("commands.group"), guild_only=True)


def install(*commands: app_commands.Command[Any, ..., Any] | app_commands.Group) -> None:
    """Add a cog's subcommands to `/poker`, replacing older copies.

    Call it from the extension's `setup`: reloading an extension (or building a second
    bot in the same process, as the tests do) re-creates its command objects.
    """
    for command in commands:
        poker_group.remove_command(command.name)
        poker_group.add_command(command)
