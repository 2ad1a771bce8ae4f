"""The bot's pictures, drawn in worker processes: never on the event loop.

A scorecard's pictures take 14–40 ms of CPU; drawn inside a click, no other game's click
is answered meanwhile. Every picture the bot draws goes through `Pictures.draw(fn, *args)`,
where `fn` is one of `bot.render`'s pure functions (`game_pngs`, `scorecard_pngs`,
`scores_chart_png`, `bracket_pngs`: module-level, so a worker finds it by name; the
arguments are records and pickle).

    pictures = Pictures(settings.picture_pool_size)   # the wiring's (bot/app.py); close() at stop
    pngs = await pictures.draw(game_pngs, game, names, game_id, lang, final=True)
    task = pictures.start(game_pngs, ...)   # a click: its answer cannot wait long
    if await pictures.in_time(task): ...    # drawn within `budget`; else edit them in later

The workers fork from a forkserver that has loaded the fonts once (`bot.render.warm`):
each starts with them in milliseconds, a worker replaced after a crash too. A
worker that dies (killed, out of memory) breaks its pool: every picture it held fails
with `BrokenProcessPool`, a new pool takes its place and each of them is drawn again,
once. `workers=0` draws in a thread of the bot's process instead (where processes cannot
be started): off the loop while waiting, but Pillow holds the GIL for most of a picture.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import functools
import logging
import multiprocessing
import os
from collections.abc import Callable
from concurrent.futures.process import BrokenProcessPool
from typing import ParamSpec, TypeVar

from bot.render import worker

log = logging.getLogger(__name__)

T = TypeVar("T")
P = ParamSpec("P")

# Seconds a click waits for its pictures before its message goes out with the text
# table (the pictures follow by an edit): well inside Discord's 3 s to answer a click.
BUDGET = 1.5


def default_workers() -> int:
    """One worker per core the event loop leaves spare (at least one)."""
    return max(1, (os.cpu_count() or 1) - 1)


class PicturesClosedError(RuntimeError):
    """A picture asked for while (or after) the bot stops: nobody will see it."""


class Pictures:
    def __init__(self, workers: int | None = None, *, budget: float = BUDGET) -> None:
        self.workers = default_workers() if workers is None else workers
        if self.workers < 0:
            raise ValueError("the number of picture workers cannot be negative")
        self.budget = budget
        self.replaced = 0  # pools replaced after a worker died (metrics, tests)
        self._pool: concurrent.futures.ProcessPoolExecutor | None = None
        self._closed = False

    def _executor(self) -> concurrent.futures.ProcessPoolExecutor:
        if self._closed:
            raise PicturesClosedError
        if self._pool is None:  # started on first use: a bot showing no pictures starts none
            context = multiprocessing.get_context("forkserver")
            context.set_forkserver_preload([worker.FONTS])  # before its first start
            self._pool = concurrent.futures.ProcessPoolExecutor(
                max_workers=self.workers, mp_context=context,
                initializer=worker.start_worker, initargs=(os.getpid(),),
            )  # fmt: skip
        return self._pool

    def prestart(self) -> None:
        """Start the workers now (the wiring, at start-up): the first pictures then
        wait for no forkserver, fork or fonts."""
        if self.workers > 0:
            pool = self._executor()
            for _ in range(self.workers):
                pool.submit(int)  # a worker is started for each job no idle one takes

    async def draw(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """`fn(*args, **kwargs)` in a worker; drawn once more if its worker died."""
        call = functools.partial(fn, *args, **kwargs)
        if self.workers == 0:
            return await asyncio.to_thread(call)
        pool = self._executor()
        try:
            return await asyncio.wrap_future(pool.submit(call))
        except BrokenProcessPool:
            if self._closed:
                raise PicturesClosedError from None
            self._replace(pool)
            log.warning("a picture worker died: its picture is drawn again in a new one")
        return await asyncio.wrap_future(self._executor().submit(call))

    def start(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> asyncio.Task[T]:
        """`draw` as a task of its own, for `in_time`."""
        return asyncio.get_running_loop().create_task(self.draw(fn, *args, **kwargs))

    async def in_time(self, task: asyncio.Task[T]) -> bool:
        """Wait up to `budget` for `task` (it goes on after): drawn by then?"""
        await asyncio.wait({task}, timeout=self.budget)
        return task.done()

    def _replace(self, broken: concurrent.futures.ProcessPoolExecutor) -> None:
        """Drop a broken pool (once, however many of its pictures failed together)."""
        if self._pool is broken:
            self._pool = None
            self.replaced += 1
            broken.shutdown(wait=False)

    async def close(self) -> None:
        """Draw nothing more; queued pictures are cancelled, the ones in hand finish (tens
        of milliseconds) and the workers are joined, off the loop: no semaphore leaks."""
        self._closed = True
        pool, self._pool = self._pool, None
        if pool is None:
            return
        with contextlib.suppress(BrokenProcessPool):
            await asyncio.to_thread(pool.shutdown, wait=True, cancel_futures=True)
