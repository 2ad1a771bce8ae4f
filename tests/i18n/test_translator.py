"""Slash commands in Russian, Romanian and Hindi: names valid for Discord, every string present."""

from __future__ import annotations

import logging

import discord
import pytest
from discord import app_commands

from bot.i18n import LANGUAGES, catalog
from bot.render.league import scorecards_key
from cogs import _translator as translator
from cogs._translator import LOCALES, CatalogTranslator, key_for, valid_name

OTHERS = ("ru", "ro", "hi")
LOCALE_OF = {
    "ru": discord.Locale.russian,
    "ro": discord.Locale.romanian,
    "hi": discord.Locale.hindi,
}


@pytest.fixture
async def the_tree(simcord_env):
    """The real `/poker` group of a started bot, with every cog's subcommands."""
    env = simcord_env
    group = env.bot.tree.get_command("poker")
    assert isinstance(group, app_commands.Group)
    yield env.bot.tree, group
    if not env.bot.is_closed():
        await env.bot.close()


def test_discord_locales_map_to_catalogs():
    assert {locale: lang for lang, locale in LOCALE_OF.items()} == LOCALES
    assert discord.Locale.american_english not in LOCALES  # English is the default
    assert set(LOCALES.values()) == set(LANGUAGES) - {"en"}


@pytest.mark.parametrize(
    "name",
    [
        "poker",
        "new",
        "покер",
        "новая",
        "ieși",
        "jucător",
        "नया",
        "छोड़ें",
        "स्कोरकार्ड",
        "a-b_c'd",
        "x" * 32,
    ],
)
def test_names_discord_accepts(name: str):
    assert valid_name(name)


@pytest.mark.parametrize("name", ["", "Покер", "New", "two words", "a.b", "x" * 33, "poker!", "🎲"])
def test_names_discord_refuses(name: str):
    assert not valid_name(name)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_catalog_name_obeys_discord(lang: str):
    names = {k: v for k, v in catalog(lang).items() if k.startswith("commands.names.")}
    assert names
    bad = {k: v for k, v in names.items() if not valid_name(v)}
    assert not bad
    descriptions = {
        k: v for k, v in catalog(lang).items() if k.startswith("commands.") and k.count(".") == 1
    }
    assert descriptions
    assert all(1 <= len(v) <= 100 for v in descriptions.values()), descriptions


def test_english_names_are_the_declared_names(the_tree):
    _, group = the_tree
    en = catalog("en")
    assert en[f"commands.names.{group.name}"] == group.name
    for command in group.walk_commands():  # the daily subgroup's commands too
        assert en[f"commands.names.{command.name}"] == command.name
        assert en[_key(command._locale_description, f"commands.{command.name}")] == (
            command.description
        )  # (a string declared under its own key: the tournament's new and export)
        for param in getattr(command, "parameters", ()):
            assert en[f"commands.names.{command.name}_{param.name}"] == param.name
            declared = param.locale_description
            assert en[_key(declared, f"commands.{command.name}_{param.name}")] == (
                param.description
            )


def _key(text: object, default: str) -> str:
    return (getattr(text, "extras", None) or {}).get("key") or default


@pytest.mark.parametrize("lang", OTHERS)
async def test_the_real_tree_is_translated_everywhere(the_tree, lang: str):
    tree, group = the_tree
    payload = await group.get_translated_payload(tree, CatalogTranslator())
    locale = LOCALE_OF[lang].value
    cat = catalog(lang)
    assert payload["name_localizations"][locale] == cat["commands.names.poker"]
    assert payload["description_localizations"][locale] == cat["commands.group"]
    subs = list(payload["options"])
    group_type = discord.AppCommandOptionType.subcommand_group.value
    groups = [sub for sub in subs if sub["type"] == group_type]
    # /poker daily play|board; /poker tournament new|export, described under their own keys
    assert [g["name"] for g in groups] == ["daily", "tournament"]
    described = [(s, f"commands.{s['name']}") for s in subs]
    described += [(s, f"commands.{'' if g['name'] == 'daily' else 'tournament_'}{s['name']}")
                  for g in groups for s in g["options"]]  # fmt: skip
    for sub, key_of in described:
        assert sub["name_localizations"][locale] == cat[f"commands.names.{sub['name']}"]
        assert sub["description_localizations"][locale] == cat[key_of]
        names = [sub["name_localizations"][locale]]
        if sub in groups:
            continue  # its options are its subcommands, checked as subcommands
        for option in sub.get("options", []):
            key = f"{sub['name']}_{option['name']}"
            assert option["name_localizations"][locale] == cat[f"commands.names.{key}"]
            assert option["description_localizations"][locale] == cat[f"commands.{key}"]
            names.append(option["name_localizations"][locale])
            for choice in option.get("choices", []):
                # The scorecards' choices are named as the settings card names them.
                wanted = {
                    "settings_scorecards": scorecards_key(choice["value"]),
                    "settings_season": f"season.mode_{choice['value']}",
                }.get(key, f"commands.choices.{choice['value']}")
                assert choice["name_localizations"][locale] == cat[wanted]
        # Discord refuses two options of one command with the same name in a locale.
        assert len(set(names[1:])) == len(names) - 1
    subcommands = [sub["name_localizations"][locale] for sub in payload["options"]]
    assert len(set(subcommands)) == len(subcommands)
    for g in groups:
        inner = [sub["name_localizations"][locale] for sub in g["options"]]
        assert len(set(inner)) == len(inner)


async def test_english_and_unknown_locales_keep_the_declared_strings(the_tree):
    _, group = the_tree
    command = group.get_command("new")
    assert command is not None
    context = app_commands.TranslationContext(
        app_commands.TranslationContextLocation.command_name, command
    )
    t = CatalogTranslator()
    text = app_commands.locale_str("new")
    assert await t.translate(text, discord.Locale.american_english, context) is None
    assert await t.translate(text, discord.Locale.british_english, context) is None
    assert await t.translate(text, discord.Locale.japanese, context) is None
    assert await t.translate(text, discord.Locale.russian, context) == "новая"
    assert await t.translate(text, discord.Locale.hindi, context) == "नया"
    other = app_commands.TranslationContext(app_commands.TranslationContextLocation.other, None)
    assert key_for(other) is None
    assert await t.translate(app_commands.locale_str("x"), discord.Locale.russian, other) is None


async def test_a_bad_catalog_name_falls_back_to_english_with_a_warning(
    the_tree, monkeypatch, caplog
):
    _, group = the_tree
    command = group.get_command("new")
    context = app_commands.TranslationContext(
        app_commands.TranslationContextLocation.command_name, command
    )
    monkeypatch.setattr(translator, "catalog", lambda lang: {"commands.names.new": "Новая Игра"})
    with caplog.at_level(logging.WARNING, logger="cogs._translator"):
        got = await CatalogTranslator().translate(
            app_commands.locale_str("new"), discord.Locale.russian, context
        )
    assert got is None
    assert "commands.names.new" in caplog.text
    monkeypatch.setattr(translator, "catalog", lambda lang: {})
    assert (
        await CatalogTranslator().translate(
            app_commands.locale_str("new"), discord.Locale.russian, context
        )
        is None
    )
