"""`/poker settings`: a server's dice poker settings (Manage Server to change them)."""

from __future__ import annotations

import re
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.engine import RULESETS, GameError
from bot.i18n import LANGUAGES, t
from bot.render.league import SettingsView, scorecards_key, settings_embed, settings_line
from cogs._edge import (
    COMMITTED,
    guard,
    is_manager,
    public_language,
    reply_language,
    shown_name,
    store_of,
    to_discord,
)
from db import SCORECARDS, TURN_TIMEOUT_MAX, TURN_TIMEOUT_MIN, GuildSettings

RULE_CHOICES = [app_commands.Choice(name=t(f"commands.choices.{n}"), value=n) for n in RULESETS]
LANGUAGE_CHOICES = [
    app_commands.Choice(name=t(f"commands.choices.{lang}"), value=lang) for lang in LANGUAGES
] + [app_commands.Choice(name=t("commands.choices.auto"), value="auto")]
# Named as the settings card names them (the translator follows the key).
SCORECARD_CHOICES = [
    app_commands.Choice(name=app_commands.locale_str(t(key), key=key), value=s)
    for s, key in ((s, scorecards_key(s)) for s in SCORECARDS)
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


def view_of(settings: GuildSettings) -> SettingsView:
    return SettingsView(
        default_rules=settings.default_rules,
        turn_timeout=settings.turn_timeout,
        bots_allowed=settings.bots_allowed,
        hints_allowed=settings.hints_allowed,
        images=settings.images,
        language=settings.language,
        scorecards=settings.scorecards,
    )


@app_commands.command(name="settings", description=t("commands.settings"))
@app_commands.describe(
    default_rules=t("commands.settings_default_rules"),
    turn_timeout=t("commands.settings_turn_timeout"),
    bots=t("commands.settings_bots"),
    hints=t("commands.settings_hints"),
    images=t("commands.settings_images"),
    scorecards=t("commands.settings_scorecards"),
    language=t("commands.settings_language"),
)
@app_commands.choices(
    default_rules=RULE_CHOICES, language=LANGUAGE_CHOICES, scorecards=SCORECARD_CHOICES
)
async def settings(
    interaction: discord.Interaction[Any],
    default_rules: str | None = None,
    turn_timeout: str | None = None,
    bots: bool | None = None,
    hints: bool | None = None,
    images: bool | None = None,
    scorecards: str | None = None,
    language: str | None = None,
) -> None:
    lang = reply_language(interaction)
    async with guard(interaction, lang, "/poker settings"):
        if not is_manager(interaction, interaction.guild_id):
            raise GameError("settings.forbidden")
        store = store_of(interaction.client)
        guild_id = interaction.guild_id or 0
        changes: dict[str, Any] = {}
        if default_rules is not None:
            if default_rules not in RULESETS:
                raise GameError("unknown_rules", rules=default_rules, known=", ".join(RULESETS))
            changes["default_rules"] = default_rules
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
        if not changes:  # nothing to change: show them, to the admin only
            current = await store.guild_settings(guild_id)
            await interaction.response.send_message(
                embed=to_discord(settings_embed(view_of(current), lang)), ephemeral=True
            )
            return
        updated = await store.update_settings(guild_id, changes, now=discord.utils.utcnow())
        interaction.extras[COMMITTED] = True  # from here on, "nothing was changed" is false
        # The whole card for the manager alone; the channel gets one line of what changed.
        by = shown_name(interaction.user)
        card = settings_embed(view_of(updated), lang, changed_by=by)
        await interaction.response.send_message(embed=to_discord(card), ephemeral=True)
        public = await public_language(interaction, store)
        changed = [SHOWN_AS.get(key, key) for key in changes]
        await interaction.followup.send(
            settings_line(view_of(updated), changed, by, public),
            allowed_mentions=discord.AllowedMentions.none(),
        )


COMMANDS: tuple[app_commands.Command[Any, ..., None], ...] = (settings,)


class AdminCog(commands.Cog, name="Admin"):
    def __init__(self, bot: commands.Bot) -> None:
        self.bot = bot
