"""Fixtures and helpers for the strategy features: computer seats, hints, the analysis.

The classic table is fully solved in about a second, so a session fixture solves it once
into a cache directory that every bot of these tests loads from (milliseconds). Bots here
pause 0 s between their steps unless a test asks otherwise.

The fixtures here apply to every test of this folder (bot_factory is overridden).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bot.app import DicePokerBot
from bot.service import SolutionCache
from bot.strategy import ValueTable, compute, save
from tests.conftest import settings_for_tests


@pytest.fixture(scope="session")
def classic_table() -> ValueTable:
    return compute("classic")


@pytest.fixture(scope="session")
def classic_cache(tmp_path_factory: pytest.TempPathFactory, classic_table: ValueTable) -> Path:
    directory = tmp_path_factory.mktemp("strategy")
    save(classic_table, directory)
    return directory


@pytest.fixture
def bot_pause() -> float:
    """Override in a module (or parametrize) to see the computer seats' pauses."""
    return 0.0


@pytest.fixture
def bot_factory(
    tmp_path: Path, dice_seed: int, classic_cache: Path, bot_pause: float
) -> Callable[..., DicePokerBot]:
    """Bots on this test's database with the cached classic table; `pause=` per bot."""
    dice = random.Random(dice_seed)

    def build(pause: float | None = None) -> DicePokerBot:
        settings = settings_for_tests(tmp_path).model_copy(
            update={
                "strategy_dir": classic_cache,
                "bot_pause": bot_pause if pause is None else pause,
            }
        )
        return DicePokerBot(settings, dice=dice, sync_globally=True)

    return build


@pytest.fixture
def use_loader(
    monkeypatch: pytest.MonkeyPatch,
) -> Callable[[Any, Callable[[str], ValueTable], Path], SolutionCache]:
    """`use_loader(env, loader, cache_dir)`: the running bot's strategy tables come from
    `loader` from now on, with nothing cached in `cache_dir` (a table still being prepared).
    Returns the bot's `SolutionCache` (the one its hint, computer players, timers and
    analysis share)."""

    def use(env: Any, loader: Callable[[str], ValueTable], cache_dir: Path) -> SolutionCache:
        solutions: SolutionCache = env.bot.play.solutions
        assert not any(solutions.status(r) == "ready" for r in ("classic", "yatzy"))
        monkeypatch.setattr(solutions, "_loader", loader)
        monkeypatch.setattr(solutions, "cache_dir", cache_dir)
        return solutions

    return use
