"""The custom_id scheme a feature's controls share: `<prefix>:<action>:<game>:<version>[:<arg>]`.

A click on any old message, even after a restart, names its game and the version it was
drawn at; a feature (the table games' `poker:`, the dailies' `daily:`) has a prefix of its
own, so each answers only its ids. A custom_id may say anything: every number in it is
range-checked here before it goes further, and an id of the prefix that no control
understands gets a polite "out of date" (`IdScheme.fallback`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, ClassVar, Self, TypeVar

import discord

from bot.engine import GameError

from ._edge import Outcome, guard, reply, reply_language

GAME_MAX = 2**63 - 1  # the store's ids are signed 64-bit
VERSION_MAX = 2**31 - 1
ARG_MAX = 25  # an argument is a short word or number (a die position, a member id)

_GROUP = re.compile(r"\(\?P<\w+>")
C = TypeVar("C", bound="type[GameControl]")


def claims(items: Iterable[type[Any]], custom_id: str) -> bool:
    """Whether one of the DynamicItem classes `items` answers `custom_id`."""
    return any(cls.__discord_ui_compiled_template__.fullmatch(custom_id) for cls in items)


async def answer_unclaimed(
    interaction: discord.Interaction[Any], items: Iterable[type[Any]]
) -> None:
    """A click on a component no registered control answers (an id of another version of
    the bot, hand-made, damaged, of any prefix or none: every component the bot posts is
    a DynamicItem) gets a polite private answer instead of "This interaction failed"."""
    if interaction.type != discord.InteractionType.component:
        return
    data: Any = interaction.data or {}
    custom_id = str(data.get("custom_id", ""))
    if claims(items, custom_id):
        return
    async with guard(interaction, reply_language(interaction), "unclaimed control",
                     control="unclaimed"):  # fmt: skip
        raise GameError("controls.unclaimed")


def small_int(text: str | None, low: int, high: int) -> int | None:
    """A custom_id's number, if it is plain ASCII digits within [low, high]."""
    if text is None or not (text.isascii() and text.lstrip("-").isdigit()) or len(text) > 20:
        return None
    value = int(text)
    return value if low <= value <= high else None


@dataclass(frozen=True)
class IdScheme:
    prefix: str

    def template(self, action: str) -> str:
        """A control's DynamicItem template: named groups game, v and arg."""
        numbers = r"(?P<game>\d{1,20}):(?P<v>\d{1,20})"
        return rf"{self.prefix}:{action}:{numbers}(?::(?P<arg>[\w-]{{1,{ARG_MAX}}}))?"

    def custom_id(self, action: str, game: int, version: int, arg: object | None = None) -> str:
        tail = "" if arg is None else f":{arg}"
        return f"{self.prefix}:{action}:{game}:{version}{tail}"

    def version_shown(self, message: Any, game: int) -> int | None:
        """The version a message's controls of `game` carry (None: it shows none of them)."""
        for row in getattr(message, "components", None) or ():
            for item in getattr(row, "children", ()):
                parts = (getattr(item, "custom_id", None) or "").split(":")
                if len(parts) >= 4 and parts[0] == self.prefix and parts[2] == str(game):
                    return small_int(parts[3], 0, VERSION_MAX)
        return None

    def fallback(self, known: Iterable[type[discord.ui.DynamicItem[Any]]]) -> type[Any]:
        """A DynamicItem for this prefix's ids that none of `known` matches (hand-made, from
        another version of the bot, damaged): answered as out of date, never left to fail."""
        patterns = [
            # Named groups cannot repeat in one pattern: the exclusion only needs the shapes.
            _GROUP.sub("(?:", cls.__discord_ui_compiled_template__.pattern)
            for cls in known
        ]
        pattern = rf"(?!(?:{'|'.join(patterns)})\Z){self.prefix}:[\s\S]*"
        prefix = self.prefix

        class Unknown(discord.ui.DynamicItem[discord.ui.Button[Any]], template=pattern):
            fallback: ClassVar[bool] = True  # answers what no control of the prefix does

            def __init__(self, custom_id: str) -> None:
                super().__init__(discord.ui.Button(label="?", custom_id=custom_id[:100]))

            @classmethod
            async def from_custom_id(
                cls, _interaction: discord.Interaction[Any], item: discord.ui.Item[Any], _m: Any, /
            ) -> Unknown:
                return cls(getattr(item, "custom_id", None) or prefix)

            async def callback(self, interaction: discord.Interaction[Any]) -> None:
                stale = GameError("errors.stale").message(reply_language(interaction))
                await reply(interaction, stale)

        return Unknown


class GameControl(discord.ui.DynamicItem[Any], template=r"(?!)"):
    """A control of one game at one version; a feature's base sets the template's prefix,
    its subclasses `action` (and `versioned = False` for a read-only one)."""

    action: ClassVar[str] = ""
    versioned: ClassVar[bool] = True  # False: valid as long as the game is active

    def __init__(self, item: Any, game: int, version: int, arg: str | None = None) -> None:
        super().__init__(item)
        self.game = game
        self.version = version
        self.arg = arg
        self.outcome = Outcome()  # what this click has done so far (its guard's)

    def die(self) -> int:
        """The die position a hold button names (0–4); anything else is out of date."""
        position = small_int(self.arg, 0, 4)
        if position is None:
            raise GameError("errors.stale")
        return position

    def chosen(self) -> str | None:
        """A select's one chosen value (None: none, or several, which no menu here allows)."""
        values = getattr(self.item, "values", None) or []
        return values[0] if len(values) == 1 else None

    @classmethod
    async def from_custom_id(
        cls,
        _interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> Self:
        # Out-of-range numbers become 0 (no game has it) or -1: refused as out of date.
        game = small_int(match["game"], 1, GAME_MAX) or 0
        version = small_int(match["v"], 0, VERSION_MAX)
        return cls(item, game, -1 if version is None else version, match["arg"])


def registrar(registry: dict[str, Any]) -> Callable[[str], Callable[[C], C]]:
    """A feature's class decorator: `@control("hold")` names the class's action and puts
    it in `registry` (the feature's CONTROLS, which its cog registers with discord.py)."""

    def control(action: str) -> Callable[[C], C]:
        def register(cls: C) -> C:
            cls.action = action
            registry[action] = cls
            return cls

        return register

    return control
