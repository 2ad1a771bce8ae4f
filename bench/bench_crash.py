"""Crash safety under many kills: the bot is SIGKILLed 50 times at random moments while a
driver plays (tests/crash/harness.py); after each kill the database passes
`PRAGMA integrity_check` and holds every action the driver saw acknowledged.
Run with `make bench` or `python -m bench crash`."""

from __future__ import annotations

import tempfile
from pathlib import Path

from tests.crash.harness import kill_and_check

KILLS = 50
SEED = 2026


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        report = kill_and_check(Path(folder), kills=KILLS, seed=SEED, delay=(0.02, 1.2))
    intact = sum(answer == "ok" for answer in report.integrity)
    lost = len(report.lost)
    print(f"{'kills (SIGKILL)':<34}{report.kills}")
    print(f"{'acknowledged actions':<34}{report.acknowledged}")
    print(f"{'acknowledged actions lost':<34}{lost} (target 0: {'ok' if lost == 0 else 'MISSED'})")
    print(f"{'integrity_check ok':<34}{intact}/{report.checks}")
    print(f"{'actions after the last restart':<34}{report.continued}")
    print(f"{'time':<34}{report.seconds:.0f} s")
