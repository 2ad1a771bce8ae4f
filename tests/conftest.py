"""Shared fixtures: a bot on the test's own database and seeded dice, driven by simcord.

`bot_factory()` builds a new bot on the same database (for restarts):
    await env.bot.close(); await env.restart_bot(bot_factory())
`simcord_bot` is its first bot; simcord's plugin turns it into `simcord_env`.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import pytest

from bot.app import DicePokerBot
from bot.settings import Settings

DICE_SEED = 1234


def settings_for_tests(tmp_path: Path) -> Settings:
    return Settings(
        _env_file=None,  # type: ignore[call-arg]  # never the developer's .env
        discord_token=None,
        database_path=tmp_path / "data" / "dicepoker.sqlite3",
        dev_guild_id=None,
        log_level="DEBUG",
        strategy_precompute=False,  # a minute of CPU per bot: tests/cogs/test_precompute.py
    )


@pytest.fixture
def dice_seed() -> int:
    """Override in a test module to change the dice of its games."""
    return DICE_SEED


@pytest.fixture
def bot_factory(tmp_path: Path, dice_seed: int) -> Callable[[], DicePokerBot]:
    """A new bot on this test's database; each bot's dice continue one seeded stream."""
    dice = random.Random(dice_seed)

    def build() -> DicePokerBot:
        return DicePokerBot(settings_for_tests(tmp_path), dice=dice)

    return build


@pytest.fixture
def simcord_bot(bot_factory: Callable[[], DicePokerBot]) -> DicePokerBot:
    return bot_factory()


@pytest.fixture
async def table(simcord_env):
    """Guild "Casino", channel "dice", members ann, bob and cid."""
    env = simcord_env
    guild = env.create_guild("Casino")
    channel = guild.create_text_channel("dice")
    ann = guild.add_member(env.create_user("ann"))
    bob = guild.add_member(env.create_user("bob"))
    cid = guild.add_member(env.create_user("cid"))
    yield env, channel, ann, bob, cid
    if not env.bot.is_closed():  # simcord never closes the bot; the SQLite store's thread
        await env.bot.close()  # would outlive the loop otherwise
