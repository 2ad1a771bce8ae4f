"""The daily's controls: `daily:<action>:<game>:<version>[:<arg>]`, and their checks.

A namespace of its own, so the play cog's fallback for unknown `poker:` ids never answers
a daily's click (and this one answers only `daily:` ids). Like a table's controls, a
daily's carry the game and the version it was drawn at: a click after a restart reaches
the game, an out-of-date one is refused (and its message redrawn as the game is now).
Before anything else each checks its numbers, that the click comes from the daily's
server, from its member (someone else is told whose game it is), and on its day.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import discord

from bot.engine import GameError
from bot.match import Match
from bot.render.daily import day_text
from cogs._edge import guard, reply_language
from cogs._ids import GameControl, IdScheme, registrar
from cogs.play import SolutionCache
from cogs.play._service import valid_id
from db import GameStore

from ._best import BestScores
from ._service import Dailies

PREFIX = "daily"


class Finisher(Protocol):
    """What the controls and commands need of the finish (cogs/daily/_finish.py)."""

    async def deliver(self, interaction: discord.Interaction[Any], match: Match) -> None:
        """Turn the finished daily's message into the member's private report."""
        ...

    async def fields(self, match: Match, lang: str) -> dict[str, Any]:
        """A finished daily's report and card, as a message's fields."""
        ...

    async def stop(self) -> None: ...


@dataclass(frozen=True)
class DailyDeps:
    """What the daily controls and commands need; the app hands it to the bot."""

    dailies: Dailies
    best: BestScores
    store: GameStore
    solutions: SolutionCache
    finisher: Finisher

    @staticmethod
    def of(client: discord.Client) -> DailyDeps:
        deps = getattr(client, "daily", None)
        if not isinstance(deps, DailyDeps):
            raise RuntimeError("the daily feature is not wired into this client")
        return deps


IDS = IdScheme(PREFIX)
template = IDS.template
custom_id = IDS.custom_id
version_shown = IDS.version_shown
unknown_control = IDS.fallback


CONTROLS: dict[str, type[DailyControl]] = {}
control = registrar(CONTROLS)  # `@control("hold")`: the class's action, registered


class DailyControl(GameControl, template=r"daily:(?!)"):
    """A daily's control; subclasses set `action` and implement `run`."""

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        deps = DailyDeps.of(interaction.client)
        lang = reply_language(interaction)
        async with guard(interaction, lang, self.custom_id, control=f"daily_{self.action}"):
            if not valid_id(self.game) or self.version < 0:
                raise GameError("errors.stale")
            found = await deps.dailies.games.get(self.game)
            if found is None or found.guild_id != interaction.guild_id:
                raise GameError("errors.stale")  # a forged id from another server
            if interaction.user.id != found.host_id:
                raise GameError("daily.not_yours", name=found.name_of(found.host_id))
            if found.active and found.day != deps.dailies.today():
                # Once the day is over its cards are shown: its dice are no longer secret.
                raise GameError("daily.over", day=day_text(found.day) if found.day else "?")
            await self.run(interaction, deps, found)

    async def run(
        self, interaction: discord.Interaction[Any], deps: DailyDeps, match: Match
    ) -> None:
        raise NotImplementedError

    async def apply(
        self,
        interaction: discord.Interaction[Any],
        deps: DailyDeps,
        change: Callable[[Match], Match],
    ) -> Match:
        after = await deps.dailies.games.apply(
            self.game,
            change,
            version=self.version if self.versioned else None,
            via=interaction,
        )
        if after.status == "finished":
            await deps.finisher.deliver(interaction, after)
        return after
