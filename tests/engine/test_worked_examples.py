"""Every worked example of docs/rules.md §8, read from the page itself, and its whole games.

`CONTRACT` is the rules contract's own table (RULES.md, "Worked examples"), copied line by
line: every one of its lines must be in the rule book's table, which is the one played.
"""

import re
from pathlib import Path

import pytest

from bot.engine import (
    LOWER,
    UPPER,
    Card,
    Game,
    Leave,
    Pass,
    Roll,
    Score,
    get_rules,
    settlement,
    standings_of,
)

BOOK = Path(__file__).parents[2] / "docs" / "rules.md"

# (rules, row, dice, first throw?, points; None = a scratch), as RULES.md writes them.
CONTRACT = [
    ("classic", "sixes", (6, 6, 6, 6, 6), None, 12),
    ("classic", "twos", (2, 3, 6, 2, 1), None, -2),
    ("classic", "ones", (4, 5, 5, 2, 3), None, -3),
    ("classic", "fours", (4, 4, 4, 4, 1), None, 4),
    ("classic", "pair", (5, 5, 3, 3, 1), False, 10),
    ("classic", "pair", (5, 5, 3, 3, 1), True, 20),
    ("classic", "two_pairs", (2, 2, 2, 5, 5), False, 14),
    ("classic", "two_pairs", (4, 4, 4, 4, 1), False, None),
    ("classic", "three_of_a_kind", (5, 5, 5, 2, 5), False, 15),
    ("classic", "poker", (3, 3, 3, 3, 3), False, 65),
    ("classic", "poker", (6, 6, 6, 6, 6), True, 110),
    ("classic", "small_straight", (1, 2, 3, 4, 5), True, 30),
    ("classic", "small_straight", (2, 3, 4, 5, 5), False, None),
    ("classic", "full_house", (2, 2, 2, 3, 3), True, 24),
    ("classic", "full_house", (3, 3, 3, 3, 3), False, None),
    ("classic", "chance", (1, 3, 5, 4, 6), True, 19),
    ("yatzy", "pair", (5, 5, 3, 2, 1), None, 16),
    ("yatzy", "two_pairs", (2, 2, 5, 5, 1), None, 15),
    ("yatzy", "three_of_a_kind", (5, 5, 5, 2, 5), None, 22),
    ("yatzy", "four_of_a_kind", (1, 1, 1, 1, 3), None, 7),
    ("yatzy", "full_house", (2, 2, 2, 3, 3), None, 25),
    ("yatzy", "small_straight", (2, 3, 4, 5, 5), None, 30),
    ("yatzy", "large_straight", (2, 3, 4, 5, 6), None, 40),
    ("yatzy", "poker", (3, 3, 3, 3, 3), None, 50),
    ("yatzy", "chance", (2, 3, 5, 6, 6), None, 22),
    ("banked", "four_of_a_kind", (6, 6, 6, 6, 2), None, 54),
    ("banked", "poker", (2, 2, 2, 2, 2), None, 60),
]

_LINE = re.compile(
    r"\| (?P<rules>[a-z]+) \| (?P<dice>[1-6](?: [1-6]){4}) \| `(?P<row>[a-z_]+)` \| "
    r"(?P<first>–|yes|no) \| (?P<points>[^|]+?) \| [^|]+ \|"
)


def _points(text: str) -> int | None:
    if text == "0 —":
        return None  # a scratch: 0, shown —
    return int(text.replace("−", "-"))


def book_examples() -> list[tuple[str, str, tuple[int, ...], bool | None, int | None]]:
    """The table of docs/rules.md §8, line by line."""
    text = BOOK.read_text(encoding="utf-8")
    section = text[text.index("## 8. Worked examples") : text.index("Whole games:")]
    rows = []
    for line in section.splitlines():
        if line.startswith("| ") and not line.startswith(("| rule set", "|---")):
            m = _LINE.fullmatch(line)
            assert m, f"docs/rules.md §8: a line the test cannot read: {line}"
            first = {"–": None, "yes": True, "no": False}[m["first"]]
            dice = tuple(int(d) for d in m["dice"].split())
            rows.append((m["rules"], m["row"], dice, first, _points(m["points"])))
    return rows


EXAMPLES = book_examples()
IDS = [
    f"{r}-{row}-{''.join(map(str, d))}-{ {None: 'any', True: 'first', False: 'later'}[f] }"
    for r, row, d, f, _ in EXAMPLES
]


def test_the_book_holds_every_example_of_the_contract_and_more():
    missing = [e for e in CONTRACT if e not in EXAMPLES]
    assert not missing, f"docs/rules.md §8 lacks the contract's examples {missing}"
    assert len(EXAMPLES) == len(set(EXAMPLES)) > len(CONTRACT)


def _throws(first: bool | None) -> list[bool]:
    """Which throws to try: "–" means on the first throw and on a later one alike."""
    return [True, False] if first is None else [first]


@pytest.mark.parametrize(("rules", "row", "dice", "first", "points"), EXAMPLES, ids=IDS)
def test_worked_example(rules, row, dice, first, points):
    rs = get_rules(rules)
    for on_first in _throws(first):
        assert rs.made_value(row, dice, on_first) == points
    if points is None:  # a scratch records 0, shown as "—"
        assert rs.scratch
        assert rs.scratch_value(row) == 0


def _reach_lower_rows(game):
    """Fill the upper rows first where the rule set demands it (three of each face)."""
    if not game.rules.upper_first:
        return game
    for face, row in enumerate(UPPER, start=1):
        game, _ = game.apply(Roll("ann", (face, face, face, face % 6 + 1, face % 6 + 1)))
        game, _ = game.apply(Score("ann", row))
    return game


@pytest.mark.parametrize(("rules", "row", "dice", "first", "points"), EXAMPLES, ids=IDS)
def test_worked_example_played(rules, row, dice, first, points):
    """The same example thrown and recorded in a real game: options, event and card agree."""
    for on_first in _throws(first):
        game = Game.new(rules, ["ann"])
        if row not in UPPER:
            game = _reach_lower_rows(game)
        if not on_first:  # reach the dice on a later throw
            game, _ = game.apply(Roll("ann", (6, 5, 4, 1, 1) if dice[0] != 6 else (5, 4, 3, 1, 1)))
        game, _ = game.apply(Roll("ann", dice))
        option = next(o for o in game.options() if o.row == row)
        expected = 0 if points is None else points
        assert option.points == expected
        if row not in UPPER:  # a classic upper row is never a scratch, whatever it scores
            assert option.made == (points is not None)
        game, event = game.apply(Score("ann", row))
        assert event.points == expected
        assert game.card_of("ann").rows[row] == expected


# --- the whole games of §8 -------------------------------------------------------------


def book_says(*phrases: str) -> None:
    """The rule book states these results (so the test and the page cannot drift apart)."""
    text = " ".join(BOOK.read_text(encoding="utf-8").split())
    for phrase in phrases:
        assert phrase in text, phrase


def run(game: Game, *actions) -> Game:
    for action in actions:
        game, _ = game.apply(action)
    return game


def test_settlement_example():
    book_says("totals 236, 214, 166 and 244", "the results are +21, −1, −49 and +29")
    assert settlement([236, 214, 166, 244]) == [21, -1, -49, 29]
    rules = get_rules("classic")  # and the standings of four such cards say the same
    cards = [
        Card(p, {**dict.fromkeys(rules.rows), "chance": total})
        for p, total in zip("abcd", (236, 214, 166, 244), strict=True)
    ]
    assert [s.settlement for s in standings_of(rules, cards)] == [21, -1, -49, 29]


def test_yatzy_joker_example():
    book_says("the total is 15 + 75 + 200 = 290")
    game = Game.new("yatzy", ["ann"])
    game = run(game, Roll("ann", (3,) * 5), Score("ann", "poker"))
    game = run(game, Roll("ann", (3,) * 5))
    assert [o.row for o in game.options()] == ["threes"]  # forced: the face's upper row
    game = run(game, Score("ann", "threes"), Roll("ann", (3,) * 5))
    rows = {o.row for o in game.options()}
    assert rows == set(LOWER) - {"poker"}  # threes taken: any free lower row, all made
    game = run(game, Score("ann", "full_house"))
    card = game.card_of("ann")
    assert (card.rows["poker"], card.rows["threes"], card.rows["full_house"]) == (50, 15, 25)
    assert card.extra == 200
    assert not game.finished
    assert game.totals("ann").total == 290


SIXES = {
    "pair": (6, 6, 5, 4, 3),
    "two_pairs": (6, 6, 5, 5, 4),
    "three_of_a_kind": (6, 6, 6, 5, 4),
    "four_of_a_kind": (6, 6, 6, 6, 5),
    "full_house": (6, 6, 6, 5, 5),
    "small_straight": (1, 2, 3, 4, 5),
    "large_straight": (2, 3, 4, 5, 6),
    "poker": (6,) * 5,
    "chance": (6,) * 5,
}


@pytest.mark.parametrize("seats", [("ann", "bob"), ("bob", "ann")])
def test_banked_example(seats):
    book_says("Ann: lower rows 279, 15 × 2 = 30 banked throws = 90 points, total 369.",
              "Bob: −199. Average 85: +284 and −284.")  # fmt: skip
    game = Game.new("banked", list(seats))
    bob_turns = 0
    while not game.finished:
        if game.player == "bob":
            game = run(game, Pass("bob"))
            bob_turns += 1
            continue
        card = game.card
        row = (card.free(UPPER) or card.free(LOWER))[0]
        face = UPPER.index(row) + 1 if row in UPPER else 0
        dice = (face,) * 3 + (face % 6 + 1,) * 2 if face else SIXES[row]
        game = run(game, Roll("ann", dice), Score("ann", row))
    ann, bob = (game.totals(p) for p in ("ann", "bob"))
    assert (game.totals("ann").lower, ann.banked, ann.extra, ann.total) == (279, 30, 90, 369)
    assert bob.total == -199
    assert {s.name: s.settlement for s in game.standings()} == {"ann": 284, "bob": -284}
    assert bob_turns == 15  # first or second, Bob has his 15 turns, no more


def test_classic_leaver_example():
    book_says("her other upper rows become −3, −6, −9, −12, −15 and her lower rows 0, total −33")
    game = Game.new("classic", ["ann", "bob"])
    game = run(game, Roll("ann", (6,) * 5), Score("ann", "sixes"), Leave("ann"))
    card = game.card_of("ann")
    assert [card.rows[r] for r in UPPER] == [-3, -6, -9, -12, -15, 12]
    assert all(card.rows[r] == 0 for r in LOWER)
    assert game.totals("ann").bonus == 0
    assert game.totals("ann").total == -33


def test_banked_leaver_example():
    book_says("the two throws beyond the third come from her bank, which keeps 2",
              "penalties, −199, and her 2 banked throws give 6: total −193")  # fmt: skip
    game = Game.new("banked", ["ann", "bob"])
    game = run(game, Roll("ann", (1, 1, 1, 2, 2)), Score("ann", "ones"), Pass("bob"))
    game = run(game, Roll("ann", (2, 2, 2, 3, 3)), Score("ann", "twos"), Pass("bob"))
    assert game.card_of("ann").bank == 4
    game = run(game, *[Roll("ann", (6, 5, 4, 1, 1))] * 5)
    passed = run(game, Pass("ann"))
    game = run(game, Leave("ann"))
    assert game.card_of("ann").bank == passed.card_of("ann").bank == 2
    game = run(game, Leave("bob"))
    assert game.finished
    ann = game.totals("ann")
    assert (ann.upper, ann.lower, ann.extra, ann.total) == (0, -199, 6, -193)
