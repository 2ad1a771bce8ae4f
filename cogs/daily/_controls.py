"""The daily's controls: `daily:<action>:<game>:<version>[:<arg>]`, the table's family of
turn controls (`cogs._turn`) in the daily's namespace, without the Hint.

A namespace of its own, so the play cog's fallback for unknown `poker:` ids never answers
a daily's click (and this one answers only `daily:` ids). Like a table's controls, a
daily's carry the game and the version it was drawn at: a click after a restart reaches
the game, an out-of-date one is refused (and its message redrawn as the game is now).
The service checks, before anything else, that the click comes from the daily's server,
from its member (someone else is told whose game it is), and on its day
(`Match.verify_reach`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

import discord

from bot.engine.daily import DailyDice
from bot.match import Match
from bot.service import BestScores, Change, Dailies, ServerSettings, Services, SolutionCache
from cogs._edge import caller_of
from cogs._ids import GameControl, IdScheme, registrar
from cogs._turn import FeatureControl, turn_family
from db import GameStore

PREFIX = "daily"
FEATURE = "daily"  # the name its dependencies go by (`Services.features`, `bot.daily`)


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
    """What the daily controls and commands need; its `setup` puts it on the bot."""

    dailies: Dailies[discord.Interaction[Any]]
    best: BestScores
    store: GameStore
    settings: ServerSettings
    solutions: SolutionCache
    finisher: Finisher

    @staticmethod
    def of(client: discord.Client) -> DailyDeps:
        return Services.of(client).feature(FEATURE, DailyDeps)

    # --- the door of the shared turn controls (cogs._turn.Door) --------------------------

    async def change(
        self,
        interaction: discord.Interaction[Any],
        control: GameControl,
        change: Change,
        *,
        posts: bool = False,  # noqa: ARG002 - a daily's move posts nothing in the channel
    ) -> Match:
        self.dailies.today()  # on a new day, yesterday's dailies leave the cache
        await self.dailies.secret()  # the day's dice are drawn from it (read once)
        after = await self.dailies.games.apply(
            control.game,
            change,
            version=control.version if control.versioned else None,
            via=interaction,
            caller=caller_of(interaction),
        )
        control.outcome.saved(after)
        if after.status == "finished":
            await self.finisher.deliver(interaction, after)
        return after

    async def read(self, interaction: discord.Interaction[Any], control: GameControl) -> Match:
        self.dailies.today()
        return await self.dailies.games.reach(control.game, caller_of(interaction))

    def dice_of(self, match: Match) -> DailyDice:
        return self.dailies.dice_of(match)


IDS = IdScheme(PREFIX)
template = IDS.template
custom_id = IDS.custom_id
version_shown = IDS.version_shown
unknown_control = IDS.fallback

CONTROLS: dict[str, type[GameControl]] = {}
control = registrar(CONTROLS)


class DailyControl(FeatureControl[DailyDeps], template=r"daily:(?!)"):
    """A daily's control (one of the turn family's)."""

    metric_prefix = "daily_"

    @classmethod
    def door(cls, client: discord.Client) -> DailyDeps:
        return DailyDeps.of(client)


DAILY_TURN = turn_family(IDS, DailyControl, control)
