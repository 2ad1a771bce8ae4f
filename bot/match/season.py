"""Seasons of a server's league: calendar months or quarters in UTC (pure).

A server's `season` setting is `off` (the league is all-time, as before), `monthly` or
`quarterly`. Seasons are calendar periods, numbered from `EPOCH` (January 2026, the
project's first year: monthly season 1 is January 2026, quarterly season 1 its first
quarter), so every process agrees on a season without storing one and a number names
the same dates forever. A season starts at 00:00 UTC on its first day (inclusive) and
ends at 00:00 UTC on the next season's first day (exclusive): a result belongs to the
season its game finished in.

Changing the setting mid-season: seasons are calendar periods, so the current season of
the new setting is the period holding the moment of the change, begun before it; every
result is kept, and its earlier results count in it. Its podium is due when it ends
(the interrupted season of the old setting gets none: it did not end as a season of the
server). Nothing is deleted either way: `all` is the all-time league.

Podiums (`podium`) rank members only (computer players are rated, never on a podium);
a member who has left the server keeps their place, shown under the name they last
played under (nobody is pinged).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from bot.engine import GameError
from bot.i18n import t
from bot.records import SEASON_MODES as MODES
from bot.records import BoardLine

MONTHS = {"monthly": 1, "quarterly": 3}  # months a season lasts
EPOCH = 2026  # January of this year starts season 1 of either length
ALL = "all"
PODIUM_SIZE = 3  # places on a podium (ties share a place, and may make it longer)
PODIUM_MAX = 5  # lines at most in one category: a many-way tie is cut there
CATEGORIES = ("wins", "net", "skill", "tournaments")


@dataclass(frozen=True, order=True)
class Season:
    mode: str  # monthly | quarterly
    number: int  # 1 = the first season of EPOCH

    def __post_init__(self) -> None:
        if self.mode not in MONTHS:
            raise ValueError(f"not a season length: {self.mode!r}")

    @property
    def _first_month(self) -> int:
        """Months since January of EPOCH to the season's first month."""
        return (self.number - 1) * MONTHS[self.mode]

    @property
    def start(self) -> datetime:
        """00:00 UTC of its first day (included)."""
        return _month(self._first_month)

    @property
    def end(self) -> datetime:
        """00:00 UTC of the next season's first day (not included)."""
        return _month(self._first_month + MONTHS[self.mode])

    def contains(self, instant: datetime) -> bool:
        return self.start <= _utc(instant) < self.end

    @property
    def previous(self) -> Season:
        return Season(self.mode, self.number - 1)

    @property
    def next(self) -> Season:
        return Season(self.mode, self.number + 1)


def _month(months: int) -> datetime:
    year, month = divmod(months, 12)
    return datetime(EPOCH + year, month + 1, 1, tzinfo=UTC)


def _utc(instant: datetime) -> datetime:
    if instant.tzinfo is None:
        raise ValueError("season arithmetic needs timezone-aware times")
    return instant.astimezone(UTC)


def season_of(mode: str, instant: datetime) -> Season | None:
    """The season `instant` falls in (a result: the moment its game finished); None
    when seasons are off."""
    if mode not in MODES:
        raise ValueError(f"not a season setting: {mode!r}")
    if mode == "off":
        return None
    moment = _utc(instant)
    months = (moment.year - EPOCH) * 12 + moment.month - 1
    return Season(mode, months // MONTHS[mode] + 1)


def parse_season(text: str | None, mode: str, now: datetime, lang: str = "en") -> Season | None:
    """The `season:` option: current (also when not given), previous, a season's number,
    or all (None: the all-time league). The words are taken in English and in `lang`.
    With seasons off only `all` (or nothing) is accepted. GameError explains a refusal."""
    word = (text or "").strip().casefold()
    if word in _words("all", lang):
        return None
    current = season_of(mode, now)
    if current is None:
        if word and word not in _words("current", lang):
            raise GameError("season.off")
        return None
    if not word or word in _words("current", lang):
        return current
    if word in _words("previous", lang):
        number = current.number - 1
    else:
        try:
            number = int(word.lstrip("#№"))
        except ValueError:
            raise GameError("season.bad", value=(text or "")[:40]) from None
    if number < 1:
        raise GameError("season.before_first")
    if number > current.number:
        raise GameError("season.not_yet", number=number, current=current.number)
    return Season(mode, number)


def _words(name: str, lang: str) -> set[str]:
    return {t(f"season.word_{name}", "en").casefold(), t(f"season.word_{name}", lang).casefold()}


def past_seasons(mode: str, first: datetime | None, now: datetime) -> list[Season]:
    """The seasons that ended from the one holding `first` (the server's first result)
    up to now, newest first (`/poker seasons`)."""
    current = season_of(mode, now)
    if current is None or first is None:
        return []
    oldest = season_of(mode, min(_utc(first), _utc(now)))
    assert oldest is not None
    return [Season(mode, n) for n in range(current.number - 1, max(oldest.number, 1) - 1, -1)]


def podium_due(mode: str, now: datetime, since: datetime, posted: int | None) -> Season | None:
    """The season whose podium is to be posted now, if any: the last season that ended,
    when it ended after the setting took this value (`since`) and its podium is not
    posted yet (`posted`: the number of the last one posted for this setting). Only the
    last one: after a long downtime the older ones are listed by `/poker seasons`."""
    current = season_of(mode, now)
    if current is None or current.number <= 1:
        return None
    ended = current.previous
    if ended.end <= _utc(since) or (posted is not None and posted >= ended.number):
        return None
    return ended


# --- the podium -------------------------------------------------------------------------


@dataclass(frozen=True)
class SeasonRecord:
    """A player's league in one season (the store sums it over the season's results)."""

    player_id: int  # a member; computer players (negative ids) are never on a podium
    name: str  # the name they last played under
    games: int
    wins: int
    net: float  # the sum of their settlements against their tables' averages
    skill: float | None = None  # mean points lost per decision (lower is better)
    analysed: int = 0  # games analysed for skill
    tournament_wins: int = 0
    finals: int = 0  # final tables played (a win included)


@dataclass(frozen=True)
class PodiumLine:
    place: int  # 1-3; equal values share a place
    player_id: int
    name: str
    value: float
    extra: int = 0  # tournaments: the finals played beside the wins


@dataclass(frozen=True)
class Podium:
    season: Season
    categories: tuple[tuple[str, tuple[PodiumLine, ...]], ...]  # in CATEGORIES order
    players: int  # members who played in the season

    @property
    def empty(self) -> bool:
        return not any(lines for _, lines in self.categories)

    def champion(self, category: str) -> tuple[PodiumLine, ...]:
        """The first place(s) of a category (a tie: several)."""
        return tuple(x for x in dict(self.categories).get(category, ()) if x.place == 1)


def _top(
    records: Iterable[SeasonRecord],
    value: Callable[[SeasonRecord], tuple[float, ...]],
    shown: Callable[[SeasonRecord], float],
    extra: Callable[[SeasonRecord], int] = lambda _: 0,
) -> tuple[PodiumLine, ...]:
    """The best three places by `value` (higher first; equal values share a place, then
    the member id keeps the order stable)."""
    ranked = sorted(records, key=lambda r: (tuple(-v for v in value(r)), r.player_id))
    lines: list[PodiumLine] = []
    for i, r in enumerate(ranked):
        place = lines[-1].place if lines and value(ranked[i - 1]) == value(r) else i + 1
        if place > PODIUM_SIZE or len(lines) >= PODIUM_MAX:
            break
        lines.append(PodiumLine(place, r.player_id, r.name, shown(r), extra(r)))
    return tuple(lines)


def podium(season: Season, records: Sequence[SeasonRecord], skill_min: int) -> Podium:
    """A season's podium from its records: the top three for wins (members with a win),
    net settlement (with a game), skill (with `skill_min` analysed games; fewer points
    lost is better) and tournaments (wins, then finals; with a final)."""
    members = [r for r in records if r.player_id > 0 and r.games > 0]
    categories = (
        ("wins", _top((r for r in members if r.wins), lambda r: (r.wins,), lambda r: r.wins)),
        ("net", _top(members, lambda r: (round(r.net, 6),), lambda r: r.net)),
        (
            "skill",
            _top(
                (r for r in members if r.skill is not None and r.analysed >= skill_min),
                lambda r: (-round(r.skill or 0.0, 6),),
                lambda r: r.skill or 0.0,
            ),
        ),
        (
            "tournaments",
            _top(
                (r for r in records if r.player_id > 0 and r.finals),
                lambda r: (r.tournament_wins, r.finals),
                lambda r: r.tournament_wins,
                lambda r: r.finals,
            ),
        ),
    )
    return Podium(season, categories, len(members))


def podium_of(
    season: Season, boards: Sequence[tuple[str, Sequence[BoardLine]]], players: int
) -> Podium:
    """A season's podium from the first lines of its leaderboards (`boards`: a metric's
    name and its lines, best first, ranked as the board ranks them: equal values share a
    place): the first three places of each, members only, a category's line counting only
    with something won (wins, tournaments: a win or a final)."""
    categories = []
    for metric, lines in boards:
        kept = [
            PodiumLine(x.rank, x.player_id, x.name, x.value, round(x.extra or 0))
            for x in lines
            if x.player_id > 0
            and x.rank <= PODIUM_SIZE
            and (metric not in ("wins", "tournaments") or x.value > 0 or (x.extra or 0) > 0)
        ]
        categories.append((metric, tuple(kept[:PODIUM_MAX])))
    return Podium(season, tuple(categories), players)
