"""A server's games as a league: leaderboards, member stats, history, replay exports."""

from discord.ext import commands

from cogs._group import install

from ._cog import COMMANDS, LeagueCog, replay_document, unique_names


async def setup(bot: commands.Bot) -> None:
    install(bot, *COMMANDS)
    await bot.add_cog(LeagueCog(bot))


__all__ = ["COMMANDS", "LeagueCog", "replay_document", "unique_names"]
