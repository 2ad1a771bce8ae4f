"""Jobs the tests send to the picture workers: a light module (a worker imports it)."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

WAIT = 120.0  # seconds a job waits to be killed at most (a slow, shared machine)


def where() -> int:
    """Which process drew."""
    return os.getpid()


def killed_first(flag: str, pid_file: str, fn: Callable[..., Any] = where, *args: Any) -> Any:
    """The first call announces its process and waits to be killed (SIGKILL, from the
    test); drawn again after that, it is `fn(*args)`."""
    if not Path(flag).exists():
        Path(flag).touch()
        Path(pid_file).write_text(str(os.getpid()))
        time.sleep(WAIT)
        return -1  # never reached when the test kills it
    return fn(*args)
