"""The best score a day's dice allowed: worked out once per (day, rule set), off the loop.

The hindsight optimum (`bot.strategy.hindsight`) is the same for every member and every
server, so it is computed once, in a worker thread (0.02 s for classic to about 0.3 s for
yatzy, `make bench`), kept in memory and in the store (`daily_best`, per secret), so
another process or a restart reads it instead. `start` begins the work when the first
member of the day starts a daily, so the report at their finish rarely waits.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import date
from typing import Any

from bot.records import DailyBest
from bot.strategy.hindsight import hindsight
from db import GameStore

from .daily import Dailies

log = logging.getLogger(__name__)

KEPT = 64  # (day, rule set) pairs kept in memory


class BestScores:
    def __init__(self, dailies: Dailies[Any], store: GameStore) -> None:
        self.dailies = dailies
        self.store = store
        self._known: dict[tuple[date, str], DailyBest] = {}
        self._work: dict[tuple[date, str], asyncio.Task[DailyBest]] = {}

    def known(self, day: date, rules: str) -> DailyBest | None:
        return self._known.get((day, rules))

    def start(self, day: date, rules: str) -> None:
        """Begin working it out (if nobody has), without waiting."""
        self._task(day, rules)

    async def lookup(self, day: date, rules: str) -> DailyBest | None:
        """The best if it was ever worked out (memory, else the store); never computes."""
        found = self._known.get((day, rules))
        if found is None:
            found = await self.store.daily_best(await self.dailies.fingerprint(), rules, day)
        return found

    async def wait(self, day: date, rules: str) -> DailyBest:
        found = self._known.get((day, rules))
        if found is not None:
            return found
        # shield: a caller that stops waiting does not cancel the others' answer
        return await asyncio.shield(self._task(day, rules))

    async def stop(self) -> None:
        for task in self._work.values():
            task.cancel()

    def _task(self, day: date, rules: str) -> asyncio.Task[DailyBest]:
        key = (day, rules)
        task = self._work.get(key)
        if task is None or (task.done() and (task.cancelled() or task.exception())):
            task = asyncio.get_running_loop().create_task(
                self._compute(day, rules), name=f"daily-best-{rules}-{day}"
            )
            task.add_done_callback(self._done)
            self._work[key] = task
        return task

    def _done(self, task: asyncio.Task[DailyBest]) -> None:
        if not task.cancelled() and task.exception() is not None:
            log.error("the daily's best score failed", exc_info=task.exception())

    async def _compute(self, day: date, rules: str) -> DailyBest:
        dice_id = await self.dailies.fingerprint()
        best = await self.store.daily_best(dice_id, rules, day)
        if best is None:
            dice = await self.dailies.fresh_dice(day, rules)
            found = await asyncio.to_thread(hindsight, dice)
            best = DailyBest(found.score, found.exact)
            await self.store.put_daily_best(dice_id, rules, day, best)
            log.info("daily best of %s on %s: %s (exact %s)", rules, day, best.score, best.exact)
        if len(self._known) >= KEPT:
            self._known.pop(next(iter(self._known)))
        self._known[day, rules] = best
        self._work.pop((day, rules), None)
        return best
