"""SHARD_COUNT with SHARD_IDS or CLUSTER_INDEX/CLUSTER_COUNT: which shards a process holds,
the bot that holds them, and what a process's log lines say about it. Without them the
bot is the single-shard bot it always was. A process stops cleanly on SIGTERM (a deploy
stopping it)."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import discord
import pytest
from pydantic import ValidationError

from bot import cli
from bot.app import DicePokerBot, ShardedDicePokerBot, create_bot
from bot.settings import Settings
from db import Shards

ROOT = Path(__file__).resolve().parents[2]


def settings(**values: object) -> Settings:
    return Settings(_env_file=None, **values)  # type: ignore[call-arg]


@pytest.mark.parametrize(
    ("values", "held"),
    [
        ({"shard_count": 4}, {0, 1, 2, 3}),
        ({"shard_count": 4, "shard_ids": "1"}, {1}),
        ({"shard_count": 8, "shard_ids": "0, 2-3,7"}, {0, 2, 3, 7}),
        ({"shard_count": 8, "cluster_index": 1, "cluster_count": 3}, {1, 4, 7}),
        ({"shard_count": 2, "cluster_index": 0, "cluster_count": 2}, {0}),
    ],
)
def test_the_shards_a_process_holds(values: dict[str, object], held: set[int]) -> None:
    shards = settings(**values).shards
    assert shards == Shards(int(values["shard_count"]), frozenset(held))  # type: ignore[call-overload]


@pytest.mark.parametrize(
    ("values", "reason"),
    [
        ({"shard_ids": "0"}, "need SHARD_COUNT"),
        ({"cluster_index": 0, "cluster_count": 2}, "need SHARD_COUNT"),
        ({"shard_count": 0}, "at least 1"),
        ({"shard_count": 4, "shard_ids": "4"}, "0 … 3"),
        ({"shard_count": 4, "shard_ids": "1-x"}, "not a shard number"),
        ({"shard_count": 4, "cluster_index": 2, "cluster_count": 2}, "CLUSTER_INDEX"),
        ({"shard_count": 4, "cluster_index": 0}, "CLUSTER_INDEX"),
        ({"shard_count": 2, "cluster_index": 2, "cluster_count": 3}, "must not exceed"),
    ],
)
def test_shard_settings_that_do_not_fit_are_refused(values: dict[str, object], reason: str) -> None:
    with pytest.raises(ValidationError, match=reason):
        settings(**values)


def test_without_shard_settings_the_bot_is_the_single_shard_bot() -> None:
    plain = settings()
    assert plain.shards is None
    bot = create_bot(plain)
    assert type(bot) is DicePokerBot
    assert not isinstance(bot, discord.AutoShardedClient)


def test_with_shard_settings_the_bot_holds_those_shards() -> None:
    bot = create_bot(settings(shard_count=6, cluster_index=1, cluster_count=2))
    assert isinstance(bot, ShardedDicePokerBot)
    assert isinstance(bot, discord.AutoShardedClient)
    assert (bot.shard_count, bot.shard_ids) == (6, [1, 3, 5])


def run(folder: Path, **extra: str) -> subprocess.CompletedProcess[str]:
    """`python -m bot` with a token and a Discord nobody answers (a closed port)."""
    hook = folder / "hook"
    hook.mkdir(exist_ok=True)
    (hook / "sitecustomize.py").write_text(
        "import discord.http\ndiscord.http.Route.BASE = 'http://127.0.0.1:9/api/v10'\n",
        encoding="utf-8",
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD", "DATABASE"))}
    env.update(PYTHONPATH=f"{hook}{os.pathsep}{ROOT}", DISCORD_TOKEN="fake.token", **extra)
    return subprocess.run(
        [sys.executable, "-m", "bot"],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_every_log_line_names_the_process_and_its_shards(tmp_path: Path) -> None:
    done = run(tmp_path, SHARD_COUNT="4", CLUSTER_INDEX="1", CLUSTER_COUNT="2")
    logged = [line for line in done.stderr.splitlines() if " INFO " in line]
    assert logged, done.stderr
    host = os.uname().nodename
    assert all(f"[{host} pid " in line and " shards 1,3/4] " in line for line in logged)


def test_shard_settings_that_do_not_fit_are_one_line_at_start_up(tmp_path: Path) -> None:
    done = run(tmp_path, SHARD_COUNT="4", SHARD_IDS="2-5")
    assert done.returncode == 2
    line = "The settings in .env or the environment: shard ids must be 0 … 3."
    assert done.stderr.strip() == line


class _Bot:
    """Stands in for the bot in `run_bot`: connected until closed."""

    def __init__(self, store: Any) -> None:
        self.store = store
        self.connected = asyncio.Event()
        self.closed = asyncio.Event()

    async def __aenter__(self) -> _Bot:
        return self

    async def __aexit__(self, *_exc: object) -> None:
        await self.close()

    async def login(self, _token: str) -> None:
        pass

    async def connect(self) -> None:
        self.connected.set()
        await self.closed.wait()

    async def close(self) -> None:
        if not self.closed.is_set():
            self.closed.set()
            await self.store.close()

    def is_closed(self) -> bool:
        return self.closed.is_set()


async def test_sigterm_closes_the_bot(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[_Bot] = []
    built = asyncio.Event()

    def create(_settings: Settings, *, store: Any, **_options: Any) -> _Bot:
        made.append(_Bot(store))
        built.set()
        return made[0]

    monkeypatch.setattr(cli, "create_bot", create)
    running = asyncio.create_task(
        cli.run_bot(settings(database_path=tmp_path / "db.sqlite3"), "fake.token")
    )
    await asyncio.wait_for(built.wait(), 30)
    await asyncio.wait_for(made[0].connected.wait(), 30)
    os.kill(os.getpid(), signal.SIGTERM)  # what `docker stop` sends
    await asyncio.wait_for(running, 30)
    assert made[0].is_closed()
