"""STRATEGY_PRECOMPUTE: every exact table computed at start-up in the worker process.

`python -m bench precompute`. Starts from an empty cache directory; reports each table's
seconds, the total, and the event loop's worst lag (a 10 ms heartbeat) while the tables are
computed — in the worker process, and for comparison one table computed in a thread of
the bot's own process (the path without precompute).
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bot.service import SolutionCache
from bot.strategy import EXACT

TICK = 0.01


async def _lag_until(done: Callable[[], bool]) -> tuple[float, float]:
    """(worst lag in ms, seconds) of a heartbeat until `done()`."""
    loop = asyncio.get_running_loop()
    began = last = loop.time()
    worst = 0.0
    while not done():
        await asyncio.sleep(TICK)
        now = loop.time()
        worst = max(worst, now - last - TICK)
        last = now
    return worst * 1000, loop.time() - began


async def main() -> None:
    with tempfile.TemporaryDirectory(prefix="dicepoker-precompute-") as tmp:
        tables = SolutionCache(Path(tmp) / "process")
        tables.precompute()
        lag, seconds = await _lag_until(
            lambda: all(tables.status(n) in ("ready", "failed") for n in EXACT)
        )
        for name in EXACT:
            table = tables.loaded(name)
            shown = f"{table.seconds:6.1f} s" if table is not None else "failed"
            print(f"  {name:<13} {shown}")
        print(f"  worker process: all {len(EXACT)} in {seconds:.1f} s, loop lag max {lag:.1f} ms")
        tables.close()

        # The same work for one table in a thread of this process (no precompute).
        threaded = SolutionCache(Path(tmp) / "thread")
        began = time.perf_counter()
        threaded.get("scandinavian")
        lag, _ = await _lag_until(lambda: threaded.status("scandinavian") != "loading")
        print(
            f"  in a thread:    scandinavian in {time.perf_counter() - began:.1f} s,"
            f" loop lag max {lag:.1f} ms"
        )
        threaded.close()
