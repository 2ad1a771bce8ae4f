"""The dailies: finding, starting and throwing a member's game of the day's dice. No Discord.

A daily is a game like the tables' (a `games` row, its actions, a snapshot) changed by a
`GameService` of its own kind ("daily"), so a click takes the same road: lock, version,
change, one save, the publisher, the observers. What is daily about it lives here: the
day (UTC), the deployment secret and the `DailyDice` drawn from it.

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

from bot.engine import Game, GameError
from bot.engine.daily import MIN_SECRET_BYTES, DailyDice, new_secret, utc_day
from bot.match import Match, Seat
from cogs.play import GameService
from db import DailyTaken, GameStore

log = logging.getLogger(__name__)

SECRET_NAME = "daily_dice"  # noqa: S105 - the name the store keeps it under, not a secret
DICE_KEPT = 16  # DailyDice kept in memory (each caches the faces drawn so far)


def fingerprint(secret: bytes) -> str:
    """A name for the dice a secret makes (caches of the day's best score are per secret),
    from which the secret cannot be found."""
    return hmac.new(secret, b"dicepoker/daily/fingerprint", hashlib.sha256).hexdigest()[:16]


class Dailies:
    def __init__(
        self,
        games: GameService,
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

    async def dice(self, day: date, rules: str) -> DailyDice:
        """The day's dice of `rules` (one instance per day and rule set: its faces cache)."""
        key = (day, rules)
        found = self._dice.get(key)
        if found is None:
            if len(self._dice) >= DICE_KEPT:
                self._dice.pop(next(iter(self._dice)))
            found = self._dice[key] = DailyDice(await self.secret(), day, rules)
        return found

    async def fresh_dice(self, day: date, rules: str) -> DailyDice:
        """A DailyDice of its own (for a worker thread: the shared one's cache is the
        event loop's)."""
        return DailyDice(await self.secret(), day, rules)

    async def find(self, member_id: int, rules: str, day: date) -> Match | None:
        record = await self.store.daily_game(member_id, rules, day)
        return None if record is None else await self.games.get(record.id)

    async def start(
        self,
        *,
        guild_id: int,
        channel_id: int,
        member_id: int,
        name: str,
        rules: str,
        day: date,
        lang: str,
    ) -> Match:
        """The member's daily of `day`: a new solo game in play at once (or theirs, when
        two commands raced to start it). `lang`: the server's (the public line's)."""
        now = self.clock()
        seat = Seat(member_id, name)
        draft = Match(
            id=0,
            channel_id=channel_id,
            guild_id=guild_id,
            host_id=member_id,
            rules=rules,
            status="playing",
            lang=lang,
            seats=(seat,),
            game=Game.new(rules, [seat.player]),
            created_at=now,
            started_at=now,
            kind="daily",
            day=day,
        )
        try:
            record = await self.store.create_game(
                guild_id=guild_id,
                channel_id=channel_id,
                host_id=member_id,
                rules=rules,
                state=draft.to_dict(),
                now=now,
                day=day,
            )
        except DailyTaken as taken:
            found = await self.games.get(taken.game_id)
            if found is None:  # pragma: no cover - dailies are never deleted
                raise GameError("errors.stale") from None
            return found
        match = await self.games.get(record.id)
        if match is None:  # pragma: no cover - just written
            raise GameError("errors.stale")
        return match
