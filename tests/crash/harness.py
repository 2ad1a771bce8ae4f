"""Kill the bot at random moments and check that nothing it acknowledged was lost.

`kill_and_check(workdir, kills, seed)` starts `tests.crash.driver` as a child process,
waits until it plays, SIGKILLs it after a random delay, then checks the database:
`PRAGMA integrity_check` is ok and every action the driver logged as acknowledged is
in `SqliteStore.actions` at its sequence number with the same payload. After the last kill a
child plays on to a clean exit (the game continues) and is checked the same way.
Used by tests/crash/test_crash.py (a few kills) and bench/bench_crash.py (many).
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import select
import signal
import sqlite3
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from db import SqliteStore

ROOT = Path(__file__).resolve().parents[2]
READY_TIMEOUT = 60.0


@dataclass
class Report:
    kills: int = 0
    checks: int = 0
    acknowledged: int = 0  # actions the driver saw acknowledged (logged)
    lost: list[dict[str, Any]] = field(default_factory=list)
    integrity: list[str] = field(default_factory=list)  # every check's answer
    continued: int = 0  # actions logged by the final, unkilled run
    seconds: float = 0.0


def logged(log: Path) -> list[dict[str, Any]]:
    """The acknowledged actions; a line torn by the kill was never fully logged."""
    if not log.exists():
        return []
    out = []
    for line in log.read_text(encoding="utf-8").split("\n"):
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return out


def integrity(db: Path) -> str:
    con = sqlite3.connect(db)
    try:
        return str(con.execute("PRAGMA integrity_check").fetchone()[0])
    finally:
        con.close()


async def _stored(db: Path, games: set[int]) -> dict[int, list[dict[str, Any]]]:
    store = await SqliteStore.open(db)
    try:
        return {g: await store.actions(g) for g in games}
    finally:
        await store.close()


def check(db: Path, log: Path, report: Report) -> None:
    report.checks += 1
    report.integrity.append(integrity(db))
    entries = logged(log)
    stored = asyncio.run(_stored(db, {e["game"] for e in entries}))
    report.acknowledged = len(entries)
    report.lost = [
        e
        for e in entries
        if e["seq"] >= len(stored[e["game"]]) or stored[e["game"]][e["seq"]] != e["action"]
    ]


def _child(workdir: Path, seed: int, world: int, stop_after: int | None) -> subprocess.Popen[str]:
    args = [
        sys.executable,
        "-m",
        "tests.crash.driver",
        "--db",
        str(workdir / "crash.sqlite3"),
        "--log",
        str(workdir / "acknowledged.jsonl"),
        "--seed",
        str(seed),
        "--world",
        str(world),
    ]
    if stop_after is not None:
        args += ["--stop-after", str(stop_after)]
    errors = (workdir / f"child-{world}.err").open("w")
    return subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, stderr=errors, text=True)


def _wait_ready(proc: subprocess.Popen[str], workdir: Path, world: int) -> None:
    assert proc.stdout is not None
    deadline = time.monotonic() + READY_TIMEOUT
    while time.monotonic() < deadline:
        ready, _, _ = select.select([proc.stdout], [], [], 0.5)
        if ready:
            line = proc.stdout.readline()
            if line.strip() == "ready":
                return
            if line == "":
                break
    proc.kill()
    proc.wait()
    err = (workdir / f"child-{world}.err").read_text()
    raise RuntimeError(f"the driver did not start (world {world}):\n{err[-2000:]}")


def kill_and_check(
    workdir: Path,
    kills: int,
    seed: int = 0,
    *,
    delay: tuple[float, float] = (0.05, 1.5),
    final_actions: int = 12,
) -> Report:
    rng = random.Random(seed)
    report = Report()
    db, log = workdir / "crash.sqlite3", workdir / "acknowledged.jsonl"
    start = time.perf_counter()
    for world in range(kills):
        proc = _child(workdir, seed, world, None)
        _wait_ready(proc, workdir, world)
        time.sleep(rng.uniform(*delay))
        if proc.poll() is not None:
            err = (workdir / f"child-{world}.err").read_text()
            raise RuntimeError(f"the driver stopped by itself (world {world}):\n{err[-2000:]}")
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        report.kills += 1
        check(db, log, report)
    before = len(logged(log))
    proc = _child(workdir, seed, kills, final_actions)
    _wait_ready(proc, workdir, kills)
    if proc.wait(timeout=120) != 0:
        err = (workdir / f"child-{kills}.err").read_text()
        raise RuntimeError(f"the final driver failed:\n{err[-2000:]}")
    check(db, log, report)
    report.continued = len(logged(log)) - before
    report.seconds = time.perf_counter() - start
    return report
