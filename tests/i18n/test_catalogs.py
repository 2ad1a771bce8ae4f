"""Every catalog says everything English says, with the same placeholders."""

from __future__ import annotations

import string
import tomllib
from pathlib import Path

import pytest

import bot.i18n
from bot.i18n import CATEGORIES, DEFAULT, LANGUAGES, _flatten, catalog, categories, language_of, t

CATALOGS = Path(bot.i18n.__file__).parent
OTHERS = ("ru", "ro", "hi")


def fields(template: str) -> set[str]:
    """The placeholders of a `str.format` template (`{name}`, `{n:+}` → name, n)."""
    return {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}


def test_the_four_languages_are_there():
    assert {"en", "ru", "ro", "hi"} <= set(LANGUAGES)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_catalog_parses_and_has_no_empty_value(lang: str):
    with (CATALOGS / f"{lang}.toml").open("rb") as f:
        raw = _flatten(tomllib.load(f))
    assert raw, f"{lang}.toml is empty"
    empty = [key for key, value in raw.items() if not value.strip()]
    assert not empty, f"{lang}.toml has empty values: {empty}"
    for key, value in raw.items():
        fields(value)  # raises ValueError on a stray brace
        assert isinstance(value, str), key


def messages(lang: str) -> dict[str, dict[str, str]]:
    """Each message key → its forms: {"": template}, or {category: template} for a message
    with plural forms (catalog keys `<key>.<category>` beside `<key>.other`)."""
    entries = catalog(lang)
    out: dict[str, dict[str, str]] = {}
    for key, value in entries.items():
        base, _, last = key.rpartition(".")
        if last in CATEGORIES and f"{base}.other" in entries:
            out.setdefault(base, {})[last] = value
        else:
            out.setdefault(key, {})[""] = value
    return out


@pytest.mark.parametrize("lang", OTHERS)
def test_catalog_has_exactly_the_english_keys(lang: str):
    english, other = messages(DEFAULT), messages(lang)
    missing = sorted(set(english) - set(other))
    extra = sorted(set(other) - set(english))
    assert not missing, f"{lang}.toml lacks {len(missing)} keys: {missing}"
    assert not extra, f"{lang}.toml has keys English does not: {extra}"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_plural_messages_have_every_form_of_their_language(lang: str):
    """A message with plural forms has exactly its language's CLDR categories; a message
    plural in English is plural in every language."""
    english = messages(DEFAULT)
    for key, forms in messages(lang).items():
        plural = "" not in forms
        assert plural == ("" not in english[key]), key
        if plural:
            assert set(forms) == categories(lang), (key, sorted(forms))


@pytest.mark.parametrize("lang", OTHERS)
def test_catalog_uses_the_english_placeholders(lang: str):
    """Every form says what English's `other` form says (a `one` form may leave out the
    count: "last score")."""
    english, other = messages(DEFAULT), messages(lang)
    wrong = {}
    for key in english.keys() & other.keys():
        want = fields(english[key].get("", english[key].get("other", "")))
        for form, template in other[key].items():
            got = fields(template)
            if got != want and not (form not in ("", "other") and got <= want):
                wrong[f"{key}.{form}" if form else key] = (sorted(want), sorted(got))
    assert not wrong, f"{lang}.toml placeholders differ (english, {lang}): {wrong}"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_message_formats_with_its_placeholders(lang: str):
    for entry, template in catalog(lang).items():
        values = dict.fromkeys(fields(template), 7)
        base, _, last = entry.rpartition(".")
        key = entry
        if last in CATEGORIES and f"{base}.other" in catalog(lang):
            values["n"] = 7
            key = base
        try:
            assert t(key, lang, **values)
        except (ValueError, TypeError):
            # A format spec such as {n:+} or {name:>8} wants a number or a string.
            assert t(key, lang, **dict.fromkeys(fields(template), "x"))


def test_the_games_own_terms():
    # The names players know from the rule texts in seeds/ (000 ro, 002 hi, 004 ru).
    ru = {catalog("ru")[f"rows.{k}"].lower() for k in ("four_of_a_kind", "full_house", "chance")}
    assert ru == {"каре", "фул", "шанс"}
    assert "стрит" in catalog("ru")["rows.small_straight"]
    assert "стрит" in catalog("ru")["rows.large_straight"]
    assert catalog("ru")["rows.pair"] == "Одна пара"
    assert catalog("ro")["rows.pair"] == "Pereche"
    assert catalog("ro")["rows.two_pairs"] == "Două perechi"
    assert catalog("hi")["rows.pair"] == "जोड़ी"
    assert catalog("hi")["rows.poker"] == "पोकर"
    assert catalog("hi")["rows.chance"] == "मौक़ा"  # a free chance, not a probability


def test_discord_locales_choose_a_catalog():
    assert language_of("ru") == "ru"
    assert language_of("ro") == "ro"
    assert language_of("hi") == "hi"
    assert language_of("en-US") == "en"
    assert language_of("en-GB") == "en"
    assert language_of("pt-BR") == "en"  # no Portuguese catalog: English
    assert language_of(None) == "en"
