"""The daily dice: the whole server plays the same dice, each member when it suits them.

`_controls.py` the `daily:` custom_id scheme and the table's family of turn controls in
it, `_publish.py` a saved change → the member's ephemeral message, `_finish.py` the
analysis, the public line and the member's report, `_cog.py` `/poker daily play|board`.
A daily changes through a `GameService` of kind "daily" (`bot.service`: the day, the
secret, the day's dice and best score); the play cog never reaches a daily. `setup`
builds this feature on the wiring's services (`await bot.load_extension("cogs.daily")`).
"""

from __future__ import annotations

from discord.ext import commands

from bot.service import BestScores, Dailies, Services
from cogs._group import install

from ._cog import COMMANDS, DailyCog, parse_day
from ._controls import CONTROLS, FEATURE, DailyDeps
from ._finish import DailyFinish
from ._publish import DailyPublisher


async def setup(bot: commands.Bot) -> None:
    services = Services.of(bot)
    store, settings = services.store, services.settings
    dailies = Dailies(
        services.game_service(DailyPublisher(), kind="daily"),
        store,
        clock=services.clock,
        secret=services.daily_secret,
    )
    best = BestScores(dailies, store)
    finisher = DailyFinish(bot, dailies, best, settings, services.solutions, services.pictures)
    dailies.games.subscribe(finisher)
    deps = DailyDeps(dailies, best, store, settings, services.solutions, finisher)
    services.features[FEATURE] = deps  # where its controls find it (DailyDeps.of)
    install(bot, *COMMANDS)
    await bot.add_cog(DailyCog(bot, deps))


__all__ = ["COMMANDS", "CONTROLS", "DailyCog", "DailyDeps", "parse_day"]
