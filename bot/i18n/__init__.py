"""Every user-facing string, one TOML catalog per language (`en.toml`, `ru.toml`, …).

Keys are dotted (`turn.title`); values are `str.format` templates. A key missing from a
language falls back to English, so a half-translated catalog never breaks the bot.

A message that shows a count is a table keyed by CLDR plural category (`one`, `few`,
`many`, `other`, …: each language lists the categories its own rules have), and its count
is the value `n`: `t("timer.lobby_expired", "ru", n=5)` → "… 5 минут …". The category is
chosen by Babel's CLDR plural rules (Russian 1 минута / 2 минуты / 5 минут, Romanian
1 minut / 2 minute / 20 de minute), never by wording around the number.
"""

from __future__ import annotations

import tomllib
from decimal import Decimal, InvalidOperation
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

from babel import Locale
from babel.numbers import format_decimal, format_percent

DEFAULT = "en"
CATEGORIES = ("zero", "one", "two", "few", "many", "other")
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


@cache
def _locale(lang: str) -> Locale:
    return Locale.parse(lang)


# A scorecard formats every cell each time it is shown (about forty numbers a card, at
# every turn's end): Babel's formatting was the largest part of the bot's own CPU per
# click. Scores repeat; the cache is bounded.
@lru_cache(maxsize=4096)
def decimal(value: float, lang: str, places: int = 0) -> str:
    """`value` with exactly `places` decimals as `lang` writes it (132,00 in ru and ro,
    132.00 in en and hi), without grouping: a score stays one short word."""
    pattern = "0." + "0" * places if places else "0"
    return str(format_decimal(value, format=pattern, locale=_locale(lang)))


def percent(ratio: float, lang: str) -> str:
    """A share as `lang` writes it ("100%", "100 %" in ru and ro), one decimal at most."""
    return str(format_percent(round(ratio, 3), locale=_locale(lang), decimal_quantization=False))


def plural_category(lang: str, n: object) -> str:
    """The CLDR plural category of the count `n` in `lang` ("1,5" and "1.50" are decimals:
    their visible fraction digits count, as CLDR says)."""
    if isinstance(n, int):
        return str(_locale(lang).plural_form(abs(n)))
    try:
        number = Decimal(str(n).replace(_locale(lang).number_symbols["latn"]["decimal"], "."))
    except InvalidOperation:
        return "other"
    if not number.is_finite():
        return "other"
    return str(_locale(lang).plural_form(abs(number)))


def categories(lang: str) -> frozenset[str]:
    """The plural categories `lang`'s rules use (every catalog entry with a count has them)."""
    return frozenset(_locale(lang).plural_form.tags) | {"other"}


def _template(key: str, lang: str, values: dict[str, Any]) -> str | None:
    entries = catalog(lang)
    template = entries.get(key)
    if template is not None or f"{key}.other" not in entries:
        return template
    if "n" not in values:
        raise KeyError(f"message {key!r} has plural forms: give its count as n=")
    category = plural_category(lang, values["n"])
    return entries.get(f"{key}.{category}") or entries[f"{key}.other"]


def t(key: str, lang: str = DEFAULT, /, **values: Any) -> str:
    """The message `key` in `lang`, formatted with `values` (a message with plural forms
    takes the form of the count `n`)."""
    if not values:
        return _bare(key, lang)
    return _formatted(key, lang, values)


@lru_cache(maxsize=4096)
def _bare(key: str, lang: str) -> str:
    # A message without values is the same every time (a scorecard shows ~100 a turn).
    return _formatted(key, lang, {})


def _formatted(key: str, lang: str, values: dict[str, Any]) -> str:
    template = _template(key, lang, values) or _template(key, DEFAULT, values)
    if template is None:
        raise KeyError(f"message {key!r} is missing from the English catalog")
    return template.format(**values)
