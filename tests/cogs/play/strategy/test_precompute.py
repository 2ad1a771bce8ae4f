"""STRATEGY_PRECOMPUTE: at start-up the bot computes the missing strategy tables in a worker
process, so the analysis and the timers have one without any hint click.

The bots here start with an empty cache directory of their own; the rule sets computed are
narrowed to classic (solved in under a second) or, to watch a shutdown, yatzy (the
longest: about ten seconds on 2 cores, and the bot closes milliseconds after it starts).
"""

from __future__ import annotations

import asyncio
import logging
import os
import random
import signal
from collections.abc import Callable
from pathlib import Path

import pytest

from bot.app import DicePokerBot
from bot.service import solutions as solutions_module
from bot.settings import Settings
from bot.strategy.table import compute, path_for, save
from tests.cogs.drive import (
    final_embed,
    game_id_of,
    open_game,
    play_to_the_end,
    turn_message,
)
from tests.conftest import settings_for_tests

ANALYSIS = "Points lost per decision against perfect play"


@pytest.fixture
def cache_dir(tmp_path: Path) -> Path:
    return tmp_path / "strategy"  # empty: nothing cached yet


@pytest.fixture
def order() -> tuple[str, ...]:
    """The rule sets the start-up goes through (parametrize to change)."""
    return ("classic",)


@pytest.fixture
def bot_factory(
    tmp_path: Path, dice_seed: int, cache_dir: Path, order: tuple[str, ...], monkeypatch
) -> Callable[[], DicePokerBot]:
    monkeypatch.setattr(solutions_module, "PRECOMPUTE_ORDER", order)
    dice = random.Random(dice_seed)

    def build() -> DicePokerBot:
        settings = settings_for_tests(tmp_path).model_copy(
            update={"strategy_dir": cache_dir, "strategy_precompute": True, "bot_pause": 0.0}
        )
        return DicePokerBot(settings, dice=dice, sync_globally=True)

    return build


def _workers(manager: solutions_module.SolutionCache) -> list:
    pool = manager._pool
    return list((getattr(pool, "_processes", None) or {}).values()) if pool else []


async def _until(condition: Callable[[], bool], limit: float = 300.0) -> None:
    """Poll (a bound, not a timing assertion: a slow machine only waits longer)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + limit
    while not condition():
        assert loop.time() < end, "gave up waiting"
        await asyncio.sleep(0.02)


def test_the_setting_is_on_for_a_bot_with_a_token_and_off_offline() -> None:
    base = {"_env_file": None, "discord_token": None}
    assert Settings(**base).precompute_tables is False  # tests, benchmarks, demo
    assert Settings(**{**base, "discord_token": "x"}).precompute_tables is True  # python -m bot
    on = {**base, "strategy_precompute": True}
    assert Settings(**on).precompute_tables is True
    off = {**base, "discord_token": "x", "strategy_precompute": False}
    assert Settings(**off).precompute_tables is False


@pytest.fixture
def no_computing_here(monkeypatch: pytest.MonkeyPatch) -> None:
    """The bot's own process may load a table but never solve one (the worker does)."""

    def refuse(*_args: object, **_kw: object) -> None:
        raise AssertionError("a table was computed in the bot's process")

    monkeypatch.setattr(solutions_module, "compute", refuse)


async def test_start_up_computes_a_missing_table_in_the_worker_while_the_bot_plays(
    no_computing_here, cache_dir, table
):
    env, channel, ann, bob, _cid = table
    tables = env.bot.play.solutions
    # Started by the start-up itself: nobody clicked Hint, no computer seat asked.
    assert tables.status("classic") == "loading"
    assert not path_for("classic", cache_dir).exists()

    # The event loop keeps running while the worker computes: a heartbeat ticks and the
    # bot answers slash commands and clicks.
    beats_while_loading = 0

    async def heartbeat() -> None:
        nonlocal beats_while_loading
        while True:
            await asyncio.sleep(0.01)
            if tables.status("classic") == "loading":
                beats_while_loading += 1

    beat = asyncio.create_task(heartbeat())
    try:
        await open_game(channel, ann, [bob])
        game_id = game_id_of(turn_message(channel))
        await _until(lambda: tables.status("classic") != "loading")
    finally:
        beat.cancel()
    assert beats_while_loading > 0
    assert tables.status("classic") == "ready"
    assert tables.loaded("classic") is not None
    assert path_for("classic", cache_dir).exists()  # cached by the worker, then loaded
    assert all(p.pid != 0 for p in _workers(tables))

    # The post-game analysis finds the table: nobody asked for it during the game.
    await play_to_the_end(env, channel, {ann.id: ann, bob.id: bob})
    embed = final_embed(channel)
    assert embed is not None
    assert ANALYSIS in {f.name for f in embed.fields}
    assert game_id > 0


@pytest.fixture
def cached_classic(cache_dir: Path) -> None:
    save(compute("classic"), cache_dir)  # before the bot starts (and before `refuse`)


async def test_a_cached_table_is_only_loaded_and_starts_no_worker(
    cached_classic, no_computing_here, table
):
    env, *_ = table
    tables = env.bot.play.solutions
    await _until(lambda: tables.status("classic") != "loading")
    assert tables.status("classic") == "ready"
    assert _workers(tables) == []  # the pool starts its process on the first computation


@pytest.mark.parametrize("order", [("yatzy",)])  # the longest: still running at the close
async def test_closing_during_a_long_computation_ends_the_worker_cleanly(cache_dir, table, caplog):
    env, channel, ann, _bob, _cid = table
    tables = env.bot.play.solutions
    await _until(lambda: any(p.is_alive() for p in _workers(tables)))
    workers = _workers(tables)
    assert tables.status("yatzy") == "loading"
    res = await ann.slash(channel, "poker rules", rules="yatzy")  # still answering
    assert res.acknowledged

    caplog.set_level(logging.INFO)
    await env.bot.close()
    assert workers
    assert not any(p.is_alive() for p in workers)
    assert await tables.wait("yatzy") is None  # the job ended, as "shutting down"
    assert tables.loaded("yatzy") is None
    assert not path_for("yatzy", cache_dir).exists()
    assert "not computed (shutting down)" in caplog.text
    assert "cannot schedule new futures" not in caplog.text
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


@pytest.mark.parametrize("order", [("yatzy",)])
async def test_ctrl_c_reaches_the_worker_and_the_stop_stays_quiet(cache_dir, table, caplog):
    """Ctrl-C in a terminal signals the whole process group: the worker leaves the stop
    to the bot (no KeyboardInterrupt traceback of its, no failed table logged)."""
    env, _channel, _ann, _bob, _cid = table
    tables = env.bot.play.solutions
    await _until(lambda: any(_ignores_ctrl_c(p.pid) for p in _workers(tables)))
    workers = _workers(tables)
    caplog.set_level(logging.INFO)
    for process in workers:
        os.kill(process.pid, signal.SIGINT)
    await asyncio.sleep(0.5)  # the signal's delivery (nothing timed: the worker ignores it)
    assert all(p.is_alive() for p in workers)
    assert tables.status("yatzy") == "loading"
    await env.bot.close()
    assert not any(p.is_alive() for p in workers)
    assert "not computed (shutting down)" in caplog.text
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


def _ignores_ctrl_c(pid: int | None) -> bool:
    """Has the worker's initializer run (SIGINT in the ignored set of /proc's status)?"""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    ignored = next(line for line in status.splitlines() if line.startswith("SigIgn:"))
    return bool(int(ignored.split()[1], 16) & (1 << (signal.SIGINT - 1)))
