"""Slash command names, descriptions, options and choices in every catalog language.

discord.py asks the translator for each string of the command tree when it syncs; the
answers become the `*_localizations` Discord shows to members whose client is in that
locale. English is the default (the strings the cogs declare), so only the other catalogs
are asked. Keys follow the command tree, not the English text, so rewording an English
description never loses its translations:

    commands.group                  the group's description
    commands.<command>              a command's description
    commands.<command>_<option>     an option's description
    commands.names.<group>          the group's name (`poker`)
    commands.names.<command>        a command's name
    commands.names.<command>_<option>  an option's name
    commands.choices.<value>        a choice's name (rule sets, languages)

Install it once, in `setup_hook`: `await bot.tree.set_translator(CatalogTranslator())`.
"""

from __future__ import annotations

import logging
import unicodedata
from typing import Any

import discord
from discord import app_commands
from discord.app_commands import TranslationContextLocation as Where

from bot.i18n import DEFAULT, LANGUAGES, catalog

log = logging.getLogger(__name__)

# Discord locales served by a catalog other than the default; every English locale
# (en-US, en-GB) keeps the declared strings.
LOCALES: dict[discord.Locale, str] = {
    locale: locale.value
    for locale in discord.Locale
    if locale.value in LANGUAGES and locale.value != DEFAULT
}


NAME_MAX = 32
DESCRIPTION_MAX = 100
CHOICE_MAX = 100


def valid_name(name: str) -> bool:
    """Discord's rule for command and option names: 1–32 lowercase letters, digits, `-_'`.

    Discord's pattern is `^[-_'\\p{L}\\p{N}\\p{sc=Deva}\\p{sc=Thai}]{1,32}$`: the whole
    Devanagari block is allowed, vowel signs and virama included, which `str.isalnum`
    rejects; letters with a lowercase form must use it.
    """
    if not 1 <= len(name) <= NAME_MAX or name != name.lower():
        return False
    return all(
        ch in "-_'" or unicodedata.category(ch)[0] in "LN" or "\u0900" <= ch <= "\u097f"
        for ch in name
    )


def key_for(context: app_commands.TranslationContextTypes) -> str | None:  # noqa: PLR0911 - one answer per place in the command tree
    """The catalog key of a string of the command tree, or None for strings we do not map."""
    data: Any = context.data  # a command, group, parameter or choice, by `location`
    where = context.location
    if where is Where.group_name:
        return f"commands.names.{data.name}"
    if where is Where.group_description:
        return "commands.group" if data.parent is None else f"commands.{data.name}"
    if where is Where.command_name:
        return f"commands.names.{data.name}"
    if where is Where.command_description:
        return f"commands.{data.name}"
    if where is Where.parameter_name:
        return f"commands.names.{data.command.name}_{data.name}"
    if where is Where.parameter_description:
        return f"commands.{data.command.name}_{data.name}"
    if where is Where.choice_name:
        return f"commands.choices.{data.value}"
    return None


def _limit(where: Where) -> int:
    if where in (Where.command_name, Where.group_name, Where.parameter_name):
        return NAME_MAX
    if where is Where.choice_name:
        return CHOICE_MAX
    return DESCRIPTION_MAX


class CatalogTranslator(app_commands.Translator):
    """Answers discord.py's translation requests from the TOML catalogs."""

    async def translate(
        self,
        string: app_commands.locale_str,
        locale: discord.Locale,
        context: app_commands.TranslationContextTypes,
    ) -> str | None:
        lang = LOCALES.get(locale)
        if lang is None:
            return None
        key = string.extras.get("key") or key_for(context)
        if key is None:
            return None
        text = catalog(lang).get(key)
        if not text:
            return None  # not translated yet: Discord shows the English string
        where = context.location
        names = (Where.command_name, Where.group_name, Where.parameter_name)
        if (where in names and not valid_name(text)) or len(text) > _limit(where):
            # Discord would refuse the whole sync for one bad string: keep English instead.
            log.warning("catalog %s: %s %r breaks Discord's limits; using English", lang, key, text)
            return None
        return text
