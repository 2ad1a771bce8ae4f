"""Counts in each language's own plural forms (Babel's CLDR rules)."""

from __future__ import annotations

import pytest

from bot.i18n import LANGUAGES, plural_category, t
from bot.render.league import duration_text


@pytest.mark.parametrize(
    ("lang", "n", "word"),
    [
        ("ru", 1, "1 минуту"), ("ru", 2, "2 минуты"), ("ru", 5, "5 минут"),
        ("ru", 21, "21 минуту"), ("ru", 22, "22 минуты"), ("ru", 11, "11 минут"),
        ("ro", 1, "1 minut,"), ("ro", 2, "2 minute,"), ("ro", 19, "19 minute,"),
        ("ro", 20, "20 de minute"), ("ro", 101, "101 minute,"),
        ("en", 1, "1 minute,"), ("en", 30, "30 minutes"),
        ("hi", 1, "1 मिनट"), ("hi", 30, "30 मिनट"),
    ],
)  # fmt: skip
def test_minutes_take_the_languages_own_form(lang: str, n: int, word: str):
    assert word in t("timer.lobby_expired", lang, n=n)


@pytest.mark.parametrize(
    ("lang", "n", "text"),
    [
        ("ru", 1, "1 минута"), ("ru", 3, "3 минуты"), ("ru", 25, "25 минут"),
        ("ro", 1, "1 minut"), ("ro", 2, "2 minute"), ("ro", 20, "20 de minute"),
        ("hi", 1, "1 मिनट"), ("hi", 2, "2 मिनट"), ("en", 1, "1 minute"), ("en", 2, "2 minutes"),
    ],
)  # fmt: skip
def test_a_duration_names_its_units_by_count(lang: str, n: int, text: str):
    assert duration_text(n * 60, lang) == text


def test_the_categories_are_cldrs():
    assert [plural_category("ru", n) for n in (1, 2, 5, 21, 111)] == [
        "one", "few", "many", "one", "many"
    ]  # fmt: skip
    assert [plural_category("ro", n) for n in (1, 2, 19, 20, 101)] == [
        "one", "few", "few", "other", "few"
    ]  # fmt: skip
    assert [plural_category("hi", n) for n in (0, 1, 2)] == ["one", "one", "other"]
    assert [plural_category("en", n) for n in (0, 1, 2)] == ["other", "one", "other"]
    assert plural_category("ru", "1.50") == "other"  # decimals: CLDR's own operands
    assert plural_category("ro", "1.50") == "few"


@pytest.mark.parametrize(
    ("lang", "n", "expected"),
    [
        ("en", 1, "last score"), ("en", 7, "last 7 scores"),
        ("ru", 1, "1 последний результат"), ("ru", 3, "3 последних результата"),
        ("ru", 20, "20 последних результатов"), ("ro", 1, "ultimul scor"),
        ("ro", 20, "ultimele 20 de scoruri"), ("hi", 1, "पिछला स्कोर"), ("hi", 5, "पिछले 5 स्कोर"),
    ],
)  # fmt: skip
def test_the_chart_title_counts_its_scores(lang: str, n: int, expected: str):
    assert expected in t("stats.chart_title", lang, name="ann", n=n)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_count_the_bot_shows_is_plural_aware(lang: str):
    """Each key that shows a count picks its form by it (one form never for 5)."""
    for key in (
        "timer.away", "timer.lobby_expired", "timer.grace", "summary.passed_spent",
        "leaderboard.line", "leaderboard.footer", "leaderboard.empty_skill",
        "leaderboard.skill_note", "stats.skill_value", "stats.chart_title", "analysis.line",
        "hint.previous_cost", "errors.lobby_full", "errors.missing_permissions",
        "rules_card.banked_cap", "duration.minutes",
    ):  # fmt: skip
        values = dict.fromkeys(("name", "member", "value", "lost", "mean", "choice", "best",
                                "permissions", "rank", "page", "pages"), "1")  # fmt: skip
        assert t(key, lang, n=1, **values) != t(key, lang, n=5, **values) or lang == "hi", key
