"""The daily dice: the same dice for everyone who plays a given rule set on a given day.

The value of die position p (0-4) at throw k (1-based) of turn t (0-based, the player's
own turn count) is fixed for the day. So everyone sees the same first throw of every
turn, and a position re-thrown at throw k shows the same value for everyone who
re-throws it there, whatever they held before: players differ only by their choices.

Values are HMAC-SHA256 under a deployment secret, over a message naming the day, the
rule set and (t, k, p): without the secret nobody can compute tomorrow's dice, and with
it the bot needs no stored table. Each byte of the digest below 252 (= 42 x 6) gives a
face with probability exactly 1/6; bytes >= 252 are rejected, and should a whole digest
be rejected (probability (4/256)^32) the stream goes on with the HMAC of the message
and a block counter.
"""

from __future__ import annotations

import hmac
import secrets
import struct
from collections.abc import Iterable, Iterator, Sequence
from datetime import UTC, date, datetime
from hashlib import sha256

from .game import DICE, Game, Roll

SECRET_BYTES = 32
MIN_SECRET_BYTES = 16
# Versioned, so a future change of the encoding cannot reproduce an old day's dice.
_DOMAIN = b"dicepoker/daily/v1"
_ACCEPT = 252  # the largest multiple of 6 that fits in a byte


def new_secret() -> bytes:
    """A fresh deployment secret (keep it: changing it changes every day's dice)."""
    return secrets.token_bytes(SECRET_BYTES)


def utc_day(moment: datetime) -> date:
    """The UTC day of an aware datetime: the daily dice change at 00:00 UTC."""
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError("a naive datetime has no UTC day")
    return moment.astimezone(UTC).date()


def uniform_face(blocks: Iterable[bytes]) -> int:
    """A face 1-6 from a stream of random bytes by rejection: each face exactly 1/6."""
    for block in blocks:
        for byte in block:
            if byte < _ACCEPT:
                return byte % 6 + 1
    raise ValueError("the byte stream ended before an acceptable byte")


class DailyDice:
    """The fixed dice of one rule set on one UTC day."""

    def __init__(self, secret: bytes, day: date, rules: str) -> None:
        if len(secret) < MIN_SECRET_BYTES:
            raise ValueError(f"the secret must have at least {MIN_SECRET_BYTES} bytes")
        if isinstance(day, datetime):  # a datetime is a date: refuse it, its day is ambiguous
            raise TypeError("day must be a date, not a datetime (see utc_day)")
        if not rules:
            raise ValueError("rules must name a rule set")
        self._secret = bytes(secret)
        self.day = day
        self.rules = rules
        name = rules.encode()
        # Length-prefixed, so no two (day, rules, t, k, p) share a message.
        self._prefix = (
            _DOMAIN + day.isoformat().encode() + struct.pack(">H", len(name)) + name
        )
        self._cache: dict[tuple[int, int, int], int] = {}

    def __repr__(self) -> str:  # never the secret
        return f"DailyDice(day={self.day.isoformat()}, rules={self.rules!r})"

    def _blocks(self, message: bytes) -> Iterator[bytes]:
        counter = 0
        while True:
            yield hmac.digest(self._secret, message + struct.pack(">I", counter), sha256)
            counter += 1

    def die(self, turn: int, throw: int, position: int) -> int:
        """The face of `position` at `throw` (1-based) of `turn` (0-based)."""
        if turn < 0 or throw < 1 or not 0 <= position < DICE:
            raise ValueError(f"no die at turn {turn}, throw {throw}, position {position}")
        key = (turn, throw, position)
        face = self._cache.get(key)
        if face is None:
            face = uniform_face(self._blocks(self._prefix + struct.pack(">III", *key)))
            self._cache[key] = face
        return face

    def throw(self, turn: int, throw: int) -> tuple[int, ...]:
        """All five positions at `throw` of `turn` (what a throw of every die would show)."""
        return tuple(self.die(turn, throw, p) for p in range(DICE))

    def draw(self, game: Game, player: str, hold: Sequence[int] | None = None) -> Roll:
        """`player`'s next throw of the day: held positions kept, the others from the day.

        `hold` defaults to the dice the player marked (`game.held`). The turn is the
        player's own count of finished turns (`Card.turns`: a record or a banked pass),
        not `Game.turn`, which counts every player's turns and leaves.
        """
        if game.rules.name != self.rules:
            raise ValueError(f"these are the {self.rules} dice, not {game.rules.name}")
        if hold is None:
            hold = sorted(game.held) if game.dice else ()
        kept = tuple(sorted(hold))
        game.verify_roll(player, kept)
        turn = game.card.turns
        throw = game.throws + 1
        values = tuple(self.die(turn, throw, p) for p in range(DICE) if p not in kept)
        return Roll(player, values, kept)


__all__ = ["DailyDice", "new_secret", "uniform_face", "utc_day"]
