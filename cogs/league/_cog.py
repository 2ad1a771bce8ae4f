"""`/poker leaderboard|stats|history|export`: a server's games as a league.

Everything shown is read from the store (`db/`), which ranks in SQL; render draws it.
Public answers speak the server's language, private ones the member's.
"""

from __future__ import annotations

import io
import json
import logging
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.engine import RULESETS, GameError, parse_action
from bot.engine.daily import utc_day
from bot.engine.replay import ReplayError, document, run
from bot.i18n import t
from bot.match import Match
from bot.match.season import Season
from bot.records import METRICS, OVERALL, StoredRating, season_scope
from bot.render.chart import scores_chart_png
from bot.render.embed import Embed
from bot.render.league import history_embed, stats_embed
from bot.service import Services, match_of
from bot.service.seasons import window
from cogs._edge import guard, public_language, reply_language, shown_name, store_of, to_discord

from ._board import BoardPager, answer_board
from ._seasons import SeasonPodiums, chosen_season, season_scope_text, seasons

log = logging.getLogger(__name__)

RULE_CHOICES = [app_commands.Choice(name=t(f"commands.choices.{n}"), value=n) for n in RULESETS]
METRIC_CHOICES = [app_commands.Choice(name=t(f"commands.choices.{m}"), value=m) for m in METRICS]
CHART_GAMES = 20
CHART = "scores.png"
HISTORY_PER_PAGE = 10


@app_commands.command(name="leaderboard", description=t("commands.leaderboard"))
@app_commands.describe(
    rules=t("commands.leaderboard_rules"),
    metric=t("commands.leaderboard_metric"),
    season=t("commands.leaderboard_season"),
)
@app_commands.choices(rules=RULE_CHOICES, metric=METRIC_CHOICES)
async def leaderboard(
    interaction: discord.Interaction[Any],
    rules: str | None = None,
    metric: str = "wins",
    season: app_commands.Range[str, 1, 40] | None = None,
) -> None:
    await answer_board(
        interaction, metric=metric, rules=rules, page=0, edit=False, public=True, season=season
    )


@app_commands.command(name="stats", description=t("commands.stats"))
@app_commands.describe(member=t("commands.stats_member"), season=t("commands.stats_season"))
async def stats(
    interaction: discord.Interaction[Any],
    member: discord.Member | None = None,
    season: app_commands.Range[str, 1, 40] | None = None,
) -> None:
    async with guard(interaction, reply_language(interaction), "/poker stats"):
        store = store_of(interaction.client)
        guild_id = interaction.guild_id or 0
        target = member or interaction.user
        name = shown_name(target)
        _, chosen = await chosen_season(interaction, season)
        numbers = await store.member_stats(guild_id, target.id, **window(chosen))
        dailies = await store.daily_stats(guild_id, target.id)
        tournaments = await store.tournament_stats(guild_id, target.id, **window(chosen))
        if not numbers and not dailies and not tournaments.played:
            raise GameError("stats.none", name=name)
        lang = await public_language(interaction, store)
        ratings = shown_ratings(await store.ratings(guild_id, [target.id]), chosen)
        embed = stats_embed(name, numbers, lang, dailies, ratings, tournaments)
        if chosen is not None:  # the season shown (the dailies' line stays all-time)
            embed.description = season_scope_text(chosen, lang)
        pictures = Services.of(interaction.client).pictures
        drawing = None
        if numbers:  # the chart of the last table games' scores, drawn in a worker
            recent = await store.recent_scores(guild_id, target.id, CHART_GAMES)
            drawing = pictures.start(
                scores_chart_png,
                [r.total for r in recent],
                name=name,
                won=[r.rank == 1 for r in recent],
                lang=lang,
            )
        extra: dict[str, Any] = {}
        if drawing is not None and await pictures.in_time(drawing):
            extra["file"] = _chart(embed, drawing.result())
        await interaction.response.send_message(
            embed=to_discord(embed), allowed_mentions=discord.AllowedMentions.none(), **extra
        )
        if drawing is not None and not extra:  # late: the chart follows by an edit
            file = _chart(embed, await drawing)
            await interaction.edit_original_response(embed=to_discord(embed), attachments=[file])


def _chart(embed: Embed, png: bytes) -> discord.File:
    embed.image = f"attachment://{CHART}"
    return discord.File(io.BytesIO(png), filename=CHART)


@app_commands.command(name="history", description=t("commands.history"))
@app_commands.describe(page=t("commands.history_page"))
async def history(
    interaction: discord.Interaction[Any], page: app_commands.Range[int, 1, 10_000] = 1
) -> None:
    async with guard(interaction, reply_language(interaction), "/poker history"):
        store = store_of(interaction.client)
        guild_id = interaction.guild_id or 0
        lang = await public_language(interaction, store)
        pages = max(1, -(-(await store.finished_count(guild_id)) // HISTORY_PER_PAGE))
        index = min(page, pages) - 1
        games = await store.history(
            guild_id, limit=HISTORY_PER_PAGE, offset=index * HISTORY_PER_PAGE
        )
        entries = [(g, match_of(g.game).link) for g in games]
        embed = history_embed(entries, index, pages, lang)
        await interaction.response.send_message(
            embed=to_discord(embed), allowed_mentions=discord.AllowedMentions.none()
        )


def unique_names(names: list[str]) -> list[str]:
    """Display names made distinct (the replay format needs distinct player names)."""
    out: list[str] = []
    for name in names:
        base = name.strip() or "player"
        shown, n = base, 2
        while shown in out:
            shown, n = f"{base} ({n})", n + 1
        out.append(shown)
    return out


def replay_document(match: Match, actions: list[dict[str, Any]]) -> dict[str, Any]:
    """The stored actions as a replay input, players under their display names as typed."""
    game = match.game
    if game is None:
        raise GameError("export.not_started", id=match.id)
    players = list(game.players)  # engine names, seat order
    seats = {s.player: s.name or s.player for s in match.seats}
    shown = dict(zip(players, unique_names([seats.get(p, p) for p in players]), strict=True))
    renamed = [{**a, "player": shown.get(str(a.get("player")), a.get("player"))} for a in actions]
    names = [shown[p] for p in players]
    run({"rules": match.rules, "players": names, "actions": renamed})  # it replays: hand out
    return document(match.rules, names, [parse_action(a) for a in renamed])


@app_commands.command(name="export", description=t("commands.export"))
@app_commands.describe(game=t("commands.export_game"))
async def export(interaction: discord.Interaction[Any], game: app_commands.Range[int, 1]) -> None:
    lang = reply_language(interaction)
    async with guard(interaction, lang, "/poker export"):
        store = store_of(interaction.client)
        record = await store.get_game(game) if game <= 2**63 - 1 else None
        if record is None or record.guild_id != interaction.guild_id:
            raise GameError("export.not_found", id=game)
        match = match_of(record)
        match.verify_export(interaction.user.id, utc_day(discord.utils.utcnow()))
        try:
            doc = replay_document(match, await store.actions(game))
        except ReplayError:
            log.exception("game %s: the stored actions do not replay", game)
            raise
        name = f"dicepoker-game-{game}.json"
        data = json.dumps(doc, ensure_ascii=False, indent=1).encode()
        await interaction.response.send_message(
            t("export.done", lang, id=game, file=name),
            file=discord.File(io.BytesIO(data), filename=name),
            ephemeral=True,
        )


def shown_ratings(stored: list[StoredRating], season: Season | None) -> dict[str, StoredRating]:
    """The ratings /poker stats shows, by rule set (OVERALL: every rule set): the season's
    scopes in a season, the all-time ones otherwise."""
    if season is None:
        return {r.rules: r for r in stored}
    scopes = {season_scope(base, season.start, season.end): base for base in (OVERALL, *RULESETS)}
    return {scopes[r.rules]: r for r in stored if r.rules in scopes}


COMMANDS: tuple[app_commands.Command[Any, ..., None], ...] = (
    leaderboard,
    stats,
    seasons,
    history,
    export,
)


class LeagueCog(commands.Cog, name="League"):
    def __init__(self, bot: commands.Bot) -> None:
        self.bot = bot

    async def cog_load(self) -> None:
        # The pager buttons are stateless by id: registering them is all a restart needs.
        self.bot.add_dynamic_items(BoardPager)
        self.podiums = SeasonPodiums(self.bot)
        self.podiums.loop.start()

    async def cog_unload(self) -> None:
        self.bot.remove_dynamic_items(BoardPager)
        self.podiums.loop.cancel()

    @commands.Cog.listener()
    async def on_interaction(self, interaction: discord.Interaction[Any]) -> None:
        # An ended season's podium is posted after the server's next interaction.
        await self.podiums.after_interaction(interaction)
