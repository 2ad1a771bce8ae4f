"""What a table's change came through (`Via`, the play service's `via`): a member's click
or command, or the clock (`Notice`: why the timer acted, said where it shows)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import discord

from bot.i18n import t
from bot.match import AWAY_AFTER, LOBBY_TTL, OVERDUE_GRACE, Match
from bot.render.embed import safe


@dataclass(frozen=True)
class Notice:
    """Why a change came without a click: "timeout" (the timer played `player`'s turn),
    "expired" (a lobby nobody started), "grace" (an overdue turn after a restart got more
    time)."""

    kind: str
    player: int | None = None

    def text(self, match: Match) -> str:
        lang = match.lang
        if self.kind == "timeout" and self.player is not None:
            key = "timer.away" if match.away(self.player) else "timer.played"
            return t(key, lang, name=safe(match.name_of(self.player)), n=AWAY_AFTER)
        if self.kind == "expired":
            return t("timer.lobby_expired", lang, n=int(LOBBY_TTL.total_seconds() // 60))
        if self.kind == "grace":
            return t("timer.grace", lang, n=int(OVERDUE_GRACE.total_seconds() // 60))
        return ""


@dataclass(frozen=True)
class Via:
    """A member's click or command (`interaction`), or the clock's `notice`."""

    interaction: discord.Interaction[Any] | None = None
    notice: Notice | None = None
