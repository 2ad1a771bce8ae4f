"""Turn timers: an absent player's turn is played for them; an unstarted lobby expires.

An observer of the service: it holds no state of its own. The deadline lives in the
match (and in the store's indexed `deadline` column); one `tasks.loop` ticks every few
seconds over the matches this process holds and fires the due ones through
`GameService.apply` — the same lock and version check as a click, and the change
re-checks the deadline, so a click that lands first wins and the timer does nothing. Once
a minute it also asks the store for due games it does not hold (a process that stopped
left them), so no deadline is forgotten; two processes firing the same one still change
the game once (the store's version check).

A timed-out turn is played by the strategy's computer player ("perfect" when the rule
set's table is loaded, or for banked, whose policy needs none; else "easy"); after
`AWAY_AFTER` time-outs in a row the seat is marked away. After a restart an overdue turn
first gets `GRACE` more time, announced on its message: downtime is never a strike.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable
from datetime import datetime
from typing import Any

from discord.ext import tasks

from bot.engine import Action, DiceSource, Game, GameError
from bot.match import OVERDUE_GRACE, Match
from bot.strategy import EXACT, Level
from bot.strategy.act import next_action

from ._publish import Notice
from ._service import GameService, NotShown
from ._solutions import SolutionCache

log = logging.getLogger(__name__)

TICK_SECONDS = 5.0
STORE_EVERY = 12  # ticks between two looks at the store's due games (about a minute)
GRACE = OVERDUE_GRACE


class TurnTimers:
    """Started by the play cog after the active games are loaded; stopped on unload."""

    def __init__(self, service: GameService, solutions: SolutionCache, dice: DiceSource) -> None:
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
        """Overdue turns of a restarted bot get their grace period first."""
        now = self.service.clock()
        for match in loaded:
            due = match.due_at()
            if match.status == "playing" and due is not None and due <= now:
                try:
                    await self.service.apply(
                        match.id, lambda m: m.with_grace(now, GRACE), via=Notice("grace")
                    )
                except GameError:
                    continue
                except Exception:
                    log.exception("game %s: could not give the overdue turn its grace", match.id)
        if not self.loop.is_running():
            self.loop.start()

    def stop(self) -> None:
        self.loop.cancel()

    async def tick(self) -> None:
        now = self.service.clock()
        due = [m.id for m in self.service.cached() if (d := m.due_at()) is not None and d <= now]
        self._ticks += 1
        if self._ticks % STORE_EVERY == 0:
            held = set(due)
            found = await self.service.store.due_games(now, shards=self.service.shards)
            due += [g for g in found if g not in held]
        for game_id in due:
            try:
                await self.fire(game_id, now)
            except Exception:
                # One game's failure must not stop the loop (a tasks.loop that raises ends).
                log.exception("turn timer of game %s failed", game_id)

    async def fire(self, game_id: int, now: datetime) -> bool:
        """Act on a due game; False when there was nothing to do (a click won)."""
        match = await self.service.get(game_id)
        if match is None or not match.active:
            return False
        change: Callable[[Match], Match]
        if match.status == "lobby":
            change, notice = (lambda m: m.expire(now)), Notice("expired")
        else:
            change, notice = self._absent(match, now), Notice("timeout", match.current_id)
        try:
            await self.service.apply(game_id, change, via=notice)
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
