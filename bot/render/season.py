"""What seasons show: a season's name and dates, its podium, and `/poker seasons`.

Pure: the seasons and podiums of `bot.match.season` in, `Embed`s out. Months and
quarters are named by CLDR (Babel) in the reader's language, as players write them.
Nobody is pinged: members are shown by the name they last played under.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta

from babel.dates import format_skeleton

from bot.i18n import t
from bot.match.season import Podium, PodiumLine, Season

from .embed import DARK_TEAL, DESCRIPTION_MAX, GOLD, Embed, cut, safe
from .league import value_text

MEDALS = {1: "🥇", 2: "🥈", 3: "🥉"}
NAME_MAX = 24
SEASONS_PAGE = 12  # past seasons on one page of /poker seasons
NAME_STEPS = (NAME_MAX, 16, 10)


def period(season: Season, lang: str) -> str:
    """ "December 2026", "4th quarter 2026", as `lang` writes them."""
    skeleton = "yMMMM" if season.mode == "monthly" else "yQQQQ"
    return format_skeleton(skeleton, season.start.date(), locale=lang)


def season_name(season: Season, lang: str) -> str:
    return t("season.name", lang, number=season.number, period=period(season, lang))


def dates(season: Season, lang: str) -> str:
    """Its first and last day (UTC)."""
    first = format_skeleton("yMMMd", season.start.date(), locale=lang)
    last = format_skeleton("yMMMd", (season.end - timedelta(days=1)).date(), locale=lang)
    return t("season.dates", lang, first=first, last=last)


def _value(category: str, line: PodiumLine, lang: str) -> str:
    if category == "wins":
        return t("season.value_wins", lang, n=round(line.value))
    if category == "net":
        return value_text("net", line.value, lang)
    if category == "skill":
        return t("season.value_skill", lang, value=f"{line.value:.2f}")
    return t("season.value_tournaments", lang, wins=t("season.value_wins", lang,
             n=round(line.value)), finals=t("season.finals", lang, n=line.extra))  # fmt: skip


def podium_embed(podium: Podium, lang: str) -> Embed:
    """The podium posted when a season ends: the top three of each category."""
    season = podium.season
    embed = Embed(title=t("season.podium_title", lang, name=season_name(season, lang)), colour=GOLD)
    if podium.empty:
        embed.description = t("season.podium_empty", lang)
    else:
        embed.description = t("season.podium_intro", lang, n=podium.players)
        for category, lines in podium.categories:
            text = "\n".join(
                t("season.podium_line", lang, medal=MEDALS[x.place],
                  name=safe(cut(x.name, NAME_MAX)), value=_value(category, x, lang))
                for x in lines
            ) or t("season.nobody", lang)  # fmt: skip
            embed.add_field(t(f"season.category_{category}", lang), text)
    embed.footer = dates(season, lang) + " · " + t(f"season.mode_{season.mode}", lang)
    return embed


def seasons_embed(  # noqa: PLR0913 - each part of the seasons' embed
    mode: str,
    current: Season | None,
    past: Sequence[Podium],
    lang: str,
    *,
    page: int = 0,
    pages: int = 1,
) -> Embed:
    """`/poker seasons`: the current season, then a page of past seasons (newest first,
    at most SEASONS_PAGE) with each category's champion."""
    embed = Embed(title=t("season.list_title", lang, mode=t(f"season.mode_{mode}", lang)))
    embed.colour = DARK_TEAL
    if current is None:
        embed.description = t("season.list_off", lang)
        return embed
    head = t("season.list_current", lang, name=season_name(current, lang),
             dates=dates(current, lang))  # fmt: skip
    for limit in NAME_STEPS:
        lines = [head, ""]
        lines += [_past_line(p, lang, limit) for p in past[:SEASONS_PAGE]]
        if not past:
            lines.append(t("season.list_empty", lang))
        embed.description = "\n".join(lines)
        if len(embed.description) <= DESCRIPTION_MAX:
            break
    embed.footer = t("season.list_footer", lang, page=page + 1, pages=max(pages, 1))
    return embed


def _past_line(podium: Podium, lang: str, limit: int) -> str:
    name = season_name(podium.season, lang)
    if podium.empty:
        return t("season.list_line_empty", lang, name=name)
    parts = []
    for category, _ in podium.categories:
        first = podium.champion(category)
        who = ", ".join(safe(cut(x.name, limit)) for x in first) or "—"
        parts.append(t("season.list_champion", lang, category=t(f"season.short_{category}",
                       lang), name=who))  # fmt: skip
    return t("season.list_line", lang, name=name, champions=" · ".join(parts))
