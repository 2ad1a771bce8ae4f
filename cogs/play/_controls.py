"""The play feature's controls: the `poker:` custom_id scheme, the registry, the base that
finds the feature's dependencies, and the table's family of turn controls.

`poker:<action>:<game>:<version>[:<arg>]` — a click on any old message (even after a
restart) reaches the right game; a click whose version is not the game's is refused as out
of date. Every control checks its numbers (a custom_id may say anything); the service
checks that the click comes from the game's own guild and channel (`Match.verify_reach`);
refusals and failures are answered by the shared guard (`cogs._edge`). A `poker:` id no
control understands gets the same polite "out of date" (`unknown_control`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import discord

from bot.engine import DiceSource
from bot.match import Match
from bot.service import Change, GameService, ServerSettings, Services, SolutionCache
from cogs._edge import caller_of, check_permissions
from cogs._ids import GameControl, IdScheme, registrar
from cogs._turn import FeatureControl, turn_family
from db import GameStore

from ._via import Via

PREFIX = "poker"
FEATURE = "play"  # the name its dependencies go by (`Services.features`, `bot.play`)


@dataclass(frozen=True)
class PlayDeps:
    """What the play controls and commands need; its `setup` puts it on the bot."""

    service: GameService[Via]
    store: GameStore
    settings: ServerSettings
    solutions: SolutionCache
    dice: DiceSource
    bot_pause: float = 0.8

    @staticmethod
    def of(client: discord.Client) -> PlayDeps:
        return Services.of(client).feature(FEATURE, PlayDeps)

    # --- the door of the shared turn controls (cogs._turn.Door) --------------------------

    async def change(
        self,
        interaction: discord.Interaction[Any],
        control: GameControl,
        change: Change,
        *,
        posts: bool = False,
    ) -> Match:
        def checked(match: Match) -> Match:
            if posts:  # refuse before changing anything when the bot could not post
                check_permissions(interaction)
            return change(match)

        after = await self.service.apply(
            control.game,
            checked,
            version=control.version if control.versioned else None,
            via=Via(interaction),
            caller=caller_of(interaction),  # a click: the next change stores new ids
        )
        return control.outcome.saved(after)

    async def read(self, interaction: discord.Interaction[Any], control: GameControl) -> Match:
        return await self.service.reach(control.game, caller_of(interaction))

    def dice_of(self, match: Match) -> DiceSource:  # noqa: ARG002 - every table's the same
        return self.dice


IDS = IdScheme(PREFIX)
template = IDS.template
custom_id = IDS.custom_id
version_shown = IDS.version_shown
unknown_control = IDS.fallback

CONTROLS: dict[str, type[GameControl]] = {}
control = registrar(CONTROLS)  # `@control("join")`: the class's action, registered


class Control(FeatureControl[PlayDeps], template=r"poker:(?!)"):
    """A table's control; subclasses set `action` and implement `run`."""

    @classmethod
    def door(cls, client: discord.Client) -> PlayDeps:
        return PlayDeps.of(client)


TABLE_TURN = turn_family(IDS, Control, control)
