"""QUIET_GC (bot/housekeeping.py): while the bot runs, what start-up made is frozen out of
the collector and Python's automatic full collections are off (one a minute instead,
between clicks); when it stops, the process gets both back."""

from __future__ import annotations

import gc

from bot.housekeeping import GEN2_OFF, FullCollections


async def test_full_collections_are_the_bots_while_it_runs_and_given_back_after() -> None:
    before = gc.get_threshold()
    collections = FullCollections()
    collections.start()
    try:
        assert gc.get_threshold() == (before[0], before[1], GEN2_OFF)
        assert gc.get_freeze_count() > 0
        collections.start()  # a second start (a reconnect) keeps the first thresholds
    finally:
        collections.stop()
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0
