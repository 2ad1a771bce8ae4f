"""Tournaments over several tables: the sign-up message, the round's tables each in its own
thread, the next round formed when every table is done, until the final.

`_controls.py` the `tourn:` custom_id scheme, the message's controls and view,
`_publish.py` a stored tournament → Discord (the one message, the threads), `_cog.py` the
`/poker tournament` commands. Tournaments change in `bot.service.TournamentService`, their
tables are games of the table service (the play feature's: load it first).
"""

from __future__ import annotations

from discord.ext import commands

from bot.service import Services, TournamentService
from cogs._group import install

from ._cog import COMMANDS, TournamentCog
from ._controls import CONTROLS, FEATURE, TournamentDeps
from ._publish import TournamentPublisher


async def setup(bot: commands.Bot) -> None:
    services = Services.of(bot)
    publisher = TournamentPublisher(bot, services.settings, services.pictures)
    service = TournamentService(services.store, services.table_games(), publisher=publisher,
                                clock=services.clock, dice=services.dice)  # fmt: skip
    deps = TournamentDeps(service, services.settings, services.dice)
    services.features[FEATURE] = deps
    install(bot, *COMMANDS)
    await bot.add_cog(TournamentCog(bot, deps, publisher))


__all__ = ["COMMANDS", "CONTROLS", "TournamentCog", "TournamentDeps"]
