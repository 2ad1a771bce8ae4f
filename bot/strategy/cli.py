"""`python -m bot solve --rules R` / `--all`: compute or load tables, print each optimum.

Each table is computed under the cache directory's lock (`computing`): processes sharing
the directory (bots, a deploy step running `solve --all`) compute it once.
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

from bot.engine import RULESETS

from .simulate import play_solitaire
from .table import BY_SPEED, EXACT, compute, computing, load, save


def solve(rules: str, cache_dir: Path, *, recompute: bool = False, games: int = 2000) -> int:
    """Exit 0 after printing `RULES EXPECTED SECONDS`; 2 with one line on stderr."""
    if rules not in RULESETS:
        print(f"solve: unknown rules {rules!r} (known: {', '.join(RULESETS)})", file=sys.stderr)
        return 2
    if rules not in EXACT:
        return _banked(rules, games)
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


def _banked(rules: str, games: int) -> int:
    """No exact value exists: report the banked policy's measured average instead."""
    began = time.perf_counter()
    rng = random.Random(20240601)
    scores = [play_solitaire(rules, "perfect", None, rng) for _ in range(games)]
    mean = sum(scores) / games
    var = sum((s - mean) ** 2 for s in scores) / max(1, games - 1)
    se = (var / games) ** 0.5
    seconds = time.perf_counter() - began
    print(
        f"{rules} no exact solution: the banked policy averages {mean:.4f} ± {se:.4f} "
        f"over {games} games, {seconds:.2f}s"
    )
    return 0
