"""The daily tests' server: guild "Casino", channel "dice", members ann, bob and cid.

Their bots look for strategy tables in an empty folder of the test's own (not the
checkout's data/strategy), so whether a daily is analysed is the test's choice:
`env.bot.play.solutions.put(table)`.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import pytest

from bot.app import DicePokerBot
from tests.conftest import settings_for_tests


@pytest.fixture
def bot_factory(tmp_path: Path, dice_seed: int) -> Callable[[], DicePokerBot]:
    dice = random.Random(dice_seed)

    def build() -> DicePokerBot:
        settings = settings_for_tests(tmp_path).model_copy(
            update={"strategy_dir": tmp_path / "strategy", "bot_pause": 0.0}
        )
        return DicePokerBot(settings, dice=dice)

    return build


@pytest.fixture
async def casino(simcord_env):
    env = simcord_env
    guild = env.create_guild("Casino")
    channel = guild.create_text_channel("dice")
    members = [guild.add_member(env.create_user(n)) for n in ("ann", "bob", "cid")]
    yield env, guild, channel, members
    if not env.bot.is_closed():
        await env.bot.close()
