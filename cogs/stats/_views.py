"""What the stats commands show: leaderboard pages (with persistent pager buttons), member
stats, history and settings embeds. Every word comes from the catalog."""

from __future__ import annotations

import logging
import re
from datetime import datetime
from typing import Any

import discord

from bot.i18n import language_of, t
from db import SKILL_MIN_GAMES, BoardLine, BoardPage, FinishedGame, GuildSettings, MemberStats

log = logging.getLogger(__name__)

PER_PAGE = 10
ALL_RULES = "all"  # the custom_id's word for "every rule set"
BOARD_COLOUR = discord.Colour.gold()
STATS_COLOUR = discord.Colour.blurple()
HISTORY_COLOUR = discord.Colour.dark_teal()
SETTINGS_COLOUR = discord.Colour.dark_grey()
NAME_MAX = 24  # names in history fields: keeps ten games inside one embed


def value_text(metric: str, value: float) -> str:
    """A metric's value as shown (ASCII minus, so the numbers stay easy to copy)."""
    if metric in ("wins", "best"):
        return str(round(value))
    if metric == "net":
        text = f"{value:+.2f}"
        return "0.00" if text in ("+0.00", "-0.00") else text
    return f"{value:.2f}".replace("-0.00", "0.00")


def metric_name(metric: str, lang: str) -> str:
    return t(f"leaderboard.metric_{metric}", lang)


def scope_name(rules: str | None, lang: str) -> str:
    return rules if rules else t("leaderboard.all_rules", lang)


def _line(line: BoardLine, metric: str, lang: str, *, me: bool = False) -> str:
    text = t(
        "leaderboard.line",
        lang,
        rank=line.rank,
        member=f"<@{line.player_id}>",
        value=value_text(metric, line.value),
        games=line.games,
    )
    return f"**{text}**" if me else text


def board_embed(page: BoardPage, member_id: int, lang: str) -> discord.Embed:
    embed = discord.Embed(
        title=t(
            "leaderboard.title",
            lang,
            metric=metric_name(page.metric, lang),
            scope=scope_name(page.rules, lang),
        ),
        colour=BOARD_COLOUR,
    )
    if not page.lines and page.metric == "skill" and page.has_games:
        embed.description = t("leaderboard.empty_skill", lang, n=SKILL_MIN_GAMES)
    elif not page.lines:
        embed.description = t("leaderboard.empty", lang)
    else:
        lines = [_line(x, page.metric, lang, me=x.player_id == member_id) for x in page.lines]
        if page.me is not None and all(x.player_id != member_id for x in page.lines):
            lines += ["…", _line(page.me, page.metric, lang, me=True)]
        elif page.me is None:
            lines += ["", t("leaderboard.not_ranked", lang)]
        embed.description = "\n".join(lines)
    footer = t("leaderboard.footer", lang, page=page.page + 1, pages=page.pages, n=page.ranked)
    if page.metric == "skill":
        footer += " · " + t("leaderboard.skill_note", lang, n=SKILL_MIN_GAMES)
    embed.set_footer(text=footer)
    return embed


# The league's own namespace: the play cog answers every other `poker:` id itself (its
# fallback calls an unknown one out of date), so the pager must not start with `poker:`.
PREFIX = "league:board"


def board_id(metric: str, rules: str | None, page: int, member: int, way: str) -> str:
    return f"{PREFIX}:{metric}:{rules or ALL_RULES}:{page}:{member}:{way}"


def board_view(page: BoardPage, member_id: int, lang: str) -> discord.ui.View:
    """Previous / page x of y / next. The ids carry everything: they work after restarts."""
    view = discord.ui.View(timeout=None)
    prev: discord.ui.Button[discord.ui.View] = discord.ui.Button(
        label=t("leaderboard.prev", lang),
        style=discord.ButtonStyle.secondary,
        custom_id=board_id(page.metric, page.rules, max(page.page - 1, 0), member_id, "p"),
        disabled=page.page == 0,
    )
    counter: discord.ui.Button[discord.ui.View] = discord.ui.Button(
        label=f"{page.page + 1}/{page.pages}",
        style=discord.ButtonStyle.secondary,
        custom_id=board_id(page.metric, page.rules, page.page, member_id, "c"),
        disabled=True,
    )
    nxt: discord.ui.Button[discord.ui.View] = discord.ui.Button(
        label=t("leaderboard.next", lang),
        style=discord.ButtonStyle.secondary,
        custom_id=board_id(
            page.metric, page.rules, min(page.page + 1, page.pages - 1), member_id, "n"
        ),
        disabled=page.page >= page.pages - 1,
    )
    for item in (prev, counter, nxt):
        view.add_item(item)
    return view


class BoardPager(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"league:board:(?P<metric>[a-z]+):(?P<rules>[a-z0-9_]+):(?P<page>\d+):(?P<member>\d+):(?P<way>[pnc])",
):
    """A pager button of a leaderboard message, stateless: the id says which page to show.

    The member who asked turns the pages of their message; anyone else who clicks gets
    the same page privately, with their own line."""

    def __init__(self, metric: str, rules: str, page: int, member: int, way: str) -> None:
        super().__init__(
            discord.ui.Button(custom_id=board_id(metric, rules, page, member, way)),
        )
        self.metric, self.rules, self.page = metric, rules, page
        self.member, self.way = member, way

    @classmethod
    async def from_custom_id(
        cls, _interaction: discord.Interaction, _item: discord.ui.Item[Any], match: re.Match[str]
    ) -> BoardPager:
        return cls(
            match["metric"], match["rules"], int(match["page"]), int(match["member"]), match["way"]
        )

    async def callback(self, interaction: discord.Interaction) -> None:
        from ._cog import answer_board  # noqa: PLC0415 - the cog imports this module

        rules = None if self.rules == ALL_RULES else self.rules
        own = interaction.user.id == self.member
        await answer_board(interaction, metric=self.metric, rules=rules, page=self.page, edit=own)


# --- stats --------------------------------------------------------------------------------


def percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "0.0%"


def stats_block(s: MemberStats, lang: str) -> str:
    skill = (
        t("stats.skill_value", lang, value=f"{s.skill:.2f}", n=s.analysed)
        if s.skill is not None
        else t("stats.skill_none", lang)
    )
    return t(
        "stats.block",
        lang,
        games=s.games,
        wins=s.wins,
        rate=percent(s.wins, s.games),
        average=f"{s.average:.2f}",
        best=s.best,
        net=value_text("net", s.net),
        skill=skill,
    )


def stats_embed(name: str, stats: list[MemberStats], lang: str) -> discord.Embed:
    embed = discord.Embed(title=t("stats.title", lang, name=name), colour=STATS_COLOUR)
    for s in stats:
        label = t("stats.overall", lang) if s.rules is None else s.rules
        embed.add_field(name=label, value=stats_block(s, lang), inline=False)
    return embed


# --- history ------------------------------------------------------------------------------


def jump_link(entry: FinishedGame) -> str:
    game = entry.game
    state = game.state
    message = (
        state.get("final_message_id")
        or state.get("turn_message_id")
        or state.get("lobby_message_id")
    )
    base = f"https://discord.com/channels/{game.guild_id}/{game.channel_id}"
    return f"{base}/{message}" if message else base


def _short(name: str) -> str:
    name = discord.utils.escape_markdown(name)
    return name if len(name) <= NAME_MAX else name[: NAME_MAX - 1] + "…"


def history_embed(games: list[FinishedGame], page: int, pages: int, lang: str) -> discord.Embed:
    embed = discord.Embed(title=t("history.title", lang), colour=HISTORY_COLOUR)
    if not games:
        embed.description = t("history.empty", lang)
        return embed
    for entry in games:
        results = entry.results
        winners = ", ".join(_short(r.name) for r in results if r.rank == 1) or "—"
        scores = ", ".join(
            f"{_short(r.name)} {r.total}" for r in sorted(results, key=lambda r: (r.rank, r.seat))
        )
        finished = _unix(entry.results[0].finished_at if results else entry.game.updated_at)
        embed.add_field(
            name=t("history.game", lang, id=entry.game.id, rules=entry.game.rules),
            value=t(
                "history.entry",
                lang,
                date=f"<t:{finished}:f>",
                winner=winners,
                scores=scores or "—",
                link=jump_link(entry),
            )[:1024],
            inline=False,
        )
    embed.set_footer(text=t("history.footer", lang, page=page + 1, pages=pages))
    return embed


def _unix(moment: datetime) -> int:
    return int(moment.timestamp())


# --- settings -----------------------------------------------------------------------------


def duration_text(seconds: int) -> str:
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    parts = [
        f"{hours}h" if hours else "",
        f"{minutes}m" if minutes else "",
        f"{secs}s" if secs else "",
    ]
    return "".join(parts) or "0s"


def settings_embed(
    settings: GuildSettings, lang: str, *, changed_by: str | None = None
) -> discord.Embed:
    def yes_no(flag: bool) -> str:
        return t("settings.yes" if flag else "settings.no", lang)

    title = t("settings.changed" if changed_by else "settings.title", lang, name=changed_by or "")
    embed = discord.Embed(title=title, colour=SETTINGS_COLOUR)
    rows = [
        ("default_rules", settings.default_rules or t("settings.rules_default", lang)),
        ("turn_timeout", duration_text(settings.turn_timeout)),
        ("bots", yes_no(settings.bots_allowed)),
        ("hints", yes_no(settings.hints_allowed)),
        ("images", yes_no(settings.images)),
        ("language", settings.language or t("settings.language_auto", lang)),
    ]
    for key, value in rows:
        embed.add_field(name=t(f"settings.{key}", lang), value=value, inline=True)
    return embed


def lang_of(interaction: discord.Interaction, settings: GuildSettings | None = None) -> str:
    """The server's language when it set one, else the member's own locale."""
    if settings is not None and settings.language:
        return settings.language
    return language_of(str(interaction.locale) if interaction.locale else None)
