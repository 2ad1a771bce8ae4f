"""Full garbage collections off the click path.

The tail of the click latency (p99 of 21–35 ms against medians of 2–3 ms) was Python's
full, generation-2 collections: every few hundred clicks one walked every object of the
process (discord.py's caches, the strategy tables, the catalogs) for 30–70 ms, inside
whichever click happened to trigger it. Once the bot has started, the objects it keeps
for its whole life are frozen out of the collector (`gc.freeze`), automatic full
collections are turned off, and a loop makes one every minute instead, between clicks.
Generations 0 and 1 still collect as usual: short-lived cycles never pile up.
"""

from __future__ import annotations

import gc
import logging
from typing import Any

from discord.ext import tasks

log = logging.getLogger(__name__)

FULL_EVERY = 60.0  # seconds between two full collections
GEN2_OFF = 10**9  # a generation-2 threshold that is never reached


def settle_memory() -> tuple[int, int, int]:
    """After start-up: collect once, freeze what survived, stop automatic full collections;
    the thresholds they had."""
    gc.collect()
    gc.freeze()
    before = gc.get_threshold()
    gc.set_threshold(before[0], before[1], GEN2_OFF)
    return before


class FullCollections:
    """The minute's full collection (started with the bot, stopped when it closes, which
    gives the process back its automatic full collections: a test or a benchmark runs
    on after its bot)."""

    def __init__(self) -> None:
        self.loop: tasks.Loop[Any] = tasks.loop(seconds=FULL_EVERY)(self.collect)
        self._threshold: tuple[int, int, int] | None = None

    async def collect(self) -> None:
        gc.collect()

    def start(self) -> None:
        before = settle_memory()
        self._threshold = self._threshold or before
        if not self.loop.is_running():
            self.loop.start()

    def stop(self) -> None:
        self.loop.cancel()
        gc.unfreeze()
        if self._threshold is not None:
            gc.set_threshold(*self._threshold)
            self._threshold = None
