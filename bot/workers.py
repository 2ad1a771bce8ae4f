"""What every worker process of the bot runs first (the picture workers, the strategy
worker): it ignores Ctrl-C, and it ends when the bot's process ends.

A bot killed with SIGKILL cannot stop its workers, and a `ProcessPoolExecutor` worker never
notices by itself (its call queue holds both ends of its pipe), so it would live on,
holding memory and the bot's standard output: each worker watches the bot's process.
"""

from __future__ import annotations

import os
import select
import signal
import threading
import time


def start(bot_pid: int) -> None:
    """Ctrl-C in a terminal reaches the whole process group, and the bot's own stop ends
    the workers: no traceback of theirs. A bot that dies takes its workers with it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=_end_with, args=(bot_pid,), name="end-with-bot", daemon=True).start()


def _end_with(pid: int) -> None:
    try:
        watched = os.pidfd_open(pid)
    except OSError:  # gone already, or no pidfd (not Linux 5.3+): ask once a second
        while _alive(pid):
            time.sleep(1.0)
    else:
        select.select([watched], [], [])  # readable once the process has ended
    os._exit(0)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, another user's (a pid reused: rare enough to wait on)
        return True
    return True
