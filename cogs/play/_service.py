"""The game service: the one place that changes games. No Discord here.

Every change takes one way: the game's lock → the version check (a click carries the
version it was drawn at) → the change (the table and the engine decide) → `GameStore.save`
(the actions, the snapshot, the deadline and, at the end, the results: one transaction)
→ the publisher shows it → the observers (computer players, timers, the analysis) hear of
it after the lock is released. The service is handed its store, dice, clock, settings and
publisher; it knows no view, no bot and no timer.

Within a process the per-game lock serialises changes; between processes (a rolling
deploy, when two processes hold one shard for a while) the store's version check does: a
save that meets a newer version reloads the game and tries the change once more, so the
member is refused only when the change no longer makes sense; a click carrying a newer
version than the cache reloads the game first (another process moved it). `reconcile`
brings the cache up to date with what other processes changed.

A finish rates the players (`db.ratings`) in the same transaction as the results. The
ratings are computed here, in Python, from the ones read just before the save; no game
lock covers them (two games sharing a player finish under different locks, maybe in two
processes), so the save writes each only over the rating it was computed from and
otherwise refuses (StaleRating): the ratings are read and computed again, and the finish
saved once more. Computing in SQL instead would mean the Plackett-Luce model twice, in
two SQL dialects; this way the model is one Python function, checked against the paper.

A service holds one kind of game: the play cog's tables, or the daily cog's dailies
(`kind`); a game of the other kind is not found, so neither feature's controls can reach
the other's games.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any, Protocol

from bot.engine import DiceSource, GameError
from bot.match import Match, Seat, rated_id
from db import (
    ID_MAX,
    OVERALL,
    ChannelBusy,
    GameRecord,
    GameStore,
    GuildSettings,
    RatingChange,
    SeatResult,
    Shards,
    StaleRating,
    StaleVersion,
)
from db.ratings import rating_changes

log = logging.getLogger(__name__)

Change = Callable[[Match], Match]
RATING_TRIES = 8  # rating reads per finish before giving up (each loses only to a finish)


class NotShown(GameError):  # noqa: N818 - an answer to the member, not a bug
    """The change is stored, but Discord refused to show it (the member is told so, and
    how to see the game again: `/poker resume`); `missing`: the permissions the bot lacks
    in the channel, when that was the reason."""

    def __init__(self, missing: Sequence[str] = ()) -> None:
        code = "errors.not_shown_permissions" if missing else "errors.not_shown"
        super().__init__(code, permissions=tuple(missing))


class RepostTooSoon(Exception):  # noqa: N818 - a refusal the edge words
    """The game was posted again less than a minute ago; `until`: when it may be again."""

    def __init__(self, until: datetime) -> None:
        super().__init__(until.isoformat())
        self.until = until


class Publisher(Protocol):
    """Shows committed changes (the Discord edge implements it)."""

    async def publish(self, before: Match, after: Match, via: object | None) -> Match:
        """Show `after`; return it with the ids of the messages it posted or adopted.
        `via` is what the change came through (a click), or None (a timer, a computer
        player). Raises NotShown when Discord refused."""
        ...

    async def refresh(self, match: Match, via: object | None) -> None:
        """A click carried an old version: redraw its message if it is the game's own."""
        ...

    def adopt(self, match: Match, via: object | None) -> Match:
        """`match` with its live message's id when that id is unknown (after a restart) and
        `via` is a click on it: the change then stores it with its own save."""
        ...

    async def repost(self, match: Match) -> Match:
        """Post the game's live message again (`/poker resume`), retiring the old one."""
        ...


class Observer(Protocol):
    def committed(self, before: Match, after: Match) -> None:
        """Called after every committed change, outside the game's lock."""
        ...


class SettingsSource(Protocol):
    async def guild_settings(self, guild_id: int) -> GuildSettings: ...


def seat_results(match: Match) -> list[SeatResult]:
    """One `SeatResult` per engine seat (seat order) of a finished match; the analysis
    fills in the points lost per decision later (`GameStore.record_analysis`)."""
    game = match.game
    if game is None or not game.finished:
        raise ValueError("results exist only for a finished game")
    out = []
    for index, standing in enumerate(game.standings()):
        seat = match.seat(int(standing.name))
        human = seat is not None and not seat.is_bot
        out.append(
            SeatResult(
                seat=index,
                player_id=int(standing.name) if human else None,
                name=seat.name if seat else standing.name,
                is_bot=not human,
                total=standing.totals.total,
                rank=standing.rank,
                settlement=float(standing.settlement),
            )
        )
    return out


def match_of(record: GameRecord) -> Match:
    return Match.from_snapshot(
        record.state,
        id=record.id,
        channel_id=record.channel_id,
        guild_id=record.guild_id,
        host_id=record.member_id or 0,  # a table's host: in every snapshot (0 is never read)
        rules=record.rules,
        status=record.status,
        version=record.version,
        kind=record.kind,
        day=record.day,
    )


def rated_players(match: Match) -> list[int]:
    """Each engine seat's rated id (the member, or the computer seat's level)."""
    game = match.require_game()
    out = []
    for player in game.players:
        seat = match.seat(int(player))
        out.append(rated_id(seat) if seat is not None else int(player))
    return out


def valid_id(value: int) -> bool:
    """A row or Discord id as the store keeps them (a custom_id may say anything)."""
    return 0 < value <= ID_MAX


class GameService:
    def __init__(
        self,
        store: GameStore,
        *,
        dice: DiceSource,
        clock: Callable[[], datetime],
        settings: SettingsSource,
        publisher: Publisher,
        shards: Shards | None = None,
        on_save: Callable[[float], None] = lambda _seconds: None,
        kind: str = "table",
    ) -> None:
        self.store = store
        self.kind = kind
        self.on_save = on_save  # how long each change's transaction took (metrics)
        self.dice = dice
        self.clock = clock
        self.settings = settings
        self.publisher = publisher
        self.shards = shards
        self._locks: dict[int, asyncio.Lock] = {}
        self._cache: dict[int, Match] = {}  # the active matches of this process
        self._observers: list[Observer] = []

    def subscribe(self, observer: Observer) -> None:
        self._observers.append(observer)

    # --- reading ---------------------------------------------------------------------

    async def load_active(self) -> list[Match]:
        """Cache every lobby and game in play of this process's shards (start-up): their
        old messages keep working."""
        for record in await self.store.active_games(shards=self.shards):
            self._cache[record.id] = match_of(record)
        return list(self._cache.values())

    async def reconcile(self) -> list[Match]:
        """Learn what other processes changed in the games of this process's shards (two
        processes hold a shard during a rolling deploy): games they moved on are read
        again, games they opened are loaded, games they ended are dropped. The observers
        hear of each game read again (a computer seat to move is driven again). Returns
        the games read again."""
        held = dict(self._cache)
        versions = await self.store.active_versions(shards=self.shards)
        for game_id, match in held.items():
            if game_id not in versions and self._cache.get(game_id) is match:
                self._cache.pop(game_id, None)  # ended elsewhere (this process's own change
                # since the read would have replaced the cached object)
        changed = []
        for game_id, version in versions.items():
            cached = self._cache.get(game_id)
            if cached is not None and cached.version >= version:
                continue
            async with self._lock(game_id):  # not in the middle of this process's change
                cached = self._cache.get(game_id)
                if cached is not None and cached.version >= version:
                    continue
                fresh = await self._reload(game_id)
            if fresh is not None and fresh.active:
                changed.append(fresh)
                self._notify(cached or fresh, fresh)
        return changed

    def cached(self) -> list[Match]:
        """The active matches this process holds (the timers scan them)."""
        return list(self._cache.values())

    def forget(self, game_ids: Sequence[int]) -> None:
        """Drop matches from the cache (they are read from the store again if needed):
        dailies of past days, which nobody may play any more."""
        for game_id in game_ids:
            self._cache.pop(game_id, None)
            lock = self._locks.get(game_id)
            if lock is not None and not lock.locked():
                del self._locks[game_id]

    async def get(self, game_id: int) -> Match | None:
        if not valid_id(game_id):
            return None
        match = self._cache.get(game_id)
        if match is not None:
            return match
        return await self._reload(game_id)

    async def _reload(self, game_id: int) -> Match | None:
        record = await self.store.get_game(game_id)
        if record is None or record.kind != self.kind:
            self._cache.pop(game_id, None)
            return None
        match = match_of(record)
        self._remember(match)
        return match

    async def refresh(self, game_id: int) -> Match | None:
        """The match as the store has it now (under its lock: never older than the cache)."""
        if not valid_id(game_id):
            return None
        async with self._lock(game_id):
            return await self._reload(game_id)

    async def in_channel(self, channel_id: int) -> Match | None:
        if not valid_id(channel_id):
            return None
        for match in self._cache.values():
            if match.channel_id == channel_id and match.active:
                return match
        record = await self.store.active_game(channel_id)
        return None if record is None else await self.get(record.id)

    def _remember(self, match: Match) -> None:
        if match.active:
            # Without the last change's events and actions: a later change that applies
            # nothing must not carry them into the log again.
            self._cache[match.id] = replace(match, events=(), actions=())
        else:
            self._cache.pop(match.id, None)

    def _lock(self, game_id: int) -> asyncio.Lock:
        lock = self._locks.get(game_id)
        if lock is None:
            lock = self._locks[game_id] = asyncio.Lock()
        return lock

    @asynccontextmanager
    async def locked(self, game_id: int) -> AsyncIterator[Match | None]:
        """The match under its lock (for work that must not interleave with a change)."""
        async with self._lock(game_id):
            yield await self.get(game_id)

    # --- changing ----------------------------------------------------------------------

    async def open_lobby(
        self,
        *,
        guild_id: int | None,
        channel_id: int,
        host_id: int,
        host_name: str,
        rules: str,
        lang: str,
    ) -> Match:
        """A new lobby with the host seated; GameError `errors.channel_busy` when the
        channel has a game (the database decides: two /poker new at once, one wins)."""
        now = self.clock()
        draft = Match(
            id=0,
            channel_id=channel_id,
            guild_id=guild_id,
            host_id=host_id,
            rules=rules,
            lang=lang,
            created_at=now,
            seats=(Seat(host_id, host_name),),
        )
        try:
            record = await self.store.create_game(
                guild_id=guild_id,
                channel_id=channel_id,
                host_id=host_id,
                rules=rules,
                state=draft.to_dict(),
                deadline=draft.due_at(),
                now=now,
            )
        except ChannelBusy as busy:
            existing = await self.get(busy.game_id)
            raise GameError("errors.channel_busy", link=link(existing)) from None
        match = match_of(record)
        self._remember(match)
        return match

    async def apply(
        self,
        game_id: int,
        change: Change,
        *,
        version: int | None = None,
        via: object | None = None,
        ids_later: bool = False,
    ) -> Match:
        """Change a match and show it. GameError: refused, nothing changed; NotShown:
        committed, not shown. `version` (a click's) must be the match's, else the message
        was out of date. `ids_later` (a click: one commit per click): the ids of messages
        this change posts are stored by the game's next change, not by a save of their
        own; a restart in between finds the message again (the publisher's self-repair)."""
        async with self._lock(game_id):
            before = await self.get(game_id)
            if before is not None and version is not None and version > before.version:
                # Drawn after this process's copy: another process changed the game.
                before = await self._reload(game_id)
            if before is None or not before.active:
                raise GameError("errors.stale")
            if version is not None and version != before.version:
                await self.publisher.refresh(before, via)
                raise GameError("errors.stale")
            before = self.publisher.adopt(before, via)
            before, after = await self._commit(before, change, version)
            try:
                shown = await self.publisher.publish(before, after, via)
            except NotShown:
                log.warning(
                    "game %s (channel %s, version %s): stored, but Discord refused to show it",
                    game_id,
                    after.channel_id,
                    after.version,
                )
                self._notify(before, after)
                raise
            shown = await self._keep_messages(after, shown, later=ids_later)
        self._notify(before, shown)
        return shown

    async def _commit(
        self, before: Match, change: Change, version: int | None
    ) -> tuple[Match, Match]:
        """Decide and save; on a lost race (another process saved first) reload and
        decide once more."""
        for attempt in range(2):
            now = self.clock()
            after = change(before)
            if after.game is not None or before.game is not None:
                after = after.schedule(before, now, await self._timeout(before, after))
            if after.turn_ended and after.turn_message_id is not None:
                # The next turn's message is posted after this save and its id stored by
                # the next change: until then a restarted bot must not take the old one
                # (now the last turn's summary) for it; a click on the new one adopts it.
                after = replace(after, turn_message_id=None)
            finish = after.status == "finished"
            ratings = await self._ratings(after) if finish else []
            began = time.perf_counter()
            try:
                for tries in range(1, RATING_TRIES + 1):
                    try:
                        record = await self.store.save(
                            before.id,
                            expect_version=before.version,
                            state=after.to_dict(),
                            status=after.status if after.status != before.status else None,
                            actions=_numbered(before, after),
                            results=seat_results(after) if finish else (),
                            deadline=after.due_at(),
                            now=now,
                            ratings=ratings,
                        )
                        break
                    except StaleRating:  # another finish rated a player first: read again
                        if tries == RATING_TRIES:
                            raise
                        ratings = await self._ratings(after)
                self.on_save(time.perf_counter() - began)
            except StaleVersion:
                fresh = await self._reload(before.id)
                if attempt or fresh is None or not fresh.active:
                    raise GameError("errors.stale") from None
                if version is not None and fresh.version != version:
                    raise GameError("errors.stale") from None
                before = fresh
                continue
            committed = replace(after, version=record.version)
            self._remember(committed)
            return before, committed
        raise AssertionError("unreachable")  # pragma: no cover

    async def _ratings(self, match: Match) -> list[RatingChange]:
        """The ratings a finish writes: a server's table game of two or more seats."""
        game = match.game
        if match.daily or match.guild_id is None or game is None or len(game.cards) < 2:
            return []
        players = rated_players(match)
        ranks = [s.rank for s in game.standings()]
        stored = await self.store.ratings(
            match.guild_id, sorted(set(players)), sorted({OVERALL, match.rules})
        )
        return rating_changes(match.rules, players, ranks, stored)

    async def _timeout(self, before: Match, after: Match) -> timedelta:
        """The server's turn time, read only when a new turn begins (most clicks do not)."""
        game = after.game
        starts = (
            game is not None
            and not after.daily  # no timer
            and not game.finished
            and (before.game is None or before.game.turn != game.turn or after.deadline is None)
        )
        if not starts or after.guild_id is None:
            return timedelta(seconds=GuildSettings(0).turn_timeout)
        settings = await self.settings.guild_settings(after.guild_id)
        return timedelta(seconds=settings.turn_timeout)

    async def _keep_messages(self, committed: Match, shown: Match, *, later: bool) -> Match:
        """The ids the publisher posted: cached, and stored by the next change when `later`
        (a click: one commit per click); otherwise (a timer, a computer player, a command:
        nothing may click the new message before a restart) stored now, so that whatever
        the moment of a restart the game knows its live message. A match that will see no
        next change (it ended) stores them now too."""
        if _messages(shown) == _messages(committed):
            return committed
        shown = replace(shown, version=committed.version, events=(), actions=())
        if shown.active and later:
            self._remember(shown)
            return shown
        return await self._save_messages(shown)

    async def note_lobby(self, game_id: int, message_id: int) -> Match | None:
        """Store the lobby message's id now (without a version bump): `/poker new` posted
        it as its answer, so no change of the game carries it."""
        async with self._lock(game_id):
            match = await self.get(game_id)
            if match is None:
                return None
            return await self._save_messages(replace(match, lobby_message_id=message_id))

    async def _save_messages(self, match: Match) -> Match:
        try:
            record = await self.store.save_messages(
                match.id, expect_version=match.version, state=match.to_dict(), now=self.clock()
            )
        except StaleVersion:
            # Someone else changed the game since: their snapshot wins; the bot finds its
            # messages again from the channel when it needs them.
            await self._reload(match.id)
            return match
        saved = replace(match, version=record.version)
        self._remember(saved)
        return saved

    async def repost(self, game_id: int, *, every: timedelta) -> Match:
        """`/poker resume`: post the lobby or turn message again and make it the live one;
        at most once per `every` (RepostTooSoon), judged under the game's lock and kept
        in the snapshot (a restart does not reset it)."""
        async with self._lock(game_id):
            match = await self.get(game_id)
            if match is None or not match.active:
                raise GameError("errors.stale")
            now, last = self.clock(), match.reposted_at
            if last is not None and now - last < every:
                raise RepostTooSoon(last + every)
            shown = await self.publisher.repost(replace(match, reposted_at=now))
            return await self._save_messages(shown)

    def _notify(self, before: Match, after: Match) -> None:
        for observer in self._observers:
            try:
                observer.committed(before, after)
            except Exception:  # one observer's bug must not stop the others
                log.exception("observer %r failed on game %s", observer, after.id)


def _numbered(before: Match, after: Match) -> list[tuple[int, dict[str, Any]]]:
    """The change's engine actions as the store's (seq, JSON) pairs."""
    first = before.game.seq if before.game else 0
    return [(first + i, a.to_json()) for i, a in enumerate(after.actions)]


def _messages(match: Match) -> tuple[int | None, int | None, int | None]:
    return match.lobby_message_id, match.turn_message_id, match.final_message_id


def link(match: Match | None) -> str:
    """A jump link to the match's message (or its channel)."""
    if match is None:
        return "—"
    message_id = match.turn_message_id or match.lobby_message_id
    guild = match.guild_id if match.guild_id is not None else "@me"
    base = f"https://discord.com/channels/{guild}/{match.channel_id}"
    return f"{base}/{message_id}" if message_id else base
