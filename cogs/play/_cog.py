"""`/poker new|scorecard|rules|leave|cancel|kick|resume` and the play cog's wiring."""

from __future__ import annotations

import logging
from datetime import timedelta
from pathlib import Path
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.engine import RULESETS, GameError
from bot.i18n import LANGUAGES, t
from bot.match import DEFAULT_RULES, Match, known_rules, rules_or_default
from bot.render import card_embed, rules_embed
from bot.render.embed import safe
from bot.service import RepostTooSoon
from cogs._edge import (
    caller_of,
    check_permissions,
    cog_of,
    guard,
    is_manager,
    reply_language,
    shown_name,
    table_language,
    to_discord,
)
from cogs._ids import small_int
from cogs._turn import unstored

from ._analysis import Analysis
from ._computer import ComputerPlayers
from ._controls import CONTROLS, Control, PlayDeps, control, custom_id, template, unknown_control
from ._publish import DiscordPublisher
from ._timers import TurnTimers
from ._via import Via

log = logging.getLogger(__name__)

# The project's rule book, attached to /poker rules (where the bot runs from its checkout,
# as `make run` does, or from the container image, which copies docs/).
RULES_DOC = Path(__file__).resolve().parents[2] / "docs" / "rules.md"
REPOST_EVERY = timedelta(minutes=1)  # /poker resume pings the player to move at most this often
LABEL_MAX = 80  # Discord's limit for a button label
COG_NAME = "Play"

# Choice names from the catalog (translated for other locales by cogs._translator).
RULE_CHOICES = [app_commands.Choice(name=t(f"commands.choices.{n}"), value=n) for n in RULESETS]
LANGUAGE_CHOICES = [
    app_commands.Choice(name=t(f"commands.choices.{lang}"), value=lang) for lang in LANGUAGES
]


def _deps(interaction: discord.Interaction[Any]) -> PlayDeps:
    return PlayDeps.of(interaction.client)


def _publisher(interaction: discord.Interaction[Any]) -> DiscordPublisher:
    return cog_of(interaction, COG_NAME, PlayCog).publisher


async def _in_channel(interaction: discord.Interaction[Any]) -> Match:
    found = await _deps(interaction).service.in_channel(interaction.channel_id or 0)
    if found is None or not found.can_reach(caller_of(interaction)):
        raise GameError("errors.no_game")
    return found


@app_commands.command(name="new", description=t("commands.new"))
@app_commands.describe(rules=t("commands.new_rules"), language=t("commands.new_language"))
@app_commands.choices(rules=RULE_CHOICES, language=LANGUAGE_CHOICES)
async def new(
    interaction: discord.Interaction[Any], rules: str | None = None, language: str | None = None
) -> None:
    deps = _deps(interaction)
    async with guard(interaction, reply_language(interaction), "/poker new"):
        settings = await deps.settings.fresh(interaction.guild_id)
        lang = table_language(interaction, language, settings.language)
        rules = rules_or_default(rules, settings.default_rules)
        check_permissions(interaction)
        user = interaction.user
        draft = Match.lobby(
            caller_of(interaction), shown_name(user), rules=rules, lang=lang,
            now=deps.service.clock(),
        )  # fmt: skip
        match = await deps.service.open(draft)
        try:
            sent = await interaction.response.send_message(
                **await _publisher(interaction).live_fields(match)
            )
        except discord.HTTPException:
            # A lobby nobody can see must not block the channel for half an hour.
            await deps.service.apply(match.id, lambda m: m.cancel(m.host_id, manager=True))
            raise
        message_id = getattr(sent, "message_id", None)
        if message_id is not None:
            await deps.service.note_lobby(match.id, message_id)
        # Without the id (Discord did not say) the lobby finds its message at the next click.


@app_commands.command(name="scorecard", description=t("commands.scorecard"))
@app_commands.describe(member=t("commands.scorecard_member"))
async def scorecard(
    interaction: discord.Interaction[Any], member: discord.Member | None = None
) -> None:
    lang = reply_language(interaction)  # every answer here is ephemeral
    async with guard(interaction, lang, "/poker scorecard"):
        match = await _in_channel(interaction)
        game = match.require_game()
        target = member or interaction.user
        if str(target.id) not in game.players:
            raise GameError("errors.no_card", name=shown_name(target))
        embed = card_embed(game, str(target.id), match.names, match.id, lang)
        await interaction.response.send_message(embed=to_discord(embed), ephemeral=True)


@app_commands.command(name="rules", description=t("commands.rules"))
@app_commands.describe(rules=t("commands.rules_rules"))
@app_commands.choices(rules=RULE_CHOICES)
async def rules_card(interaction: discord.Interaction[Any], rules: str = DEFAULT_RULES) -> None:
    lang = reply_language(interaction)
    async with guard(interaction, lang, "/poker rules"):
        known_rules(rules)
        extra: dict[str, Any] = {}
        if RULES_DOC.is_file():
            extra["file"] = discord.File(RULES_DOC, filename="dicepoker-rules.md")
        embed = rules_embed(rules, lang, full=bool(extra))
        await interaction.response.send_message(embed=to_discord(embed), ephemeral=True, **extra)


@app_commands.command(name="leave", description=t("commands.leave"))
async def leave(interaction: discord.Interaction[Any]) -> None:
    lang = reply_language(interaction)  # every answer here is ephemeral
    async with guard(interaction, lang, "/poker leave") as done:
        match = await _in_channel(interaction)
        user_id = interaction.user.id
        service = _deps(interaction).service
        via = Via(interaction)
        if match.status == "lobby":
            done.saved(await service.apply(match.id, lambda m: m.leave_lobby(user_id), via=via))
            await interaction.response.send_message(t("info.left_lobby", lang), ephemeral=True)
            return
        check_permissions(interaction)
        done.saved(await service.apply(match.id, lambda m: m.leave_game(user_id), via=via))
        await interaction.response.send_message(t("info.left_game", lang), ephemeral=True)


@app_commands.command(name="cancel", description=t("commands.cancel"))
async def cancel(interaction: discord.Interaction[Any]) -> None:
    lang = reply_language(interaction)  # every answer here is ephemeral
    async with guard(interaction, lang, "/poker cancel") as done:
        match = await _in_channel(interaction)
        user_id, manager = interaction.user.id, is_manager(interaction, match.guild_id)
        cancelled = await _deps(interaction).service.apply(
            match.id, lambda m: m.cancel(user_id, manager=manager), via=Via(interaction)
        )
        done.saved(cancelled)
        await interaction.response.send_message(t("info.cancelled", lang), ephemeral=True)


# --- /poker kick -------------------------------------------------------------------------


@control("kick")
class KickButton(Control, template=template("kick")):
    """The host's confirmation: `poker:kick:<game>:<v>:<member>`. Not versioned (the game
    moves on while the host decides); every check is made again when it is pressed."""

    versioned = False

    async def run(self, interaction: discord.Interaction[Any], deps: PlayDeps) -> None:
        target = small_int(self.arg, 1, 2**63 - 1)
        if target is None:
            raise GameError("errors.stale")
        by = interaction.user.id
        names: list[str] = []  # as the table knew them before the kick

        def kick(m: Match) -> Match:
            if m.status == "playing":
                check_permissions(interaction)
            names.append(m.name_of(target))
            return m.kick(by, target)

        await deps.change(interaction, self, kick)
        name = names[-1]
        if not interaction.response.is_done():
            lang = reply_language(interaction)
            await interaction.response.edit_message(
                content=t("kick.done", lang, name=safe(name)), view=None
            )


@app_commands.command(name="kick", description=t("commands.kick"))
@app_commands.describe(member=t("commands.kick_member"))
async def kick(interaction: discord.Interaction[Any], member: discord.User) -> None:
    lang = reply_language(interaction)
    async with guard(interaction, lang, "/poker kick"):
        match = await _in_channel(interaction)
        match.check_kick(interaction.user.id, member.id)
        name = safe(match.name_of(member.id))
        button: discord.ui.Button[Any] = discord.ui.Button(
            label=t("kick.button", lang, name=match.name_of(member.id))[:LABEL_MAX],
            style=discord.ButtonStyle.danger,
            custom_id=custom_id("kick", match.id, match.version, member.id),
        )
        view = discord.ui.View(timeout=None)
        view.add_item(KickButton(button, match.id, match.version, str(member.id)))
        await interaction.response.send_message(
            t("kick.confirm", lang, name=name), view=unstored(view), ephemeral=True
        )


# --- /poker resume -------------------------------------------------------------------------


@app_commands.command(name="resume", description=t("commands.resume"))
async def resume(interaction: discord.Interaction[Any]) -> None:
    """Post the game's live message again: for its players, its host and managers, and
    at most once a minute (a repost pings the player to move)."""
    lang = reply_language(interaction)
    deps = _deps(interaction)
    async with guard(interaction, lang, "/poker resume") as done:
        match = await _in_channel(interaction)
        match.verify_resume(interaction.user.id, manager=is_manager(interaction, match.guild_id))
        check_permissions(interaction)
        await interaction.response.defer(ephemeral=True, thinking=True)
        try:
            done.saved(await deps.service.repost(match.id, every=REPOST_EVERY))  # posted
        except RepostTooSoon as soon:
            when = f"<t:{int(soon.until.timestamp())}:R>"
            raise GameError("resume.too_soon", when=when) from None
        await interaction.followup.send(t("resume.done", lang), ephemeral=True)


COMMANDS: tuple[app_commands.Command[Any, ..., None], ...] = (
    new,
    scorecard,
    rules_card,
    leave,
    cancel,
    kick,
    resume,
)


class PlayCog(commands.Cog, name=COG_NAME):
    def __init__(self, bot: commands.Bot, deps: PlayDeps, publisher: DiscordPublisher) -> None:
        self.bot = bot
        self.deps = deps
        self.publisher = publisher
        service = deps.service
        self.timers = TurnTimers(service, deps.solutions, deps.dice)
        self.computers = ComputerPlayers(
            service, deps.solutions, deps.dice, bot, pause=deps.bot_pause
        )
        self.analysis = Analysis(service, deps.solutions, publisher)
        for observer in (self.timers, self.computers, self.analysis):
            service.subscribe(observer)
        self._unknown = unknown_control(CONTROLS.values())

    async def cog_load(self) -> None:
        self.bot.add_dynamic_items(*CONTROLS.values(), self._unknown)
        loaded = await self.deps.service.load_active()
        log.info("loaded %d active game(s)", len(loaded))
        # Games whose computer seat was to move when the bot stopped continue now.
        self.computers.resume(loaded)
        await self.timers.start(loaded)

    async def cog_unload(self) -> None:
        await self.computers.stop()
        await self.analysis.stop()
        await self.publisher.stop()
        self.timers.stop()
        self.bot.remove_dynamic_items(*CONTROLS.values(), self._unknown)


__all__ = ["COMMANDS", "PlayCog"]
