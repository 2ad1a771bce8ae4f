"""The daily's controls: `daily:<action>:<game>:<version>[:<arg>]`, and their checks.

A namespace of its own, so the play cog's fallback for unknown `poker:` ids never answers
a daily's click (and this one answers only `daily:` ids). Like a table's controls, a
daily's carry the game and the version it was drawn at: a click after a restart reaches
the game, an out-of-date one is refused (and its message redrawn as the game is now).
Before anything else each checks its numbers, that the click comes from the daily's
server, from its member (someone else is told whose game it is), and on its day.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol, TypeVar

import discord

from bot.engine import GameError
from bot.match import Match
from bot.render.daily import day_text
from cogs._edge import guard, reply, reply_language
from cogs.play import SolutionCache
from cogs.play._controls import small_int
from cogs.play._service import valid_id
from db import GameStore

from ._best import BestScores
from ._service import Dailies

PREFIX = "daily"
VERSION_MAX = 2**31 - 1
ARG_MAX = 25


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


def template(action: str) -> str:
    numbers = r"(?P<game>\d{1,20}):(?P<v>\d{1,20})"
    return rf"{PREFIX}:{action}:{numbers}(?::(?P<arg>[\w-]{{1,{ARG_MAX}}}))?"


def custom_id(action: str, game: int, version: int, arg: object | None = None) -> str:
    tail = "" if arg is None else f":{arg}"
    return f"{PREFIX}:{action}:{game}:{version}{tail}"


def version_shown(message: Any, game: int) -> int | None:
    """The version a message's daily controls of `game` carry (None: none shown)."""
    for row in getattr(message, "components", None) or ():
        for item in getattr(row, "children", ()):
            parts = (getattr(item, "custom_id", None) or "").split(":")
            if len(parts) >= 4 and parts[0] == PREFIX and parts[2] == str(game):
                return small_int(parts[3], 0, VERSION_MAX)
    return None


CONTROLS: dict[str, type[DailyControl]] = {}
C = TypeVar("C", bound="type[DailyControl]")


def control(action: str) -> Callable[[C], C]:
    def register(cls: C) -> C:
        cls.action = action
        CONTROLS[action] = cls
        return cls

    return register


class DailyControl(discord.ui.DynamicItem[Any], template=r"daily:(?!)"):
    """A daily's control; subclasses set `action` and implement `run`."""

    action: ClassVar[str] = ""
    versioned: ClassVar[bool] = True

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
    ) -> DailyControl:
        game = small_int(match["game"], 1, 2**63 - 1) or 0
        version = small_int(match["v"], 0, VERSION_MAX)
        return cls(item, game, -1 if version is None else version, match["arg"])

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


_GROUP = re.compile(r"\(\?P<\w+>")


def unknown_control(known: Iterable[type[discord.ui.DynamicItem[Any]]]) -> type[Any]:
    """A DynamicItem for the `daily:` ids that none of `known` matches: out of date."""
    patterns = [_GROUP.sub("(?:", cls.__discord_ui_compiled_template__.pattern) for cls in known]
    pattern = rf"(?!(?:{'|'.join(patterns)})\Z){PREFIX}:[\s\S]*"

    class UnknownDaily(discord.ui.DynamicItem[discord.ui.Button[Any]], template=pattern):
        def __init__(self, custom_id: str) -> None:
            super().__init__(discord.ui.Button(label="?", custom_id=custom_id[:100]))

        @classmethod
        async def from_custom_id(
            cls, _interaction: discord.Interaction[Any], item: discord.ui.Item[Any], _m: Any, /
        ) -> UnknownDaily:
            return cls(getattr(item, "custom_id", None) or PREFIX)

        async def callback(self, interaction: discord.Interaction[Any]) -> None:
            await reply(interaction, GameError("errors.stale").message(reply_language(interaction)))

    return UnknownDaily
