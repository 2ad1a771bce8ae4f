"""The game service: the one place that changes games. No Discord, no SQL here.

Every change takes one way: the game's lock → who may reach it (the model's
`verify_reach`: its server and channel, a daily's member and day) → the version check (a
click carries the version it was drawn at) → the change (the table and the engine decide)
→ `GameStore.save` (the actions, the snapshot, the deadline and, at the end, the results
and ratings: one transaction) → the publisher shows it and returns the match as shown →
the observers (computer players, timers, the analysis) hear of it after the lock is
released. The service is handed its store, clock, settings and publisher; it knows no
view, no bot and no timer. What a change came through (`via`: a click, a timer's notice)
is the publisher's own type, passed through untouched.

Within a process the per-game lock serialises changes; between processes (a rolling
deploy, when two processes hold one shard for a while) the store's version check does: a
save that meets a newer version reloads the game and tries the change once more, so the
member is refused only when the change no longer makes sense; a click carrying a newer
version than the cache reloads the game first (another process moved it). `reconcile`
brings the cache up to date with what other processes changed.

A service holds one kind of game: the play cog's tables, or the daily cog's dailies
(`kind`); a game of the other kind is not found, so neither feature's controls can reach
the other's games.
"""

from __future__ import annotations

import asyncio
import logging
import time
import weakref
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import replace
from datetime import date, datetime, timedelta
from typing import Any, Generic, Protocol, TypeVar

from bot.engine import GameError
from bot.engine.daily import utc_day
from bot.match import Caller, Match
from bot.match.season import season_of
from bot.records import ID_MAX, GameRecord, GuildSettings, Shards
from db import ChannelBusy, DailyTaken, GameStore, StaleRating, StaleVersion

from .results import RATING_TRIES, ratings_after, seat_results
from .settings import ServerSettings

log = logging.getLogger(__name__)

Change = Callable[[Match], Match]
V = TypeVar("V")  # what a change came through, as the feature's publisher knows it
V_contra = TypeVar("V_contra", contravariant=True)


class NotShown(GameError):  # noqa: N818 - an answer to the member, not a bug
    """The change is stored, but it could not be shown (the member is told so, and how to
    see the game again: `/poker resume`); `missing`: the permissions the bot lacks in the
    channel, when that was the reason; `closed`: the change ended the game (set by the
    service, which knows what it committed)."""

    def __init__(self, missing: Sequence[str] = (), *, closed: bool = False) -> None:
        code = "errors.not_shown_permissions" if missing else "errors.not_shown"
        super().__init__(code, permissions=tuple(missing))
        self.closed = closed


class RepostTooSoon(Exception):  # noqa: N818 - a refusal the edge words
    """The game was posted again less than a minute ago; `until`: when it may be again."""

    def __init__(self, until: datetime) -> None:
        super().__init__(until.isoformat())
        self.until = until


class Publisher(Protocol[V_contra]):
    """Shows committed changes (the Discord edge implements it)."""

    async def publish(self, before: Match, after: Match, via: V_contra | None) -> Match:
        """Show `after`; return it as shown: with the ids of the messages it posted or
        adopted. `via` is what the change came through (a click, a timer's notice), or
        None. Raises NotShown when Discord refused."""
        ...

    async def prepare(self, before: Match, after: Match) -> None:
        """`after` is decided and about to be saved: start what showing it will take (a
        turn's pictures draw while the save commits). Nothing is shown; if the save
        fails, what was started is left unused."""
        ...

    async def refresh(self, match: Match, via: V_contra) -> None:
        """A click carried an old version: redraw its message if it is the game's own."""
        ...

    def adopt(self, match: Match, via: V_contra | None) -> Match:
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


def match_of(record: GameRecord) -> Match:
    """The match a stored game holds (its snapshot, read through `Match`)."""
    return Match.from_record(record)


def valid_id(value: int) -> bool:
    """A row or Discord id as the store keeps them (a custom_id may say anything)."""
    return 0 < value <= ID_MAX


class GameService(Generic[V]):
    def __init__(  # noqa: PLR0913 - handed each of its parts, by name (bot.service.Services)
        self,
        store: GameStore,
        *,
        publisher: Publisher[V],
        clock: Callable[[], datetime],
        settings: ServerSettings,
        shards: Shards | None = None,
        on_save: Callable[[float], None] = lambda _seconds: None,
        kind: str = "table",
    ) -> None:
        self.store = store
        self.kind = kind
        self.on_save = on_save  # how long each change's transaction took (metrics)
        self.clock = clock
        self.settings = settings
        self.publisher = publisher
        self.shards = shards
        # One lock per game while someone holds or awaits it (a click, a timer): freed
        # with its last user, so a long uptime keeps none for games long over.
        self._locks: weakref.WeakValueDictionary[int, asyncio.Lock] = (
            weakref.WeakValueDictionary()
        )
        self._cache: dict[int, Match] = {}  # the active matches of this process
        self._observers: list[Observer] = []

    def subscribe(self, observer: Observer) -> None:
        self._observers.append(observer)

    def today(self) -> date:
        """The UTC day now (a daily is played on its own day only)."""
        return utc_day(self.clock())

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

    async def get(self, game_id: int) -> Match | None:
        if not valid_id(game_id):
            return None
        match = self._cache.get(game_id)
        if match is not None:
            return match
        return await self._reload(game_id)

    async def reach(self, game_id: int, caller: Caller) -> Match:
        """The match a read-only control shows (a Scorecard, a Hint), refused like a
        change when `caller` may not reach it."""
        match = await self.get(game_id)
        if match is None:
            raise GameError("errors.stale")
        match.verify_reach(caller, self.today())
        return match

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

    # --- new games ---------------------------------------------------------------------

    async def open(self, draft: Match) -> Match:
        """Store a new match (`Match.lobby`, `Match.new_daily`: the model makes it): a
        lobby, refused (`errors.channel_busy`) when the channel has a game (the database
        decides: two /poker new at once, one wins); a daily, or the member's own of that
        day when two commands raced to start it."""
        try:
            record = await self.store.create_game(
                guild_id=draft.guild_id,
                channel_id=draft.channel_id,
                host_id=draft.host_id,
                rules=draft.rules,
                state=draft.to_dict(),
                deadline=draft.due_at(),
                now=draft.created_at,
                day=draft.day if draft.daily else None,
            )
        except ChannelBusy as busy:
            existing = await self.get(busy.game_id)
            link = existing.link if existing is not None else "—"
            raise GameError("errors.channel_busy", link=link) from None
        except DailyTaken as taken:
            found = await self.get(taken.game_id)
            if found is None:  # pragma: no cover - dailies are never deleted
                raise GameError("errors.stale") from None
            return found
        match = match_of(record)
        self._remember(match)
        return match

    # --- changing ----------------------------------------------------------------------

    async def apply(
        self,
        game_id: int,
        change: Change,
        *,
        version: int | None = None,
        via: V | None = None,
        caller: Caller | None = None,
    ) -> Match:
        """Change a match and show it; returns it as shown. GameError: refused, nothing
        changed; NotShown: committed, not shown. `caller` (a member's click) must be
        allowed to reach the match, and the ids of messages its change posts are stored
        by the game's next change, not by a save of their own (one commit per click; a
        restart in between finds the message again: the publisher's self-repair).
        `version` (a click's) must be the match's, else the message was out of date."""
        async with self._lock(game_id):
            before = await self.get(game_id)
            if before is not None and caller is not None:
                before.verify_reach(caller, self.today())
            if before is not None and version is not None and version > before.version:
                # Drawn after this process's copy: another process changed the game.
                before = await self._reload(game_id)
            if before is None or not before.active:
                raise GameError("errors.stale")
            if version is not None and version != before.version:
                if via is not None:
                    await self.publisher.refresh(before, via)
                raise GameError("errors.stale")
            before = self.publisher.adopt(before, via)
            before, after = await self._commit(before, change, version)
            shown = await self._publish(before, after, via)
            shown = await self._keep_messages(after, shown, later=caller is not None)
        self._notify(before, shown)
        return shown

    async def _publish(self, before: Match, after: Match, via: V | None) -> Match:
        """The publisher's answer; a failure after the commit is NotShown, never a
        "nothing changed" (the observers still hear of the commit)."""
        try:
            return await self.publisher.publish(before, after, via)
        except NotShown as refusal:
            log.warning(
                "game %s (channel %s, version %s): stored, but Discord refused to show it",
                after.id,
                after.channel_id,
                after.version,
            )
            refusal.closed = not after.active
            self._notify(before, after)
            raise
        except Exception as exc:
            log.exception("game %s (version %s): stored, not shown", after.id, after.version)
            self._notify(before, after)
            raise NotShown(closed=not after.active) from exc

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
            await self.publisher.prepare(before, after)
            try:
                record = await self._save(before, after, now)
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

    async def _save(self, before: Match, after: Match, now: datetime) -> GameRecord:
        """One transaction; a finish's ratings are read and computed again when another
        finish rated one of its players first (StaleRating)."""
        finish = after.status == "finished"
        season = await self._season(after, now) if finish else None
        ratings = await ratings_after(self.store, after, season) if finish else []
        began = time.perf_counter()
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
            except StaleRating:
                if tries == RATING_TRIES:
                    raise
                ratings = await ratings_after(self.store, after, season)
        self.on_save(time.perf_counter() - began)
        return record

    async def _season(self, after: Match, now: datetime) -> tuple[datetime, datetime] | None:
        """The window of the server's season a game finishing `now` rates (None: off)."""
        if after.guild_id is None or not after.rated:
            return None
        season = season_of((await self.settings.get(after.guild_id)).season, now)
        return None if season is None else (season.start, season.end)

    async def _timeout(self, before: Match, after: Match) -> timedelta:
        """The server's turn time. The settings are read from the store when a turn ends
        (the next one's time-out; what the summary and the final standings show): most
        clicks end none, and the clicks of a turn use the settings read at its start."""
        game = after.game
        starts = (
            game is not None
            and not game.finished
            and (before.game is None or before.game.turn != game.turn or after.deadline is None)
        )
        if after.daily or after.guild_id is None or not (starts or after.turn_ended):
            return timedelta(seconds=GuildSettings(0).turn_timeout)  # no timer, or unused
        settings = await self.settings.fresh(after.guild_id)
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
