"""The five rule sets of docs/rules.md as data plus small scoring functions.

A `RuleSet` never knows about players or turns: it answers "what would this row
score for these dice?" and the game (`game.py`) decides what is legal when. The five
presets are instances of one dataclass; what differs between them is data (rows,
bonus, premiums, penalties, flags) or one of three small scoring families.

Pattern decisions (docs/rules.md): pair / three / four of a kind take the HIGHEST face
shown often enough; two_pairs needs two different faces with two dice each (a full
house counts, four of a kind does not); full_house is exactly 3 + 2 of different
faces (five of a kind only under the yatzy joker); classic/banked/scandinavian
straights are exactly 1-2-3-4-5 (15) and 2-3-4-5-6 (20), yatzy/yahtzee small
straights are any four in a row (30). `made_value` returns None for an absent
figure; recording it anyway is a scratch worth `scratch_value` (not in banked).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal

from .errors import GameError

UPPER: tuple[str, ...] = ("ones", "twos", "threes", "fours", "fives", "sixes")
LOWER: tuple[str, ...] = (
    "pair",
    "two_pairs",
    "three_of_a_kind",
    "four_of_a_kind",
    "full_house",
    "small_straight",
    "large_straight",
    "poker",
    "chance",
)
FACE: dict[str, int] = {row: i + 1 for i, row in enumerate(UPPER)}

Counts = tuple[int, int, int, int, int, int]  # how many dice show 1 … 6
JokerKind = Literal["none", "yatzy", "yahtzee"]


def counts_of(dice: Sequence[int]) -> Counts:
    c = [0] * 6
    for d in dice:
        c[d - 1] += 1
    return (c[0], c[1], c[2], c[3], c[4], c[5])


# --- patterns: each returns the dice that FORM the figure (best choice), or None.


def _best_of_a_kind(c: Counts, n: int) -> int | None:
    """The highest face shown at least n times."""
    for face in range(6, 0, -1):
        if c[face - 1] >= n:
            return face
    return None


def pattern_dice(row: str, c: Counts) -> tuple[int, ...] | None:  # noqa: PLR0911 - one answer per kind of figure, as RULES.md lists them
    """The dice forming `row`'s figure (highest-scoring choice) or None if absent."""
    if row in FACE:
        face = FACE[row]
        return (face,) * c[face - 1] if c[face - 1] else ()
    if row == "pair":
        f = _best_of_a_kind(c, 2)
        return None if f is None else (f, f)
    if row == "three_of_a_kind":
        f = _best_of_a_kind(c, 3)
        return None if f is None else (f,) * 3
    if row == "four_of_a_kind":
        f = _best_of_a_kind(c, 4)
        return None if f is None else (f,) * 4
    if row == "poker":
        f = _best_of_a_kind(c, 5)
        return None if f is None else (f,) * 5
    if row == "two_pairs":
        faces = [f for f in range(6, 0, -1) if c[f - 1] >= 2]
        return None if len(faces) < 2 else (faces[0],) * 2 + (faces[1],) * 2
    if row == "full_house":
        if sorted(c) == [0, 0, 0, 0, 2, 3]:
            return _all(c)
        return None
    if row == "chance":
        return _all(c)
    raise KeyError(row)


def _all(c: Counts) -> tuple[int, ...]:
    return tuple(f for f in range(1, 7) for _ in range(c[f - 1]))


def _run(c: Counts, faces: range) -> bool:
    return all(c[f - 1] for f in faces)


def exact_small(c: Counts) -> bool:
    return c == (1, 1, 1, 1, 1, 0)


def exact_large(c: Counts) -> bool:
    return c == (0, 1, 1, 1, 1, 1)


def four_in_a_row(c: Counts) -> bool:
    return any(_run(c, range(lo, lo + 4)) for lo in (1, 2, 3))


def five_in_a_row(c: Counts) -> bool:
    return exact_small(c) or exact_large(c)


# --- the three scoring families of docs/rules.md ------------------------------------------


def _figure_sum(row: str, c: Counts) -> int | None:
    """classic / banked / scandinavian: the sum of the dice that form the figure."""
    if row == "small_straight":
        return 15 if exact_small(c) else None
    if row == "large_straight":
        return 20 if exact_large(c) else None
    dice = pattern_dice(row, c)
    return None if dice is None else sum(dice)


def _scandinavian_lower(row: str, c: Counts) -> int | None:
    if row == "poker":
        return 50 if _best_of_a_kind(c, 5) else None
    return _figure_sum(row, c)


def _yatzy_lower(row: str, c: Counts) -> int | None:
    total = sum(f * n for f, n in zip(range(1, 7), c, strict=True))
    if row == "full_house":
        return 25 if pattern_dice(row, c) is not None else None
    if row == "small_straight":
        return 30 if four_in_a_row(c) else None
    if row == "large_straight":
        return 40 if five_in_a_row(c) else None
    if row == "poker":
        return 50 if _best_of_a_kind(c, 5) else None
    return total if pattern_dice(row, c) is not None else None


def _yatzy_joker_lower(row: str, c: Counts) -> int:
    """Under the joker every lower row counts as made."""
    return {"full_house": 25, "small_straight": 30, "large_straight": 40, "poker": 50}.get(
        row, sum(f * n for f, n in zip(range(1, 7), c, strict=True))
    )


def _classic_upper(face: int, n: int) -> int:
    return (n - 3) * face


def _sum_upper(face: int, n: int) -> int:
    return n * face


def _banked_upper(_face: int, n: int) -> int | None:
    return 0 if n >= 3 else None


@dataclass(frozen=True)
class RuleSet:
    """One preset of docs/rules.md. Everything a rule set varies is a field here."""

    name: str
    rows: tuple[str, ...]
    # Score of an upper row for face f with n dice showing it; None = figure not made.
    upper_value: Callable[[int, int], int | None]
    # Score of a lower row for the dice counts; None = figure absent.
    lower_value: Callable[[str, Counts], int | None]
    upper_first: bool = False
    bonus: int = 0
    bonus_threshold: int = 0  # upper subtotal needed (classic: ≥ 0)
    bonus_when_complete: bool = False  # classic: granted once all six are filled
    first_throw_double: bool = False  # lower figures except chance
    premiums: dict[str, int] = field(default_factory=dict)  # added, never doubled
    scratch: bool = True  # may record an absent figure for 0 ("—")
    joker: JokerKind = "none"
    joker_bonus: int = 0
    banked: bool = False
    throws: int = 3
    max_rounds: int | None = None  # banked safety cap
    penalties: dict[str, int] = field(default_factory=dict)  # banked: unfinished rows
    bank_value: int = 3  # banked: points per banked throw left at the end

    # Cached: the totals read them for every card at every turn.
    @cached_property
    def upper(self) -> tuple[str, ...]:
        return tuple(r for r in self.rows if r in FACE)

    @cached_property
    def lower(self) -> tuple[str, ...]:
        return tuple(r for r in self.rows if r not in FACE)

    def made_value(self, row: str, dice: Sequence[int], first_throw: bool) -> int | None:
        """Points for recording `row` with a made figure (premium included), else None."""
        c = counts_of(dice)
        if row in FACE:
            return self.upper_value(FACE[row], c[FACE[row] - 1])
        base = self.lower_value(row, c)
        if base is None:
            return None
        if self.first_throw_double and first_throw and row != "chance":
            base *= 2
        return base + self.premiums.get(row, 0)

    def joker_value(self, row: str, dice: Sequence[int]) -> int:
        """Points of `row` when the throw is a joker (yatzy/yahtzee forced joker)."""
        c = counts_of(dice)
        if row in FACE:
            value = self.upper_value(FACE[row], c[FACE[row] - 1])
            return value if value is not None else 0
        return _yatzy_joker_lower(row, c)

    def scratch_value(self, row: str) -> int:
        """What a row scores when recorded without its figure (or by a leaver)."""
        if row in FACE:
            value = self.upper_value(FACE[row], 0)
            return value if value is not None else 0
        return 0

    def is_made(self, row: str, dice: Sequence[int]) -> bool:
        c = counts_of(dice)
        if row in FACE:
            return self.upper_value(FACE[row], c[FACE[row] - 1]) is not None and (
                self.banked or c[FACE[row] - 1] > 0
            )
        return self.lower_value(row, c) is not None


_CLASSIC_ROWS = UPPER + LOWER

CLASSIC = RuleSet(
    name="classic",
    rows=_CLASSIC_ROWS,
    upper_value=_classic_upper,
    lower_value=_figure_sum,
    upper_first=True,
    bonus=50,
    bonus_threshold=0,
    bonus_when_complete=True,
    first_throw_double=True,
    premiums={"poker": 50},
)

YATZY = RuleSet(
    name="yatzy",
    rows=_CLASSIC_ROWS,
    upper_value=_sum_upper,
    lower_value=_yatzy_lower,
    bonus=35,
    bonus_threshold=63,
    joker="yatzy",
    joker_bonus=100,
)

BANKED = RuleSet(
    name="banked",
    rows=_CLASSIC_ROWS,
    upper_value=_banked_upper,
    lower_value=_figure_sum,
    upper_first=True,
    premiums={"four_of_a_kind": 30, "poker": 50},
    scratch=False,
    banked=True,
    max_rounds=40,
    # Only the free program is penalised (docs/rules.md): an unfinished upper figure counts 0.
    penalties={
        **dict.fromkeys(UPPER, 0),
        "pair": -12,
        "two_pairs": -22,
        "three_of_a_kind": -18,
        "four_of_a_kind": -24,
        "full_house": -28,
        "small_straight": -15,
        "large_straight": -20,
        "poker": -30,
        "chance": -30,
    },
)

YAHTZEE = RuleSet(
    name="yahtzee",
    rows=UPPER + tuple(r for r in LOWER if r not in ("pair", "two_pairs")),
    upper_value=_sum_upper,
    lower_value=_yatzy_lower,
    bonus=35,
    bonus_threshold=63,
    joker="yahtzee",
    joker_bonus=100,
)

SCANDINAVIAN = RuleSet(
    name="scandinavian",
    rows=_CLASSIC_ROWS,
    upper_value=_sum_upper,
    lower_value=_scandinavian_lower,
    bonus=50,
    bonus_threshold=63,
)

RULESETS: dict[str, RuleSet] = {r.name: r for r in (CLASSIC, YATZY, BANKED, YAHTZEE, SCANDINAVIAN)}


def get_rules(name: str) -> RuleSet:
    try:
        return RULESETS[name]
    except KeyError:
        raise GameError("unknown_rules", rules=name, known=", ".join(RULESETS)) from None
