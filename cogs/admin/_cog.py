"""`/poker settings`: a server's dice poker settings (Manage Server to change them)."""

from __future__ import annotations

import re
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.engine import RULESETS, GameError
from bot.i18n import LANGUAGES, t
from bot.match import known_rules
from bot.records import SCORECARDS, SEASON_MODES, TURN_TIMEOUT_MAX, TURN_TIMEOUT_MIN
from bot.render.league import scorecards_key, settings_embed, settings_line
from bot.service import Services
from cogs._edge import (
    guard,
    is_manager,
    public_language,
    reply_language,
    shown_name,
    store_of,
    to_discord,
)

RULE_CHOICES = [app_commands.Choice(name=t(f"commands.choices.{n}"), value=n) for n in RULESETS]
LANGUAGE_CHOICES = [
    app_commands.Choice(name=t(f"commands.choices.{lang}"), value=lang) for lang in LANGUAGES
] + [app_commands.Choice(name=t("commands.choices.auto"), value="auto")]
# Named as the settings card names them (the translator follows the key).
SCORECARD_CHOICES = [
    app_commands.Choice(name=app_commands.locale_str(t(key), key=key), value=s)
    for s, key in ((s, scorecards_key(s)) for s in SCORECARDS)
]
SEASON_CHOICES = [
    app_commands.Choice(name=app_commands.locale_str(t(key), key=key), value=mode)
    for mode, key in ((m, f"season.mode_{m}") for m in SEASON_MODES)
]
# The keys of /poker settings' options as the settings card names its rows.
SHOWN_AS = {"bots_allowed": "bots", "hints_allowed": "hints"}

_DURATION = re.compile(r"(?:(?P<h>\d{1,3})h)?(?:(?P<m>\d{1,5})m(?:in)?)?(?:(?P<s>\d{1,6})s?)?")


def parse_duration(text: str) -> int | None:
    """Seconds from "90", "90s", "5m", "1h30m", "2h"; None when it is not a duration."""
    cleaned = text.strip().lower().replace(" ", "")
    match = _DURATION.fullmatch(cleaned)
    if not cleaned or match is None or not any(match.groups()):
        return None
    h, m, s = (int(match[k] or 0) for k in ("h", "m", "s"))
    return h * 3600 + m * 60 + s


def season_changes(season: str | None, channel: discord.TextChannel | None) -> dict[str, Any]:
    """The season options' changes (a season that is not a choice: a stale command)."""
    changes: dict[str, Any] = {}
    if season is not None:
        if season not in SEASON_MODES:
            raise GameError("errors.stale")
        changes["season"] = season
    if channel is not None:
        changes["season_channel"] = channel.id
    return changes


@app_commands.command(name="settings", description=t("commands.settings"))
@app_commands.describe(
    default_rules=t("commands.settings_default_rules"),
    turn_timeout=t("commands.settings_turn_timeout"),
    bots=t("commands.settings_bots"),
    hints=t("commands.settings_hints"),
    images=t("commands.settings_images"),
    scorecards=t("commands.settings_scorecards"),
    language=t("commands.settings_language"),
    season=t("commands.settings_season"),
    season_channel=t("commands.settings_season_channel"),
)
@app_commands.choices(
    default_rules=RULE_CHOICES,
    language=LANGUAGE_CHOICES,
    scorecards=SCORECARD_CHOICES,
    season=SEASON_CHOICES,
)
async def settings(  # noqa: PLR0913 - a slash command's options are its parameters
    interaction: discord.Interaction[Any],
    default_rules: str | None = None,
    turn_timeout: str | None = None,
    bots: bool | None = None,
    hints: bool | None = None,
    images: bool | None = None,
    scorecards: str | None = None,
    language: str | None = None,
    season: str | None = None,
    season_channel: discord.TextChannel | None = None,
) -> None:
    lang = reply_language(interaction)
    async with guard(interaction, lang, "/poker settings") as done:
        if not is_manager(interaction, interaction.guild_id):
            raise GameError("settings.forbidden")
        store = store_of(interaction.client)
        guild_id = interaction.guild_id or 0
        changes: dict[str, Any] = {}
        if default_rules is not None:
            changes["default_rules"] = known_rules(default_rules)
        if turn_timeout is not None:
            seconds = parse_duration(turn_timeout)
            if seconds is None or not TURN_TIMEOUT_MIN <= seconds <= TURN_TIMEOUT_MAX:
                raise GameError("settings.bad_timeout", value=turn_timeout[:40])
            changes["turn_timeout"] = seconds
        flags = {"bots_allowed": bots, "hints_allowed": hints, "images": images}
        changes.update({key: flag for key, flag in flags.items() if flag is not None})
        if scorecards is not None:
            if scorecards not in SCORECARDS:
                raise GameError("errors.stale")
            changes["scorecards"] = scorecards
        if language is not None:
            if language != "auto" and language not in LANGUAGES:
                raise GameError("errors.stale")
            changes["language"] = None if language == "auto" else language
        changes.update(season_changes(season, season_channel))
        if not changes:  # nothing to change: show them, to the admin only
            current = await store.guild_settings(guild_id)
            await interaction.response.send_message(
                embed=to_discord(settings_embed(current, lang)), ephemeral=True
            )
            return
        # Through the games' settings, so this process's games follow at once.
        updated = await Services.of(interaction.client).settings.update(
            guild_id, changes, now=discord.utils.utcnow()
        )
        done.stored = True  # from here on, "nothing was changed" is false
        # The whole card for the manager alone; the channel gets one line of what changed.
        by = shown_name(interaction.user)
        card = settings_embed(updated, lang, changed_by=by)
        await interaction.response.send_message(embed=to_discord(card), ephemeral=True)
        public = await public_language(interaction, store)
        changed = [SHOWN_AS.get(key, key) for key in changes]
        await interaction.followup.send(
            settings_line(updated, changed, by, public),
            allowed_mentions=discord.AllowedMentions.none(),
        )


COMMANDS: tuple[app_commands.Command[Any, ..., None], ...] = (settings,)


class AdminCog(commands.Cog, name="Admin"):
    def __init__(self, bot: commands.Bot) -> None:
        self.bot = bot
