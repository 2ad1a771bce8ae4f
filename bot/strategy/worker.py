"""The strategy worker process's initializer (bot/service/solutions.py starts the worker):
in the pure core beside the computation, so the worker imports no more than it runs."""

import contextlib
import os

from bot import workers


def start_worker(bot_pid: int) -> None:
    """`bot.workers.start` (no Ctrl-C, ends with the bot); on a small machine the bot's
    process comes first."""
    workers.start(bot_pid)
    with contextlib.suppress(OSError):  # not permitted: same priority, still another core
        os.nice(10)
