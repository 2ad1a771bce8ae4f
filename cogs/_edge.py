"""What every command and control of the bot shares at the Discord edge.

- `guard`: a refusal (`GameError`) becomes a polite ephemeral answer in the member's
  language; a failure is logged with its context and answered honestly — "nothing was
  changed" only when nothing was, "saved, but not shown" when the change was committed
  (the service says so with NotShown; a command that goes on after its change marks the
  guard's `Outcome`).
- `reply`: an ephemeral answer whether or not the interaction was answered already.
- language choice: ephemeral answers follow the member's Discord language, public
  messages the server's (`/poker settings language:`, else its preferred locale).
- `is_manager`: Manage Server, judged in the guild the game belongs to; `caller_of`: who
  clicked or commanded, and where (the model decides what they may reach).
- `check_permissions`: refuse before changing anything when the bot could not post.
- `to_discord`: render's plain embeds as discord.py's.
"""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, TypeVar, cast

import discord
from discord.ext import commands

from bot.engine import FACE, LOWER, RULESETS, GameError
from bot.i18n import game_language, language_of, rules_name, t
from bot.match import Caller, Match
from bot.metrics import answered
from bot.render.embed import Embed, safe
from bot.service import NotShown
from db import GameStore

log = logging.getLogger(__name__)

NEEDED = ("view_channel", "send_messages", "embed_links")  # to run a game in a channel
# What a tournament's tables need besides: a public thread each, posted in, archived and locked.
THREADS = ("create_public_threads", "send_messages_in_threads", "manage_threads")
ROWS = frozenset(FACE) | frozenset(LOWER)


class MissingPermissions(GameError):  # noqa: N818 - a refusal, shown to the member
    """The bot cannot post here: `permissions` names them (translated when shown)."""

    def __init__(self, missing: Sequence[str]) -> None:
        super().__init__("errors.missing_permissions", permissions=tuple(missing))


def missing_permissions(
    permissions: discord.Permissions, channel: object | None, *, threads: bool = False
) -> list[str]:
    needed = list(NEEDED)
    if isinstance(channel, discord.Thread):
        needed[1] = "send_messages_in_threads"
    if threads:  # a tournament's tables: their threads too
        needed += [p for p in THREADS if p not in needed]
    return [p for p in needed if not getattr(permissions, p)]


def check_permissions(interaction: discord.Interaction[Any], *, threads: bool = False) -> None:
    """Refuse before changing anything when the bot could not post the result (`threads`:
    nor open, post in and close a tournament table's thread)."""
    missing = missing_permissions(interaction.app_permissions, interaction.channel,
                                  threads=threads)  # fmt: skip
    if missing:
        raise MissingPermissions(missing)


def permission_names(missing: Sequence[str], lang: str) -> str:
    return ", ".join(t(f"permissions.{p}", lang) for p in missing)


def store_of(client: discord.Client) -> GameStore:
    """The store the app opened for this client."""
    store = getattr(client, "store", None)
    if store is None:
        raise RuntimeError("the store is not open")
    return cast(GameStore, store)


# --- language ---------------------------------------------------------------------------


def reply_language(interaction: discord.Interaction[Any]) -> str:
    """The language of an answer only the member sees: their own Discord client's."""
    return language_of(str(interaction.locale) if interaction.locale else None)


def table_language(
    interaction: discord.Interaction[Any], chosen: str | None, setting: str | None
) -> str:
    """The language a new game or tournament is played in: the command's choice, else the
    server's setting, else the server's Discord language."""
    guild = interaction.guild
    return game_language(chosen, setting, str(guild.preferred_locale) if guild else None)


async def public_language(interaction: discord.Interaction[Any], store: GameStore) -> str:
    """The language of a message everyone in the channel sees: the server's."""
    setting = None
    if interaction.guild_id is not None:
        setting = (await store.guild_settings(interaction.guild_id)).language
    guild = interaction.guild
    locale = str(guild.preferred_locale) if guild is not None else None
    return game_language(None, setting, locale or str(interaction.guild_locale or ""))


CogT = TypeVar("CogT", bound=commands.Cog)


def cog_of(interaction: discord.Interaction[Any], name: str, kind: type[CogT]) -> CogT:
    """The loaded cog `name` of type `kind`: a feature's module-level commands reach their
    cog's parts (its publisher) through it."""
    cog = interaction.client.get_cog(name)
    if not isinstance(cog, kind):
        raise RuntimeError(f"the {name} cog is not loaded")
    return cog


# --- people -----------------------------------------------------------------------------


def shown_name(user: discord.abc.User) -> str:
    """A member's name as the game shows it, raw: render escapes it where it is shown."""
    return getattr(user, "display_name", None) or user.name


def caller_of(interaction: discord.Interaction[Any]) -> Caller:
    return Caller(interaction.user.id, interaction.guild_id, interaction.channel_id)


def is_manager(interaction: discord.Interaction[Any], guild_id: int | None) -> bool:
    """Manage Server in `guild_id` (the game's): powers never cross servers."""
    user = interaction.user
    return (
        guild_id is not None
        and interaction.guild_id == guild_id
        and isinstance(user, discord.Member)
        and user.guild.id == guild_id
        and user.guild_permissions.manage_guild
    )


# --- answers ----------------------------------------------------------------------------


def sentence(text: str, *, names: Sequence[str] = ()) -> str:
    """A refusal as a sentence on its own: capital first letter, final stop. A sentence
    that starts with one of `names` (a member's name, as typed) keeps it as it is."""
    if not text:
        return text
    if not any(name and text.startswith(name) for name in names):
        text = text[0].upper() + text[1:]
    return text if text[-1] in ".!?…।" else text + "."


# Parameters holding text a member typed (a name, a setting's value): shown, never
# interpreted (markdown, mentions), wherever a refusal carries them.
USER_TEXT = frozenset({"name", "player", "value"})


def refusal_text(error: GameError, lang: str) -> str:
    """The refusal in `lang`, with rows and rule sets named as the language names them and
    members' text escaped."""
    overrides: dict[str, object] = {
        k: safe(v) for k, v in error.params.items() if k in USER_TEXT and isinstance(v, str)
    }
    row = error.params.get("row")
    if isinstance(row, str) and row in ROWS:
        overrides["row"] = t(f"rows.{row}", lang)
    rows = error.params.get("rows")
    if isinstance(rows, tuple):  # row keys (a joker's rows), named as the language names them
        overrides["rows"] = ", ".join(t(f"rows.{r}", lang) if r in ROWS else str(r) for r in rows)
    rules = error.params.get("rules")
    if isinstance(rules, str) and "known" not in error.params:
        overrides["rules"] = rules_name(rules, lang)
    if "known" in error.params:  # the rule sets as the member's choice list names them
        overrides["known"] = ", ".join(rules_name(r, lang) for r in RULESETS)
    permissions = error.params.get("permissions")
    if isinstance(permissions, tuple):  # permission keys, named in the member's language
        overrides["permissions"] = permission_names(permissions, lang)
        overrides["n"] = len(permissions)  # "permission" or "permissions", as lang says
    params = {**error.params, **overrides}
    names = [v for v in params.values() if isinstance(v, str)]
    return sentence(error.message(lang, **overrides), names=names)


async def reply(interaction: discord.Interaction[Any], text: str, **kwargs: Any) -> None:
    """An ephemeral answer, whether or not the interaction was already answered."""
    kwargs.setdefault("allowed_mentions", discord.AllowedMentions.none())
    if interaction.response.is_done():
        await interaction.followup.send(text, ephemeral=True, **kwargs)
    else:
        await interaction.response.send_message(text, ephemeral=True, **kwargs)


@dataclass
class Outcome:
    """What the guarded work has done so far: once a change is stored, a failure after it
    (an answer Discord refused) is told as "done", never "nothing was changed"."""

    stored: bool = False
    closed: bool = False  # the stored change ended the game

    def saved(self, match: Match) -> Match:
        self.stored, self.closed = True, not match.active
        return match


def not_shown_key(interaction: discord.Interaction[Any], *, closed: bool) -> str:
    """What is true once a change is stored but Discord refused some of the answer: a
    move is saved; a command is done; a game that is over has nothing to resume."""
    if closed:
        return "errors.done_closed"
    if interaction.type == discord.InteractionType.component:
        return "errors.not_shown"
    return "errors.done_not_shown"


@asynccontextmanager
async def guard(
    interaction: discord.Interaction[Any], lang: str, context: str, *, control: str | None = None
) -> AsyncIterator[Outcome]:
    """Refusals and failures become an ephemeral answer: never "interaction failed", and
    never "nothing was changed" about a change that was stored. Counted and timed by
    `control` (a bounded label: the action or the command, never a custom_id)."""
    began = time.perf_counter()
    outcome = "applied"
    done = Outcome()
    try:
        yield done
    except GameError as refusal:
        outcome = "stale" if refusal.code == "errors.stale" else "refused"
        text = refusal_text(refusal, lang)
        if isinstance(refusal, NotShown):
            if refusal.__cause__ is not None and not isinstance(
                refusal.__cause__, discord.HTTPException
            ):
                outcome = "failed"  # stored, then a bug: logged by the service
            if refusal.code == "errors.not_shown":  # stored, not shown: said as it is true here
                text = t(not_shown_key(interaction, closed=refusal.closed), lang)
        await _answer(interaction, text, context)
    except Exception:
        outcome = "failed"
        log.exception(
            "%s failed (user %s, guild %s, channel %s)",
            context,
            interaction.user.id,
            interaction.guild_id,
            interaction.channel_id,
        )
        key = not_shown_key(interaction, closed=done.closed) if done.stored else "errors.internal"
        await _answer(interaction, t(key, lang), context)
    else:
        if not interaction.response.is_done():
            await interaction.response.defer()
    finally:
        answered(control or context, outcome, time.perf_counter() - began)


async def _answer(interaction: discord.Interaction[Any], text: str, context: str) -> None:
    try:
        await reply(interaction, text)
    except discord.HTTPException:
        log.warning("could not answer %s (user %s)", context, interaction.user.id)


# --- embeds -----------------------------------------------------------------------------


def to_discord(embed: Embed) -> discord.Embed:
    return discord.Embed.from_dict(embed.to_dict())
