"""`/poker leaderboard|stats|history|export|settings`: a server's games as a league.

The commands join the play cog's `/poker` group (`cogs._group.poker_group`). Everything
they show is read from the store (`db/`), which ranks in SQL; this module only asks and
draws.
"""

from __future__ import annotations

import io
import json
import logging
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.engine import RULESETS, Game
from bot.engine.replay import ReplayError, document, run
from bot.i18n import LANGUAGES, t
from bot.render.chart import scores_chart_png
from db import METRICS, TURN_TIMEOUT_MAX, TURN_TIMEOUT_MIN, GameStore

from ._views import (
    PER_PAGE,
    BoardPager,
    board_embed,
    board_view,
    history_embed,
    lang_of,
    settings_embed,
    stats_embed,
)

log = logging.getLogger(__name__)

RULE_CHOICES = [app_commands.Choice(name=name, value=name) for name in RULESETS]
METRIC_CHOICES = [app_commands.Choice(name=t(f"commands.choices.{m}"), value=m) for m in METRICS]
LANGUAGE_CHOICES = [
    app_commands.Choice(name=t(f"commands.choices.{lang}"), value=lang) for lang in LANGUAGES
] + [app_commands.Choice(name=t("commands.choices.auto"), value="auto")]
CHART_GAMES = 20
HISTORY_PER_PAGE = 10


class Refused(Exception):  # noqa: N818 - an answer to the user, not a bug
    """Shown to the member (ephemeral) as the catalog message `key`; nothing changed."""

    def __init__(self, key: str, **values: Any) -> None:
        super().__init__(key)
        self.key = key
        self.values = values


class StatsCog(commands.Cog, name="Stats"):
    def __init__(self, bot: commands.Bot) -> None:
        self.bot = bot

    async def cog_load(self) -> None:
        # The pager buttons are stateless by id: registering them is all a restart needs.
        self.bot.add_dynamic_items(BoardPager)

    async def cog_unload(self) -> None:
        self.bot.remove_dynamic_items(BoardPager)


def store_of(client: discord.Client) -> GameStore:
    store = getattr(client, "store", None)
    if store is None:
        raise RuntimeError("the store is not open")
    return store  # type: ignore[no-any-return]


async def _reply(interaction: discord.Interaction, text: str) -> None:
    if interaction.response.is_done():
        await interaction.followup.send(text, ephemeral=True)
    else:
        await interaction.response.send_message(text, ephemeral=True)


@asynccontextmanager
async def guard(interaction: discord.Interaction, lang: str, context: str) -> AsyncIterator[None]:
    """A refusal or a failure becomes an ephemeral answer, never "interaction failed"."""
    try:
        yield
    except Refused as refused:
        await _reply(interaction, t(refused.key, lang, **refused.values))
    except Exception:
        log.exception(
            "%s failed (user %s, guild %s)", context, interaction.user.id, interaction.guild_id
        )
        try:
            await _reply(interaction, t("errors.internal", lang))
        except discord.HTTPException:
            log.exception("could not tell the user about the failure of %s", context)


# --- /poker leaderboard -------------------------------------------------------------------


async def answer_board(
    interaction: discord.Interaction,
    *,
    metric: str,
    rules: str | None,
    page: int,
    edit: bool,
    public: bool = False,
) -> None:
    """Show a leaderboard page to whoever asked or clicked, with their own line.

    `edit`: turn the page of the message clicked; otherwise a new message (public for the
    command, private for someone clicking another member's board)."""
    lang = lang_of(interaction)
    async with guard(interaction, lang, "/poker leaderboard"):
        if metric not in METRICS or (rules is not None and rules not in RULESETS):
            raise Refused("errors.stale")
        store = store_of(interaction.client)
        guild_id = interaction.guild_id or 0
        if public or edit:  # a message everyone sees speaks the server's language
            lang = lang_of(interaction, await store.guild_settings(guild_id))
        board = await store.leaderboard(
            guild_id,
            metric=metric,
            rules=rules,
            page=page,
            per_page=PER_PAGE,
            member_id=interaction.user.id,
        )
        embed = board_embed(board, interaction.user.id, lang)
        view = board_view(board, interaction.user.id, lang)
        if edit:
            await interaction.response.edit_message(embed=embed, view=view)
        else:
            await interaction.response.send_message(
                embed=embed,
                view=view,
                ephemeral=not public,
                allowed_mentions=discord.AllowedMentions.none(),
            )


@app_commands.command(name="leaderboard", description=t("commands.leaderboard"))
@app_commands.describe(
    rules=t("commands.leaderboard_rules"), metric=t("commands.leaderboard_metric")
)
@app_commands.choices(rules=RULE_CHOICES, metric=METRIC_CHOICES)
async def leaderboard(
    interaction: discord.Interaction, rules: str | None = None, metric: str = "wins"
) -> None:
    await answer_board(interaction, metric=metric, rules=rules, page=0, edit=False, public=True)


# --- /poker stats -------------------------------------------------------------------------


@app_commands.command(name="stats", description=t("commands.stats"))
@app_commands.describe(member=t("commands.stats_member"))
async def stats(interaction: discord.Interaction, member: discord.Member | None = None) -> None:
    lang = lang_of(interaction)
    async with guard(interaction, lang, "/poker stats"):
        store = store_of(interaction.client)
        guild_id = interaction.guild_id or 0
        target = member or interaction.user
        lang = lang_of(interaction, await store.guild_settings(guild_id))
        numbers = await store.member_stats(guild_id, target.id)
        if not numbers:
            raise Refused("stats.none", name=target.display_name)
        recent = await store.recent_scores(guild_id, target.id, CHART_GAMES)
        png = scores_chart_png(
            [r.total for r in recent],
            won=[r.rank == 1 for r in recent],
            title=t("stats.chart_title", lang, name=target.display_name, n=len(recent)),
            average_label=t("stats.chart_average", lang),
        )
        embed = stats_embed(target.display_name, numbers, lang)
        embed.set_image(url="attachment://scores.png")
        await interaction.response.send_message(
            embed=embed, file=discord.File(io.BytesIO(png), filename="scores.png")
        )


# --- /poker history -----------------------------------------------------------------------


@app_commands.command(name="history", description=t("commands.history"))
@app_commands.describe(page=t("commands.history_page"))
async def history(
    interaction: discord.Interaction, page: app_commands.Range[int, 1, 10_000] = 1
) -> None:
    lang = lang_of(interaction)
    async with guard(interaction, lang, "/poker history"):
        store = store_of(interaction.client)
        guild_id = interaction.guild_id or 0
        lang = lang_of(interaction, await store.guild_settings(guild_id))
        pages = max(1, -(-(await store.finished_count(guild_id)) // HISTORY_PER_PAGE))
        index = min(page, pages) - 1
        games = await store.history(
            guild_id, limit=HISTORY_PER_PAGE, offset=index * HISTORY_PER_PAGE
        )
        await interaction.response.send_message(
            embed=history_embed(games, index, pages, lang),
            allowed_mentions=discord.AllowedMentions.none(),
        )


# --- /poker export ------------------------------------------------------------------------


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


def replay_document(record: Any, actions: list[dict[str, Any]]) -> dict[str, Any]:
    """The stored actions as a replay input, players under their display names."""
    state = record.state
    if not state.get("game"):
        raise Refused("export.not_started", id=record.id)
    players = list(Game.from_dict(state["game"]).players)  # engine names, seat order
    seats = {str(s["user_id"]): s.get("name") or str(s["user_id"]) for s in state.get("seats", ())}
    shown = dict(zip(players, unique_names([seats.get(p, p) for p in players]), strict=True))
    renamed = [{**a, "player": shown.get(str(a.get("player")), a.get("player"))} for a in actions]
    doc = {"rules": record.rules, "players": [shown[p] for p in players], "actions": renamed}
    # Prove it replays before handing it out; `document` gives the canonical key order.
    return document(run(doc))


@app_commands.command(name="export", description=t("commands.export"))
@app_commands.describe(game=t("commands.export_game"))
async def export(interaction: discord.Interaction, game: app_commands.Range[int, 1]) -> None:
    lang = lang_of(interaction)
    async with guard(interaction, lang, "/poker export"):
        store = store_of(interaction.client)
        record = await store.get_game(game)
        if record is None or record.guild_id != interaction.guild_id:
            raise Refused("export.not_found", id=game)
        try:
            doc = replay_document(record, await store.actions(game))
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


# --- /poker settings ----------------------------------------------------------------------

_DURATION = re.compile(r"(?:(?P<h>\d+)h)?(?:(?P<m>\d+)m(?:in)?)?(?:(?P<s>\d+)s?)?")


def parse_duration(text: str) -> int | None:
    """Seconds from "90", "90s", "5m", "1h30m", "2h"; None when it is not a duration."""
    cleaned = text.strip().lower().replace(" ", "")
    match = _DURATION.fullmatch(cleaned)
    if not cleaned or match is None or not any(match.groups()):
        return None
    h, m, s = (int(match[k] or 0) for k in ("h", "m", "s"))
    return h * 3600 + m * 60 + s


def is_manager(interaction: discord.Interaction) -> bool:
    user = interaction.user
    return isinstance(user, discord.Member) and user.guild_permissions.manage_guild


@app_commands.command(name="settings", description=t("commands.settings"))
@app_commands.describe(
    default_rules=t("commands.settings_default_rules"),
    turn_timeout=t("commands.settings_turn_timeout"),
    bots=t("commands.settings_bots"),
    hints=t("commands.settings_hints"),
    images=t("commands.settings_images"),
    language=t("commands.settings_language"),
)
@app_commands.choices(default_rules=RULE_CHOICES, language=LANGUAGE_CHOICES)
async def settings(
    interaction: discord.Interaction,
    default_rules: str | None = None,
    turn_timeout: str | None = None,
    bots: bool | None = None,
    hints: bool | None = None,
    images: bool | None = None,
    language: str | None = None,
) -> None:
    lang = lang_of(interaction)
    async with guard(interaction, lang, "/poker settings"):
        if not is_manager(interaction):
            raise Refused("settings.forbidden")
        store = store_of(interaction.client)
        guild_id = interaction.guild_id or 0
        changes: dict[str, Any] = {}
        if default_rules is not None:
            if default_rules not in RULESETS:
                raise Refused(
                    "errors.unknown_rules", rules=default_rules, known=", ".join(RULESETS)
                )
            changes["default_rules"] = default_rules
        if turn_timeout is not None:
            seconds = parse_duration(turn_timeout)
            if seconds is None or not TURN_TIMEOUT_MIN <= seconds <= TURN_TIMEOUT_MAX:
                raise Refused("settings.bad_timeout", value=turn_timeout[:40])
            changes["turn_timeout"] = seconds
        flags = {"bots_allowed": bots, "hints_allowed": hints, "images": images}
        changes.update({key: flag for key, flag in flags.items() if flag is not None})
        if language is not None:
            changes["language"] = None if language == "auto" else language
        if not changes:  # nothing to change: show them, to the admin only
            current = await store.guild_settings(guild_id)
            await interaction.response.send_message(
                embed=settings_embed(current, lang), ephemeral=True
            )
            return
        updated = await store.update_settings(guild_id, changes, now=discord.utils.utcnow())
        # The play cog listens (its turn messages follow the hints setting); no import of it.
        interaction.client.dispatch("poker_settings_changed", updated)
        await interaction.response.send_message(
            embed=settings_embed(
                updated, lang_of(interaction, updated), changed_by=interaction.user.display_name
            )
        )


# Added to the shared `/poker` group by `setup` (cogs._group.install).
COMMANDS: tuple[app_commands.Command[Any, ..., None], ...] = (
    leaderboard,
    stats,
    history,
    export,
    settings,
)
