"""Every user-facing string, one TOML catalog per language (`en.toml`, `ru.toml`, …).

Keys are dotted (`turn.title`); values are `str.format` templates. A key missing from a
language falls back to English, so a half-translated catalog never breaks the bot.
"""

from __future__ import annotations

import tomllib
from functools import cache
from pathlib import Path
from typing import Any

DEFAULT = "en"
LANGUAGES: tuple[str, ...] = tuple(
    sorted(p.stem for p in Path(__file__).parent.glob("*.toml"))
)


def _flatten(table: dict[str, Any], prefix: str = "") -> dict[str, str]:
    out: dict[str, str] = {}
    for key, value in table.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            out.update(_flatten(value, name + "."))
        else:
            out[name] = str(value)
    return out


@cache
def catalog(lang: str) -> dict[str, str]:
    path = Path(__file__).parent / f"{lang}.toml"
    if not path.exists():
        return {}
    with path.open("rb") as f:
        return _flatten(tomllib.load(f))


def language_of(locale: str | None) -> str:
    """The catalog for a Discord locale (`ru`, `en-US`, `hi` …), English when we have none."""
    if not locale:
        return DEFAULT
    lang = str(locale).split("-")[0].lower()
    return lang if lang in LANGUAGES else DEFAULT


def game_language(
    chosen: str | None, server_default: str | None, guild_locale: str | None
) -> str:
    """The language of a game's public messages: `/poker new language:`, else the server's
    `language` setting, else the server's preferred locale in Discord, else English."""
    for lang in (chosen, server_default):
        if lang in LANGUAGES:
            return lang
    return language_of(guild_locale)


def rules_name(rules: str, lang: str) -> str:
    """A rule set's name as players of `lang` know it: its choice name in `/poker new`."""
    key = f"commands.choices.{rules}"
    return catalog(lang).get(key) or catalog(DEFAULT).get(key) or rules


def t(key: str, lang: str = DEFAULT, /, **values: Any) -> str:
    """The message `key` in `lang`, formatted with `values`."""
    template = catalog(lang).get(key) or catalog(DEFAULT).get(key)
    if template is None:
        raise KeyError(f"message {key!r} is missing from the English catalog")
    return template.format(**values)
