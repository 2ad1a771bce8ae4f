"""The bot's strategy tables: loaded or computed off the event loop, asked for without waiting.

(Not in the pure core: it owns threads, a worker process and asyncio futures.)

A full table takes from under a second (classic) to about ten seconds (yatzy) to compute and
milliseconds to load from the cache directory, so the bot never computes one on the event
loop: `get(rules)` answers at once with the table or None, and a None starts the work in a
worker thread (numpy releases the GIL for the heavy part). A hint asked for meanwhile
says the table is being prepared; computer players `await wait(rules)`.

    tables = SolutionCache(settings.strategy_dir)   # built by the app, shared by the cogs
    tables.get("classic")          # None the first time: loading has started
    await tables.wait("classic")   # the ValueTable (None for banked: no exact table)
    tables.precompute()            # start-up (STRATEGY_PRECOMPUTE): every exact table

The cache directory may be shared by several bot processes: a table is computed under the
directory's lock (`bot.strategy.computing`, an flock on the directory), so one process
computes it and the others, waiting on the lock, load what it wrote; `python -m bot solve --all`
fills the directory ahead of time (a deploy step) under the same locks.

`precompute` loads every cached table, then computes the missing ones one after another in
a worker PROCESS (one worker: the event loop and the GIL stay free for the bot); the worker
writes the cache atomically and the manager loads it. From then on any computation (a hint
for a table not done yet) queues on that worker too. `close` cancels what is queued and
ends a computation under way (the next start computes it again). The worker is spawned
(not forked), so the program's main module must be safe to import, as `python -m bot`
is (`if __name__ == "__main__":`); otherwise each computation fails with a logged error.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import multiprocessing
import os
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Literal

from bot.strategy import (
    BY_SPEED,
    EXACT,
    ValueTable,
    cache_table,
    compute,
    computing,
    load,
    path_for,
    save,
)
from bot.strategy.worker import start_worker

log = logging.getLogger(__name__)

PRECOMPUTE_ORDER: tuple[str, ...] = BY_SPEED  # fastest first


class _ClosedError(Exception):
    """The manager was closed while a table was on its way (not an error worth a log)."""


Loader = Callable[[str], ValueTable]
Status = Literal["ready", "loading", "idle", "failed", "none"]  # none: banked


class SolutionCache:
    """One table per exact rule set, each loaded at most once (a failure may be retried)."""

    def __init__(self, cache_dir: Path | None, *, loader: Loader | None = None) -> None:
        self.cache_dir = Path(cache_dir) if cache_dir is not None else Path("data/strategy")
        self._loader: Loader = loader or self._load_or_compute
        self._tables: dict[str, ValueTable] = {}
        self._jobs: dict[str, concurrent.futures.Future[ValueTable]] = {}
        self._failed: set[str] = set()
        self._lock = threading.Lock()  # done-callbacks run in the worker threads
        self._closed = False
        self._pool: concurrent.futures.ProcessPoolExecutor | None = None  # precompute on

    def _load_or_compute(self, rules: str) -> ValueTable:
        began = time.perf_counter()
        table = load(rules, self.cache_dir)
        if table is not None:
            log.info("strategy table for %s: loaded in %.2f s", rules, time.perf_counter() - began)
            return table
        pool = self._pool
        if pool is not None:
            try:
                table = self._in_worker(pool, rules)
            except OSError:  # the worker could not write the cache: compute it here instead
                log.warning("the worker could not cache the %s table in %s", rules, self.cache_dir)
        if table is None:
            with computing(self.cache_dir):
                table = load(rules, self.cache_dir)  # another process wrote it meanwhile
                if table is not None:
                    log.info("strategy table for %s: loaded (another process made it)", rules)
                    return table
                table = compute(rules)
                try:
                    save(table, self.cache_dir)
                except OSError:  # a read-only disk costs a recomputation next start, no more
                    log.warning("could not cache the %s table in %s", rules, self.cache_dir)
        log.info("strategy table for %s: computed in %.1f s", rules, table.seconds)
        return table

    def _in_worker(self, pool: concurrent.futures.ProcessPoolExecutor, rules: str) -> ValueTable:
        """Compute in the worker process, then load what it cached (milliseconds)."""
        if self._closed:
            raise _ClosedError(rules)
        try:
            seconds = pool.submit(cache_table, rules, str(self.cache_dir)).result()
        except (RuntimeError, concurrent.futures.CancelledError) as exc:
            # submit after shutdown, a queued job cancelled, a worker ended by `close`
            # (BrokenProcessPool is a RuntimeError): the bot is stopping.
            if self._closed:
                raise _ClosedError(rules) from exc
            raise
        table = load(rules, self.cache_dir)
        if table is None:
            raise OSError(f"the {rules} table the worker cached cannot be read back")
        table.seconds = seconds
        return table

    # --- asking --------------------------------------------------------------------

    def get(self, rules: str) -> ValueTable | None:
        """The table now, or None (loading has been started; banked never has one)."""
        table = self._tables.get(rules)
        if table is None and rules in EXACT:
            self._start(rules)
        return table

    def loaded(self, rules: str) -> ValueTable | None:
        """The table if it is in memory; starts nothing (the post-game analysis)."""
        return self._tables.get(rules)

    def status(self, rules: str) -> Status:
        if rules not in EXACT:
            return "none"
        if rules in self._tables:
            return "ready"
        if rules in self._failed:
            return "failed"
        job = self._jobs.get(rules)
        return "loading" if job is not None and not job.done() else "idle"

    async def wait(self, rules: str) -> ValueTable | None:
        """The table, waiting for the worker if need be (None: banked, or the work failed)."""
        if rules not in EXACT:
            return None
        table = self.get(rules)
        if table is not None:
            return table
        job = self._jobs.get(rules)
        if job is None:  # failed just now
            return None
        try:
            return await asyncio.wrap_future(job)
        except Exception:  # logged by the callback
            return None

    def preload(self, *rules: str) -> None:
        """Load the tables already cached on disk (milliseconds); never start a computation.

        A missing table is computed on first real need (a hint, a perfect computer player),
        or ahead of time with `python -m bot solve`.
        """
        for name in rules:
            if name in EXACT and path_for(name, self.cache_dir).exists():
                self.get(name)

    def precompute(self, order: Iterable[str] | None = None) -> threading.Thread:
        """Start-up: load every cached table, then compute the missing ones in the worker
        process, one after another, from a daemon thread that only waits (no asyncio task:
        nothing on the event loop waits seconds for a table)."""
        if self._pool is None and not self._closed:
            # spawn, not fork: the child inherits none of the bot's threads, locks or sockets.
            self._pool = concurrent.futures.ProcessPoolExecutor(
                max_workers=1,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=start_worker,
                initargs=(os.getpid(),),
            )
        names = [n for n in (PRECOMPUTE_ORDER if order is None else order) if n in EXACT]
        thread = threading.Thread(
            target=self._run_precompute, args=(names,), name="strategy-precompute", daemon=True
        )
        thread.start()
        return thread

    def _run_precompute(self, names: list[str]) -> None:
        began = time.perf_counter()
        self.preload(*names)  # the cached ones first: milliseconds each, in their threads
        for name in names:
            if self._closed:
                return
            self.get(name)  # joins a job already started by a hint or a computer player
            job = self._jobs.get(name)
            if job is not None:
                concurrent.futures.wait([job])  # the next computation only after this one
        if not self._closed:
            ready = [n for n in names if n in self._tables]
            log.info(
                "strategy tables ready (%s) after %.1f s",
                ", ".join(ready) or "none",
                time.perf_counter() - began,
            )

    def put(self, table: ValueTable) -> None:
        """Use `table` for its rule set (tests; a table computed elsewhere)."""
        with self._lock:
            self._tables[table.rules.name] = table
            self._failed.discard(table.rules.name)

    def close(self) -> None:
        """Start no more work; cancel the queued computations and end the one under way in
        the worker process (a computation in a thread ends with its daemon thread)."""
        self._closed = True
        pool, self._pool = self._pool, None
        if pool is None:
            return
        # ProcessPoolExecutor cannot stop a running call (Python < 3.14 has no
        # terminate_workers): end the worker, so neither the bot's exit nor the interpreter's
        # atexit join waits for a table nobody will use. It writes the cache
        # atomically, so a killed worker leaves at most a stray temporary file.
        workers = list((getattr(pool, "_processes", None) or {}).values())
        pool.shutdown(wait=False, cancel_futures=True)
        for process in workers:
            if process.is_alive():
                process.terminate()
        for process in workers:
            process.join(timeout=5)

    # --- the worker ----------------------------------------------------------------

    def _start(self, rules: str) -> None:
        with self._lock:
            job = self._jobs.get(rules)
            if self._closed or (job is not None and not job.done()):
                return
            self._failed.discard(rules)
            job = self._jobs[rules] = concurrent.futures.Future()
        job.add_done_callback(lambda done: self._finished(rules, done))
        log.info("strategy table for %s: loading", rules)
        # A daemon thread: a computation still running never holds up the bot's exit.
        threading.Thread(
            target=self._work, args=(rules, job), name=f"strategy-{rules}", daemon=True
        ).start()

    def _work(self, rules: str, job: concurrent.futures.Future[ValueTable]) -> None:
        if not job.set_running_or_notify_cancel():
            return
        try:
            job.set_result(self._loader(rules))
        except BaseException as exc:  # handed to whoever waits (and logged once)
            job.set_exception(exc)

    def _finished(self, rules: str, job: concurrent.futures.Future[ValueTable]) -> None:
        if job.cancelled():
            return
        error = job.exception()
        with self._lock:
            if error is None:
                self._tables[rules] = job.result()
            else:
                self._failed.add(rules)
        if isinstance(error, _ClosedError) or (error is not None and self._closed):
            log.info("strategy table for %s: not computed (shutting down)", rules)
        elif error is not None:
            log.error("strategy table for %s failed", rules, exc_info=error)
