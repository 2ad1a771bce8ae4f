"""Crash safety: the bot is SIGKILLed at random moments while a driver plays; after each
kill the database is intact and holds every action the driver saw acknowledged, and after
the last one the game goes on. (Many more kills: `make bench`, bench/bench_crash.py.)"""

from __future__ import annotations

import json
from pathlib import Path

from .harness import Report, check, kill_and_check, logged


def test_kills_lose_no_acknowledged_action(tmp_path: Path) -> None:
    report = kill_and_check(tmp_path, kills=4, seed=11)
    assert report.kills == 4
    assert report.integrity == ["ok"] * report.checks
    assert report.acknowledged > 0
    assert report.lost == []
    assert report.continued >= 12  # the game continued after the last restart
    games = {e["game"] for e in logged(tmp_path / "acknowledged.jsonl")}
    assert len(games) >= 1


def test_the_check_finds_an_acknowledged_action_the_database_lacks(tmp_path: Path) -> None:
    """The check above can fail: an action logged but not stored is reported lost."""
    report = kill_and_check(tmp_path, kills=1, seed=3, final_actions=3)
    assert report.lost == []
    log = tmp_path / "acknowledged.jsonl"
    last = logged(log)[-1]
    forged = {"game": last["game"], "seq": last["seq"] + 1000, "action": last["action"]}
    with log.open("a", encoding="utf-8") as f:
        f.write(json.dumps(forged) + "\n")
    again = Report()
    check(tmp_path / "crash.sqlite3", log, again)
    assert again.lost == [forged]
