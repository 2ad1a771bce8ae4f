"""Playing dice poker in a channel: the lobby, the turns, the scorecards.

`_controls.py` the `poker:` custom_id scheme, the base of every control and the table's
family of turn controls (`cogs._turn`), `_views.py` the lobby's controls and the views,
`_hint.py` the Hint button, `_publish.py` a saved change → Discord, `_timers.py`,
`_computer.py` and `_analysis.py` the observers of commits, `_cog.py` the slash commands.
The games change in `bot.service` (a `GameService` of kind "table"); `setup` builds this
feature on the wiring's services (`await bot.load_extension("cogs.play")`).
"""

from __future__ import annotations

from discord.ext import commands

from bot.service import Services
from cogs._group import install

from ._cog import COMMANDS, PlayCog
from ._controls import CONTROLS, FEATURE, PlayDeps
from ._publish import DiscordPublisher
from ._via import Notice, Via


async def setup(bot: commands.Bot) -> None:
    services = Services.of(bot)
    publisher = DiscordPublisher(bot, services.settings, services.pictures)
    deps = PlayDeps(
        services.game_service(publisher, kind="table"),
        services.store,
        services.settings,
        services.solutions,
        services.dice,
        bot_pause=services.bot_pause,
    )
    services.features[FEATURE] = deps  # where its controls find it (PlayDeps.of)
    install(bot, *COMMANDS)
    await bot.add_cog(PlayCog(bot, deps, publisher))


__all__ = ["COMMANDS", "CONTROLS", "DiscordPublisher", "Notice", "PlayCog", "PlayDeps", "Via"]
