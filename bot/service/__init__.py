"""The one place that changes games (no Discord, no SQL driver): `GameService` (the cache,
the per-game locks and `apply`: lock → who may → version → change → one save → publisher
→ observers), the dailies and the day's best score, what a finish stores (results and
ratings), the servers' settings as the games read them, the strategy tables and the
pictures' worker processes. Handed
its store, clock, settings and each feature's publisher by the wiring (`Services`)."""

from .best import BestScores
from .daily import Dailies, fingerprint
from .games import (
    Change,
    GameService,
    NotShown,
    Observer,
    Publisher,
    RepostTooSoon,
    match_of,
    valid_id,
)
from .pictures import Pictures, PicturesClosedError
from .results import seat_results
from .services import Services
from .settings import ServerSettings
from .solutions import SolutionCache
from .tournaments import TournamentPublisher, TournamentService, tournament_of

__all__ = [
    "BestScores",
    "Change",
    "Dailies",
    "GameService",
    "NotShown",
    "Observer",
    "Pictures",
    "PicturesClosedError",
    "Publisher",
    "RepostTooSoon",
    "ServerSettings",
    "Services",
    "SolutionCache",
    "TournamentPublisher",
    "TournamentService",
    "fingerprint",
    "match_of",
    "seat_results",
    "tournament_of",
    "valid_id",
]
