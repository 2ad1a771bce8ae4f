"""Crash safety under many kills, on SQLite and on PostgreSQL: the bot is SIGKILLed 50
times at random moments while a driver plays (tests/crash/harness.py); after each kill the
database is consistent (SQLite: and passes `PRAGMA integrity_check`) and holds every action
the driver saw acknowledged, and the next process answers the killed one's last buttons.
On PostgreSQL (a throwaway server with PostgreSQL's durable defaults, tests/pg.py) each new
process holds another set of shards that includes the game's, as in a takeover.
Run with `make bench` or `python -m bench crash`."""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

from tests.crash.harness import Report, kill_and_check
from tests.pg import ThrowawayPostgres, create_database

KILLS = 50
SEED = 2026
TAKEOVER = ("0-1", "1-2", "1")


def _print(store: str, report: Report) -> None:
    intact = sum(answer == "ok" for answer in report.integrity)
    lost = len(report.lost)
    old = report.old_buttons
    print(f"-- {store}")
    print(f"{'kills (SIGKILL)':<34}{report.kills}")
    print(f"{'acknowledged actions':<34}{report.acknowledged}")
    print(f"{'acknowledged actions lost':<34}{lost} (target 0: {'ok' if lost == 0 else 'MISSED'})")
    print(f"{'consistent after each kill':<34}{intact}/{report.checks}")
    print(
        f"{'old buttons after a restart':<34}{old.get('applied', 0)} applied, "
        f"{old.get('stale', 0)} refused as out of date, {old.get('none', 0)} none to click"
    )
    print(f"{'actions after the last restart':<34}{report.continued}")
    print(f"{'time':<34}{report.seconds:.0f} s", flush=True)


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        _print("SQLite", kill_and_check(Path(folder), kills=KILLS, seed=SEED, delay=(0.02, 1.2)))
    server = ThrowawayPostgres.start(durable=True, where=tempfile.gettempdir())
    try:
        url = asyncio.run(create_database(server.url(), "crash"))
        with tempfile.TemporaryDirectory() as folder:
            report = kill_and_check(
                Path(folder), kills=KILLS, seed=SEED, url=url, shards=TAKEOVER, delay=(0.02, 1.2)
            )
        _print("PostgreSQL (a new process with other shards after each kill)", report)
    finally:
        server.stop()
