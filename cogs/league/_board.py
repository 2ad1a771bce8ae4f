"""`/poker leaderboard` pages and their pager buttons (stateless: the id says the page).

`league:board:<metric>:<rules>:<page>:<member>:<way>[:<season>]` — the member who asked
turns the pages of their message; anyone else who clicks gets the same page privately,
with their own line. The season (with seasons on: "a" all time, "m12", "q4") is the one
drawn, so a page turned after the season ended still shows it. Every number of the id is
range-checked before it reaches the store.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

import discord

from bot.engine import RULESETS, GameError
from bot.i18n import t
from bot.match import rated_level
from bot.records import ID_MAX, METRICS, BoardPage
from bot.render.league import board_embed
from bot.service.seasons import window
from cogs._edge import guard, public_language, reply_language, store_of, to_discord

from ._seasons import chosen_season, season_label, season_tag, tag_season

PER_PAGE = 10
PAGE_MAX = 100_000
ALL_RULES = "all"  # the custom_id's word for "every rule set"
# The league's own namespace: the play cog answers every other `poker:` id itself (its
# fallback calls an unknown one out of date), so the pager must not start with `poker:`.
PREFIX = "league:board"


def board_id(  # noqa: PLR0913 - the id's parts
    metric: str, rules: str | None, page: int, member: int, way: str, season: str = ""
) -> str:
    tail = f":{season}" if season else ""
    return f"{PREFIX}:{metric}:{rules or ALL_RULES}:{page}:{member}:{way}{tail}"


def shown_player(player_id: int, name: str, lang: str) -> str:
    """A board line's name: the member's, or a rated computer level's (rating board)."""
    level = rated_level(player_id)
    if level is not None:
        return t("leaderboard.computer", lang, level=t(f"bots.level_{level}", lang))
    return name or str(player_id)


def board_of(page: BoardPage, lang: str = "en") -> BoardPage:
    """The page with each line's name as shown (a rated computer level's in `lang`)."""
    lines = [replace(x, name=shown_player(x.player_id, x.name, lang)) for x in page.lines]
    me = page.me
    return replace(
        page,
        lines=lines,
        me=replace(me, name=shown_player(me.player_id, me.name, lang)) if me else None,
    )


def board_view(page: BoardPage, member_id: int, lang: str, season: str = "") -> discord.ui.View:
    """Previous / page x of y / next."""
    view = discord.ui.View(timeout=None)
    buttons = (
        (t("leaderboard.prev", lang), max(page.page - 1, 0), "p", page.page == 0),
        (f"{page.page + 1}/{page.pages}", page.page, "c", True),
        (t("leaderboard.next", lang), min(page.page + 1, page.pages - 1), "n",
         page.page >= page.pages - 1),
    )  # fmt: skip
    for label, target, way, disabled in buttons:
        view.add_item(
            discord.ui.Button(
                label=label,
                style=discord.ButtonStyle.secondary,
                custom_id=board_id(page.metric, page.rules, target, member_id, way, season),
                disabled=disabled,
            )
        )
    return view


async def answer_board(  # noqa: PLR0913 - which page, and where it is shown
    interaction: discord.Interaction[Any],
    *,
    metric: str,
    rules: str | None,
    page: int,
    edit: bool,
    public: bool = False,
    season: str | None = None,
    tag: str | None = None,
) -> None:
    """Show a leaderboard page to whoever asked or clicked, with their own line.

    `edit`: turn the page of the message clicked; otherwise a new message (public for the
    command, private for someone clicking another member's board). A public message
    speaks the server's language; a private one the member's. `season`: the option as
    typed; `tag`: the season of a pager's id (bot.match.season)."""
    async with guard(interaction, reply_language(interaction), "/poker leaderboard"):
        if metric not in METRICS or (rules is not None and rules not in RULESETS):
            raise GameError("errors.stale")
        store = store_of(interaction.client)
        lang = (
            await public_language(interaction, store)
            if public or edit
            else reply_language(interaction)
        )
        settings, chosen = await chosen_season(interaction, season)
        if tag:
            chosen = tag_season(tag)
        page_data = await store.leaderboard(
            interaction.guild_id or 0,
            metric=metric,
            rules=rules,
            page=page,
            per_page=PER_PAGE,
            member_id=interaction.user.id,
            **window(chosen),
        )
        label = season_label(settings, chosen, lang)
        shown = board_embed(board_of(page_data, lang), interaction.user.id, lang, season=label)
        embed = to_discord(shown)
        view = board_view(page_data, interaction.user.id, lang, season_tag(settings, chosen))
        if edit:
            await interaction.response.edit_message(embed=embed, view=view)
        else:
            await interaction.response.send_message(
                embed=embed,
                view=view,
                ephemeral=not public,
                allowed_mentions=discord.AllowedMentions.none(),
            )


class BoardPager(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"league:board:(?P<metric>[a-z]{1,16}):(?P<rules>[a-z0-9_]{1,16}):(?P<page>\d{1,20}):(?P<member>\d{1,20}):(?P<way>[pnc])(?::(?P<season>a|[mq]\d{1,8}))?",
):
    def __init__(  # noqa: PLR0913 - the id's parts
        self, metric: str, rules: str, page: int, member: int, way: str, season: str = ""
    ) -> None:
        super().__init__(
            discord.ui.Button(custom_id=board_id(metric, rules, page, member, way, season))
        )
        self.metric, self.rules, self.page = metric, rules, page
        self.member, self.way, self.season = member, way, season

    @classmethod
    async def from_custom_id(
        cls, _i: discord.Interaction[Any], _item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> BoardPager:
        # Out of range: page past the end is the last page; a member no one can be.
        page = min(int(match["page"]), PAGE_MAX)
        member = int(match["member"])
        return cls(match["metric"], match["rules"], page, member if member <= ID_MAX else 0,
                   match["way"], match["season"] or "")  # fmt: skip

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        rules = None if self.rules == ALL_RULES else self.rules
        own = interaction.user.id == self.member
        await answer_board(interaction, metric=self.metric, rules=rules, page=self.page, edit=own,
                           tag=self.season)  # fmt: skip
