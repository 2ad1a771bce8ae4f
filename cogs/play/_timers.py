"""Turn timers: an absent player's turn is played for them; an unstarted lobby expires.

An observer of the service: it holds no state of its own. The deadline lives in the
match (and in the store's indexed `deadline` column); one `tasks.loop` ticks every few
seconds over the matches this process holds and fires the due ones through
`GameService.apply` — the same lock and version check as a click, and the change
re-checks the deadline, so a click that lands first wins and the timer does nothing. Once
a minute it also asks the store for due games of its shards it does not hold (a process
that stopped left them), so no deadline is forgotten, and has the service reconcile its
cache with what other processes changed.

Before acting on a due game the timer claims it in the store (`claim_due`, a lease of
`CLAIM_LEASE`): when two processes hold one shard (a rolling deploy) only the claimer
acts, so a deadline fires once and the other does no work at all. The version check alone
would already make a second firing a no-op; the claim spares the duplicate move, its
failed save and its reload, and a claimer that dies frees the game when its lease ends.

A timed-out turn is played by the strategy's computer player ("perfect" when the rule
set's table is loaded, or for banked, whose policy needs none; else "easy"); after
`AWAY_AFTER` time-outs in a row the seat is marked away. After a restart an overdue turn
first gets `GRACE` more time, announced on its message: downtime is never a strike.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from discord.ext import tasks

from bot.engine import Action, DiceSource, Game, GameError
from bot.match import OVERDUE_GRACE, Match
from bot.service import GameService, NotShown, SolutionCache
from bot.strategy import EXACT, Level
from bot.strategy.act import next_action

from ._via import Notice, Via

log = logging.getLogger(__name__)

TICK_SECONDS = 5.0
STORE_EVERY = 12  # ticks between two looks at the store's due games (about a minute)
GRACE = OVERDUE_GRACE
# Long enough for a claimer to act (milliseconds), short enough that a game a dead process
# claimed waits little; never longer than the shortest turn (30 s), so a claim cannot
# outlive the deadline it was taken for and delay the next one.
CLAIM_LEASE = timedelta(seconds=30)


def overdue(match: Match, now: datetime) -> bool:
    due = match.due_at()
    return match.status == "playing" and due is not None and due <= now


class TurnTimers:
    """Started by the play cog after the active games are loaded; stopped on unload."""

    def __init__(
        self, service: GameService[Via], solutions: SolutionCache, dice: DiceSource
    ) -> None:
        self.service = service
        self.solutions = solutions
        self.dice = dice
        self._ticks = 0
        self.loop: tasks.Loop[Any] = tasks.loop(seconds=TICK_SECONDS)(self.tick)

    def committed(self, before: Match, after: Match) -> None:
        """Deadlines travel with the match. A game that starts loads its rule set's
        table from the disk cache (milliseconds; never a computation): the timer's perfect
        play, the hint and the analysis then have it."""
        if before.status == "lobby" and after.status == "playing":
            self.solutions.preload(after.rules)

    async def start(self, loaded: list[Match]) -> None:
        """Overdue turns of a restarted bot get their grace period first (those it claims:
        another process still running may be acting on them)."""
        now, store = self.service.clock(), self.service.store
        late = [m.id for m in loaded if overdue(m, now)]
        claimed = await store.claim_due(now, lease=CLAIM_LEASE, ids=late) if late else []

        def grace(m: Match) -> Match:
            if not overdue(m, now):  # a click got there first
                raise GameError("errors.stale")
            return m.with_grace(now, GRACE)

        for game_id in claimed:
            try:
                await self.service.apply(game_id, grace, via=Via(notice=Notice("grace")))
            except GameError:
                continue
            except Exception:
                log.exception("game %s: could not give the overdue turn its grace", game_id)
        if not self.loop.is_running():
            self.loop.start()

    def stop(self) -> None:
        self.loop.cancel()

    async def tick(self) -> None:
        service, store = self.service, self.service.store
        now = service.clock()
        due = [m.id for m in service.cached() if (d := m.due_at()) is not None and d <= now]
        self._ticks += 1
        try:
            # A due game another process claimed (or already acted on) is not ours to
            # fire; the reconcile below reads it again.
            claimed = await store.claim_due(now, lease=CLAIM_LEASE, ids=due) if due else []
            if self._ticks % STORE_EVERY == 0:
                await service.reconcile()
                found = await store.claim_due(now, lease=CLAIM_LEASE, shards=service.shards)
                claimed += [g for g in found if g not in claimed]
        except Exception:
            # The database did not answer: try again next tick (a tasks.loop that raises ends).
            log.exception("the turn timers could not claim the due games")
            return
        for game_id in claimed:
            try:
                await self.fire(game_id, now)
            except Exception:
                # One game's failure must not stop the loop (a tasks.loop that raises ends).
                log.exception("turn timer of game %s failed", game_id)

    async def fire(self, game_id: int, now: datetime) -> bool:
        """Act on a due game; False when there was nothing to do (a click won). Read from
        the store: another process may have changed it since this one cached it."""
        match = await self.service.refresh(game_id)
        if match is None or not match.active:
            return False
        change: Callable[[Match], Match]
        if match.status == "lobby":
            change, notice = (lambda m: m.expire(now)), Notice("expired")
        else:
            change, notice = self._absent(match, now), Notice("timeout", match.current_id)
        try:
            await self.service.apply(game_id, change, via=Via(notice=notice))
        except NotShown:
            return True  # stored; the next click or /poker resume shows it
        except GameError as refusal:
            if refusal.code == "errors.stale":
                return False  # not due any more: a click got there first
            raise
        return True

    def _absent(self, match: Match, now: datetime) -> Callable[[Match], Match]:
        rules = match.rules
        table = self.solutions.loaded(rules) if rules in EXACT else None
        level: Level = "perfect" if table is not None or rules == "banked" else "easy"
        dice = self.dice

        def change(m: Match) -> Match:
            rng = random.Random(m.id * 1_000_003 + m.version)

            def decide(game: Game) -> Action:
                return next_action(level, game, table, rng, dice)

            return m.play_absent(now, decide)

        return change
