"""Playing dice poker in a channel: the lobby, the turns, the scorecards.

`_service.py` the one place that changes games (no Discord), `_controls.py` the custom_id
scheme and the base of every control, `_views.py` the buttons and views, `_publish.py` a
saved change → Discord, `_timers.py`, `_computer.py` and `_analysis.py` the observers of
commits, `_hint.py` the Hint button, `_solutions.py` the strategy tables, `_cog.py` the
slash commands and the wiring.
"""

from __future__ import annotations

from ._cog import COMMANDS, PlayCog
from ._controls import CONTROLS, PlayDeps, control
from ._publish import DiscordPublisher, Notice
from ._service import GameService, NotShown, seat_results
from ._solutions import SolutionCache

__all__ = [
    "COMMANDS",
    "CONTROLS",
    "DiscordPublisher",
    "GameService",
    "NotShown",
    "Notice",
    "PlayCog",
    "PlayDeps",
    "SolutionCache",
    "control",
    "seat_results",
]
