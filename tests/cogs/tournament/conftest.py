"""Tournament tests: bots whose computer players do not pause between their steps."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import pytest

from bot.app import DicePokerBot
from tests.conftest import settings_for_tests


@pytest.fixture
def bot_factory(tmp_path: Path, dice_seed: int) -> Callable[[], DicePokerBot]:
    """Bots whose computer players do not pause between their steps."""
    dice = random.Random(dice_seed)

    def build() -> DicePokerBot:
        settings = settings_for_tests(tmp_path).model_copy(update={"bot_pause": 0.0})
        return DicePokerBot(settings, dice=dice)

    return build
