"""The dailies: finding, starting and throwing a member's game of the day's dice.

A daily is a game like the tables' (a `games` row, its actions, a snapshot) changed by a
`GameService` of its own kind ("daily"), so a click takes the same road: lock, who may
reach it, version, change, one save, the publisher, the observers. What is daily about it
lives here: the day (UTC), the deployment secret and the `DailyDice` drawn from it; the
rules (the member's own, on its day) are the model's (`Match.verify_reach`).

Every server plays the same dice on a day (`DailyDice` depends on the secret, the day and
the rule set only): the day's best score is worked out once for everyone, and a member
has one attempt per rule set and day wherever they play (a second one in another server
would replay dice already seen).
"""

from __future__ import annotations

import hashlib
import hmac
import logging
from collections.abc import Callable
from datetime import date, datetime
from typing import Generic

from bot.engine.daily import MIN_SECRET_BYTES, DailyDice, new_secret, utc_day
from bot.match import Match
from db import GameStore

from .games import GameService, V

log = logging.getLogger(__name__)

SECRET_NAME = "daily_dice"  # noqa: S105 - the name the store keeps it under, not a secret
DICE_KEPT = 16  # DailyDice kept in memory (each caches the faces drawn so far)


def fingerprint(secret: bytes) -> str:
    """A name for the dice a secret makes (caches of the day's best score are per secret),
    from which the secret cannot be found."""
    return hmac.new(secret, b"dicepoker/daily/fingerprint", hashlib.sha256).hexdigest()[:16]


class Dailies(Generic[V]):
    def __init__(
        self,
        games: GameService[V],
        store: GameStore,
        *,
        clock: Callable[[], datetime],
        secret: bytes | None = None,
    ) -> None:
        if secret is not None and len(secret) < MIN_SECRET_BYTES:
            raise ValueError(f"DAILY_SECRET must have at least {MIN_SECRET_BYTES} bytes")
        self.games = games
        self.store = store
        self.clock = clock
        self._secret = secret  # DAILY_SECRET, else the store's (made on first use)
        self._dice: dict[tuple[date, str], DailyDice] = {}
        self._day: date | None = None

    def today(self) -> date:
        """The UTC day now; on the first call of a new day, the dailies of the days before
        leave the service's cache (an abandoned daily would otherwise stay all uptime)."""
        day = utc_day(self.clock())
        if day != self._day:
            self._day = day
            self.games.forget([m.id for m in self.games.cached() if m.day != day])
        return day

    async def secret(self) -> bytes:
        if self._secret is None:
            self._secret = await self.store.deployment_secret(SECRET_NAME, new_secret())
        return self._secret

    async def fingerprint(self) -> str:
        return fingerprint(await self.secret())

    def dice_of(self, match: Match) -> DailyDice:
        """A daily's own dice (one instance per day and rule set: its faces cache), for
        its change; the secret is read (`secret()`) before the first."""
        if self._secret is None or match.day is None:
            raise RuntimeError("a daily's dice before the secret is read")
        key = (match.day, match.rules)
        found = self._dice.get(key)
        if found is None:
            if len(self._dice) >= DICE_KEPT:
                self._dice.pop(next(iter(self._dice)))
            found = self._dice[key] = DailyDice(self._secret, match.day, match.rules)
        return found

    async def fresh_dice(self, day: date, rules: str) -> DailyDice:
        """A DailyDice of its own (for a worker thread: the shared one's cache is the
        event loop's)."""
        return DailyDice(await self.secret(), day, rules)

    async def find(self, member_id: int, rules: str, day: date) -> Match | None:
        record = await self.store.daily_game(member_id, rules, day)
        return None if record is None else await self.games.get(record.id)
