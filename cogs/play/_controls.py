"""The base of every game control: the custom_id scheme, the registry, the checks.

`poker:<action>:<game>:<version>[:<arg>]` — a click on any old message (even after a
restart) reaches the right game; a click whose version is not the game's is refused as out
of date. Every control checks, before anything else, that its numbers are in range (a
custom_id may say anything) and that the click comes from the game's own guild and
channel; refusals and failures are answered by the shared guard (`cogs._edge`). A `poker:`
id no control understands gets the same polite "out of date" (`unknown_control`). The
scheme and the numbers' checks are shared with the daily's controls (`cogs/_ids.py`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import discord

from bot.engine import DiceSource, GameError
from bot.match import Match
from cogs._edge import guard, reply_language
from cogs._ids import GameControl, IdScheme, registrar
from db import GameStore

from ._service import GameService, Publisher, valid_id
from ._solutions import SolutionCache

PREFIX = "poker"


@dataclass(frozen=True)
class PlayDeps:
    """What the play controls and commands need; the app hands it to the bot."""

    service: GameService
    store: GameStore
    solutions: SolutionCache
    dice: DiceSource
    publisher: Publisher
    bot_pause: float = 0.8

    @staticmethod
    def of(client: discord.Client) -> PlayDeps:
        deps = getattr(client, "play", None)
        if not isinstance(deps, PlayDeps):
            raise RuntimeError("the play feature is not wired into this client")
        return deps


IDS = IdScheme(PREFIX)
template = IDS.template
custom_id = IDS.custom_id
version_shown = IDS.version_shown
unknown_control = IDS.fallback


def unstored(view: discord.ui.View) -> discord.ui.View:
    """A view discord.py will not keep per message: the registered DynamicItems answer its
    clicks, so a stored copy per message would only grow memory."""
    view.stop()
    return view


CONTROLS: dict[str, type[Control]] = {}
control = registrar(CONTROLS)  # `@control("hold")`: the class's action, registered


class Control(GameControl, template=r"poker:(?!)"):
    """A game control; subclasses set `action` and implement `run`."""

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        deps = PlayDeps.of(interaction.client)
        # Refusals are ephemeral: in the clicker's language, not the game's.
        lang = reply_language(interaction)
        async with guard(interaction, lang, self.custom_id, control=self.action):
            if not valid_id(self.game) or self.version < 0:
                raise GameError("errors.stale")
            found = await deps.service.get(self.game)
            if found is None or not here(interaction, found):
                raise GameError("errors.stale")
            await self.run(interaction, deps, found)

    async def run(
        self, interaction: discord.Interaction[Any], deps: PlayDeps, match: Match
    ) -> None:
        raise NotImplementedError

    async def apply(
        self,
        interaction: discord.Interaction[Any],
        deps: PlayDeps,
        change: Callable[[Match], Match],
    ) -> Match:
        return await deps.service.apply(
            self.game,
            change,
            version=self.version if self.versioned else None,
            via=interaction,
            ids_later=True,  # one commit per click: the next change stores the new ids
        )


def here(interaction: discord.Interaction[Any], match: Match) -> bool:
    """The click comes from the match's own guild and channel (a forged custom_id from
    another server reaches nothing)."""
    return interaction.guild_id == match.guild_id and interaction.channel_id == match.channel_id
