"""The strategy tables: computation time, size on disk, load time, hint latency, games.

Per exact rule set: the table computed in a child process (wall, user and system seconds
and page faults of that process, from `os.wait4`: the table alone, not the benchmark's
other work; a child that only imports shows the start-up included in each), the file
size, the load time, the hint latency (median and p99 of `advise` over every decision of
perfect games, the first hint of a turn included: it computes that turn's arrays),
100,000 perfect solitaire games simulated on the table (games per second, their mean
against the computed optimum in standard errors), then the banked policy's average per
level with the planner's settings (perfect averages about 244: see banked.py).
Targets (issue 4): each table ≤ 15 s, hint p99 ≤ 1 ms, table files ≤ 20 MB.
"""

from __future__ import annotations

import os
import random
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bot.engine import Game
from bot.strategy import EXACT, LEVELS, Hold, Record, advise, load, path_for
from bot.strategy.banked import EXTRA_PLANNED, PAR, UPPER_GAIN
from bot.strategy.simulate import play_solitaire, simulate_perfect

GAMES = 100_000
HINT_GAMES = 30
BANKED_GAMES = 1000
# The child: compute one table and write it to the cache directory the parent loads from.
_COMPUTE = (
    "import sys; from pathlib import Path; from bot.strategy import compute, save; "
    "save(compute(sys.argv[1]), Path(sys.argv[2]))"
)
_IMPORT_ONLY = "import sys; from pathlib import Path; from bot.strategy import compute, save"


@dataclass(frozen=True)
class Usage:
    """What one child process cost, from its start to its exit."""

    wall: float
    user: float
    system: float
    faults: int  # minor page faults: memory the kernel had to hand the process

    def __str__(self) -> str:
        return (
            f"wall {self.wall:6.2f} s  user {self.user:6.2f} s  system {self.system:5.2f} s  "
            f"{self.faults:>9,} page faults"
        )


def _child(code: str, *args: str) -> Usage:
    """Run `python -c code args…` and measure it with wait4 (the child alone, whatever this
    process does meanwhile)."""
    began = time.perf_counter()
    pid = os.posix_spawn(sys.executable, [sys.executable, "-c", code, *args], os.environ)
    _, status, usage = os.wait4(pid, 0)
    wall = time.perf_counter() - began
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"the child {code!r} {args} failed with status {status}")
    return Usage(wall, usage.ru_utime, usage.ru_stime, usage.ru_minflt)


def _hint_latency(table: object, rules: str) -> tuple[float, float, float]:
    """Median and p99 wall milliseconds, and p99 of the thread's CPU time: on a busy
    machine the wall p99 measures the scheduler, the CPU p99 the hint itself."""
    rng = random.Random(0)
    times = []
    cpu = []
    for _ in range(HINT_GAMES):
        game = Game.new(rules, ["p"])
        while not game.finished:
            began, began_cpu = time.perf_counter(), time.thread_time()
            decision = advise(table, game).best.decision  # type: ignore[arg-type]
            times.append(time.perf_counter() - began)
            cpu.append(time.thread_time() - began_cpu)
            if isinstance(decision, Hold):
                hold = decision.positions if game.dice else ()
                values = [rng.randint(1, 6) for _ in range(5 - len(hold))]
                game, _ = game.roll("p", hold, values)
            else:
                assert isinstance(decision, Record)
                game, _ = game.score("p", decision.row)
    ms = np.array(times) * 1e3
    cpu_ms = np.array(cpu) * 1e3
    return float(np.median(ms)), float(np.percentile(ms, 99)), float(np.percentile(cpu_ms, 99))


def main() -> None:
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores", flush=True)
    print(f"{'start-up':13} {_child(_IMPORT_ONLY)}  (python and the imports, no table)")
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp)
        for rules in EXACT:
            usage = _child(_COMPUTE, rules, str(cache))
            path = path_for(rules, cache)
            began = time.perf_counter()
            loaded = load(rules, cache)
            load_s = time.perf_counter() - began
            assert loaded is not None
            print(f"{rules:13} {usage}  optimum {loaded.optimum:.4f}", flush=True)
            median, p99, cpu99 = _hint_latency(loaded, rules)
            began = time.perf_counter()
            scores = simulate_perfect(loaded, GAMES, seed=1)
            sim_s = time.perf_counter() - began
            se = float(scores.std(ddof=1)) / GAMES**0.5
            z = (float(scores.mean()) - loaded.optimum) / se
            print(
                f"{'':13} file {path.stat().st_size / 1e6:5.2f} MB  load {load_s * 1e3:6.1f} ms  "
                f"hint median {median:.3f} ms p99 {p99:.3f} ms (cpu p99 {cpu99:.3f})  "
                f"{GAMES} games {GAMES / sim_s:,.0f}/s mean {scores.mean():.4f} "
                f"({z:+.2f} SE)",
                flush=True,
            )
    rng = random.Random(2)
    # The planner's settings (bot/strategy/banked.py): normal plans with λ = 0, easy not at all.
    planner = {
        "easy": "",
        "normal": f"  (λ 0, upper figure {UPPER_GAIN:g})",
        "perfect": f"  (λ {PAR:g}, upper figure {UPPER_GAIN:g}, ≤ {EXTRA_PLANNED} banked throws)",
    }
    for level in LEVELS:
        began = time.perf_counter()
        totals = [play_solitaire("banked", level, None, rng) for _ in range(BANKED_GAMES)]
        elapsed = time.perf_counter() - began
        se = statistics.stdev(totals) / BANKED_GAMES**0.5
        print(
            f"banked {level:8} {statistics.fmean(totals):8.2f} ± {se:.2f} over "
            f"{BANKED_GAMES} games ({BANKED_GAMES / elapsed:,.0f} games/s through the engine)"
            f"{planner[level]}",
            flush=True,
        )
