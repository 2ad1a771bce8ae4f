"""Kill the bot at random moments and check that nothing it acknowledged was lost.

`kill_and_check(workdir, kills, seed, url=…, shards=…)` starts `tests.crash.driver` as a
child process, waits until it plays, SIGKILLs it after a random delay, then checks the
database: every game the driver played is consistent (its snapshot has folded exactly the
actions stored; on SQLite `PRAGMA integrity_check` is ok too) and every action the driver
logged as acknowledged is in `GameStore.actions` at its sequence number with the same
payload. Each new child first clicks the last turn message the killed one showed (an old
button): it is answered, applied or refused as out of date. After the last kill a child
plays on to a clean exit (the game continues) and is checked the same way.

The database is a SQLite file in `workdir` (url None) or the PostgreSQL database `url`
names. With `shards`, child n holds `shards[n % len(shards)]` of 4 shards (the server is on
shard 1): the process taking over after a kill holds another set than the one killed.
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
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from db import GameStore, open_store, sqlite_url

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
    old_buttons: dict[str, int] = field(default_factory=dict)  # applied / stale / none
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


def sqlite_integrity(db: Path) -> str:
    con = sqlite3.connect(db)
    try:
        return str(con.execute("PRAGMA integrity_check").fetchone()[0])
    finally:
        con.close()


async def _inspect(url: str, games: set[int]) -> tuple[dict[int, list[dict[str, Any]]], str]:
    """Each game's stored actions, and "ok" unless a snapshot disagrees with its log."""
    store: GameStore = await open_store(url)
    try:
        stored, problems = {}, []
        for game_id in sorted(games):
            stored[game_id] = await store.actions(game_id)
            record = await store.get_game(game_id)
            folded = (record.state.get("game") or {}).get("seq", 0) if record else None
            if folded != len(stored[game_id]):
                problems.append(f"game {game_id}: snapshot {folded}, log {len(stored[game_id])}")
        return stored, "; ".join(problems) or "ok"
    finally:
        await store.close()


def check(db: str, log: Path, report: Report) -> None:
    """`db`: the SQLite file or the PostgreSQL URL the driver played on."""
    report.checks += 1
    entries = logged(log)
    url = db if "://" in db else sqlite_url(db)
    stored, consistent = asyncio.run(_inspect(url, {e["game"] for e in entries}))
    answer = consistent if "://" in db else f"{sqlite_integrity(Path(db))}, {consistent}"
    report.integrity.append("ok" if answer in ("ok", "ok, ok") else answer)
    report.acknowledged = len(entries)
    report.lost = [
        e
        for e in entries
        if e["seq"] >= len(stored[e["game"]]) or stored[e["game"]][e["seq"]] != e["action"]
    ]


def _child(
    workdir: Path, db: str, seed: int, world: int, stop_after: int | None, shards: str | None
) -> subprocess.Popen[str]:
    args = [
        sys.executable, "-m", "tests.crash.driver", "--db", db,
        "--log", str(workdir / "acknowledged.jsonl"),
        "--seed", str(seed), "--world", str(world),
    ]  # fmt: skip
    if stop_after is not None:
        args += ["--stop-after", str(stop_after)]
    if shards is not None:
        args += ["--shards", shards]
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


def _old_button(proc: subprocess.Popen[str], report: Report) -> None:
    """What the child said of the old button it clicked (nothing: killed before it did)."""
    assert proc.stdout is not None
    for line in proc.stdout.read().splitlines():
        if line.startswith("old button: "):
            outcome = line.removeprefix("old button: ")
            report.old_buttons[outcome] = report.old_buttons.get(outcome, 0) + 1


def kill_and_check(
    workdir: Path,
    kills: int,
    seed: int = 0,
    *,
    url: str | None = None,
    shards: Sequence[str] | None = None,
    delay: tuple[float, float] = (0.05, 1.5),
    final_actions: int = 12,
) -> Report:
    rng = random.Random(seed)
    report = Report()
    db = url or str(workdir / "crash.sqlite3")
    log = workdir / "acknowledged.jsonl"

    def held(world: int) -> str | None:
        return shards[world % len(shards)] if shards else None

    start = time.perf_counter()
    for world in range(kills):
        proc = _child(workdir, db, seed, world, None, held(world))
        _wait_ready(proc, workdir, world)
        time.sleep(rng.uniform(*delay))
        if proc.poll() is not None:
            err = (workdir / f"child-{world}.err").read_text()
            raise RuntimeError(f"the driver stopped by itself (world {world}):\n{err[-2000:]}")
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        _old_button(proc, report)
        report.kills += 1
        check(db, log, report)
    before = len(logged(log))
    proc = _child(workdir, db, seed, kills, final_actions, held(kills))
    _wait_ready(proc, workdir, kills)
    if proc.wait(timeout=120) != 0:
        err = (workdir / f"child-{kills}.err").read_text()
        raise RuntimeError(f"the final driver failed:\n{err[-2000:]}")
    _old_button(proc, report)
    check(db, log, report)
    report.continued = len(logged(log)) - before
    report.seconds = time.perf_counter() - start
    return report
