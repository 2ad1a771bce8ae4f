"""The tournament service: the one place that changes tournaments. No Discord, no SQL here.

A change takes one way, as a game's: the tournament's lock → the change (the model,
`bot.match.tournament.Tournament`, decides) → `GameStore.save_tournament` (its actions,
snapshot and version; at the finish the members' results: one transaction) → what the
change set going (its events) → the publisher edits the one tournament message.

Each table is an ordinary game of the table service (`GameService` of kind "table") in
the table's own thread: the service opens its thread (the publisher), stores the game,
stores the table as open with the game's and the thread's ids at once, pings the table's
members there once and starts the game; the play feature's computer players and timers
drive it like any game. The service observes the table service's commits: a table game
that finished (or was cancelled) is recorded, and a round whose every table is done
forms the next round, or ends the tournament.

Between processes (PostgreSQL) the version check decides: a save that meets a newer
version re-reads the tournament and decides once more, so of two processes recording
a round's last table or advancing it, one does and the other finds nothing left to do.
At start-up `resume` finishes what a stopped process left: tables whose game ended while
it was down are recorded, a done round advances (once), waiting tables are opened.
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any, Protocol

from bot.engine import DiceSource, GameError
from bot.match import Match, Seat
from bot.match.tournament import (
    OPEN,
    PLAYING,
    Cancelled,
    Formed,
    Out,
    Placing,
    RoundDone,
    Table,
    TableDone,
    Tournament,
    outcomes,
    placings_of,
)
from bot.records import TournamentRecord, TournamentResult
from bot.strategy.rating import Rating
from db import GameStore, StaleVersion

from .games import GameService, match_of, valid_id

log = logging.getLogger(__name__)

TournamentChange = Callable[[Tournament], Tournament]
TRIES = 3  # a change re-decided on a fresh read when another process saved first


class TournamentPublisher(Protocol):
    """Shows tournaments (the Discord edge implements it)."""

    async def show(self, tn: Tournament) -> int | None:
        """Edit the one tournament message to show `tn`; the id of a message posted
        instead when it is unknown or gone (the service stores it)."""
        ...

    async def open_thread(self, tn: Tournament, table: Table) -> int:
        """Create the table's public thread in the tournament's channel; its id."""
        ...

    async def welcome(self, tn: Tournament, table: Table) -> None:
        """Ping the table's members in its thread, once."""
        ...

    async def close_thread(self, tn: Tournament, table: Table) -> None:
        """Archive and lock a finished table's thread."""
        ...


def tournament_of(record: TournamentRecord) -> Tournament:
    return Tournament.from_snapshot(
        record.state, id=record.id, channel_id=record.channel_id, guild_id=record.guild_id,
        status=record.status, version=record.version,
    )  # fmt: skip


def abandoned(match: Match) -> tuple[Placing, ...]:
    """A table game that was cancelled: scored as it stands, everyone out (nobody goes on)."""
    game = match.game
    if game is None:
        return tuple(Placing(s.user_id, 1, 0, 0.0, left=True) for s in match.seats)
    return tuple(replace(p, left=True) for p in placings_of(game))


class TournamentService:
    def __init__(
        self,
        store: GameStore,
        games: GameService[Any],
        *,
        publisher: TournamentPublisher,
        clock: Callable[[], datetime],
        dice: DiceSource,
    ) -> None:
        self.store = store
        self.games = games
        self.publisher = publisher
        self.clock = clock
        self.dice = dice
        self._locks: weakref.WeakValueDictionary[int, asyncio.Lock] = (
            weakref.WeakValueDictionary()
        )
        self._tasks: set[asyncio.Task[None]] = set()
        games.subscribe(self)

    # --- reading -----------------------------------------------------------------------

    async def get(self, tournament_id: int) -> Tournament | None:
        if not valid_id(tournament_id):
            return None
        record = await self.store.get_tournament(tournament_id)
        return None if record is None else tournament_of(record)

    async def actions(self, tn: Tournament) -> list[dict[str, Any]]:
        return await self.store.tournament_actions(tn.id)

    def _lock(self, tournament_id: int) -> asyncio.Lock:
        lock = self._locks.get(tournament_id)
        if lock is None:
            lock = self._locks[tournament_id] = asyncio.Lock()
        return lock

    # --- changing ----------------------------------------------------------------------

    async def open(self, draft: Tournament) -> Tournament:
        """Store a new sign-up (`Tournament.new`, id 0: the store gives it its id)."""
        record = await self.store.create_tournament(
            guild_id=draft.guild_id, channel_id=draft.channel_id, state=draft.to_dict(),
            actions=[a.to_json() for a in draft.actions], now=draft.created_at,
        )  # fmt: skip
        return tournament_of(record)

    async def note_message(self, tournament_id: int, message_id: int) -> Tournament:
        """The tournament message's id, stored as soon as Discord gave it."""
        return await self.apply(tournament_id, lambda tn: replace(tn, message_id=message_id),
                                show=False)  # fmt: skip

    async def apply(
        self, tournament_id: int, change: TournamentChange, *, show: bool = True
    ) -> Tournament:
        """Change a tournament, do what the change set going, show it. GameError: refused,
        nothing changed."""
        async with self._lock(tournament_id):
            after = await self._commit(tournament_id, change)
            after = await self._follow(after)
        if show:
            await self._show(after)
        return after

    async def start(self, tournament_id: int, by: int, *, manager: bool) -> Tournament:
        """Seed the sign-up into the first round's tables (by the server's ratings) and open
        them."""
        tn = await self.get(tournament_id)
        if tn is None:
            raise GameError("errors.stale")
        tn.verify_start(by, manager=manager)  # refused before the ratings are read
        ratings, dice, now = await self._ratings(tn), self.dice, self.clock()
        return await self.apply(
            tournament_id, lambda fresh: fresh.start(by, ratings, dice, now, manager=manager)
        )

    async def _commit(
        self, tournament_id: int, change: TournamentChange, games: Sequence[int] = ()
    ) -> Tournament:
        for attempt in range(TRIES):
            before = await self.get(tournament_id)
            if before is None:
                raise GameError("errors.stale")
            after = change(before)
            try:
                return await self._save(before, after, games)
            except StaleVersion:
                if attempt == TRIES - 1:
                    raise GameError("errors.stale") from None
        raise AssertionError("unreachable")  # pragma: no cover

    async def _save(
        self, before: Tournament, after: Tournament, games: Sequence[int] = ()
    ) -> Tournament:
        results = [
            TournamentResult(o.player, o.name, o.rounds, o.final, o.place, o.champion)
            for o in outcomes(after)
            if not o.is_bot and o.player > 0
        ] if after.status != before.status else []  # fmt: skip
        record = await self.store.save_tournament(
            before.id,
            expect_version=before.version,
            state=after.to_dict(),
            status=after.status if after.status != before.status else None,
            actions=[a.to_json() for a in after.actions],
            games=games,
            results=results,
            now=self.clock(),
        )
        return replace(after, version=record.version)

    async def _follow(self, tn: Tournament) -> Tournament:
        """What a committed change set going (under the tournament's lock): players out
        leave their table's game, a cancel closes the tables in play, a done table's thread
        is closed, a done round advances, a formed round's tables open."""
        pending = list(tn.events)
        while pending:
            event = pending.pop(0)
            match event:
                case Out(player=player, game_id=game_id) if game_id is not None:
                    await self._in_game(game_id, _leaving(player))
                case Cancelled(games=games):
                    for game_id in games:
                        await self._in_game(game_id, lambda m: m.cancel(m.host_id, manager=True))
                case TableDone(round=round_no, table=no):
                    table = tn.table(round_no, no)
                    if table.thread_id is not None:
                        await self._quietly(self.publisher.close_thread(tn, table))
                case RoundDone():
                    advanced = await self._advance(tn)
                    if advanced is not None:
                        tn = advanced
                        pending += tn.events
                case Formed():
                    tn = await self._open_tables(tn)
        return tn

    async def _advance(self, tn: Tournament) -> Tournament | None:
        """The next round (or the end), once: None when it is not due any more (another
        process advanced it)."""
        ratings = await self._ratings(tn)
        now = self.clock()
        try:
            return await self._commit(tn.id, lambda fresh: fresh.advance_round(ratings, now))
        except GameError:
            return None

    async def _ratings(self, tn: Tournament) -> dict[int, Rating]:
        if tn.guild_id is None:
            return {}
        players = sorted({e.rated_id for e in tn.entrants})
        stored = await self.store.ratings(tn.guild_id, players, [tn.rules])
        return {r.player_id: Rating(r.mu, r.sigma) for r in stored}

    async def _open_tables(self, tn: Tournament) -> Tournament:
        """Each waiting table of the round: its thread, its game (stored, then the table
        stored as open with both ids), its members pinged, its game started."""
        for table in tn.to_open:
            try:
                tn = await self._open_table(tn, table)
            except Exception:
                log.exception("tournament %s: table %s.%s not opened", tn.id, table.round,
                              table.no)  # fmt: skip
        return tn

    async def _open_table(self, tn: Tournament, table: Table) -> Tournament:
        thread_id = await self.publisher.open_thread(tn, table)
        seats = tn.seats_for(table)
        draft = Match(
            id=0, channel_id=thread_id, guild_id=tn.guild_id, host_id=_host(seats, tn.host_id),
            rules=tn.rules, lang=tn.lang, created_at=self.clock(), seats=seats,
        )  # fmt: skip
        match = await self.games.open(draft)
        try:
            tn = await self._commit(
                tn.id,
                lambda fresh: fresh.open_table(table.round, table.no, match.id, thread_id),
                games=[match.id],
            )
        except GameError:  # another process opened this table first: this copy goes
            await self._in_game(match.id, lambda m: m.cancel(m.host_id, manager=True))
            raise
        opened = tn.table(table.round, table.no)
        await self._quietly(self.publisher.welcome(tn, opened))
        await self._start_game(match.id)
        return tn

    async def _start_game(self, game_id: int) -> None:
        dice, now = self.dice, self.clock()
        await self._in_game(game_id, lambda m: m.start(m.host_id, dice, now))

    async def _in_game(self, game_id: int, change: Callable[[Match], Match]) -> None:
        """A change of a table's game through the table service (shown in its thread)."""
        try:
            await self.games.apply(game_id, change)
        except GameError as refusal:  # it moved on meanwhile (ended, the player left)
            log.debug("tournament table game %s: %s", game_id, refusal.code)

    async def _quietly(self, shown: Any) -> None:
        """What Discord refuses of a thread (archived by hand, deleted) changes nothing."""
        try:
            await shown
        except Exception:
            log.warning("a tournament's thread could not be updated", exc_info=True)

    async def _show(self, tn: Tournament) -> None:
        try:
            posted = await self.publisher.show(tn)
        except Exception:
            log.warning("tournament %s: stored, not shown", tn.id, exc_info=True)
            return
        if posted is not None and posted != tn.message_id:
            try:
                await self.apply(tn.id, lambda fresh: replace(fresh, message_id=posted),
                                 show=False)  # fmt: skip
            except GameError:
                log.warning("tournament %s: its message's id not stored", tn.id)

    # --- the table games ---------------------------------------------------------------

    def committed(self, before: Match, after: Match) -> None:
        """The table service's observer: a game that just ended may be a tournament's."""
        if after.status in ("finished", "cancelled") and before.status != after.status:
            self._spawn(self.game_over(after.id))

    def _spawn(self, work: Any) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def game_over(self, game_id: int) -> Tournament | None:
        """Record the table whose game `game_id` ended (once: a table already recorded,
        or a game of no tournament, is left alone)."""
        tournament_id = await self.store.tournament_of_game(game_id)
        if tournament_id is None:
            return None
        record = await self.store.get_game(game_id)
        if record is None:
            return None
        match = match_of(record)
        dice = self.dice

        def result(tn: Tournament) -> Tournament:
            table = tn.table_of_game(game_id)
            if table is None or table.status != OPEN or tn.status != PLAYING:
                raise GameError("errors.stale")
            if match.status == "finished" and match.game is not None:
                return tn.record_game(game_id, match.game, dice)
            return tn.record(table.round, table.no, abandoned(match), dice)

        try:
            return await self.apply(tournament_id, result)
        except GameError:
            return None

    # --- start-up -------------------------------------------------------------------------

    async def resume(self) -> list[Tournament]:
        """Finish what a stopped process left (each step once, whatever other processes
        do meanwhile): every active tournament's ended table games recorded, its done
        round advanced, its waiting tables opened, its opened games started."""
        out = []
        for record in await self.store.active_tournaments():
            tn = tournament_of(record)
            if tn.status == PLAYING:
                try:
                    tn = await self._resume(tn)
                except Exception:
                    log.exception("tournament %s: not resumed", tn.id)
            out.append(tn)
        return out

    async def _resume(self, tn: Tournament) -> Tournament:
        rnd = tn.current
        for table in rnd.tables if rnd is not None else ():
            if table.status != OPEN or table.game_id is None:
                continue
            game = await self.store.get_game(table.game_id)
            if game is None:
                continue
            if game.status in ("finished", "cancelled"):
                tn = await self.game_over(table.game_id) or tn
            elif game.status == "lobby":  # stopped between storing the table and its start
                await self._start_game(table.game_id)
        async with self._lock(tn.id):
            fresh = await self.get(tn.id)
            if fresh is None or fresh.status != PLAYING:
                return fresh or tn
            if fresh.awaiting_advance:
                fresh = await self._follow(replace(fresh, events=(RoundDone(0),)))
            elif fresh.to_open:
                fresh = await self._open_tables(fresh)
        await self._show(fresh)
        return fresh

    async def expire_due(self) -> list[Tournament]:
        """Close the sign-ups nobody started in time (the cog's periodic check)."""
        now, closed = self.clock(), []
        for record in await self.store.active_tournaments():
            due = tournament_of(record).due_at()
            if due is None or due > now:
                continue
            try:
                closed.append(await self.apply(record.id, lambda tn: tn.expire(now)))
            except GameError:  # started or closed meanwhile
                continue
        return closed

    async def stop(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)


def _host(seats: Sequence[Seat], fallback: int) -> int:
    """A table game's host: its first human seat (the tournament's host if none)."""
    return next((s.user_id for s in seats if not s.is_bot), fallback)


def _leaving(player: int) -> Callable[[Match], Match]:
    return lambda m: m.leave_game(player)
