"""The daily dice's hindsight optimum: seconds per game and the scores it finds.

Per rule set, over `DAYS` days: the median, fastest and slowest wall time of `hindsight`
from an empty card (fresh dice each time, so the HMACs are counted), the engine replay of
its line, and the optimum's mean. For banked also the bounded search that allows no
banked throws (a lower bound) and how far below the exact optimum it lands.
Targets: classic <= 200 ms, yatzy <= 2 s per game on a 2-core machine.
"""

from __future__ import annotations

import os
import statistics
import time
from datetime import date, timedelta

from bot.engine import RULESETS, totals_of
from bot.engine.daily import DailyDice
from bot.strategy.hindsight import Hindsight, hindsight, replay

DAYS = 7
SECRET = b"bench_daily: a fixed secret ...."
FIRST = date(2025, 1, 1)


def _timed(rules: str, day: date, extra: int | None = None) -> tuple[float, float, Hindsight]:
    """Wall and CPU seconds of one hindsight game (CPU: what it costs on an idle core)."""
    dice = DailyDice(SECRET, day, rules)
    began, began_cpu = time.perf_counter(), time.process_time()
    result = hindsight(dice, extra_throws=extra)
    elapsed, cpu = time.perf_counter() - began, time.process_time() - began_cpu
    final, _ = replay(dice, result)
    assert totals_of(final.rules, final.card).total == result.score
    return elapsed, cpu, result


def main() -> None:
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores", flush=True)
    days = [FIRST + timedelta(days=i) for i in range(DAYS)]
    for rules in RULESETS:
        runs = [_timed(rules, day) for day in days]
        ms = [t * 1e3 for t, _, _ in runs]
        cpu = [c * 1e3 for _, c, _ in runs]
        scores = [r.score for _, _, r in runs]
        print(
            f"{rules:13} hindsight median {statistics.median(ms):7.1f} ms "
            f"(cpu {statistics.median(cpu):7.1f} ms; min {min(ms):6.1f}, max {max(ms):6.1f}) "
            f"over {DAYS} days; optimum mean {statistics.fmean(scores):6.1f} "
            f"(min {min(scores)}, max {max(scores)}); exact {all(r.exact for *_, r in runs)}",
            flush=True,
        )
        if RULESETS[rules].banked:
            bounded = [_timed(rules, day, extra=0) for day in days]
            gaps = [e[2].score - b[2].score for e, b in zip(runs, bounded, strict=True)]
            bms = [t * 1e3 for t, _, _ in bounded]
            print(
                f"{'':13} no banked throws: median {statistics.median(bms):7.1f} ms, "
                f"{statistics.fmean(gaps):.1f} points below the optimum on average "
                f"(max {max(gaps)})",
                flush=True,
            )
