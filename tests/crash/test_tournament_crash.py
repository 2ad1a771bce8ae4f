"""A tournament survives a SIGKILL at the end of a round: the child process
(tests/crash/tournament_driver.py) plays four members at tables of two and kills itself
at one moment of round 1's last record; a new process on the same database resumes and
plays to the end. The round advanced once, the final's table opened once, and every
action the driver saw acknowledged is stored (the check of tests/crash/harness.py)."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from db import open_store, sqlite_url

from .harness import ROOT, Report, _wait_ready, check, logged
from .tournament_driver import POINTS


def child(workdir: Path, world: int, kill_at: str | None) -> subprocess.Popen[str]:
    args = [
        sys.executable, "-m", "tests.crash.tournament_driver",
        "--db", str(workdir / "crash.sqlite3"), "--log", str(workdir / "acknowledged.jsonl"),
        "--seed", "5", "--world", str(world),
    ]  # fmt: skip
    if kill_at is not None:
        args += ["--kill-at", kill_at]
    errors = (workdir / f"child-{world}.err").open("w")
    return subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, stderr=errors, text=True)


def tournament_log(db: Path) -> list[dict[str, Any]]:
    async def read() -> list[dict[str, Any]]:
        store = await open_store(sqlite_url(db))
        try:
            return await store.tournament_actions(1)  # the database's one tournament
        finally:
            await store.close()

    return asyncio.run(read())


def kinds(log: list[dict[str, Any]]) -> list[str]:
    return [next(iter(a)) for a in log]


def tables_of(log: list[dict[str, Any]], round_no: int) -> list[int]:
    return [a["table"]["table"] for a in log if "table" in a and a["table"]["round"] == round_no]


SIGNUP = ["open", "join", "join", "join", "start", "table", "table"]
# What round 1 stored when the process died, by the moment it died at.
AT_THE_KILL = {
    "game": [*SIGNUP, "result"],
    "record": [*SIGNUP, "result", "result"],
    "advance": [*SIGNUP, "result", "result", "advance"],
}


@pytest.mark.parametrize("point", POINTS)
def test_a_sigkill_at_a_rounds_last_record_advances_it_once(tmp_path: Path, point: str) -> None:
    db = tmp_path / "crash.sqlite3"
    log = tmp_path / "acknowledged.jsonl"
    proc = child(tmp_path, 0, point)
    _wait_ready(proc, tmp_path, 0)
    assert proc.wait(timeout=300) == -signal.SIGKILL, (tmp_path / "child-0.err").read_text()
    assert proc.stdout is not None
    assert "killing myself" in proc.stdout.read()

    report = Report()
    check(str(db), log, report)
    assert report.integrity == ["ok"]
    assert report.acknowledged > 0
    assert report.lost == []
    assert kinds(tournament_log(db)) == AT_THE_KILL[point]

    proc = child(tmp_path, 1, None)
    _wait_ready(proc, tmp_path, 1)
    assert proc.wait(timeout=300) == 0, (tmp_path / "child-1.err").read_text()[-2000:]
    check(str(db), log, report)
    assert report.integrity == ["ok", "ok"]
    assert report.lost == []
    assert report.acknowledged > len(AT_THE_KILL[point])  # the final was played after it
    assert len({e["game"] for e in logged(log)}) == 3  # both tables and the final

    done = tournament_log(db)
    assert kinds(done) == [*SIGNUP, "result", "result", "advance", "table", "result", "advance"]
    assert tables_of(done, 1) == [1, 2]
    assert tables_of(done, 2) == [1]  # the final's table opened once
    assert [a["result"]["round"] for a in done if "result" in a] == [1, 1, 2]
