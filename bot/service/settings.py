"""A server's settings as the games read them: from the store at each turn's start, from
memory in between.

A click in the middle of a turn (a hold, a throw) redraws the turn message, which depends
on the settings (the Hint button); reading them from the store on every click was one
more round trip per click on PostgreSQL. They are read from the store when a turn begins
(the turn's time-out depends on them: `GameService`), when a command or a rare control
needs them as they are now (`fresh`), and kept for the clicks in between (`get`).

A change made through this process (`update`: `/poker settings`) is seen at once; one made
by another process sharing the database is seen by this one's next turn start or `fresh`
read. Memory: one small record per server this process has seen.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Protocol

from bot.records import GuildSettings


class SettingsStore(Protocol):
    """The part of `GameStore` the settings come from."""

    async def guild_settings(self, guild_id: int) -> GuildSettings: ...

    async def update_settings(
        self, guild_id: int, changes: dict[str, Any], *, now: datetime | None = None
    ) -> GuildSettings: ...


class ServerSettings:
    def __init__(self, store: SettingsStore) -> None:
        self.store = store
        self._known: dict[int, GuildSettings] = {}

    async def get(self, guild_id: int | None) -> GuildSettings:
        """The settings as this process last read them (the store's, the first time)."""
        if guild_id is None:
            return GuildSettings(0)
        known = self._known.get(guild_id)
        return known if known is not None else await self.fresh(guild_id)

    async def fresh(self, guild_id: int | None) -> GuildSettings:
        """The settings as the store has them now, kept for the clicks that follow."""
        if guild_id is None:
            return GuildSettings(0)
        found = self._known[guild_id] = await self.store.guild_settings(guild_id)
        return found

    async def update(
        self, guild_id: int, changes: dict[str, Any], *, now: datetime | None = None
    ) -> GuildSettings:
        """Change some settings (the store checks them: ValueError on a bad one)."""
        updated = self._known[guild_id] = await self.store.update_settings(
            guild_id, changes, now=now
        )
        return updated
