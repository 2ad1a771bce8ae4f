"""A strategy directory shared by several processes: tables are computed into it by one
process at a time (an flock on the directory), the others wait and load them;
`python -m bot solve --all` fills the directory as a deploy step."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from bot.strategy import BY_SPEED, EXACT, ValueTable, computing, load, path_for, save
from bot.strategy import table as table_module
from bot.strategy.model import model_for

ROOT = Path(__file__).resolve().parents[2]


def placeholder(rules: str) -> ValueTable:
    """A table of the right shape, all zeros (a real one takes seconds to compute)."""
    model = model_for(rules)
    values = np.zeros((len(model.upper_keys) + 1, len(model.lower_keys)))
    return ValueTable(model, values)


def solve_command(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "bot", "solve", *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)},
    )


def test_one_holder_at_a_time(tmp_path: Path) -> None:
    order: list[str] = []

    def second() -> None:
        with computing(tmp_path) as locked:
            assert locked
            order.append("second")

    with computing(tmp_path) as locked:
        assert locked
        waiter = threading.Thread(target=second)
        waiter.start()
        waiter.join(0.2)
        assert waiter.is_alive()  # waiting on the lock
        order.append("first")
    waiter.join(10)
    assert order == ["first", "second"]
    assert [p.name for p in tmp_path.iterdir()] == []  # the lock leaves no file behind


def test_a_killed_holder_leaves_the_lock_free(tmp_path: Path) -> None:
    script = (
        "import sys, time; from pathlib import Path; from bot.strategy import computing\n"
        "with computing(Path(sys.argv[1])):\n"
        "    print('held', flush=True); time.sleep(600)\n"
    )
    holder = subprocess.Popen(
        [sys.executable, "-c", script, str(tmp_path)], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline().strip() == "held"
        got: list[bool] = []
        waiter = threading.Thread(target=lambda: got.append(_enter(tmp_path)))
        waiter.start()
        waiter.join(0.2)
        assert waiter.is_alive()  # held by the other process
        holder.kill()  # SIGKILL: no clean-up runs in the holder
        waiter.join(30)
        assert got == [True]
    finally:
        holder.kill()
        holder.wait()


def _enter(folder: Path) -> bool:
    with computing(folder) as locked:
        return locked


def test_a_directory_that_cannot_take_the_lock_computes_without_it(tmp_path: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("not a directory")
    with computing(blocked) as locked:
        assert not locked


def test_processes_solving_one_table_at_once_compute_it_once(tmp_path: Path) -> None:
    # Held here first, so both commands are waiting on the lock when it is released.
    with computing(tmp_path):
        runs = [solve_command("--rules", "classic", "--dir", str(tmp_path)) for _ in range(2)]
    outputs = [run.communicate(timeout=300) for run in runs]
    assert [run.returncode for run in runs] == [0, 0], outputs
    lines = sorted(out for out, _ in outputs)
    assert [line.split()[0] for line in lines] == ["classic", "classic"]
    assert sum("computed" in line for line in lines) == 1  # the other loaded it
    assert sum("(loaded)" in line for line in lines) == 1


def test_solve_all_fills_the_directory_and_loads_what_is_there(tmp_path: Path) -> None:
    for rules in EXACT:
        if rules != "classic":
            save(placeholder(rules), tmp_path)  # already made (by an earlier deploy)
    run = solve_command("--all", "--dir", str(tmp_path))
    out, err = run.communicate(timeout=300)
    assert run.returncode == 0, err
    lines = out.splitlines()
    assert [line.split()[0] for line in lines] == list(BY_SPEED)
    assert "computed" in lines[0]  # classic was missing
    assert all(line.endswith("(loaded)") for line in lines[1:])
    assert all(load(rules, tmp_path) is not None for rules in EXACT)


def test_load_or_compute_waits_for_the_process_computing(tmp_path: Path, monkeypatch) -> None:
    # While another process holds the lock and writes the table, load_or_compute waits,
    # then loads what it wrote instead of computing it a second time.
    monkeypatch.setattr(table_module, "compute", lambda *_: pytest.fail("computed twice"))
    got: list[ValueTable] = []
    with computing(tmp_path):
        waiter = threading.Thread(
            target=lambda: got.append(table_module.load_or_compute("yatzy", tmp_path))
        )
        waiter.start()
        save(placeholder("yatzy"), tmp_path)
    waiter.join(30)
    assert len(got) == 1
    assert path_for("yatzy", tmp_path).exists()
