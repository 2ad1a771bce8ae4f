"""A saved change → Discord: the one place that posts and edits a game's messages.

A game shows at most one message with live controls: the lobby, then the turn message.
When a turn ends, its message becomes the turn's summary (carrying the table's scorecard
when the server shows one then: every turn, every round, or only at the end) and the next
turn's message is posted, mentioning only the player to move; at the end the final
standings come with the table, once. Every other message pings nobody.

Self-repair: the id of a message posted after a change is stored by the next change (one
commit per click), so after a restart, or when Discord refused to tell the id, the game's
live message may be unknown. It is then found again — the message clicked, else the
game's controls in the channel's recent messages — and any other copy with live controls
is retired, so later changes update it rather than leave it looking alive.

Pictures are drawn in worker processes (`bot.service.Pictures`), started while the change
is being saved (`prepare`); a click waits for them at most the pool's budget (1.5 s), then
its message goes out with the text table and the pictures follow by an edit of that message.
"""

from __future__ import annotations

import asyncio
import io
import logging
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import discord

from bot.engine import Game, Left, Rolled
from bot.i18n import t
from bot.match import MAX_SEATS, Match
from bot.records import GuildSettings
from bot.render import (
    lobby_embed,
    opening_embed,
    scorecard_embed,
    standings_embed,
    summary_line,
    turn_embed,
)
from bot.render.embed import Embed, safe
from bot.render.image import FILENAME, game_pngs
from bot.service import NotShown, Pictures, PicturesClosedError, ServerSettings
from cogs._edge import NEEDED, missing_permissions, to_discord

from ._controls import PREFIX, version_shown
from ._hint import hint_button
from ._via import Notice, Via
from ._views import lobby_view, turn_view

log = logging.getLogger(__name__)

HISTORY_SCAN = 50  # recent channel messages searched for a game's lost message
LOBBY_ACTIONS = ("join", "leave", "start", "cancel", "addbot")
TURN_ACTIONS = ("hold", "roll", "score", "pass", "card", "hint")

Drawing = asyncio.Task[list[bytes]]


@dataclass(frozen=True)
class _Drawings:
    """A turn's end as its pictures show it: the summary's scorecard (`shown`, of round
    `played`) and, when the game is over, the final card; each drawing None when the
    server shows no pictures. `game` is the state they draw."""

    game: Game
    shown: bool
    played: int
    turn: Drawing | None
    final: Drawing | None

    def cancel(self) -> None:
        for drawing in (self.turn, self.final):
            if drawing is not None:
                drawing.cancel()


class DiscordPublisher:
    """The table service's publisher (`bot.service.Publisher[Via]`)."""

    def __init__(
        self, client: discord.Client, settings: ServerSettings, pictures: Pictures
    ) -> None:
        self.client = client
        self.settings = settings
        self.pictures = pictures
        self._late: dict[int, asyncio.Task[None]] = {}  # message id → its pictures' edit
        self._ready: dict[int, _Drawings] = {}  # game id → pictures started before its save

    @property
    def late(self) -> list[asyncio.Task[None]]:
        """The edits still to bring pictures that were not ready in time."""
        return list(self._late.values())

    async def stop(self) -> None:
        """The bot stops: pictures still on their way are not shown."""
        for ready in self._ready.values():
            ready.cancel()
        self._ready.clear()
        late = self.late
        for task in late:
            task.cancel()
        await asyncio.gather(*late, return_exceptions=True)

    # --- the service's calls ------------------------------------------------------------

    async def publish(self, before: Match, after: Match, via: Via | None) -> Match:
        interaction = via.interaction if via is not None else None
        notice = via.notice if via is not None else None
        try:
            return await self._publish(before, after, interaction, notice)
        except discord.Forbidden as exc:
            raise NotShown(await self._missing(after)) from exc
        except discord.HTTPException as exc:
            raise NotShown() from exc

    async def prepare(self, before: Match, after: Match) -> None:
        """A turn's end is about to be saved: its pictures start drawing meanwhile (the
        save's commit takes a millisecond or two). A save that fails leaves them unused:
        the next change of the game cancels them."""
        self._prepared(after)  # a new decision: what an unsaved one started is cancelled
        if _ends_turn(before, after):
            self._ready[after.id] = self._drawings(before, after, await self._settings(after))

    async def refresh(self, match: Match, via: Via) -> None:
        """A click on an out-of-date message: when it is the game's own (or the game's
        live message is unknown and it shows this game's controls), redraw it as the
        game is now, so its buttons work again."""
        message = via.interaction.message if via.interaction is not None else None
        if message is None:
            return
        shown = version_shown(message, match.id)
        if shown is None or shown == match.version or message.flags.ephemeral:
            return
        live = match.lobby_message_id if match.status == "lobby" else match.turn_message_id
        # Edited through the channel, not the click's response: the clicker's answer stays
        # the refusal alone (ephemeral), as for any out-of-date click.
        if live not in (None, message.id):
            await self._retire(match, message.id, None)  # a stray copy: no live controls
            return
        try:
            await self._edit(match, message.id, None, **await self.live_fields(match))
        except discord.HTTPException as exc:
            log.warning("game %s: could not redraw message %s: %r", match.id, message.id, exc)

    def adopt(self, match: Match, via: Via | None) -> Match:
        """After a restart the live message's id may be unknown (a new turn's id is stored
        by the turn's next change, a lobby's right after `/poker new` answered): the public
        message clicked, showing this game's live controls at the current version (a
        lobby's at any: they are not versioned), is that message, stored with this change."""
        lobby = match.status == "lobby"
        known = match.lobby_message_id if lobby else match.turn_message_id
        if not match.active or known is not None:
            return match
        interaction = via.interaction if via is not None else None
        message = interaction.message if interaction is not None else None
        if message is None or message.flags.ephemeral:
            return match
        if not lobby and version_shown(message, match.id) != match.version:
            return match
        if not _shows(message, match.id, LOBBY_ACTIONS if lobby else TURN_ACTIONS):
            return match
        if lobby:
            return replace(match, lobby_message_id=message.id)
        return replace(match, turn_message_id=message.id)

    async def repost(self, match: Match) -> Match:
        """Post the live message again; the old copies lose their controls."""
        try:
            stale = set(await self._copies(match, None))
            live = match.lobby_message_id if match.status == "lobby" else match.turn_message_id
            for old in stale | ({live} if live is not None else set()):
                await self._retire(match, old, None)
            if match.status == "lobby":
                message = await self._send(match, **await self.live_fields(match))
                return replace(match, lobby_message_id=message.id)
            # As they are now: another process may have changed them since the turn began.
            return await self._post_turn(match, await self.settings.fresh(match.guild_id))
        except discord.Forbidden as exc:
            raise NotShown(await self._missing(match)) from exc
        except discord.HTTPException as exc:
            raise NotShown() from exc

    async def show_analysis(self, match: Match, name: str, value: str) -> None:
        """Add the post-game analysis to the final standings (posted before it was ready)."""
        if match.final_message_id is None or match.game is None:
            return
        late = self._late.get(match.final_message_id)
        if late is not None:  # its pictures first: that edit would drop the analysis
            await asyncio.wait({late})
        standings = standings_embed(match.game, match.names, match.id, match.lang)
        standings.add_field(name, value)
        drawing = self._drawing(match, await self._settings(match), final=True)
        pngs = await _drawn(match, drawing) if drawing is not None else None
        fields = self._final_fields(match, standings, pngs)
        if pngs is None:
            fields.pop("attachments")  # whatever the message carries stays
        try:
            await self._edit(match, match.final_message_id, None, **fields)
        except discord.HTTPException as exc:
            log.warning("game %s: could not add the analysis: %r", match.id, exc)

    # --- what each change shows -----------------------------------------------------------

    async def _publish(
        self,
        before: Match,
        after: Match,
        interaction: discord.Interaction[Any] | None,
        notice: Notice | None,
    ) -> Match:
        if before.status == "lobby":
            return await self._publish_lobby(after, interaction, notice)
        turn_id = await self._live_turn(before, interaction)
        await self._retire_clicked_copy(after, turn_id, interaction, TURN_ACTIONS)
        settings = await self._settings(after)
        if after.status == "cancelled":
            by = self._by(interaction, notice, after)
            await self._edit(
                after,
                turn_id,
                interaction,
                content=t("summary.cancelled", after.lang, name=safe(by)),
                embeds=[],
                attachments=[],
                view=None,
            )
            return replace(after, turn_message_id=turn_id)
        if not _ends_turn(before, after):
            fields = self._turn_fields(after, settings)
            fields["content"] = self._turn_content(after, notice)
            if not await self._edit(after, turn_id, interaction, **fields):
                return await self._post_turn(after, settings)  # the message is gone: again
            for event in after.events:  # someone else left: tell the table, pinging nobody
                if isinstance(event, Left):
                    await self._send(after, content=summary_line(event, after.names, after.lang))
            return replace(after, turn_message_id=turn_id)
        return await self._end_turn(before, after, turn_id, interaction, notice, settings)

    async def _publish_lobby(
        self, after: Match, interaction: discord.Interaction[Any] | None, notice: Notice | None
    ) -> Match:
        lobby_id = await self._live_lobby(after, interaction)
        await self._retire_clicked_copy(after, lobby_id, interaction, LOBBY_ACTIONS)
        if after.status == "playing":
            await self._edit(after, lobby_id, interaction, embed=self._lobby(after), view=None)
            shown = replace(after, lobby_message_id=lobby_id)
            return await self._post_turn(shown, await self._settings(after), opening=True)
        if after.status == "lobby":
            fields = await self.live_fields(after)
            if not await self._edit(after, lobby_id, interaction, **fields):
                message = await self._send(after, **fields)  # the lobby was lost: again
                return replace(after, lobby_message_id=message.id)
            return replace(after, lobby_message_id=lobby_id)
        by = self._by(interaction, notice, after)
        await self._edit(after, lobby_id, interaction, embed=self._lobby(after, by=by), view=None)
        if notice is not None:
            await self._send(after, content=notice.text(after))
        return replace(after, lobby_message_id=lobby_id)

    async def _end_turn(  # noqa: PLR0913 - what the turn's end shows, and where
        self,
        before: Match,
        after: Match,
        turn_id: int | None,
        interaction: discord.Interaction[Any] | None,
        notice: Notice | None,
        settings: GuildSettings,
    ) -> Match:
        ready = self._prepared(after) or self._drawings(before, after, settings)
        game, shown, played = ready.game, ready.shown, ready.played
        lines = [
            summary_line(e, after.names, after.lang)
            for e in after.events
            if not isinstance(e, Rolled)
        ]
        if notice is not None:
            lines.insert(0, notice.text(after))
        summary = " ".join(line for line in lines if line)
        drawing, final_drawing = ready.turn, ready.final

        def summary_fields(pngs: list[bytes] | None) -> dict[str, Any]:
            if not shown:
                return {"embeds": [], "attachments": []}
            embeds, files = self._scorecard(after, pngs, round_no=played)
            return {"embeds": [to_discord(e) for e in embeds], "attachments": files}

        pngs = await self._in_time(after, drawing)
        fields = {"content": summary, **summary_fields(pngs), "view": None}
        summary_id = turn_id if await self._edit(after, turn_id, interaction, **fields) else None
        if summary_id is None:
            fields.pop("view")
            fields["files"] = fields.pop("attachments")
            summary_id = (await self._send(after, **fields)).id
        if drawing is not None and pngs is None:
            self._follow(after, summary_id, drawing, summary_fields)
        if game.finished:
            standings = standings_embed(game, after.names, after.id, after.lang)
            pngs = await self._in_time(after, final_drawing)
            fields = self._final_fields(after, standings, pngs)
            fields["files"] = fields.pop("attachments")
            final = await self._send(after, **fields)
            if final_drawing is not None and pngs is None:
                again = lambda p: self._final_fields(after, standings, p)  # noqa: E731
                self._follow(after, final.id, final_drawing, again)
            return replace(after, turn_message_id=None, final_message_id=final.id)
        return await self._post_turn(after, settings)

    def _final_fields(
        self, match: Match, standings: Embed, pngs: list[bytes] | None
    ) -> dict[str, Any]:
        """The final standings with the table's final card (`pngs`: as pictures)."""
        card, files = self._scorecard(match, pngs)
        if files:  # the first picture in the standings themselves
            standings = replace(standings, image=card[0].image)
            card = card[1:]
        return {"embeds": [to_discord(e) for e in [standings, *card]], "attachments": files}

    def _scorecard(
        self,
        match: Match,
        pngs: list[bytes] | None,
        *,
        round_no: int | None = None,
    ) -> tuple[list[Embed], list[discord.File]]:
        """The table's scorecard: `pngs` (one embed each) when drawn, else the code-block
        tables; `round_no` the round it closes (default: the game's)."""
        game = match.require_game()
        names, lang = match.names, match.lang
        card = scorecard_embed(game, names, match.id, lang, round_no=round_no, tables=not pngs)
        if not pngs:
            return [card], []
        embeds, files = [], []
        for i, png in enumerate(pngs):
            name = FILENAME if i == 0 else f"{i + 1}-{FILENAME}"
            files.append(discord.File(io.BytesIO(png), filename=name))
            embeds.append(Embed(image=f"attachment://{name}"))
        # The picture replaces the tables, not the scorecard's title and footer.
        first = embeds[0]
        first.title, first.colour, first.footer = card.title, card.colour, card.footer
        return embeds, files

    # --- pictures ------------------------------------------------------------------------

    def _prepared(self, after: Match) -> _Drawings | None:
        """The pictures `prepare` started for `after`, taken; any started for another state
        of its game (a save that failed) cancelled."""
        ready = self._ready.pop(after.id, None)
        if ready is not None and ready.game is not after.game:
            ready.cancel()
            return None
        return ready

    def _drawings(self, before: Match, after: Match, settings: GuildSettings) -> _Drawings:
        """What the end of the turn from `before` to `after` shows, its pictures started."""
        game = after.require_game()
        round_over = before.game is not None and game.round != before.game.round
        shown = after.shows_scorecard(settings.scorecards, round_over=round_over)
        # The round this turn was played in: its last turn has already begun the next.
        played = before.game.round if before.game is not None else game.round
        # Both sets of pictures start at once; each message waits for its own.
        turn = self._drawing(after, settings, final=False, round_no=played) if shown else None
        final = self._drawing(after, settings, final=True) if game.finished else None
        return _Drawings(game, shown, played, turn, final)

    def _drawing(
        self, match: Match, settings: GuildSettings, *, final: bool, round_no: int | None = None
    ) -> Drawing | None:
        """The table's pictures, started in the pool, when the server shows pictures."""
        if not settings.images:
            return None
        game = match.require_game()
        return self.pictures.start(
            game_pngs, game, match.names, match.id, match.lang, final=final, round_no=round_no
        )

    async def _in_time(
        self, match: Match, drawing: Drawing | None
    ) -> list[bytes] | None:
        """The pictures if drawn within the pool's budget, else None (the text goes out;
        `_follow` brings them, unless drawing them failed)."""
        if drawing is None or not await self.pictures.in_time(drawing):
            return None
        return await _drawn(match, drawing)

    def _follow(
        self,
        match: Match,
        message_id: int,
        drawing: Drawing,
        fields: Callable[[list[bytes]], dict[str, Any]],
    ) -> None:
        """When `drawing` is done, edit its pictures into the message sent without them."""
        if drawing.done():  # it failed (logged): the text stays
            return

        async def edit() -> None:
            pngs = await _drawn(match, drawing)
            if pngs is None:
                return
            try:
                await self._edit(match, message_id, None, **fields(pngs))
            except discord.HTTPException as exc:
                log.warning("game %s: the late pictures were not shown: %r", match.id, exc)

        task = asyncio.get_running_loop().create_task(edit(), name=f"pictures-{message_id}")
        self._late[message_id] = task
        task.add_done_callback(lambda done: self._forget(message_id, done))

    def _forget(self, message_id: int, task: asyncio.Task[None]) -> None:
        if self._late.get(message_id) is task:
            del self._late[message_id]

    async def _post_turn(
        self, match: Match, settings: GuildSettings, *, opening: bool = False
    ) -> Match:
        """Post the player to move's turn message, mentioning (pinging) only them."""
        fields = self._turn_fields(match, settings)
        current = match.current_id
        mentions = (
            discord.AllowedMentions(users=[discord.Object(current)], everyone=False, roles=False)
            if current is not None and match.computer_to_move is None
            else discord.AllowedMentions.none()
        )
        if opening and match.opening is not None:
            fields["embeds"] = [to_discord(self._opening(match)), *fields["embeds"]]
        message = await self._send(
            match, content=self._turn_content(match, None), allowed_mentions=mentions, **fields
        )
        return replace(match, turn_message_id=message.id)

    def _turn_content(self, match: Match, notice: Notice | None) -> str:
        """Whose turn it is (a mention: it renders as their name) and when it times out."""
        seat = match.computer_to_move
        if seat is not None:
            return t("bots.turn", match.lang, name=safe(seat.name))
        content = t("turn.mention", match.lang, mention=f"<@{match.current_id}>")
        due = match.due_at()
        if due is not None:
            content += " " + t("timer.deadline", match.lang, when=f"<t:{int(due.timestamp())}:R>")
        if notice is not None:
            content = notice.text(match) + " " + content
        return content

    # --- drawing -----------------------------------------------------------------------------

    def _lobby(self, match: Match, *, by: str | None = None) -> discord.Embed:
        # Once started, in seat order (the opening throw's), not the order they joined.
        seated = [match.name_of(int(p)) for p in match.game.players] if match.game else None
        return to_discord(
            lobby_embed(
                game_id=match.id,
                rules=match.rules,
                host=match.name_of(match.host_id),
                players=seated or [s.name for s in match.seats],
                max_players=MAX_SEATS,
                lang=match.lang,
                status=match.status,
                cancelled_by=by,
            )
        )

    def _opening(self, match: Match) -> Embed:
        game, opening = match.require_game(), match.opening
        assert opening is not None
        rounds = [[(match.name_of(u), d) for u, d in r] for r in opening.rounds]
        order = [match.name_of(p) for p in game.players]
        return opening_embed(rounds, match.name_of(opening.starter), order, match.lang)

    def _turn_fields(self, match: Match, settings: GuildSettings) -> dict[str, Any]:
        game = match.require_game()
        hint = hint_button(match) if match.hint_offered(settings) else None
        computer = match.computer_to_move is not None
        embed = turn_embed(game, match.names, match.id, match.lang, computer=computer)
        return {
            "embeds": [to_discord(embed)],
            "view": turn_view(match, hint=hint),
        }

    async def live_fields(self, match: Match) -> dict[str, Any]:
        if match.status == "lobby":
            return {"embed": self._lobby(match), "view": lobby_view(match)}
        fields = self._turn_fields(match, await self._settings(match))
        fields["content"] = self._turn_content(match, None)
        return fields

    def _by(
        self, interaction: discord.Interaction[Any] | None, notice: Notice | None, match: Match
    ) -> str:
        if interaction is not None:
            return getattr(interaction.user, "display_name", None) or interaction.user.name
        if notice is not None:
            return t("timer.clock", match.lang)
        return "—"

    async def _settings(self, match: Match) -> GuildSettings:
        """As read when the turn began (`bot.service.ServerSettings`): no store round
        trip per click."""
        return await self.settings.get(match.guild_id)

    # --- finding, editing and posting messages ------------------------------------------------

    async def _live_turn(
        self, match: Match, interaction: discord.Interaction[Any] | None
    ) -> int | None:
        if match.turn_message_id is not None:
            return match.turn_message_id
        return await self._found(match, interaction, TURN_ACTIONS)

    async def _live_lobby(
        self, match: Match, interaction: discord.Interaction[Any] | None
    ) -> int | None:
        if match.lobby_message_id is not None:
            return match.lobby_message_id
        return await self._found(match, interaction, LOBBY_ACTIONS)

    async def _found(
        self, match: Match, interaction: discord.Interaction[Any] | None, actions: tuple[str, ...]
    ) -> int | None:
        """The game's live message when its id is unknown: the one clicked, else the newest
        of the recent channel messages with this game's controls; other copies retired."""
        message = interaction.message if interaction is not None else None
        if (
            message is not None
            and not message.flags.ephemeral
            and _shows(message, match.id, actions)
        ):
            return message.id
        copies = await self._copies(match, actions)
        if not copies:
            return None
        for stray in copies[1:]:
            await self._retire(match, stray, None)
        return copies[0]

    async def _retire_clicked_copy(
        self,
        match: Match,
        live: int | None,
        interaction: discord.Interaction[Any] | None,
        actions: tuple[str, ...],
    ) -> None:
        """A click that counted on another copy of the live message (one posted again by
        /poker resume while the first could not be found: both carry the same version, and
        lobby controls none) retires that copy: one message keeps live controls."""
        clicked = interaction.message if interaction is not None else None
        if (
            clicked is not None
            and live is not None
            and clicked.id != live
            and not clicked.flags.ephemeral
            and _shows(clicked, match.id, actions)
        ):
            await self._retire(match, clicked.id, interaction)

    async def _copies(self, match: Match, actions: tuple[str, ...] | None) -> list[int]:
        """Ids of the bot's recent messages showing this game's controls, newest first."""
        channel = await self._channel(match)
        wanted = actions or (*LOBBY_ACTIONS, *TURN_ACTIONS)
        me = self.client.user
        found = []
        try:
            async for message in channel.history(limit=HISTORY_SCAN):
                if me is not None and message.author.id != me.id:
                    continue
                if _shows(message, match.id, wanted):
                    found.append(message.id)
        except discord.HTTPException as exc:  # no Read Message History: post afresh
            log.info("game %s: cannot search the channel for its message: %r", match.id, exc)
        return found

    async def _retire(
        self, match: Match, message_id: int, interaction: discord.Interaction[Any] | None
    ) -> None:
        try:
            await self._edit(match, message_id, interaction, view=None)
        except discord.HTTPException as exc:
            log.info("game %s: old message %s not cleared: %r", match.id, message_id, exc)

    async def _edit(
        self,
        match: Match,
        message_id: int | None,
        interaction: discord.Interaction[Any] | None,
        **fields: Any,
    ) -> bool:
        """Edit a game message (through the click's own response when it is that
        message); False when there is no such message (deleted, or never known)."""
        if message_id is None:
            return False
        # Edits ping nobody either, whatever they say (Discord keeps no policy of its own
        # for an edit that names none).
        fields.setdefault("allowed_mentions", discord.AllowedMentions.none())
        if (
            interaction is not None
            and interaction.message is not None
            and interaction.message.id == message_id
            and not interaction.response.is_done()
        ):
            await interaction.response.edit_message(**_changed(fields, interaction.message))
            return True
        channel = await self._channel(match)
        try:
            await channel.get_partial_message(message_id).edit(**fields)
        except discord.NotFound:
            log.info("game %s: message %s is gone", match.id, message_id)
            return False
        return True

    async def _send(self, match: Match, **fields: Any) -> discord.Message:
        fields.setdefault("allowed_mentions", discord.AllowedMentions.none())
        channel = await self._channel(match)
        message: discord.Message = await channel.send(**fields)
        return message

    async def _channel(self, match: Match) -> Any:
        channel = self.client.get_channel(match.channel_id)
        if channel is None:
            channel = await self.client.fetch_channel(match.channel_id)
        return channel

    async def _missing(self, match: Match) -> list[str]:
        try:
            channel = await self._channel(match)
        except discord.HTTPException:
            return list(NEEDED)
        me = getattr(getattr(channel, "guild", None), "me", None)
        if me is None:
            return list(NEEDED)
        return missing_permissions(channel.permissions_for(me), channel) or ["send_messages"]


def _changed(fields: dict[str, Any], shown: discord.Message) -> dict[str, Any]:
    """`fields` without what `shown` (the clicked message, as Discord sent it with the
    click) already shows: an edit that omits a part keeps it, so a hold or a throw does not
    send the same content (the mention, the deadline) again, nor a turn's summary empty
    attachments it never had. The mention policy goes with the content: without new
    content an edit pings nobody."""
    kept = dict(fields)
    if "content" in kept and kept["content"] == shown.content:
        del kept["content"]
    for part in ("embeds", "attachments"):
        if part in kept and not kept[part] and not getattr(shown, part):
            del kept[part]
    if "content" not in kept:
        kept.pop("allowed_mentions", None)
    return kept


def _ends_turn(before: Match, after: Match) -> bool:
    """Whether publishing `after` ends a turn (`_end_turn`): the summary, its pictures and
    the next turn's message (a lobby's start and a cancel are shown otherwise)."""
    return before.status != "lobby" and after.status != "cancelled" and after.turn_ended


async def _drawn(match: Match, drawing: Drawing) -> list[bytes] | None:
    """What `drawing` drew, or None when it failed (logged: the text table stays)."""
    try:
        return await drawing
    except PicturesClosedError:  # the bot is stopping
        return None
    except Exception:
        log.exception("game %s: the scorecard pictures failed", match.id)
        return None


def _shows(message: Any, game: int, actions: tuple[str, ...]) -> bool:
    """Does `message` carry enabled-or-not controls of `game` for one of `actions`?"""
    for row in getattr(message, "components", None) or ():
        for item in getattr(row, "children", ()):
            parts = (getattr(item, "custom_id", None) or "").split(":")
            ours = len(parts) >= 4 and parts[0] == PREFIX and parts[2] == str(game)
            if ours and parts[1] in actions:
                return True
    return False
