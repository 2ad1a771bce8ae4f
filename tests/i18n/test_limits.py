"""Translations stay inside Discord's limits, and `/poker rules` exists in every language."""

from __future__ import annotations

import pytest

from bot.engine import RULESETS, get_rules
from bot.i18n import LANGUAGES, catalog, t
from bot.render import rules_embed
from bot.render.image import SHAPES, has_glyph
from bot.render.text import CARDS, card_lines

BUTTONS = ("lobby.join", "lobby.leave", "lobby.start", "lobby.cancel", "turn.pass", "turn.card")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_button_and_menu_texts_fit(lang: str):
    for key in BUTTONS:
        assert 1 <= len(t(key, lang)) <= 80, key  # a button label
    assert len(t("turn.roll", lang, left=3)) <= 80
    assert len(t("turn.select", lang)) <= 150  # a select placeholder
    # The longest menu option: a row name with every suffix it can carry.
    suffixes = t("turn.doubled", lang) + t("turn.premium", lang, premium=50)
    suffixes += t("turn.joker_bonus", lang, bonus=100)
    for key, name in catalog(lang).items():
        if key.startswith("rows."):
            assert len(t("turn.option", lang, row=name, points="−18") + suffixes) <= 100, key


@pytest.mark.parametrize("lang", LANGUAGES)
def test_short_row_labels_keep_the_text_table_narrow(lang: str):
    short = {k: v for k, v in catalog(lang).items() if k.startswith("rows_short.")}
    assert short
    assert all(len(v) <= 4 for v in short.values()), short
    assert len(set(short.values())) == len(short), short  # no two rows alike (ru: 3 vs Т)


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("rules", sorted(RULESETS))
def test_poker_rules_explains_every_rule_set_in_every_language(lang: str, rules: str):
    embed = rules_embed(rules, lang, full=True)
    lines = embed.description.split("\n")
    assert lines[: len(CARDS[rules])] == card_lines(get_rules(rules), lang)
    assert lines[-1] == t("rules_card.more", lang)
    assert len(embed.description) <= 4096
    assert embed.title.startswith(catalog(lang)["rules_card.title"].split("{")[0])
    for line in CARDS[rules]:  # every line is the language's own, none English's fallback
        key = f"rules_card.{line}"
        assert key in catalog(lang) or f"{key}.other" in catalog(lang), key
    if lang != "en":
        english = rules_embed(rules, "en", full=True).description.split("\n")
        assert (set(lines) - {""}).isdisjoint(english)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_picture_label_can_be_drawn(lang: str):
    """The labels a scorecard picture draws (the lower rows' `image.rows`, the sums'
    `rows_short`, the totals' `image`): every character is in a bundled font, or a shape."""
    for key, label in catalog(lang).items():
        if key.startswith(("rows_short.", "image.")):
            for ch in label:
                assert ch in SHAPES or has_glyph(ch) or has_glyph(ch, devanagari=True), (key, ch)
