"""Seasons at the Discord edge: the `season:` option of the league's commands, the
`/poker seasons` list, and posting a season's podium when it ends.

Which podium is due and the claim that posts it once are the service's
(`bot.service.seasons`); here the podium goes to the server's `season_channel`, nobody
pinged, after the interaction that found it due or the periodic check (every
`CHECK_MINUTES`), whichever comes first.
"""

from __future__ import annotations

import logging
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands, tasks

from bot.engine import GameError
from bot.i18n import game_language, t
from bot.match.season import Podium, Season, parse_season
from bot.records import GuildSettings
from bot.render.season import SEASONS_PAGE, dates, podium_embed, season_name, seasons_embed
from bot.service import Services
from bot.service.seasons import Podiums, past_podiums, season_podium
from cogs._edge import guard, public_language, reply_language, store_of, to_discord

log = logging.getLogger(__name__)

CHECK_MINUTES = 5.0
NUMBER_MAX = 10_000  # a season number from a custom_id beyond this is no season of ours


async def chosen_season(
    interaction: discord.Interaction[Any], text: str | None
) -> tuple[GuildSettings, Season | None]:
    """The server's settings and the season the `season:` option names (None: all time;
    a polite GameError for anything else)."""
    settings = await store_of(interaction.client).guild_settings(interaction.guild_id or 0)
    now = discord.utils.utcnow()
    return settings, parse_season(text, settings.season, now, reply_language(interaction))


def season_tag(settings: GuildSettings, season: Season | None) -> str:
    """The season as a pager's custom_id carries it: "" with seasons off, "a" for all
    time, else "m12" or "q4" (the season drawn, whatever the date of the click)."""
    if settings.season == "off" and season is None:
        return ""
    return "a" if season is None else f"{season.mode[0]}{season.number}"


def tag_season(tag: str) -> Season | None:
    """A custom_id's season back ("a": all time); GameError("errors.stale") if forged."""
    if tag == "a":
        return None
    mode = {"m": "monthly", "q": "quarterly"}.get(tag[:1])
    number = int(tag[1:]) if tag[1:].isdigit() else 0
    if mode is None or not 1 <= number <= NUMBER_MAX:
        raise GameError("errors.stale")
    return Season(mode, number)


def season_label(settings: GuildSettings, season: Season | None, lang: str) -> str | None:
    """What a board or the stats say of their season (None: seasons off, all time)."""
    if season is not None:
        return season_name(season, lang)
    return None if settings.season == "off" else t("season.all_time", lang)


def season_scope_text(season: Season, lang: str) -> str:
    return t("season.stats_scope", lang, name=season_name(season, lang), dates=dates(season, lang))


@app_commands.command(name="seasons", description=t("commands.seasons"))
@app_commands.describe(page=t("commands.seasons_page"))
async def seasons(
    interaction: discord.Interaction[Any], page: app_commands.Range[int, 1, 10_000] = 1
) -> None:
    async with guard(interaction, reply_language(interaction), "/poker seasons"):
        store = store_of(interaction.client)
        guild_id = interaction.guild_id or 0
        settings = await store.guild_settings(guild_id)
        lang = await public_language(interaction, store)
        now = discord.utils.utcnow()
        current: Season | None = None
        past: list[Podium] = []
        pages = 1
        if settings.season != "off":
            current = parse_season(None, settings.season, now, lang)
            past, pages = await past_podiums(store, settings, now,
                                             page=page - 1, per_page=SEASONS_PAGE)  # fmt: skip
        embed = seasons_embed(settings.season, current, past, lang, page=min(page, pages) - 1,
                              pages=pages)  # fmt: skip
        await interaction.response.send_message(
            embed=to_discord(embed), allowed_mentions=discord.AllowedMentions.none()
        )


class SeasonPodiums:
    """Posts each ended season's podium once: after an interaction in its server, or from
    the periodic check (started with the league's cog, stopped when it unloads)."""

    def __init__(self, bot: commands.Bot) -> None:
        services = Services.of(bot)
        self.bot, self.store = bot, services.store
        self.podiums = Podiums(services.store, services.settings, services.clock)
        self.loop: tasks.Loop[Any] = tasks.loop(minutes=CHECK_MINUTES)(self.check)

    async def after_interaction(self, interaction: discord.Interaction[Any]) -> None:
        if interaction.guild_id is not None:
            await self.post_due(interaction.guild_id)

    async def check(self) -> None:
        """Every server with seasons on that this process holds."""
        for settings in await self.store.season_guilds():
            if self.bot.get_guild(settings.guild_id) is not None:
                await self.post_due(settings.guild_id, settings)

    async def post_due(self, guild_id: int, settings: GuildSettings | None = None) -> None:
        try:
            due = await self.podiums.due(guild_id, settings)
            if due is not None:
                await self.post(*due)
        except Exception:  # a listener's or a loop's failure must not stop the others
            log.exception("guild %s: the season's podium check failed", guild_id)

    async def post(self, settings: GuildSettings, season: Season) -> None:
        """The podium in the season channel (nobody pinged); without one, or where the bot
        may not post, it is marked done and `/poker seasons` shows its champions."""
        guild_id, posted = settings.guild_id, None
        channel = self.bot.get_channel(settings.season_channel or 0)
        if isinstance(channel, discord.abc.Messageable):
            guild = self.bot.get_guild(guild_id)
            locale = str(guild.preferred_locale) if guild is not None else ""
            lang = game_language(None, settings.language, locale)
            podium = await season_podium(self.store, guild_id, season)
            try:
                message = await channel.send(embed=to_discord(podium_embed(podium, lang)),
                                             allowed_mentions=discord.AllowedMentions.none())
                posted = message.id
            except (discord.Forbidden, discord.NotFound):
                log.warning("guild %s: cannot post the podium in channel %s", guild_id,
                            settings.season_channel)  # fmt: skip
            except discord.HTTPException:
                log.exception("guild %s: the podium was not posted (tried again later)", guild_id)
                return  # the claim runs out and the next check posts it
        await self.podiums.posted(guild_id, season, posted)
