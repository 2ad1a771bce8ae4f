"""The answer to a `poker:` custom_id that no control understands.

discord.py leaves a component nobody matches unanswered ("This interaction failed"). A
`poker:` id that matches no registered control — hand-made, from a future or removed
version of the bot, or damaged — gets the polite "out of date" answer instead. Its
pattern excludes every registered control's, so exactly one item ever answers an id.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

import discord

from bot.i18n import t
from bot.i18n.translator import reply_language

from ._views import PREFIX, reply

_GROUP = re.compile(r"\(\?P<\w+>")


def unknown_control(known: Iterable[type[discord.ui.DynamicItem[Any]]]) -> type[Any]:
    """A DynamicItem class for the `poker:` ids that none of `known` matches."""
    patterns = [
        # Named groups cannot repeat in one pattern: the exclusion only needs the shapes.
        _GROUP.sub("(?:", cls.__discord_ui_compiled_template__.pattern)  # type: ignore[attr-defined]
        for cls in known
    ]
    template = rf"(?!(?:{'|'.join(patterns)})\Z){PREFIX}:[\s\S]*"

    class Unknown(discord.ui.DynamicItem[discord.ui.Button[Any]], template=template):
        def __init__(self, custom_id: str) -> None:
            super().__init__(discord.ui.Button(label="?", custom_id=custom_id[:100]))

        @classmethod
        async def from_custom_id(
            cls, _interaction: discord.Interaction, item: discord.ui.Item[Any], _m: Any, /
        ) -> Unknown:
            return cls(getattr(item, "custom_id", None) or PREFIX)

        async def callback(self, interaction: discord.Interaction) -> None:
            await reply(interaction, t("errors.stale", reply_language(interaction)))

    return Unknown
