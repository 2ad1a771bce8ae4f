"""Standings, leaderboards, stats, history and server settings: a server's games as a league.

`_cog.py` the slash commands (added to the shared `/poker` group), `_views.py` what they
show (embeds and the leaderboard's persistent pager), `_results.py` the per-seat results a
finished game stores (the play cog writes them with the game's last action).
"""

from __future__ import annotations

from discord.ext import commands

from cogs._group import install

from ._cog import COMMANDS, StatsCog
from ._results import seat_results

__all__ = ["StatsCog", "seat_results", "setup"]


async def setup(bot: commands.Bot) -> None:
    install(*COMMANDS)
    await bot.add_cog(StatsCog(bot))
