"""Fixtures and helpers for the strategy features: computer seats, hints, the analysis.

The classic table is fully solved in about a second, so a session fixture solves it once
into a cache directory that every bot of these tests loads from (milliseconds). Bots here
pause 0 s between their steps unless a test asks otherwise.

Import the fixtures into a test module: `from .computer import bot_factory, classic_cache`.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bot.app import DicePokerBot
from bot.strategy import Table, compute, save
from tests.conftest import settings_for_tests

from .play import controls, fresh


@pytest.fixture(scope="session")
def classic_table() -> Table:
    return compute("classic")


@pytest.fixture(scope="session")
def classic_cache(tmp_path_factory: pytest.TempPathFactory, classic_table: Table) -> Path:
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


def service_of(env: Any) -> Any:
    return env.bot.get_cog("Play").service


async def new_lobby(channel: Any, host: Any, rules: str = "classic") -> Any:
    res = await host.slash(channel, "poker new", rules=rules)
    assert res.acknowledged
    assert not res.ephemeral
    return res.response


async def add_bot(env: Any, member: Any, lobby: Any, level: str) -> Any:
    """`member` chooses `level` in the lobby's "Add a computer player…" select."""
    select = controls(fresh(env, lobby))["addbot"]
    res = await member.select(lobby, [level], custom_id=select["custom_id"])
    assert res.acknowledged
    return res


def lobby_players(env: Any, lobby: Any) -> str:
    """The text of the lobby embed's players field."""
    embed = fresh(env, lobby).embeds[0]
    fields = embed["fields"] if isinstance(embed, dict) else [f.to_dict() for f in embed.fields]
    return "\n".join(f["value"] for f in fields)


def final_embed(channel: Any) -> Any:
    """The final standings embed (title starting 🏁), if posted."""
    for message in reversed(channel.history()[-4:]):
        for embed in message.embeds:
            if embed.title and embed.title.startswith("🏁"):
                return embed
    return None
