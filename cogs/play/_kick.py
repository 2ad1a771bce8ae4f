"""`/poker kick` (the host removes a player, after a confirmation button) and
`/poker resume` (post the game's message again when it was lost or Discord refused it).

A kicked player leaves exactly as with `/poker leave`: out of the lobby, or the engine's
`Leave` in a game (their free rows are scratched). The confirmation is an ephemeral
message whose button carries the game and the member (`poker:kick:<game>:<v>:<member>`);
it is not versioned — the game moves on while the host decides — but every check is
made again under the game's lock when it is pressed.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

from bot.i18n import t
from bot.i18n.translator import reply_language

from . import _views
from ._table import Refusal, Table
from ._views import Control, check_permissions, control, custom_id, guard, service_of, template

if TYPE_CHECKING:
    from ._service import GameService

log = logging.getLogger(__name__)

LABEL_MAX = 80  # Discord's limit for a button label


def check_kick(table: Table | None, by: int, target: int) -> Table:
    """The table, if `by` may remove `target` from it now; else the polite refusal."""
    if table is None:
        raise Refusal("errors.no_game")
    if not table.active:
        raise Refusal("errors.stale")
    if by != table.host_id:
        raise Refusal("kick.only_host", name=table.name_of(table.host_id))
    if target == by:
        raise Refusal("kick.self")
    name = table.name_of(target)
    if table.status == "lobby":
        if table.seat(target) is None:
            raise Refusal("kick.not_seated", name=name)
        return table
    game = table.require_game()
    if str(target) not in game.players or game.card_of(str(target)).left:
        raise Refusal("kick.not_seated", name=name)
    return table


def remove(table: Table, by: int, target: int) -> Table:
    check_kick(table, by, target)
    if table.status == "lobby":
        # The host asked, not the member: the lobby's own "leave" rules do not apply.
        return table.leave_lobby(target)
    return table.leave_game(target)


@control("kick")
class KickConfirm(Control, template=template("kick")):
    versioned = False

    async def run(self, interaction: discord.Interaction, service: GameService) -> None:
        if self.arg is None or not (self.arg.isascii() and self.arg.isdigit()):
            raise Refusal("errors.stale")
        target, by = int(self.arg), interaction.user.id
        before = await service.get(self.game)
        name = before.name_of(target) if before else str(target)
        if before is not None and before.status == "playing":
            check_permissions(interaction)
        await self.apply(interaction, service, lambda tb: remove(tb, by, target))
        if not interaction.response.is_done():
            lang = reply_language(interaction)
            await interaction.response.edit_message(
                content=t("kick.done", lang, name=name), view=None
            )


def _name(member: discord.abc.User) -> str:
    return getattr(member, "display_name", None) or member.name


@app_commands.command(name="kick", description=t("commands.kick"))
@app_commands.describe(member=t("commands.kick_member"))
async def kick(interaction: discord.Interaction, member: discord.User) -> None:
    service = service_of(interaction.client)
    lang = reply_language(interaction)
    async with guard(interaction, lang, "/poker kick"):
        table = check_kick(
            await service.in_channel(interaction.channel_id or 0), interaction.user.id, member.id
        )
        name = table.name_of(member.id)
        button: discord.ui.Button[Any] = discord.ui.Button(
            label=t("kick.button", lang, name=name)[:LABEL_MAX],
            style=discord.ButtonStyle.danger,
            custom_id=custom_id("kick", table.id, table.version, member.id),
        )
        view = discord.ui.View(timeout=None)
        view.add_item(KickConfirm(button, table.id, table.version, str(member.id)))
        _views.unstored(view)
        await interaction.response.send_message(
            t("kick.confirm", lang, name=name),
            view=view,
            ephemeral=True,
            allowed_mentions=discord.AllowedMentions.none(),
        )


async def repost(service: GameService, game_id: int) -> Table:
    """Post the lobby or turn message again and make it the live one."""
    async with service.locked(game_id) as table:
        if table is None or not table.active:
            raise Refusal("errors.stale")
        channel = await service.channel(table)
        playing = table.status == "playing"
        old = table.turn_message_id if playing else table.lobby_message_id
        if old is not None:
            try:  # one live copy: the old buttons go (if the old message still exists)
                await channel.get_partial_message(old).edit(view=None)
            except discord.HTTPException as exc:
                log.info("game %s: old message %s not cleared: %r", game_id, old, exc)
        if playing:
            return await service.post_turn(table)
        message = await channel.send(
            embed=service.lobby_embed(table), view=_views.lobby_view(table)
        )
        return await service.remember(table, lobby_message_id=message.id)


@app_commands.command(name="resume", description=t("commands.resume"))
async def resume(interaction: discord.Interaction) -> None:
    service = service_of(interaction.client)
    lang = reply_language(interaction)
    async with guard(interaction, lang, "/poker resume"):
        table = await service.in_channel(interaction.channel_id or 0)
        if table is None:
            raise Refusal("errors.no_game")
        check_permissions(interaction)
        await interaction.response.defer(ephemeral=True, thinking=True)
        await repost(service, table.id)
        await interaction.followup.send(t("resume.done", lang), ephemeral=True)


COMMANDS = (kick, resume)
