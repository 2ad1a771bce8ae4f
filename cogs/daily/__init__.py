"""The daily dice: the whole server plays the same dice, each member when it suits them.

`_service.py` the day, the secret and the day's dice, `_best.py` the best score a day's
dice allowed (worked out once), `_controls.py` the `daily:` custom_id scheme and checks,
`_views.py` the buttons and menu, `_publish.py` a saved change → the member's ephemeral
message, `_finish.py` the analysis, the public line and the member's report, `_cog.py`
`/poker daily play|board` and the wiring. A daily's changes go through a
`cogs.play.GameService` of kind "daily" (the play cog never reaches a daily).
"""

from __future__ import annotations

from ._best import BestScores
from ._cog import COMMANDS, DailyCog, parse_day
from ._controls import CONTROLS, DailyDeps
from ._finish import DailyFinish
from ._publish import DailyPublisher
from ._service import Dailies, fingerprint

__all__ = [
    "COMMANDS",
    "CONTROLS",
    "BestScores",
    "Dailies",
    "DailyCog",
    "DailyDeps",
    "DailyFinish",
    "DailyPublisher",
    "fingerprint",
    "parse_day",
]
