"""Playing dice poker in a channel: the lobby, the turns, the scorecards.

`_table.py` the per-channel table model, `_service.py` the one place that changes games,
`_views.py` the buttons and select (DynamicItems), `_cog.py` the slash commands.
"""

from __future__ import annotations

from discord.ext import commands

from cogs._group import install

from ._cog import COMMANDS, PlayCog
from ._kick import COMMANDS as HOST_COMMANDS
from ._service import GameService
from ._table import Refusal, Seat, Table
from ._views import CONTROLS, control

__all__ = ["CONTROLS", "GameService", "PlayCog", "Refusal", "Seat", "Table", "control", "setup"]


async def setup(bot: commands.Bot) -> None:
    install(*COMMANDS, *HOST_COMMANDS)
    await bot.add_cog(PlayCog(bot))
