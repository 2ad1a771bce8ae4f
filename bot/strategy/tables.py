"""The bot's strategy tables: loaded or computed off the event loop, asked for without waiting.

A full table takes from under a second (classic) to about a minute (yatzy) to compute and
milliseconds to load from the cache directory, so the bot never computes one on the event
loop: `get(rules)` answers at once with the table or None, and a None starts the work in a
worker thread (numpy releases the GIL for the heavy part). A hint asked for meanwhile
says the table is being prepared; computer players `await wait(rules)`.

    tables = TableManager(settings.strategy_dir)   # in the play cog's service
    tables.get("classic")          # None the first time: loading has started
    await tables.wait("classic")   # the Table (None for banked: no exact table)
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Literal

from .table import EXACT, Table, compute, load, path_for, save

log = logging.getLogger(__name__)

Loader = Callable[[str], Table]
Status = Literal["ready", "loading", "idle", "failed", "none"]  # none: banked


class TableManager:
    """One table per exact rule set, each loaded at most once (a failure may be retried)."""

    def __init__(self, cache_dir: Path | None, *, loader: Loader | None = None) -> None:
        self.cache_dir = Path(cache_dir) if cache_dir is not None else Path("data/strategy")
        self._loader: Loader = loader or self._load_or_compute
        self._tables: dict[str, Table] = {}
        self._jobs: dict[str, concurrent.futures.Future[Table]] = {}
        self._failed: set[str] = set()
        self._lock = threading.Lock()  # done-callbacks run in the worker threads
        self._closed = False

    def _load_or_compute(self, rules: str) -> Table:
        table = load(rules, self.cache_dir)
        if table is None:
            table = compute(rules)
            try:
                save(table, self.cache_dir)
            except OSError:  # a read-only disk costs a recomputation next start, no more
                log.warning("could not cache the %s table in %s", rules, self.cache_dir)
        return table

    # --- asking --------------------------------------------------------------------

    def get(self, rules: str) -> Table | None:
        """The table now, or None (loading has been started; banked never has one)."""
        table = self._tables.get(rules)
        if table is None and rules in EXACT:
            self._start(rules)
        return table

    def loaded(self, rules: str) -> Table | None:
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

    async def wait(self, rules: str) -> Table | None:
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

    def put(self, table: Table) -> None:
        """Use `table` for its rule set (tests; a table computed elsewhere)."""
        with self._lock:
            self._tables[table.rules.name] = table
            self._failed.discard(table.rules.name)

    def close(self) -> None:
        """Start no more work (a computation already running ends with its daemon thread)."""
        self._closed = True

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

    def _work(self, rules: str, job: concurrent.futures.Future[Table]) -> None:
        if not job.set_running_or_notify_cancel():
            return
        try:
            job.set_result(self._loader(rules))
        except BaseException as exc:  # handed to whoever waits (and logged once)
            job.set_exception(exc)

    def _finished(self, rules: str, job: concurrent.futures.Future[Table]) -> None:
        if job.cancelled():
            return
        error = job.exception()
        with self._lock:
            if error is None:
                self._tables[rules] = job.result()
            else:
                self._failed.add(rules)
        if error is not None:
            log.error("strategy table for %s failed", rules, exc_info=error)
        else:
            log.info("strategy table for %s: ready", rules)
