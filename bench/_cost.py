"""Whose CPU a click spends: the bot's, discord.py's or the simulated Discord's (simcord).

A cProfile run gives each function its own time (the event loop's waits in epoll put
aside as idle); a function of a known package is that package's, and every other one (the
standard library, builtins: `json.dumps`, `copy.deepcopy`, `re`) is charged to whoever
called it, in proportion to the time each caller spent calling it, up the call graph until
a known package is met. So simcord's deep copies count as simcord's and the bot's JSON
encoding of its snapshot as the bot's.

The profiler's own cost per call (measured by `bias`: a call profiled minus unprofiled) is
taken off each function's time for each of its calls, so code of many small calls (simcord's
deep copies) is not inflated beside code of few; the shares are then applied to the CPU
the same clicks take unprofiled (`bench_load`).
"""

from __future__ import annotations

import cProfile
import pstats
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# The bot: its own folders, and the database drivers its store runs (the store's work).
BOT = tuple(str(ROOT / d) + "/" for d in ("bot", "cogs", "db"))
DRIVERS = ("/aiosqlite/", "/sqlalchemy/", "/asyncpg/", "/sqlite3/")
HARNESS = (str(ROOT / "bench") + "/", str(ROOT / "tests") + "/")
PARTS = ("bot", "discord.py", "simcord", "harness", "other")

Func = tuple[str, int, str]


def part_of(filename: str) -> str | None:
    """The owner of a file's code, None when it must be charged to its callers."""
    if filename.startswith(BOT) or any(d in filename for d in DRIVERS):
        return "bot"
    if "/simcord/" in filename:
        return "simcord"
    if "/discord/" in filename:
        return "discord.py"
    if filename.startswith(HARNESS):
        return "harness"
    return None


# Waits, not work: the loop's epoll, and the hand-over to SQLite's driver thread (whose
# time is the GIL given to that thread: its CPU is counted as the thread's).
IDLE = (
    "<method 'poll' of 'select.epoll' objects>",
    "<method 'put' of '_queue.SimpleQueue' objects>",
)


def profiler() -> cProfile.Profile:
    return cProfile.Profile()


def _calls(n: int) -> None:
    def nothing() -> None:
        pass

    for _ in range(n):
        nothing()
        len("")


def bias(n: int = 200_000) -> float:
    """Seconds the profiler adds to one call (a Python call and a builtin's, averaged)."""
    start = time.perf_counter()
    _calls(n)
    plain = time.perf_counter() - start
    profile = profiler()
    start = time.perf_counter()
    profile.runcall(_calls, n)
    profiled = time.perf_counter() - start
    return max(0.0, (profiled - plain) / (2 * n))


def attribute(profiled: pstats.Stats, per_call: float) -> dict[str, float]:
    """Seconds by part (`PARTS`) in `profiled`, `per_call` taken off for each call."""
    stats: dict[Func, Any] = profiled.stats  # type: ignore[attr-defined]
    shares: dict[Func, dict[str, float]] = {}

    def share(func: Func, trail: frozenset[Func]) -> dict[str, float]:
        known = shares.get(func)
        if known is not None:
            return known
        owner = part_of(func[0])
        if owner is not None:
            shares[func] = {owner: 1.0}
            return shares[func]
        callers = stats[func][4]  # caller -> (calls, primitive calls, own time, cumulative)
        weights = {c: v[3] or v[2] for c, v in callers.items() if c in stats and c not in trail}
        weights = {c: w for c, w in weights.items() if w > 0}
        total = sum(weights.values())
        if not total:
            return {"other": 1.0}
        mixed: dict[str, float] = defaultdict(float)
        for caller, weight in weights.items():
            for part, fraction in share(caller, trail | {func}).items():
                mixed[part] += fraction * weight / total
        shares[func] = dict(mixed)  # a cycle's cut-off callers are left out: near enough
        return shares[func]

    seconds: dict[str, float] = dict.fromkeys(PARTS, 0.0)
    for func, (_cc, calls, own, _cum, _callers) in stats.items():
        if func[2] in IDLE:
            continue
        for part, fraction in share(func, frozenset()).items():
            seconds[part] += max(0.0, own - calls * per_call) * fraction
    return seconds


def top(profiled: pstats.Stats, n: int = 10, *, only: str | None = None) -> list[str]:
    """The `n` functions with the most own time (waits left out), as lines; `only`: of
    that part's files."""
    stats: dict[Func, Any] = profiled.stats  # type: ignore[attr-defined]
    total = sum(v[2] for f, v in stats.items() if f[2] not in IDLE) or 1.0
    chosen = [
        kv for kv in stats.items()
        if kv[0][2] not in IDLE and (only is None or part_of(kv[0][0]) == only)
    ]  # fmt: skip
    ranked = sorted(chosen, key=lambda kv: kv[1][2], reverse=True)[:n]
    lines = []
    for (filename, line, name), (_cc, calls, own, cum, _callers) in ranked:
        where = filename.replace(str(ROOT) + "/", "")
        where = where.split("site-packages/")[-1].split("lib/python3.11/")[-1]
        lines.append(
            f"{own * 1000:8.0f} ms {own / total:6.1%} {cum * 1000:8.0f} ms cum "
            f"{calls:>8} calls  {where}:{line} {name}"
        )
    return lines
