"""The strategy worker process's initializer (bot/service/solutions.py starts the worker):
in the pure core beside the computation, so the worker imports no more than it runs."""

import contextlib
import os
import signal


def start_worker() -> None:
    """Ctrl-C in a terminal reaches the whole process group, and the bot's own stop ends
    the worker: no traceback of its. On a small machine the bot's process comes first."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with contextlib.suppress(OSError):  # not permitted: same priority, still another core
        os.nice(10)
