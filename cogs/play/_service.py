"""The game service: the one place that changes games.

Every change runs under the game's own asyncio lock and follows the same three steps:
load the table (memory, else the store) → let the table/engine decide → `commit` through
`Store.save` (the actions and the snapshot in ONE transaction) → only then `publish`
(edit/post the Discord messages). `apply` works with an interaction (a click) and without
one (computer players, turn timers call it from a task): publishing never needs one.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import discord

from bot import render
from bot.engine import Left, Passed, Scored
from bot.i18n import t
from bot.render import image
from bot.strategy.tables import TableManager
from cogs.stats import seat_results
from db import ChannelBusy, StaleVersion

from . import _analysis, _bots, _hint, _timers, _views
from ._table import MAX_SEATS, Refusal, Table, new_actions

if TYPE_CHECKING:
    from bot.app import DicePokerBot

log = logging.getLogger(__name__)

Change = Callable[[Table], Table]

# What the bot needs in a channel to run a game there (DESIGN.md, Intents).
NEEDED = ("view_channel", "send_messages", "embed_links")


class PublishFailed(Refusal):
    """The change is stored, but Discord refused to show it (the player is told so)."""

    def __init__(self) -> None:
        super().__init__("timer.publish_failed")


class MissingPermissions(Exception):  # noqa: N818 - reported to the user, not a bug
    def __init__(self, permissions: list[str]) -> None:
        super().__init__(", ".join(permissions))
        self.permissions = permissions


def missing_permissions(
    permissions: discord.Permissions, channel: object | None = None
) -> list[str]:
    needed = list(NEEDED)
    if isinstance(channel, discord.Thread):
        needed[1] = "send_messages_in_threads"
    return [p for p in needed if not getattr(permissions, p)]


def posts_turn(before: Table, after: Table) -> bool:
    """Does publishing `after` post a new turn message (the old one becomes a summary)?"""
    if after.status != "playing" or after.game is None or after.game.finished:
        return False
    if before.game is None:
        return False  # the start: the lobby had no turn message
    was = before.game.player
    return any(
        isinstance(e, Scored | Passed) or (isinstance(e, Left) and e.player == was)
        for e in after.events
    )


class GameService:
    def __init__(self, bot: DicePokerBot) -> None:
        self.bot = bot
        self._locks: dict[int, asyncio.Lock] = {}
        self._cache: dict[int, Table] = {}
        # Strategy tables (hints, perfect computer seats, the post-game analysis).
        self.tables = TableManager(getattr(getattr(bot, "settings", None), "strategy_dir", None))
        self.computer = _bots.ComputerPlayers(self)
        self._hints: dict[int, bool] = {}  # game id → Hint button shown (server setting)
        self._reports: dict[int, _analysis.Report | None] = {}  # finished, not yet shown

    @property
    def store(self) -> Any:
        return self.bot.store

    # --- loading -----------------------------------------------------------------------

    async def load_active(self) -> int:
        """Cache every lobby and game in play (start-up): their old messages keep working."""
        for record in await self.store.active_games():
            self._cache[record.id] = Table.from_record(record)
        return len(self._cache)

    async def get(self, game_id: int) -> Table | None:
        if not 0 < game_id < 2**63:  # from a custom_id: never a row id (SQLite's range)
            return None
        table = self._cache.get(game_id)
        if table is not None:
            return table
        record = await self.store.get_game(game_id)
        if record is None:
            return None
        table = Table.from_record(record)
        if table.active:
            self._cache[game_id] = table
        return table

    async def in_channel(self, channel_id: int) -> Table | None:
        for table in self._cache.values():
            if table.channel_id == channel_id and table.active:
                return table
        record = await self.store.active_game(channel_id)
        return None if record is None else await self.get(record.id)

    def active_tables(self) -> list[Table]:
        """The cached lobbies and games in play (the turn timers scan them)."""
        return list(self._cache.values())

    def lang_of(self, game_id: int) -> str:
        table = self._cache.get(game_id)
        return table.lang if table else "en"

    def lock(self, game_id: int) -> asyncio.Lock:
        lock = self._locks.get(game_id)
        if lock is None:
            lock = self._locks[game_id] = asyncio.Lock()
        return lock

    @asynccontextmanager
    async def locked(self, game_id: int) -> AsyncIterator[Table | None]:
        async with self.lock(game_id):
            yield await self.get(game_id)

    # --- writing -----------------------------------------------------------------------

    async def create(
        self,
        *,
        guild_id: int | None,
        channel_id: int,
        host_id: int,
        host_name: str,
        rules: str,
        lang: str,
    ) -> Table:
        now = discord.utils.utcnow()
        draft = Table(
            id=0,
            channel_id=channel_id,
            guild_id=guild_id,
            host_id=host_id,
            rules=rules,
            lang=lang,
            created_at=now.isoformat(),
        )
        draft = draft.join(host_id, host_name)
        try:
            record = await self.store.create_game(
                guild_id=guild_id,
                channel_id=channel_id,
                host_id=host_id,
                rules=rules,
                state=draft.to_dict(),
                now=now,
            )
        except ChannelBusy as busy:
            existing = await self.get(busy.game_id)
            raise Refusal("errors.channel_busy", link=self.link(existing)) from None
        table = Table.from_record(record)
        self._cache[table.id] = table
        return table

    async def commit(self, before: Table, after: Table) -> Table:
        """Write the change (actions + snapshot, one transaction); then cache it."""
        now = discord.utils.utcnow()
        after = await _timers.stamp(self.store, before, after, now)
        after = replace(after, version=before.version + 1)
        finishing = after.status == "finished" and before.status != "finished"
        report = None
        if finishing:
            report = self._reports[after.id] = await _analysis.analyse_finished(self.tables, after)
        elif before.status == "lobby" and after.status == "playing":
            self._hints[after.id] = await _hint.hints_allowed(self, after.guild_id)
            self.tables.preload(after.rules)  # from the disk cache only: milliseconds
        state = after.to_dict()
        if posts_turn(before, after):
            # The message that will show this turn is posted after this save, and its id
            # is written by the next one (post_turn). Until then a restarted bot must not
            # take the old message (now the last turn's summary) for the turn's: with no
            # id, timers post afresh and a click on the new message adopts it (`apply`).
            state["turn_message_id"] = None
        try:
            record = await self.store.save(
                before.id,
                expect_version=before.store_version,
                state=state,
                status=after.status if after.status != before.status else None,
                actions=new_actions(before, after),
                # The seats' results go in the same transaction as the last action.
                results=seat_results(after, _analysis.ev_losses(report)) if finishing else (),
                now=now,
            )
        except StaleVersion:
            # Someone else wrote this game (another process?): forget our copy.
            self._cache.pop(before.id, None)
            raise Refusal("errors.stale") from None
        after = replace(after, store_version=record.version)
        if after.active:
            self._cache[after.id] = after
        else:
            self._cache.pop(after.id, None)
        self.computer.notice(after)  # a computer seat to move: its task takes the turn
        if not after.active:
            self._hints.pop(after.id, None)
        return after

    async def remember(self, table: Table, **ids: int | None) -> Table:
        """Store message ids; the custom_id version does not change (nothing a player sees).

        No action in it, so no fsync of its own (`save_ids`): the id is a convenience that
        `/poker resume` can replace; every action was already committed with an fsync.
        """
        new = replace(table, **ids)
        record = await self.store.save_ids(
            table.id,
            expect_version=table.store_version,
            state=new.to_dict(),
            now=discord.utils.utcnow(),
        )
        new = replace(new, store_version=record.version)
        if new.active:
            self._cache[new.id] = new
        return new

    async def apply(
        self,
        game_id: int,
        change: Change,
        *,
        version: int | None = None,
        interaction: discord.Interaction | None = None,
    ) -> Table:
        """Change a game and show the result; raises `Refusal` (nothing changed).

        `version` is the custom_id's: when given it must equal the table's, else the
        message was out of date. Without an interaction (a task), messages are edited
        and posted through the channel.
        """
        async with self.locked(game_id) as table:
            if table is None or not table.active:
                raise Refusal("errors.stale")
            if version is not None and version != table.version:
                await self._refresh_if_behind(table, interaction)
                raise Refusal("errors.stale")
            current = self._adopt(table, interaction)
            after = change(current)
            committed = await self.commit(current, after)
            try:
                return await self.publish(current, committed, interaction)
            except (discord.HTTPException, MissingPermissions) as exc:
                # Stored but not shown: log it here, once, and tell the player how to
                # see the game again (the next click on the old message refreshes it).
                log.warning(
                    "game %s (channel %s, version %s): stored, but Discord refused to show it: %r",
                    game_id,
                    committed.channel_id,
                    committed.version,
                    exc,
                )
                if isinstance(exc, MissingPermissions):
                    raise
                raise PublishFailed from None

    def _adopt(self, table: Table, interaction: discord.Interaction | None) -> Table:
        """After a restart the current turn message's id may be unknown (see `commit`):
        the public message clicked, showing this game's controls at the current version,
        is that message."""
        message = getattr(interaction, "message", None)
        if table.status != "playing" or table.turn_message_id is not None or message is None:
            return table
        if message.flags.ephemeral or _views.version_shown(message, table.id) != table.version:
            return table
        return replace(table, turn_message_id=message.id)

    async def _refresh_if_behind(
        self, table: Table, interaction: discord.Interaction | None
    ) -> None:
        """A click on the game's own message that shows an old version (an edit Discord
        refused): redraw that message as the game is now, so its buttons work again."""
        message = getattr(interaction, "message", None)
        if message is None or message.id not in (table.turn_message_id, table.lobby_message_id):
            return
        shown = _views.version_shown(message, table.id)
        if shown is None or shown == table.version:
            return
        try:
            if message.id == table.turn_message_id and table.status == "playing":
                await self._edit(table, message.id, None, **self.turn_message(table))
            elif message.id == table.lobby_message_id and table.status == "lobby":
                await self._edit(
                    table,
                    message.id,
                    None,
                    embed=self.lobby_embed(table),
                    view=_views.lobby_view(table),
                )
        except (discord.HTTPException, MissingPermissions) as exc:
            log.warning("game %s: could not redraw message %s: %r", table.id, message.id, exc)

    # --- publishing ----------------------------------------------------------------------

    def link(self, table: Table | None) -> str:
        if table is None:
            return "—"
        message_id = table.turn_message_id or table.lobby_message_id
        guild = table.guild_id if table.guild_id is not None else "@me"
        base = f"https://discord.com/channels/{guild}/{table.channel_id}"
        return f"{base}/{message_id}" if message_id else base

    async def channel(self, table: Table) -> Any:
        channel = self.bot.get_channel(table.channel_id)
        if channel is None:
            channel = await self.bot.fetch_channel(table.channel_id)
        return channel

    async def _edit(
        self,
        table: Table,
        message_id: int | None,
        interaction: discord.Interaction | None,
        **fields: Any,
    ) -> None:
        """Edit a game message: through the click's response when it is that message."""
        if message_id is None:
            return
        if (
            interaction is not None
            and interaction.message is not None
            and interaction.message.id == message_id
            and not interaction.response.is_done()
        ):
            await interaction.response.edit_message(**fields)
            return
        channel = await self.channel(table)
        try:
            await channel.get_partial_message(message_id).edit(**fields)
        except discord.NotFound:
            log.warning("game %s: message %s is gone", table.id, message_id)
        except discord.Forbidden as exc:
            raise MissingPermissions(self._missing(channel)) from exc

    async def _send(self, table: Table, **fields: Any) -> discord.Message:
        channel = await self.channel(table)
        try:
            message: discord.Message = await channel.send(**fields)
        except discord.Forbidden as exc:
            raise MissingPermissions(self._missing(channel)) from exc
        return message

    def _missing(self, channel: Any) -> list[str]:
        me = getattr(getattr(channel, "guild", None), "me", None)
        if me is None:
            return list(NEEDED)
        return missing_permissions(channel.permissions_for(me), channel) or ["send_messages"]

    def lobby_embed(self, table: Table, *, by: str | None = None) -> discord.Embed:
        return render.lobby_embed(
            game_id=table.id,
            rules=table.rules,
            host=table.name_of(table.host_id),
            players=[s.name for s in table.seats],
            max_players=MAX_SEATS,
            lang=table.lang,
            status=table.status,
            cancelled_by=by,
        )

    def turn_message(self, table: Table) -> dict[str, Any]:
        game = table.require_game()
        return {
            "embed": render.turn_embed(game, table.names, table.id, table.lang),
            "view": _views.turn_view(table, hints=self._hints.get(table.id, True)),
        }

    async def post_turn(self, table: Table, *, persist: bool = True) -> Table:
        """Post the current player's turn message (mentioning them) and remember it.

        `persist=False` (a click's own publish): the id is only cached; the turn's next
        save writes it with the action (one commit per click, not two; `commit` says how a
        restart in between recovers). `/poker resume` stores it at once.
        """
        current = table.current_id
        content = t("turn.mention", table.lang, mention=f"<@{current}>")
        seat = table.seat(current) if current is not None else None
        if seat is not None and seat.is_bot:  # no member to mention: say who plays
            content = t("bots.turn", table.lang, name=seat.name)
        deadline = _timers.parse(table.deadline)
        if deadline is not None and not _timers.computer_turn(table):
            # A Discord timestamp: each reader sees "in 5 minutes" in their own locale.
            when = f"<t:{int(deadline.timestamp())}:R>"
            content += " " + t("timer.deadline", table.lang, when=when)
        message = await self._send(
            table,
            content=content,
            allowed_mentions=discord.AllowedMentions(users=True, everyone=False, roles=False),
            **self.turn_message(table),
        )
        if persist:
            return await self.remember(table, turn_message_id=message.id)
        posted = replace(table, turn_message_id=message.id)
        if posted.active:
            self._cache[posted.id] = posted
        return posted

    async def publish(
        self, before: Table, after: Table, interaction: discord.Interaction | None
    ) -> Table:
        lang = after.lang
        by = None
        if interaction is not None:
            by = getattr(interaction.user, "display_name", None)
        if before.status == "lobby":
            if after.status == "playing":
                await self._edit(
                    after,
                    after.lobby_message_id,
                    interaction,
                    embed=self.lobby_embed(after),
                    view=None,
                )
                return await self._post_opening(after)
            view = _views.lobby_view(after) if after.status == "lobby" else None
            await self._edit(
                after,
                after.lobby_message_id,
                interaction,
                embed=self.lobby_embed(after, by=by),
                view=view,
            )
            return after
        assert before.game is not None
        assert after.game is not None
        if after.status == "cancelled":
            await self._edit(
                after,
                after.turn_message_id,
                interaction,
                content=t("summary.cancelled", lang, name=by or "—"),
                embeds=[],
                view=None,
            )
            return after
        names = after.names
        was = before.game.player
        turn_over = after.game.finished or any(
            isinstance(e, Scored | Passed) or (isinstance(e, Left) and e.player == was)
            for e in after.events
        )
        if not turn_over:
            await self._edit(after, after.turn_message_id, interaction, **self.turn_message(after))
            for event in after.events:
                if isinstance(event, Left):  # someone else left: tell the table
                    await self._send(after, content=render.summary_line(event, names, lang))
            return after
        summary = " ".join(render.summary_line(e, names, lang) for e in after.events)
        await self._edit(
            after, after.turn_message_id, interaction, content=summary, embeds=[], view=None
        )
        card = render.scorecard_embed(after.game, names, after.id, lang)
        if after.game.finished:
            # The final picture goes with the standings, not twice.
            await self._send(after, embed=card)
            standings = render.standings_embed(after.game, names, after.id, lang)
            _analysis.add_to_standings(standings, after, self._reports.pop(after.id, None), lang)
            final = await self._send(after, **await self._pictured(after, standings, final=True))
            return await self.remember(after, final_message_id=final.id)  # history links here
        await self._send(after, **await self._pictured(after, card, final=False))
        return await self.post_turn(after, persist=False)

    async def _pictured(self, table: Table, embed: discord.Embed, *, final: bool) -> dict[str, Any]:
        """`embed`, with the scorecard picture when the server turned pictures on."""
        return await image.scorecard_fields(
            getattr(self.bot, "store", None),
            table.guild_id,
            embed,
            table.require_game(),
            table.names,
            table.id,
            table.lang,
            final=final,
        )

    async def _post_opening(self, table: Table) -> Table:
        game, opening = table.require_game(), table.opening
        assert opening is not None
        rounds = [[(table.name_of(u), d) for u, d in r] for r in opening.rounds]
        order = [table.name_of(p) for p in game.players]
        await self._send(
            table,
            embed=render.opening_embed(rounds, table.name_of(opening.starter), order, table.lang),
        )
        return await self.post_turn(table, persist=False)
