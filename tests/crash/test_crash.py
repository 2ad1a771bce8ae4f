"""Crash safety: the bot is SIGKILLed at random moments while a driver plays; after each
kill the database is intact and holds every action the driver saw acknowledged, the next
process answers the killed one's last buttons, and after the last kill the game goes on.
On SQLite and on PostgreSQL, where each new process holds another set of shards that
includes the game's. (Many more kills: `make bench`, bench/bench_crash.py.)"""

from __future__ import annotations

import json
from pathlib import Path

from .harness import Report, check, kill_and_check, logged

TAKEOVER = ("0-1", "1-2", "1")  # of 4 shards; the game's server is on shard 1


def test_kills_lose_no_acknowledged_action(tmp_path: Path, crash_url: str | None) -> None:
    shards = TAKEOVER if crash_url else None
    report = kill_and_check(tmp_path, kills=4, seed=11, url=crash_url, shards=shards)
    assert report.kills == 4
    assert report.integrity == ["ok"] * report.checks
    assert report.acknowledged > 0
    assert report.lost == []
    assert report.continued >= 12  # the game continued after the last restart
    games = {e["game"] for e in logged(tmp_path / "acknowledged.jsonl")}
    assert len(games) >= 1
    # Old buttons after a kill were answered (else the child fails): applied or out of date.
    assert set(report.old_buttons) <= {"applied", "stale", "none"}
    assert report.old_buttons.get("applied", 0) + report.old_buttons.get("stale", 0) >= 1


def test_the_check_finds_an_acknowledged_action_the_database_lacks(
    tmp_path: Path, crash_url: str | None
) -> None:
    """The check above can fail: an action logged but not stored is reported lost."""
    report = kill_and_check(tmp_path, kills=1, seed=3, final_actions=3, url=crash_url)
    assert report.lost == []
    log = tmp_path / "acknowledged.jsonl"
    last = logged(log)[-1]
    forged = {"game": last["game"], "seq": last["seq"] + 1000, "action": last["action"]}
    with log.open("a", encoding="utf-8") as f:
        f.write(json.dumps(forged) + "\n")
    again = Report()
    check(crash_url or str(tmp_path / "crash.sqlite3"), log, again)
    assert again.lost == [forged]
