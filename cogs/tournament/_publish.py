"""A stored tournament → Discord: its one message in the channel, its tables' threads.

The message is edited as the tournament goes (the sign-up, each round's tables with their
threads' links, who went on, the champion); with pictures on, the bracket comes with it
(one picture per embed, up to `bracket.MAX_PICTURES`). Each table has a public thread of
the channel, named after the tournament and the table, whose members are pinged there
once; a finished table's thread is archived and locked.
"""

from __future__ import annotations

import io
from typing import Any

import discord

from bot.match.tournament import Table, Tournament
from bot.render.bracket import FILENAME, bracket_pngs
from bot.render.embed import Embed
from bot.render.tournament import thread_name, tournament_embed, welcome
from bot.service import Pictures, ServerSettings
from cogs._edge import to_discord

from ._controls import tournament_view

ARCHIVE_AFTER = 1440  # minutes: a day (a table is closed by hand when it finishes anyway)


class TournamentPublisher:
    """The tournament service's publisher (`bot.service.TournamentPublisher`)."""

    def __init__(
        self, client: discord.Client, settings: ServerSettings, pictures: Pictures
    ) -> None:
        self.client = client
        self.settings = settings
        self.pictures = pictures  # the bracket is drawn in a worker, off the event loop

    async def fields(self, tn: Tournament) -> dict[str, Any]:
        """The tournament message as it shows `tn` (for a send or an edit)."""
        settings = await self.settings.fresh(tn.guild_id) if tn.guild_id else None
        links = {
            (tb.round, tb.no): self.client.get_partial_messageable(
                tb.thread_id, guild_id=tn.guild_id).jump_url
            for rnd in tn.rounds for tb in rnd.tables if tb.thread_id is not None
        }  # fmt: skip
        embeds = [tournament_embed(tn, tn.lang, links)]
        files = []
        if settings is not None and settings.images and tn.rounds:
            # Not within a click's 3 s: the service acknowledged the click already.
            for n, png in enumerate(await self.pictures.draw(bracket_pngs, tn, tn.lang), 1):
                name = FILENAME.format(n=n)
                files.append(discord.File(io.BytesIO(png), filename=name))
                picture = Embed()
                picture.image = f"attachment://{name}"
                embeds.append(picture)
        computers = settings is None or settings.bots_allowed
        return {
            "embeds": [to_discord(e) for e in embeds],
            "view": tournament_view(tn, computers=computers),
            "attachments": files,
        }

    async def show(self, tn: Tournament) -> int | None:
        fields = await self.fields(tn)
        channel = await self._channel(tn.channel_id)
        if tn.message_id is not None:
            try:
                await channel.get_partial_message(tn.message_id).edit(**fields)
                return None
            except discord.NotFound:
                pass  # deleted: posted again below
        files = fields.pop("attachments")
        message = await channel.send(**fields, files=files,
                                     allowed_mentions=discord.AllowedMentions.none())  # fmt: skip
        return int(message.id)

    async def open_thread(self, tn: Tournament, table: Table) -> int:
        channel = await self._channel(tn.channel_id)
        thread = await channel.create_thread(
            name=thread_name(tn, table, tn.lang), type=discord.ChannelType.public_thread,
            auto_archive_duration=ARCHIVE_AFTER,
        )  # fmt: skip
        return int(thread.id)

    async def welcome(self, tn: Tournament, table: Table) -> None:
        if table.thread_id is None:
            return
        humans = [s.user_id for s in tn.seats_for(table) if not s.is_bot]
        thread = await self._channel(table.thread_id)
        await thread.send(
            welcome(tn, table, [f"<@{u}>" for u in humans], tn.lang),
            allowed_mentions=discord.AllowedMentions(
                users=[discord.Object(u) for u in humans], everyone=False, roles=False),
        )  # fmt: skip

    async def close_thread(self, tn: Tournament, table: Table) -> None:  # noqa: ARG002 - the protocol's
        if table.thread_id is None:
            return
        thread = await self._channel(table.thread_id)
        if isinstance(thread, discord.Thread):
            await thread.edit(archived=True, locked=True)

    async def _channel(self, channel_id: int) -> Any:
        channel = self.client.get_channel(channel_id)
        if channel is None:
            channel = await self.client.fetch_channel(channel_id)
        return channel
