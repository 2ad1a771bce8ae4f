"""A whole game in each language through the real bot; who sees which language.

simcord always reports the `en-US` locale for members, so the choice of language is
tested end to end where the server decides it (the `language:` option, the server's
setting, its preferred locale) and at the function level for the member's own locale.
"""

from __future__ import annotations

import io
from types import SimpleNamespace

import discord
import pytest
from PIL import Image

from bot.demo import control_id, current_player, open_game, play_out, play_turn
from bot.engine import get_rules
from bot.i18n import catalog, game_language, rules_name, t
from bot.render.image import FILENAME
from bot.render.league import scorecards_key
from cogs._edge import reply_language

# Words that only the English catalog uses in public game messages.
ENGLISH = ("Scorecard", "Final standings", "throw", "Roll", "recorded", "Opening throw")


@pytest.fixture
async def club(simcord_env):
    env = simcord_env
    guild = env.create_guild("Club")
    channel = guild.create_text_channel("dice")
    ann = guild.add_member(env.create_user("ann"))
    bob = guild.add_member(env.create_user("bob"))
    yield env, guild, channel, [ann, bob]
    if not env.bot.is_closed():
        await env.bot.close()


def public_text(channel) -> str:
    """Everything the bot posted in the channel: content, embeds, button and menu labels."""
    parts: list[str] = []
    for message in channel.history():
        parts.append(message.content or "")
        for embed in message.embeds:
            parts += [embed.title or "", embed.description or "", embed.footer.text or ""]
            parts += [f"{f.name} {f.value}" for f in embed.fields]
        for row in message.components:
            for item in getattr(row, "children", []):
                parts.append(getattr(item, "label", None) or getattr(item, "placeholder", "") or "")
    return "\n".join(parts)


def prefix(key: str, lang: str) -> str:
    """The fixed start of a message template, before its first placeholder."""
    return catalog(lang)[key].split("{")[0].strip()


@pytest.mark.parametrize(
    ("lang", "rules"),
    [("en", "scandinavian"), ("ru", "classic"), ("ro", "classic"), ("hi", "yatzy")],
)
async def test_a_whole_game_in_each_language(club, lang: str, rules: str):
    env, guild, channel, members = club
    await env.bot.store.update_settings(guild.id, {"images": True})
    res = await open_game(channel, members[0], members[1:], rules=rules, language=lang)
    # The rule set is named as the players know it ("классика", "clasic", "यात्ज़ी").
    lobby_title = t("lobby.title", lang, rules=rules_name(rules, lang))
    assert res.response.embeds[0].title == lobby_title
    turns = await play_out(channel, members)
    assert turns == 2 * len(get_rules(rules).rows)  # every row of both cards filled

    final = channel.last_message
    assert final.embeds[0].title.startswith(prefix("final.title", lang))
    text = public_text(channel)
    assert t("card.title", lang) in text
    assert t(f"rows.{'chance'}", lang) in text or catalog(lang)["rows_short.chance"] in text
    if lang != "en":
        leaked = [word for word in ENGLISH if word in text]
        assert not leaked, f"English in a {lang} game: {leaked}"

    # Pictures are on: every scorecard after a turn and the standings carry a PNG.
    pictured = [m for m in channel.history() if m.attachments]
    assert final in pictured or final.attachments
    assert len(pictured) >= turns  # one per turn (the last one rides on the standings)
    card = next(m for m in channel.history() if m.attachments and m is not final)
    assert not card.embeds[0].fields  # the picture replaces the code-block table
    attachment = final.attachments[0]
    assert attachment.filename == FILENAME
    assert final.embeds[0].image.url == f"attachment://{FILENAME}"
    png = await attachment.read()
    img = Image.open(io.BytesIO(png))
    assert img.format == "PNG"
    assert img.width > 200
    assert img.height > 400


async def test_pictures_stay_off_unless_the_server_turns_them_on(club):
    _, _, channel, members = club
    await open_game(channel, members[0], members[1:], rules="classic", language="ro")
    await play_turn(channel, members)
    card = next(m for m in channel.history() if m.embeds and m.embeds[0].title == "Tabel")
    assert not card.attachments
    assert not card.embeds[0].image.url


# --- who sees which language -------------------------------------------------------------


def interaction(locale):
    return SimpleNamespace(locale=locale)


@pytest.mark.parametrize(
    ("locale", "lang"),
    [
        (discord.Locale.russian, "ru"),
        (discord.Locale.romanian, "ro"),
        (discord.Locale.hindi, "hi"),
        (discord.Locale.american_english, "en"),
        (discord.Locale.british_english, "en"),
        (discord.Locale.japanese, "en"),  # no Japanese catalog
        (None, "en"),
    ],
)
def test_ephemeral_answers_follow_the_members_own_locale(locale, lang):
    assert reply_language(interaction(locale)) == lang


def test_rule_sets_are_named_in_each_language():
    assert rules_name("classic", "ru") == "классика"
    assert rules_name("classic", "ro") == "clasic"
    assert rules_name("yatzy", "hi") == "यात्ज़ी"
    assert rules_name("classic", "en") == "classic"
    assert rules_name("unknown", "ru") == "unknown"


def test_the_game_language_is_the_option_then_the_server_setting_then_its_locale():
    hindi = discord.Locale.hindi
    assert game_language("ro", "ru", hindi) == "ro"  # /poker new language:
    assert game_language(None, "ru", hindi) == "ru"  # /poker settings language:
    assert game_language(None, "auto", hindi) == "hi"  # "auto" is no language: the locale
    assert game_language(None, None, hindi) == "hi"  # the server's preferred locale
    assert game_language(None, None, "ro") == "ro"
    assert game_language(None, None, discord.Locale.japanese) == "en"
    assert game_language(None, None, None) == "en"
    assert game_language("xx", None, None) == "en"  # never an unknown catalog


async def test_a_new_game_speaks_the_servers_language_and_refusals_the_members(simcord_env):
    env = simcord_env
    guild = env.create_guild("Sabha", preferred_locale="hi")
    channel = guild.create_text_channel("paase")
    ann = guild.add_member(env.create_user("ann"))
    bob = guild.add_member(env.create_user("bob"))
    try:
        res = await ann.slash(channel, "poker new")
        assert res.response.embeds[0].title.startswith(prefix("lobby.title", "hi"))
        await bob.click(res.response, custom_id=control_id(res.response, "join"))
        await ann.click(res.response, custom_id=control_id(res.response, "start"))
        turn = channel.last_message
        # ARCH.md: "The opening throw is an embed of the first turn message": the turn's
        # own embed is the last one (was the first: the opening throw was its own message).
        assert turn.embeds[-1].title.endswith(t("turn.title_first", "hi", name="").strip())
        # The one whose turn it is not clicks Roll: told so privately, in their own
        # language (simcord's members use en-US), while the game stays in Hindi.
        waiting = next(m for m in (ann, bob) if m is not current_player(turn, [ann, bob]))
        refused = await waiting.click(turn, custom_id=control_id(turn, "roll"))
        assert refused.ephemeral
        player = current_player(turn, [ann, bob])
        assert refused.response.content == t("errors.not_your_turn", "en", name=player.name)

        # The server's own setting outranks its Discord locale.
        await env.bot.store.update_settings(guild.id, {"language": "ro"})
        other = guild.create_text_channel("zaruri")
        res = await ann.slash(other, "poker new")
        assert res.response.embeds[0].title.startswith(prefix("lobby.title", "ro"))
    finally:
        if not env.bot.is_closed():
            await env.bot.close()


async def test_synced_commands_carry_their_translations(club):
    env, *_ = club
    synced = {c.name: c for c in await env.bot.tree.fetch_commands()}
    poker = synced["poker"]
    for locale, lang in (
        (discord.Locale.russian, "ru"),
        (discord.Locale.romanian, "ro"),
        (discord.Locale.hindi, "hi"),
    ):
        names = catalog(lang)
        assert poker.name_localizations[locale] == names["commands.names.poker"]
        assert poker.description_localizations[locale] == names["commands.group"]
        subcommands = {o.name: o for o in poker.options}
        assert {"new", "rules", "scorecard", "leave", "cancel", "daily"} <= set(subcommands)
        # /poker daily is a subcommand group: its play and board are checked as subcommands
        inner = {o.name: o for o in subcommands["daily"].options}
        assert set(inner) == {"play", "board"}
        # … and so is /poker tournament: its new and export, described under their own keys
        tournament = {o.name: o for o in subcommands["tournament"].options}
        assert set(tournament) == {"new", "export"}
        checked = [(n, sub, f"commands.{n}") for n, sub in {**subcommands, **inner}.items()]
        checked += [(n, sub, f"commands.tournament_{n}") for n, sub in tournament.items()]
        for name, sub, described in checked:
            assert sub.name_localizations[locale] == names[f"commands.names.{name}"]
            assert sub.description_localizations[locale] == names[described]
            if name in ("daily", "tournament"):
                continue
            for option in sub.options:
                key = f"{name}_{option.name}"
                assert option.name_localizations[locale] == names[f"commands.names.{key}"]
                for choice in option.choices:
                    # The scorecards' and seasons' choices are named as the settings card
                    # names them.
                    wanted = {
                        "settings_scorecards": scorecards_key(choice.value),
                        "settings_season": f"season.mode_{choice.value}",
                    }.get(key, f"commands.choices.{choice.value}")
                    assert choice.name_localizations[locale] == names[wanted]
    assert discord.Locale.american_english not in poker.name_localizations
