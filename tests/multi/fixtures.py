"""PostgreSQL bots for tests: every test gets a database of its own on the session's server
(tests/pg.py), and several bot processes may share it (each in its own simcord world:
worlds.py). tests/multi/conftest.py uses these; another suite opts in the same way, in its
conftest.py: `from tests.multi.fixtures import bot_factory, pg_database, postgres_url,
shared_strategy`.

`bot_factory` is overridden: each call is a new bot (a new process) on this test's
PostgreSQL database, with dice of its own and the strategy directory all processes
share; `bot_factory(shards="0-1")` holds those of `SHARDS` shards (an AutoShardedBot, as
SHARD_COUNT/SHARD_IDS make it), `bot_factory()` is the single-shard bot. The root
`table` fixture therefore plays on PostgreSQL here, restarts included.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from bot.app import DicePokerBot, create_bot
from tests.conftest import settings_for_tests
from tests.pg import (
    create_database,
    drop_database,
    postgres_url,  # noqa: F401 (the session's server, a fixture)
)

SHARDS = 4  # every sharded bot of these tests: SHARD_COUNT=4


@pytest.fixture
async def pg_database(postgres_url: str) -> AsyncIterator[str]:  # noqa: F811
    url = await create_database(postgres_url, "multi")
    try:
        yield url
    finally:
        await drop_database(postgres_url, url)


@pytest.fixture
def shared_strategy(tmp_path: Path) -> Path:
    """The strategy tables' directory every process of the test shares."""
    return tmp_path / "strategy"


@pytest.fixture
def bot_factory(
    tmp_path: Path, dice_seed: int, pg_database: str, shared_strategy: Path
) -> Callable[..., DicePokerBot]:
    processes = itertools.count()

    def build(shards: str | None = None, **overrides: Any) -> DicePokerBot:
        n = next(processes)
        settings = settings_for_tests(tmp_path).model_copy(
            update={
                "database_url": pg_database,
                "strategy_dir": shared_strategy,
                "bot_pause": 0.0,
                # Each "process" here is a thread of the test's process, where the picture
                # pools of several bots would share one forkserver (a real process has one
                # bot): their pictures are drawn in a thread (tests/cogs draws in workers).
                "picture_workers": 0,
                **({"shard_count": SHARDS, "shard_ids": shards} if shards is not None else {}),
                **overrides,
            }
        )
        return create_bot(settings, dice=random.Random(dice_seed * 1_000 + n))

    return build
