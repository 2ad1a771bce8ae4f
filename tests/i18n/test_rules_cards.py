"""Every rule set's `/poker rules` card states every decision that changes what a player
does, in every language.

`REQUIRED` walks the rules contract (RULES.md) rule set by rule set: each decision names
the card line that states it (catalog key `rules_card.<line>`), the contract's words it
comes from, the rule book's (docs/rules.md) words for it, and what every language's line
must show as it is (numbers, signs). The table is checked against both texts, so it
cannot drift from them; a card missing a line, or a language stating it without its
numbers, fails.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from bot.engine import RULESETS, get_rules
from bot.i18n import LANGUAGES, catalog, t
from bot.render import rules_embed
from bot.render.text import card_values

REPO = Path(__file__).parents[2]
BOOK = REPO / "docs" / "rules.md"


@dataclass(frozen=True)
class Decision:
    line: str  # the card's line: catalog key rules_card.<line>
    contract: tuple[str, ...]  # RULES.md's words
    book: tuple[str, ...]  # docs/rules.md's words
    shows: tuple[str, ...] = ()  # in every language's line, as they are


THROWS = Decision(
    "throws", ("a turn is up to three throws",), ("A turn has up to three throws",), ("3",)
)
PATTERNS = Decision(
    "patterns",
    ("two_pairs = two DIFFERENT faces with at least two dice each (a full house counts, four "
     "of a kind does not)", "five of a kind is not a full house"),
    ("two different faces with at least two dice each (so a full house counts, four of a "
     "kind does not)", "five of a kind is not a full house"),
)  # fmt: skip
FIGURE_SUM = Decision(
    "figure_sum",
    ("Lower rows score the sum of the dice that FORM the figure",
     "small_straight = exactly 1-2-3-4-5 = 15, large_straight = exactly 2-3-4-5-6 = 20"),
    ("Lower rows score the sum of the dice that make the figure",),
    ("2f", "3f/4f", "1-2-3-4-5 = 15", "2-3-4-5-6 = 20"),
)  # fmt: skip
ZERO = Decision(
    "zero",
    ("A row whose pattern is absent may be recorded for 0",),
    ("Any row may be recorded without its figure for 0",),
    ("0",),
)
JOKER_ORDER = Decision(
    "joker_order",
    ("in the matching upper row if it is free; else in any free lower row, where every lower "
     "row counts as made (full house 25, straights 30/40, the sum rows the sum of all dice); "
     "else 0 in any free upper row",),
    ("the upper row of that face, if it is free", "otherwise any free lower row, and every "
     "lower row then counts as made", "otherwise any free upper row, for 0"),
    ("25", "30/40", "0"),
)  # fmt: skip


def no_doubling(contract: str, book: str) -> Decision:
    return Decision("no_doubling", (contract,), (book,))


def upper_bonus(bonus: int, contract: str) -> Decision:
    book = f"+{bonus} as soon as {'the upper rows reach' if bonus == 35 else 'they reach'}"
    return Decision("upper_bonus", (contract,), (book + " 63 or more (≥ 63)",),
                    (f"+{bonus}", "≥ 63"))  # fmt: skip


REQUIRED: dict[str, tuple[Decision, ...]] = {
    "classic": (
        THROWS,
        Decision("upper_first",
                 ("must ALL be filled before any lower row (free program) may be used",),
                 ("All six upper rows must be filled before any lower row can be used",),
                 ("1–6", "15")),
        Decision("classic_upper",
                 ("score = (n − 3) × f", "Any free upper row may be chosen whatever the dice show"),
                 ("The row scores (n − 3) × f", "Any free upper row may be chosen, whatever "
                  "the dice show"),
                 ("(n - 3) × f", "-3f", "+2f")),
        Decision("classic_bonus",
                 ("Upper subtotal ≥ 0 → bonus +50, granted once all six upper rows are filled",),
                 ("+50 when the six upper rows add up to 0 or more. It is granted at the moment "
                  "the sixth upper row is filled",),
                 ("+50", "≥ 0")),
        FIGURE_SUM,
        PATTERNS,
        Decision("classic_double",
                 ("A lower figure made on the FIRST throw of the turn scores double, except "
                  "chance",),
                 ("A lower figure recorded straight after the turn's first throw scores "
                  "double, except chance (upper rows are never doubled)",)),
        Decision("classic_premium",
                 ("Poker also earns a premium of +50, which is not doubled",),
                 ("The poker premium is added after doubling and is not doubled",),
                 ("+50", "× 2 + 50")),
        Decision("classic_scratch",
                 ('may be recorded anyway as a scratch: 0, shown as "—"',),
                 ('A lower row whose figure the dice do not make may still be chosen: it '
                  'scores 0 and shows "—"',),
                 ("0", "—")),
    ),
    "yatzy": (
        THROWS,
        Decision("any_order", ("15 turns per player",), ("15 turns per player, rows in any order",),
                 ("15",)),
        Decision("upper_sum", ("Upper row for face f = sum of the dice showing f",),
                 ("Upper rows: the sum of the dice showing that face",)),
        upper_bonus(35, "Upper sum ≥ 63 → bonus +35"),
        Decision("yatzy_lower",
                 ("pair, two_pairs, three_of_a_kind, four_of_a_kind = the sum of ALL five dice",
                  "full_house = 25, small_straight (four consecutive faces",
                  "large_straight (five consecutive) = 40, poker = 50, chance = sum of all dice"),
                 ("the sum of all five dice", "four faces in a row"),
                 ("25", "30", "40", "50")),
        Decision("patterns_joker",
                 ("two_pairs = two DIFFERENT faces", "five of a kind is not a full house, "
                  "except under the yatzy joker"),
                 ("two different faces with at least two dice each", "five of a kind is not a "
                  "full house, except under the joker of §4")),
        ZERO,
        no_doubling("No first-throw doubling", "no first-throw doubling"),
        Decision("yatzy_joker",
                 ("when a player throws poker while their poker row already holds 50, they get "
                  "+100 and must record the throw as a joker",
                  "A poker row scratched to 0 gives neither bonus nor joker"),
                 ("Each time a player throws five alike while their poker row already holds "
                  "50, they get +100 and the throw is a joker",
                  "A poker row that was filled with 0 gives neither the +100 nor the joker"),
                 ("+100", "50", "0")),
        JOKER_ORDER,
    ),
    "banked": (
        Decision("banked_throws",
                 ("Each turn allows 3 regular throws plus any banked throws",
                  "the bank changes by 3 − t (so +2 after one throw, +1 after two, −k when k "
                  "banked throws were used)"),
                 ("Each turn gives three ordinary throws, plus every throw the player has "
                  "banked", "changes their bank by 3 − t"),
                 ("3 - t", "+2", "+1", "-k")),
        Decision("banked_end",
                 ("The player ends the turn by recording a figure that the dice make, or by "
                  "passing (no record)", "A pass spends max(0, t − 3) banked throws and banks "
                  "nothing; so does leaving the game in the middle of a turn after t throws",
                  "There is no scratching"),
                 ("there is no scratching in banked", "a pass after t throws spends max(0, t − "
                  "3)", "Leaving the game in the middle of a turn after t throws spends max(0, "
                  "t − 3) banked throws too, as a pass does")),
        Decision("upper_first", ("the mandatory program (upper rows) must be completed first",),
                 ("the upper rows still come first",), ("1–6", "15")),
        Decision("banked_upper",
                 ("Upper figure f is made with at least three dice showing f; it is crossed out "
                  "and scores no points (✓)",),
                 ("A face counts as made with at least three dice of that face. It is ticked "
                  "off (✓) and scores no points",),
                 ("✓",)),
        Decision("figure_sum",
                 ("Lower figures score the sum of the dice that form them, as in classic",),
                 ("Lower rows score the dice that make them exactly as in classic",),
                 FIGURE_SUM.shows),
        PATTERNS,
        Decision("banked_premiums",
                 ("four_of_a_kind earns a +30 premium and poker a +50 premium",),
                 ("Premiums: four of a kind +30, poker +50",), ("+30", "+50")),
        no_doubling("No first-throw doubling (decision", "There is no first-throw doubling"),
        Decision("banked_round",
                 ("the round is finished so that every player has had the same number of "
                  "turns",),
                 ("the current round is played to its end, so that every player has had the "
                  "same number of turns",),
                 ("15",)),
        Decision("banked_cap", ("Safety cap: the game also ends after 40 rounds",),
                 ("the game stops after 40 rounds anyway",), ("40",)),
        Decision("banked_score",
                 ("Final score = lower points + premiums + 3 × banked throws left − penalties",),
                 ("Final score = the lower rows + 3 points per banked throw left",
                  "There is no upper bonus in banked"),
                 ("3",)),
        Decision("banked_penalties",
                 ("Each unfinished lower figure counts minus its full value",
                  "pair −12, two_pairs −22, three_of_a_kind −18, four_of_a_kind −24, "
                  "full_house −28, small_straight −15, large_straight −20, poker −30, "
                  "chance −30 (premiums excluded)"),
                 ("Each penalty is the most that figure can score, premiums left out",),
                 ("-12", "-22", "-18", "-24", "-28", "-15", "-20", "-30")),
        Decision("banked_unfinished_upper",
                 ("An unfinished upper figure counts 0 (shown as not made)",),
                 ("any upper row | 0 (shown as not made",), ("0",)),
    ),
    "yahtzee": (
        THROWS,
        Decision("any_order", ("Hasbro Yahtzee, 13 rows (no pair, no two_pairs)",),
                 ("13 rows: the six upper rows, three and four of a kind",), ("13",)),
        Decision("upper_sum", ("upper = sum of face",), ("Upper rows: the sum of that face",)),
        upper_bonus(35, "+35 at ≥ 63"),
        Decision("yahtzee_lower",
                 ('three/four of a kind = sum of all dice; full house 25; small straight (4 in '
                  'a row) 30; large straight 40; poker ("Yahtzee") 50',),
                 ("Three / four of a kind: the sum of all dice. Full house 25, small straight "
                  "(four in a row) 30, large straight (five in a row) 40, poker 50",),
                 ("25", "30", "40", "50")),
        Decision("patterns_yahtzee", ("five of a kind is not a full house, except under the "
                                      "yatzy joker",),
                 ("five of a kind is not a full house, except under the joker of §4",)),
        Decision("zero", ("Hasbro Yahtzee",), ("Any row may be recorded for 0 without its "
                                               "figure",), ("0",)),
        no_doubling("Hasbro Yahtzee", "Any order, no first-throw doubling"),
        Decision("yahtzee_joker",
                 ("+100 per extra Yahtzee when the Yahtzee row holds 50",
                  "forced joker as in yatzy but applying whenever the Yahtzee row is filled "
                  "(50 or 0)"),
                 ("Further poker: +100 each time while the poker row holds 50",
                  "once the poker row is filled, even with 0"),
                 ("+100", "50", "0")),
        Decision("joker_order", ("forced joker as in yatzy",),
                 ("The joker order of §4 applies",), ("25", "30/40", "0")),
    ),
    "scandinavian": (
        THROWS,
        Decision("any_order", ("Nordic Yatzy, 15 rows",), ("15 rows in any order",), ("15",)),
        Decision("upper_sum", ("upper = sum of face",), ("Upper rows: the sum of that face",)),
        upper_bonus(50, "+50 at ≥ 63"),
        Decision("scandinavian_lower",
                 ("pair = 2f, two_pairs = the four dice, three/four of a kind = 3f/4f, small "
                  "straight 1-2-3-4-5 = 15, large 2-3-4-5-6 = 20, full house = all five, "
                  'chance = all five, poker ("Yatzy") = 50',),
                 ('poker (the Nordic "Yatzy") a fixed 50',),
                 ("2f", "3f/4f", "1-2-3-4-5 = 15", "2-3-4-5-6 = 20", "50")),
        PATTERNS,
        Decision("zero", ("Nordic Yatzy",), ("Any row may be recorded for 0 without its "
                                             "figure",), ("0",)),
        no_doubling("Nordic Yatzy", "no doubling"),
        Decision("no_joker", ("no joker",), ("no joker: a further poker is an ordinary throw",)),
    ),
}  # fmt: skip


def plain(text: str) -> str:
    """Markdown's emphasis and code marks out, whitespace as single spaces, lower case."""
    return " ".join(re.sub(r"\*\*|`", "", text).split()).lower()


def contract_text() -> str | None:
    """RULES.md, where a checkout beside the shared contract (or RULES_MD) finds it."""
    places = [os.environ.get("RULES_MD", "")]
    places += [str(root / "shared" / "RULES.md") for root in (REPO.parent, REPO.parents[1])]
    for place in places:
        if place and Path(place).is_file():
            return Path(place).read_text(encoding="utf-8")
    return None


def test_every_rule_set_has_its_decisions():
    assert set(REQUIRED) == set(RULESETS)
    for rules, decisions in REQUIRED.items():
        lines = [d.line for d in decisions]
        assert len(lines) == len(set(lines)), rules


@pytest.mark.parametrize("rules", sorted(REQUIRED))
def test_each_decision_is_the_rule_books(rules: str):
    book = plain(BOOK.read_text(encoding="utf-8"))
    missing = [(d.line, w) for d in REQUIRED[rules] for w in d.book if plain(w) not in book]
    assert not missing, f"docs/rules.md does not say {missing}"


@pytest.mark.parametrize("rules", sorted(REQUIRED))
def test_each_decision_is_the_contracts(rules: str):
    text = contract_text()
    if text is None:
        pytest.skip("RULES.md is not beside this checkout (set RULES_MD to check it)")
    contract = plain(text)
    missing = [(d.line, w) for d in REQUIRED[rules] for w in d.contract if plain(w) not in contract]
    assert not missing, f"RULES.md does not say {missing}"


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("rules", sorted(REQUIRED))
def test_every_card_states_every_decision(rules: str, lang: str):
    rs = get_rules(rules)
    card = rules_embed(rules, lang).description.splitlines()
    values = card_values(rs, lang)
    own = catalog(lang)
    for decision in REQUIRED[rules]:
        key = f"rules_card.{decision.line}"
        assert key in own or f"{key}.other" in own, f"{lang} has no {key}"
        line = t(key, lang, **values)
        assert line in card, f"the {rules} card in {lang} lacks {decision.line}: {line}"
        for shown in decision.shows:
            assert shown in line, (rules, lang, decision.line, shown)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_banked_penalties_are_the_engines(lang: str):
    rs = get_rules("banked")
    line = t("rules_card.banked_penalties", lang, **card_values(rs, lang))
    for row, value in rs.penalties.items():
        if value:
            assert f"{t(f'rows.{row}', lang)} {value}" in line, (row, value)
