"""A saved change of a daily → the member's ephemeral message.

An ephemeral message can only be changed through an interaction on it (its token lives 15
minutes), so every change is shown by editing the clicked message in the click's own
answer; `/poker daily play` posts it again (Discord drops ephemeral messages when the
client reloads). Nothing is posted in the channel here: the finish's one public line is
the finisher's.
"""

from __future__ import annotations

import contextlib
import io
import logging
from typing import Any

import discord

from bot.engine import Rolled
from bot.i18n import t
from bot.match import Match
from bot.render import card_embed, summary_line
from bot.render.daily import daily_turn_embed, header
from bot.render.embed import Embed
from bot.render.image import FILENAME, game_pngs
from bot.service import NotShown, Pictures, PicturesClosedError
from cogs._edge import reply_language, to_discord
from cogs._turn import family_view

from ._controls import DAILY_TURN, version_shown

log = logging.getLogger(__name__)


class DailyNotShown(NotShown):
    """Stored, but Discord refused the edit: `/poker daily play` shows the game again."""

    def __init__(self) -> None:
        super().__init__()
        self.code = "daily.not_shown"


def daily_view(match: Match, lang: str) -> discord.ui.View:
    """A table turn's controls in the daily's namespace, without the Hint."""
    return family_view(match, lang, DAILY_TURN)


def turn_fields(match: Match, lang: str, *, resumed: bool = False) -> dict[str, Any]:
    """The member's message for the daily in play: what the last change did, the turn."""
    game = match.require_game()
    assert match.day is not None
    lines = [header(match.rules, match.day, lang)]
    if resumed:
        lines.append(t("daily.resumed", lang))
    said = [summary_line(e, match.names, lang) for e in match.events if not isinstance(e, Rolled)]
    lines += [s for s in said if s]
    return {
        "content": "\n".join(lines),
        "embeds": [to_discord(daily_turn_embed(game, match.names, match.id, match.day, lang))],
        "view": daily_view(match, lang),
    }


async def card_fields(
    match: Match, lang: str, *, pictures: Pictures | None, report: list[Embed] | None = None
) -> dict[str, Any]:
    """The finished daily: `report` (when ready) above the member's card, as a picture
    drawn by `pictures` when the server has pictures on (its answer already deferred)."""
    game = match.require_game()
    embeds = list(report or [])
    files: list[discord.File] = []
    card = card_embed(game, game.players[0], match.names, match.id, lang)
    pngs: list[bytes] = []
    if pictures is not None:
        with contextlib.suppress(PicturesClosedError):  # the bot stops: the text card
            pngs = await pictures.draw(game_pngs, game, match.names, match.id, lang, final=True)
    for i, png in enumerate(pngs):
        name = FILENAME if i == 0 else f"{i + 1}-{FILENAME}"
        files.append(discord.File(io.BytesIO(png), filename=name))
        embeds.append(Embed(title=card.title if i == 0 else None, image=f"attachment://{name}"))
    if not pngs:
        embeds.append(card)
    return {"embeds": [to_discord(e) for e in embeds], "attachments": files, "view": None}


class DailyPublisher:
    """The daily service's publisher (`bot.service.Publisher[discord.Interaction]`): only
    a member's clicks change a daily."""

    async def publish(
        self,
        before: Match,  # noqa: ARG002 - the Publisher protocol's: a daily shows `after` alone
        after: Match,
        via: discord.Interaction[Any] | None,
    ) -> Match:
        interaction = via
        if interaction is None:  # only clicks change a daily: nothing to show otherwise
            return after
        lang = reply_language(interaction)
        if after.status == "finished":
            fields = await card_fields(after, lang, pictures=None)
            said = [summary_line(e, after.names, lang) for e in after.events]
            fields["content"] = "\n".join([*(s for s in said if s), t("daily.working", lang)])
        else:
            fields = turn_fields(after, lang)
        try:
            await _edit(interaction, **fields)
        except discord.HTTPException as exc:
            raise DailyNotShown() from exc
        return after

    async def prepare(self, before: Match, after: Match) -> None:
        """Nothing to start early: a daily's click draws no pictures."""

    async def refresh(self, match: Match, via: discord.Interaction[Any]) -> None:
        """A click on an out-of-date copy (a message posted before `/poker daily play`
        posted it again): redraw it as the game is now; the refusal follows."""
        if via.response.is_done():
            return
        if not match.active or version_shown(via.message, match.id) is None:
            return
        try:
            await via.response.edit_message(**turn_fields(match, reply_language(via)))
        except discord.HTTPException as exc:
            log.warning("daily %s: could not redraw an old message: %r", match.id, exc)

    def adopt(
        self,
        match: Match,
        via: discord.Interaction[Any] | None,  # noqa: ARG002 - the Publisher protocol's
    ) -> Match:
        return match  # a daily keeps no message ids: its messages are the member's own

    async def repost(self, match: Match) -> Match:
        return match  # `/poker daily play` posts it again, as its own answer


async def _edit(interaction: discord.Interaction[Any], **fields: Any) -> None:
    if interaction.response.is_done():
        await interaction.edit_original_response(**fields)
    else:
        await interaction.response.edit_message(**fields)
