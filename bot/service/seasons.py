"""Seasons of a server's league: which season a command shows, a season's podium, and
posting each podium once.

A podium is due when a season ends (`bot.match.season.podium_due`); the next interaction
in the server or the periodic check finds it (`Podiums.due`), whichever comes first. The
store's claim (`claim_podium`) makes it once however many processes share the database:
the claimer posts, then marks it posted; a claimer that dies before marking it lets
another take it over when its lease runs out. Between seasons a process answers `due`
from memory (the last season it saw handled), so an interaction costs no query.

Season ratings (`bot.match.ratings`) are a rating scope per season window, written by the
finishing transaction; the season's wins, net and skill are summed from its results.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import Protocol, TypedDict

from bot.match.season import PODIUM_MAX, Podium, Season, past_seasons, podium_of, season_of
from bot.match.season import podium_due as due_after
from bot.records import BoardPage, GuildSettings

from .settings import ServerSettings

# The leaderboard metrics a podium shows, in order.
PODIUM_METRICS: tuple[str, ...] = ("wins", "net", "skill", "tournaments")
CLAIM_LEASE = timedelta(minutes=2)  # far longer than a post takes; a dead claimer's wait


class SeasonStore(Protocol):
    """The part of `GameStore` seasons read and claim."""

    async def leaderboard(  # noqa: PLR0913 - the store's keyword arguments
        self, guild_id: int, *, metric: str = "wins", rules: str | None = None, page: int = 0,
        per_page: int = 10, member_id: int | None = None, since: datetime | None = None,
        until: datetime | None = None,
    ) -> BoardPage: ...

    async def first_result(self, guild_id: int) -> datetime | None: ...

    async def claim_podium(
        self, guild_id: int, mode: str, number: int, *, now: datetime, lease: timedelta,
    ) -> str: ...

    async def podium_posted(
        self, guild_id: int, mode: str, number: int, *, message_id: int | None,
        now: datetime | None = None,
    ) -> None: ...


class Window(TypedDict):
    since: datetime | None
    until: datetime | None


def window(season: Season | None) -> Window:
    """The store's `since`/`until` of a season (None: all time)."""
    return {"since": season.start if season else None, "until": season.end if season else None}


async def season_podium(store: SeasonStore, guild_id: int, season: Season) -> Podium:
    """A season's podium, from the first lines of its leaderboards."""
    boards, players = [], 0
    for metric in PODIUM_METRICS:
        page = await store.leaderboard(guild_id, metric=metric, per_page=PODIUM_MAX,
                                       **window(season))  # fmt: skip
        boards.append((metric, page.lines))
        players = max(players, page.ranked if metric == "wins" else 0)
    return podium_of(season, boards, players)


async def past_podiums(
    store: SeasonStore, settings: GuildSettings, now: datetime, *, page: int, per_page: int
) -> tuple[list[Podium], int]:
    """A page of the server's ended seasons (newest first) with their podiums, and the
    number of pages."""
    guild_id = settings.guild_id
    seasons = past_seasons(settings.season, await store.first_result(guild_id), now)
    pages = max(1, -(-len(seasons) // per_page))
    shown: Sequence[Season] = seasons[min(page, pages - 1) * per_page :][:per_page]
    return [await season_podium(store, guild_id, s) for s in shown], pages


class Podiums:
    """Which season's podium a server has to post now, each once."""

    def __init__(
        self, store: SeasonStore, settings: ServerSettings, clock: Callable[[], datetime]
    ) -> None:
        self.store, self.settings, self.clock = store, settings, clock
        self._handled: dict[int, tuple[str, int]] = {}  # guild -> the last season handled

    async def due(
        self, guild_id: int, settings: GuildSettings | None = None
    ) -> tuple[GuildSettings, Season] | None:
        """The server's settings and the season whose podium this process is to post now
        (claimed for it), or None."""
        found = settings or await self.settings.get(guild_id)
        now = self.clock()
        current = season_of(found.season, now)
        if current is None or self._handled.get(guild_id) == (found.season, current.number - 1):
            return None
        ended = due_after(found.season, now, found.season_since or now, None)
        if ended is None:
            self._handled[guild_id] = (found.season, current.number - 1)
            return None
        claim = await self.store.claim_podium(guild_id, ended.mode, ended.number, now=now,
                                              lease=CLAIM_LEASE)  # fmt: skip
        if claim == "posted":
            self._handled[guild_id] = (ended.mode, ended.number)
        return (found, ended) if claim == "mine" else None

    async def posted(self, guild_id: int, season: Season, message_id: int | None) -> None:
        """A claimed podium was posted (None: it had nowhere to go)."""
        await self.store.podium_posted(guild_id, season.mode, season.number,
                                       message_id=message_id, now=self.clock())  # fmt: skip
        self._handled[guild_id] = (season.mode, season.number)
