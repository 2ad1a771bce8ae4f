"""`python -m bot solve --rules R` / `--all`: compute or load tables, print each optimum.

Each table is computed under the cache directory's lock (`computing`): processes sharing
the directory (bots, a deploy step running `solve --all`) compute it once.
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path
from typing import TextIO

from bot.engine import RULESETS

from .simulate import play_solitaire
from .table import BY_SPEED, EXACT, compute, computing, load, save

BANKED_GAMES = 2000  # simulated games behind banked's average (about a minute on 2 cores)


def solve(
    rules: str,
    cache_dir: Path,
    *,
    recompute: bool = False,
    games: int = BANKED_GAMES,
    progress: TextIO | None = None,
) -> int:
    """Exit 0 after printing `RULES EXPECTED SECONDS`; 2 with one line on stderr. A
    simulation (banked) says on `progress` (stderr) how far it is."""
    if rules not in RULESETS:
        print(f"solve: unknown rules {rules!r} (known: {', '.join(RULESETS)})", file=sys.stderr)
        return 2
    if rules not in EXACT:
        return _banked(rules, games, sys.stderr if progress is None else progress)
    began = time.perf_counter()
    with computing(cache_dir):
        table = None if recompute else load(rules, cache_dir)
        source = "loaded"
        if table is None:
            table = compute(rules)
            try:
                target = save(table, cache_dir)
            except OSError as exc:
                print(f"solve: cannot write the table to {cache_dir}: {exc}", file=sys.stderr)
                return 2
            source = f"computed, cached in {target}"
    seconds = time.perf_counter() - began
    print(f"{rules} {table.optimum:.4f} {seconds:.2f}s ({source})", flush=True)
    return 0


def solve_all(cache_dir: Path, *, recompute: bool = False) -> int:
    """Every exact rule set's table in `cache_dir` (the missing ones computed, fastest
    first): a deploy step, so that no bot process computes one while it plays."""
    status = 0
    for rules in BY_SPEED:
        status = max(status, solve(rules, cache_dir, recompute=recompute))
    return status


def _banked(rules: str, games: int, progress: TextIO) -> int:
    """No exact value exists: report the banked policy's measured average instead,
    saying how far the simulation is (in place on a terminal, else every tenth)."""
    began = time.perf_counter()
    rng = random.Random(20240601)
    live = progress.isatty()
    # About 35 ms a game on 2 cores: the deploy step's 2000 take a minute or so.
    took = " (about a minute)" if games >= BANKED_GAMES else ""
    print(
        f"{rules} has no exact table: simulating {games} games of its computer player{took}…",
        file=progress,
        flush=True,
    )
    step = max(1, games // (100 if live else 10))
    scores = []
    for done in range(1, games + 1):
        scores.append(play_solitaire(rules, "perfect", None, rng))
        if done % step == 0 or done == games:
            end = "\r" if live and done < games else "\n"
            print(f"  {done}/{games} games", end=end, file=progress, flush=True)
    mean = sum(scores) / games
    var = sum((s - mean) ** 2 for s in scores) / max(1, games - 1)
    se = (var / games) ** 0.5
    seconds = time.perf_counter() - began
    print(
        f"{rules} no exact solution: the banked policy averages {mean:.4f} ± {se:.4f} "
        f"over {games} games, {seconds:.2f}s"
    )
    return 0
