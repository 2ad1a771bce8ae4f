"""One logging set-up for the whole bot (`setup_logging`), called from `main`."""

from __future__ import annotations

import logging
import os
import socket
import sys

from bot.records import Shards


def setup_logging(level: str = "INFO", *, shards: Shards | None = None) -> None:
    """Log to stderr with times, the process (host name and pid: in containers every
    process may be pid 1) and its shards, as several processes share one log collector;
    discord.py's own chatter stays at INFO or above."""
    where = f"{socket.gethostname()} pid {os.getpid()}"
    if shards is not None:
        where += f" shards {','.join(map(str, sorted(shards.ids)))}/{shards.count}"
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(
        logging.Formatter(
            f"%(asctime)s %(levelname)-7s [{where}] %(name)s: %(message)s", "%Y-%m-%d %H:%M:%S"
        )
    )
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    logging.getLogger("discord").setLevel(max(logging.INFO, root.level))
