"""The value table of an exact rule set: computing, caching on disk, loading.

The cache directory may be shared by several bot processes (and `python -m bot solve
--all`, a deploy step): `computing(dir)` is a lock on that directory, so one process at a
time computes a table into it and the others, waiting on the lock, then load what it
wrote.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import tempfile
import time
import zipfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from bot.engine import Card, RuleSet, get_rules, totals_of

from .dice import FloatArray, best_after_throw, keep_values
from .model import Model, model_for
from .solver import row_values, solve

# Bump when the file layout or the meaning of the values changes: old files are ignored.
FORMAT_VERSION = 1
EXACT = ("classic", "yatzy", "yahtzee", "scandinavian")
# Fastest to compute first (`python -m bench precompute`: 0.3, 2.6, 6.5 and 10.3 s on 2
# cores): the order tables are made in ahead of time, so most games find theirs soonest.
BY_SPEED: tuple[str, ...] = ("classic", "yahtzee", "scandinavian", "yatzy")


@dataclass(frozen=True)
class TurnArrays:
    """Everything a decision inside one turn needs, for one turn-start state.

    rows[first][row][o]: future points of recording `row` with outcome o (-inf: illegal);
    after[t][o]: value of holding outcome o after throw t with the best play from there
    (t = 1, 2; throw 3 must record); keeps[t][n][k]: value of keeping multiset k of n dice
    after throw t and throwing the others.
    """

    rows: dict[bool, dict[str, FloatArray]]
    after: dict[int, FloatArray]
    keeps: dict[int, list[FloatArray]]


@dataclass
class ValueTable:
    """V[u, lo] for every reachable turn start of one rule set, with its model."""

    model: Model
    values: FloatArray  # (upper states + 1, lower states); the last row is -inf
    seconds: float = 0.0  # time spent computing (0 when loaded)
    _turns: dict[tuple[int, int], TurnArrays] = field(default_factory=dict, repr=False)

    @property
    def rules(self) -> RuleSet:
        return self.model.rules

    def future(self, rows: Mapping[str, int | None]) -> float:
        """Expected points still to come from a turn start (bonus not yet on the card)."""
        u, lo = self.model.state(rows)
        return float(self.values[u, lo])

    def expected(self, card: Card | Mapping[str, int | None]) -> float:
        """Expected final solitaire score from the turn start of this card."""
        if not isinstance(card, Card):
            card = Card("", dict(card))
        return totals_of(self.rules, card).total + self.future(card.rows)

    @property
    def optimum(self) -> float:
        """Expected final score of an empty card (or of the sub-card it was solved from)."""
        m = self.model
        u, lo = m.upper_index[m.start_upper], m.lower_index[m.start_lower]
        return float(self.values[u, lo])

    def turn(self, rows: Mapping[str, int | None]) -> TurnArrays:
        key = self.model.state(rows)
        cached = self._turns.get(key)
        if cached is None:
            cached = _turn_arrays(self.model, self.values, *key)
            if len(self._turns) > 4096:  # a long-running bot: bound the memory
                self._turns.clear()
            self._turns[key] = cached
        return cached


def _turn_arrays(model: Model, v: FloatArray, u: int, lo: int) -> TurnArrays:
    ids = np.array([u])
    later_rows = {row: val[:, 0] for row, val in row_values(model, v, lo, ids, first=False)}
    first_rows = (
        {row: val[:, 0] for row, val in row_values(model, v, lo, ids, first=True)}
        if model.doubling
        else later_rows  # without first-throw doubling the throws score alike
    )
    later = np.max(np.stack(list(later_rows.values())), axis=0)[:, None]
    first = np.max(np.stack(list(first_rows.values())), axis=0)[:, None]
    keeps2 = keep_values(later)
    after2 = best_after_throw(later, keeps2)
    keeps1 = keep_values(after2)
    after1 = best_after_throw(first, keeps1)
    return TurnArrays(
        rows={False: later_rows, True: first_rows},
        after={1: after1[:, 0], 2: after2[:, 0]},
        keeps={1: [k[:, 0] for k in keeps1], 2: [k[:, 0] for k in keeps2]},
    )


# --- computing and caching -----------------------------------------------------------


def compute(rules: str | RuleSet, start: Mapping[str, int | None] | None = None) -> ValueTable:
    """Solve a rule set exactly (seconds for a full card; a sub-card is much faster)."""
    rs = get_rules(rules) if isinstance(rules, str) else rules
    began = time.perf_counter()
    model = Model(rs, start)
    values = solve(model)
    return ValueTable(model, values, time.perf_counter() - began)


def path_for(rules: str, cache_dir: Path) -> Path:
    return Path(cache_dir) / f"{rules}.v{FORMAT_VERSION}.npz"


def save(table: ValueTable, cache_dir: Path) -> Path:
    """Write atomically: a reader sees the old file, no file, or the whole new one."""
    cache_dir = Path(cache_dir)
    cache_dir.mkdir(parents=True, exist_ok=True)
    target = path_for(table.rules.name, cache_dir)
    meta = json.dumps(
        {
            "rules": table.rules.name,
            "version": FORMAT_VERSION,
            "shape": list(table.values.shape),
            "seconds": table.seconds,
        }
    )
    fd, tmp = tempfile.mkstemp(prefix=target.name, suffix=".tmp", dir=cache_dir)
    try:
        with os.fdopen(fd, "wb") as fh:
            np.savez_compressed(fh, values=table.values[:-1], meta=np.array(meta))
            fh.flush()
            os.fsync(fh.fileno())
        Path(tmp).chmod(0o644)  # mkstemp makes it private; a table is no secret
        Path(tmp).replace(target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target


def load(rules: str, cache_dir: Path) -> ValueTable | None:
    """The cached table, or None when missing, from another format version or damaged."""
    if rules not in EXACT:
        raise ValueError(f"no exact table for {rules!r} (exact: {', '.join(EXACT)})")
    target = path_for(rules, cache_dir)
    try:
        with np.load(target, allow_pickle=False) as data:
            meta = json.loads(str(data["meta"]))
            stored = data["values"]
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
        return None  # missing, truncated or not ours: compute it again
    model = model_for(rules)
    expected_shape = (len(model.upper_keys), len(model.lower_keys))
    if meta.get("version") != FORMAT_VERSION or tuple(stored.shape) != expected_shape:
        return None
    values = np.vstack([stored.astype(np.float64), np.full((1, stored.shape[1]), -np.inf)])
    return ValueTable(model, values)


@contextlib.contextmanager
def computing(cache_dir: Path) -> Iterator[bool]:
    """Hold the lock on computing tables into `cache_dir` (an `fcntl.flock` on the
    directory itself: no file of its own, released however the holder ends, even
    killed), waiting for it while another process holds it. Yields False, holding
    nothing, where the directory cannot be made or opened: each process then computes
    for itself. Check `load` again inside: the table may have been written meanwhile."""
    try:
        Path(cache_dir).mkdir(parents=True, exist_ok=True)
        fd = os.open(cache_dir, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        yield False
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # blocks: run it off the event loop
        yield True
    finally:
        os.close(fd)  # closing the directory releases the lock


def load_or_compute(rules: str, cache_dir: Path) -> ValueTable:
    """Load the cached table, else compute it and cache it, under `computing`'s lock
    (pure, and it may wait for another process: run it off the loop)."""
    table = load(rules, cache_dir)
    if table is not None:
        return table
    with computing(cache_dir):
        table = load(rules, cache_dir)
        if table is None:
            table = compute(rules)
            save(table, cache_dir)
    return table


def cache_table(rules: str, cache_dir: str) -> float:
    """`load_or_compute` for a worker process (the bot's precompute worker imports only
    this package): write `rules`'s table to `cache_dir`, return the seconds it took to
    compute (0 when it was cached already, or another process wrote it meanwhile)."""
    folder = Path(cache_dir)
    if load(rules, folder) is not None:
        return 0.0
    with computing(folder):
        if load(rules, folder) is not None:
            return 0.0
        table = compute(rules)
        save(table, folder)
        return table.seconds
