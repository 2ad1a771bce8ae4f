"""The base of every game control: the custom_id scheme, the registry, the checks.

`poker:<action>:<game>:<version>[:<arg>]` — a click on any old message (even after a
restart) reaches the right game; a click whose version is not the game's is refused as out
of date. Every control checks, before anything else, that its numbers are in range (a
custom_id may say anything) and that the click comes from the game's own guild and
channel; refusals and failures are answered by the shared guard (`cogs._edge`). A `poker:`
id no control understands gets the same polite "out of date" (`unknown_control`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

import discord

from bot.engine import DiceSource, GameError
from bot.match import Match
from cogs._edge import guard, reply, reply_language
from db import GameStore

from ._service import GameService, Publisher, valid_id
from ._solutions import SolutionCache

PREFIX = "poker"
VERSION_MAX = 2**31 - 1
ARG_MAX = 25  # an argument is a short word or number (a die position, a member id)


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


def template(action: str) -> str:
    numbers = r"(?P<game>\d{1,20}):(?P<v>\d{1,20})"
    return rf"{PREFIX}:{action}:{numbers}(?::(?P<arg>[\w-]{{1,{ARG_MAX}}}))?"


def custom_id(action: str, game: int, version: int, arg: object | None = None) -> str:
    tail = "" if arg is None else f":{arg}"
    return f"{PREFIX}:{action}:{game}:{version}{tail}"


def small_int(text: str | None, low: int, high: int) -> int | None:
    """A custom_id's number, if it is plain ASCII digits within [low, high]."""
    if text is None or not (text.isascii() and text.lstrip("-").isdigit()) or len(text) > 20:
        return None
    value = int(text)
    return value if low <= value <= high else None


def version_shown(message: Any, game: int) -> int | None:
    """The version a message's controls of `game` carry (None: it shows none of them)."""
    for row in getattr(message, "components", None) or ():
        for item in getattr(row, "children", ()):
            parts = (getattr(item, "custom_id", None) or "").split(":")
            if len(parts) >= 4 and parts[0] == PREFIX and parts[2] == str(game):
                return small_int(parts[3], 0, VERSION_MAX)
    return None


def unstored(view: discord.ui.View) -> discord.ui.View:
    """A view discord.py will not keep per message: the registered DynamicItems answer its
    clicks, so a stored copy per message would only grow memory."""
    view.stop()
    return view


CONTROLS: dict[str, type[Control]] = {}
C = TypeVar("C", bound="type[Control]")


def control(action: str) -> Callable[[C], C]:
    """Register a control class under its action name."""

    def register(cls: C) -> C:
        cls.action = action
        CONTROLS[action] = cls
        return cls

    return register


class Control(discord.ui.DynamicItem[Any], template=r"poker:(?!)"):
    """A game control; subclasses set `action` and implement `run`."""

    action: ClassVar[str] = ""
    versioned: ClassVar[bool] = True  # False: valid as long as the game is active

    def __init__(self, item: Any, game: int, version: int, arg: str | None = None) -> None:
        super().__init__(item)
        self.game = game
        self.version = version
        self.arg = arg

    @classmethod
    async def from_custom_id(
        cls,
        _interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> Control:
        # Out-of-range numbers become 0 (no game has it): refused as out of date.
        game = small_int(match["game"], 1, 2**63 - 1) or 0
        version = small_int(match["v"], 0, VERSION_MAX)
        return cls(item, game, -1 if version is None else version, match["arg"])

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


_GROUP = re.compile(r"\(\?P<\w+>")


def unknown_control(known: Iterable[type[discord.ui.DynamicItem[Any]]]) -> type[Any]:
    """A DynamicItem for the `poker:` ids that none of `known` matches (hand-made, from
    another version of the bot, damaged): answered as out of date, never left to fail."""
    patterns = [
        # Named groups cannot repeat in one pattern: the exclusion only needs the shapes.
        _GROUP.sub("(?:", cls.__discord_ui_compiled_template__.pattern)
        for cls in known
    ]
    pattern = rf"(?!(?:{'|'.join(patterns)})\Z){PREFIX}:[\s\S]*"

    class Unknown(discord.ui.DynamicItem[discord.ui.Button[Any]], template=pattern):
        def __init__(self, custom_id: str) -> None:
            super().__init__(discord.ui.Button(label="?", custom_id=custom_id[:100]))

        @classmethod
        async def from_custom_id(
            cls, _interaction: discord.Interaction[Any], item: discord.ui.Item[Any], _m: Any, /
        ) -> Unknown:
            return cls(getattr(item, "custom_id", None) or PREFIX)

        async def callback(self, interaction: discord.Interaction[Any]) -> None:
            await reply(interaction, GameError("errors.stale").message(reply_language(interaction)))

    return Unknown
