"""The `/poker` slash command group, shared by every feature cog.

Each cog adds its subcommands here (`@poker_group.command(...)`); `bot/app.py` adds the
group to the command tree once, after loading the cogs.
"""

from __future__ import annotations

from discord import app_commands

from bot.i18n import t

poker_group = app_commands.Group(name="poker", description=t("commands.group"), guild_only=True)
