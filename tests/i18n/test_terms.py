"""One term per thing: every message of every language names each row, rule set and
action with its catalog's one word for it (beside test_no_english: no English inside
another language's message).

The catalog's term is the source: a row is its `rows.<key>`, a rule set its
`commands.choices.<key>` (the name its players pick), the pass the `turn.pass` button, and
so on. `FORMS` adds each language's grammatical forms of those terms (cases, plurals)
that the messages use. `MARKS` are the stems that show a message is naming one of these
things at all: each term's own stem (so a misspelt or unlisted form is caught) and the
second spellings players and older catalogs used. Every mark found in a message must lie
inside one of the allowed forms: there is no exception, not for a rule set's name either
(a Hindi message writing "classic" fails like one writing "बैंक्ड").

Every catalog message is checked with its placeholders filled (each plural form), and so
are the rules cards, the scorecards and the refusals as the bot renders them.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterator

import pytest

from bot.engine import RULESETS, Game, GameError, Roll, Score
from bot.i18n import LANGUAGES, catalog, t
from bot.render import card_embed, rules_embed, scorecard_embed, summary_line
from cogs._edge import refusal_text

from .test_no_english import embed_text

RULES = tuple(RULESETS)
ROWS = tuple(RULESETS["classic"].rows)

# The catalog keys whose value IS a term (the source of its one spelling).
TERM_KEYS = (
    *(f"rows.{r}" for r in ROWS),
    *(f"commands.choices.{r}" for r in RULES),
    "turn.pass", "turn.roll", "turn.bank", "lobby.host", "card.upper", "card.lower",
)  # fmt: skip

# Grammatical forms of the terms that messages use, beside the terms themselves.
FORMS: dict[str, tuple[str, ...]] = {
    "en": (
        r"banked throws?", r"(your|the|her) bank\b", r"\bbanks?\b", r"passing", r"passe[sd]",
        r"\bpass\b", r"straights", r"poker (row|bonuses|premium|again|on the first throw)",
        r"dice poker", r"pairs?", r"\bchance\b",
    ),
    "ru": (
        r"запасн(ые|ых|ой|ого) брос\w*", r"(в|из|на) запас[ае]?\b", r"запас\b",
        r"с запасом бросков", r"\bпас(ом|ует|уйте)?\b", r"одн(а|у) пар[аыу]", r"две пары",
        r"\bпары\b", r"стриты", r"покер(а|ом|е|у)?\b", r"шанс(а|ом)?\b", r"фул\b",
        r"тройк[аиу]\b", r"каре\b", r"единиц\w*", r"шест[её]рк\w*", r"граф\w*",
        r"обязательн\w+ программ\w*", r"произвольн\w+( программ\w*)?", r"классика",
        r"создател\w*", r"ятзи", r"яхтзи", r"скандинавск\w*",
    ),
    "ro": (
        r"(aruncări|aruncările|aruncare|aruncarea) (tale )?păstrat[eă]", r"cele păstrate",
        r"cu aruncări păstrate", r"\bpas(ul)?\b", r"chinte", r"chint[ăa] (mică|mare)",
        r"\bpereche\b", r"\bperechi\b", r"full house", r"\bpoker(ul|ului)?\b", r"șans[ăa]",
        r"clasic", r"scandinav", r"\byatzy\b", r"\byahtzee\b", r"rubric\w*",
        r"jucător(ul|ului|i|ii|ilor)? calculator", r"îndemânare[a]?",
        r"pozițiile păstrate", r"zarurile păstrate", r"zar este păstrat", r"\bpass\b",
    ),
    "hi": (
        r"बचाए (गए )?थ्रो( वाला| वाले)?", r"बचाया गया थ्रो", r"क्लासिक", r"फुल हाउस",
        r"मौक़[ाे]", r"पंक्ति\w*", r"ख़त्म", r"यात्ज़ी", r"याट्ज़ी", r"स्कैंडिनेवियाई",
        r"डाइस पोकर", r"पोकर",
    ),
}  # fmt: skip

# Stems that show a thing is being named: the terms' own, and second spellings seen.
MARKS: dict[str, tuple[str, ...]] = {
    "en": (
        r"\bbank\w*", r"\bsav(ed|ing) throws?", r"\bpass\w*", r"\bskip\w*", r"\bstraights?\b",
        r"\bpoker\b", r"\bpairs?\b", r"\bchance\b", r"\bboxe?s?\b", r"\bcells?\b",
        r"\bclassic\b", r"\byatzy\b", r"\byahtzee\b", r"\bscandinavian\b", r"\bnordic\b",
        r"\bhasbro\b",
    ),
    "ru": (
        r"запас\w*", r"банк\w*", r"\bпас\w*", r"пропус\w*", r"стрит\w*", r"покер\w*",
        r"шанс\w*", r"\bфул\w*", r"\bпар[аыу]?\b", r"тройк\w*", r"каре", r"клетк\w*",
        r"строк\w*", r"ячейк\w*", r"хозя\w*", r"комбинаци\w*", r"верхн\w+ граф\w*",
        r"нижн\w+ граф\w*", r"отлож\w*", r"удерж\w*", r"класси\w*", r"\bclassic\b",
        r"ятзи", r"яхтзи", r"yatzy", r"yahtzee", r"hasbro", r"скандинав\w*", r"северн\w*",
        r"граф\w*",
    ),
    "ro": (
        r"păstrat\w*", r"bancă", r"\bbanc\w*", r"economisit\w*", r"\bpas\w*", r"\btrecer\w*",
        r"dreapt\w*", r"\bdrept\w*", r"\bchint\w*", r"șans\w*", r"\bfull\b", r"perech\w*",
        r"\bpoker\w*", r"\bclasic\w*", r"\bclassic\b", r"scandinav\w*", r"nordic\w*",
        r"\byatzy\b", r"\byahtzee\b", r"hasbro", r"\brânduri\w*", r"\blinii?\b",
        r"\brubric\w*", r"\bcomputer\w*", r"măiestri\w*", r"îndemânar\w*",
        r"\ba scris\b", r"\btrec(e|ut)\b",
    ),
    "hi": (
        r"बैंक\w*", r"बचाए\w*", r"\bclassic\b", r"क्लासिक", r"फुल\w*", r"तीन और दो",
        r"पूर्ण सदन", r"मौक\w*", r"संभावना", r"ख\w?त्म", r"पंक्ति\w*", r"रेखा\w*", r"लाइन\w*",
        r"\bरख(ें|े|ो)\b", r"यात्ज़ी", r"याट्ज़ी", r"स्कैंडिनेवियाई", r"yatzy", r"yahtzee",
        r"hasbro", r"नॉर्डिक", r"पोकर",
    ),
}  # fmt: skip

# Catalog sections that are not messages: names members type, fixed-width abbreviations.
NOT_MESSAGES = ("commands.names.", "rows_short.", "image.rows.")


def _allowed(lang: str) -> re.Pattern[str]:
    terms = [re.escape(catalog(lang)[k].strip("*")) for k in TERM_KEYS]
    # Longest first, so that "с запасом бросков" wins over "запас".
    forms = sorted([*terms, *FORMS[lang]], key=len, reverse=True)
    return re.compile("|".join(f"(?:{f})" for f in forms), re.I)


def strays(text: str, lang: str) -> list[str]:
    """The marks in `text` that no allowed form of `lang` covers."""
    covered = [m.span() for m in _allowed(lang).finditer(text)]
    return [
        m.group()
        for mark in MARKS[lang]
        for m in re.finditer(mark, text, re.I)
        if not any(a <= m.start() and m.end() <= b for a, b in covered)
    ]


def filled(key: str, lang: str) -> str:
    """The catalog entry with each placeholder a neutral mark (no letters to join)."""
    template = catalog(lang)[key]
    names = {n for _, n, _, _ in string.Formatter().parse(template) if n}
    return template.format(**dict.fromkeys(names, "◇"))


def messages(lang: str) -> Iterator[tuple[str, str]]:
    """Every message of `lang`: its catalog entries filled in, and what the bot renders."""
    for key in catalog(lang):
        if not key.startswith(NOT_MESSAGES):
            yield key, filled(key, lang)
    for rules in RULES:
        yield f"card {rules}", embed_text(rules_embed(rules, lang, full=True))
        game = Game.new(rules, ["1", "2"])
        game, _ = game.apply(Roll("1", (6, 6, 6, 6, 6)))
        option = game.options()[-1]
        after, event = game.apply(Score("1", option.row))
        yield f"summary {rules}", summary_line(event, {}, lang)
        yield f"scorecard {rules}", embed_text(scorecard_embed(after, {}, 1, lang))
        yield f"card {rules}", embed_text(card_embed(after, "1", {}, 1, lang))
    rows = ("fours", "full_house", "small_straight", "chance")
    yield "joker_rows", refusal_text(GameError("joker_rows", rows=rows), lang)


def test_every_term_has_its_catalog_entry_in_every_language():
    for lang in LANGUAGES:
        for key in TERM_KEYS:
            assert catalog(lang).get(key), (lang, key)
        assert set(FORMS) == set(MARKS) == set(LANGUAGES)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_message_uses_the_catalogs_one_term(lang: str):
    found = {}
    for key, text in messages(lang):
        stray = strays(text, lang)
        if stray:
            found[key] = stray
    assert not found, f"second spellings in {lang}: {found}"


@pytest.mark.parametrize(
    ("lang", "text"),
    [
        ("ru", "пас есть только в банке"), ("ru", "пропустите ход"),
        ("ru", "свободные клетки вычеркнуты"), ("ru", "Заново может только хозяин"),
        ("ro", "pasul există doar la varianta cu bancă"), ("ro", "aruncări economisite"),
        ("ro", "Mică dreaptă"), ("ro", "o trecere"), ("ro", "jucător computer"),
        ("ro", "măiestria"), ("ro", "rândurile tale libere"),
        ("hi", "बैंक्ड नियमों"), ("hi", "वरना classic"), ("hi", "तीन और दो 25"),
        ("hi", "दिन में एक ही मौका"), ("hi", "समय खत्म हो गया"),
        ("en", "Saved throws"), ("en", "Nordic Yatzy: 15 rows"),
    ],
)  # fmt: skip
def test_a_second_spelling_is_found(lang: str, text: str):
    """The spellings the catalogs used before: each one is caught."""
    assert strays(text, lang), text


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_joker_refusal_names_the_rows_in_the_players_language(lang: str):
    rows = ("fours", "full_house", "small_straight")
    text = refusal_text(GameError("joker_rows", rows=rows), lang)
    for row in rows:
        assert t(f"rows.{row}", lang) in text, (lang, row, text)
        if lang != "en":
            assert row not in text  # never the stored key
    game = Game.new("yatzy", ["ann"])  # and from the engine's own refusal
    for action in (Roll("ann", (4,) * 5), Score("ann", "poker"), Roll("ann", (4,) * 5)):
        game, _ = game.apply(action)
    with pytest.raises(GameError) as refused:
        game.verify_score("ann", "chance")  # a joker of fours must go in the fours row
    text = refusal_text(refused.value, lang)
    assert t("rows.fours", lang) in text, text
    assert "fours" not in text or lang == "en"


def test_russian_says_who_played_without_a_gender():
    """"I played the turn for him" is wrong for half the players: say it for the player."""
    gendered = re.compile(r"за него|за неё|\bвышел\b|\bубран\b|\bотошедш")
    for key in catalog("ru"):
        if key.startswith(NOT_MESSAGES):
            continue
        template = catalog("ru")[key]
        if {"name", "player"} & {f for _, f, _, _ in string.Formatter().parse(template) if f}:
            text = filled(key, "ru").replace("игрок отмечен как отошедший", "")  # the noun's
            assert not gendered.search(text), (key, text)
    assert "за игрока" in t("timer.played", "ru", name="Ωx")


def test_hindi_speaks_of_players_in_one_register():
    """Players in the third person are spoken of honorifically (वे, करेंगे, सकते हैं)."""
    plain = re.compile(r"(करेगा|सकता है|रहा है|दबाता है|लेता है|करता है|वह )")
    for key in catalog("hi"):
        template = catalog("hi")[key]
        names = {f for _, f, _, _ in string.Formatter().parse(template) if f}
        about_players = {"name", "player"} & names or "होस्ट" in template
        if about_players and "मैं" not in template:
            assert not plain.search(template), (key, template)
