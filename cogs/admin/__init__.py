"""The server's dice poker settings (`/poker settings`)."""

from discord.ext import commands

from cogs._group import install

from ._cog import COMMANDS, AdminCog, parse_duration


async def setup(bot: commands.Bot) -> None:
    install(bot, *COMMANDS)
    await bot.add_cog(AdminCog(bot))


__all__ = ["COMMANDS", "AdminCog", "parse_duration"]
