"""An INDEPENDENT reading of docs/rules.md, written without looking at bot/engine's code paths.

Scoring is brute force over sub-multisets of the dice (which dice FORM a figure, best
choice), and a replay is a plain loop over the actions with its own bookkeeping. The
tests compare it with the engine on every dice multiset and on random legal games;
it trusts its input to be legal (the engine's legality is tested elsewhere).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from functools import cache
from itertools import combinations
from typing import Any

UPPER_ROWS = ["ones", "twos", "threes", "fours", "fives", "sixes"]
LOWER_ROWS = [
    "pair",
    "two_pairs",
    "three_of_a_kind",
    "four_of_a_kind",
    "full_house",
    "small_straight",
    "large_straight",
    "poker",
    "chance",
]
ROWS = {
    "classic": UPPER_ROWS + LOWER_ROWS,
    "yatzy": UPPER_ROWS + LOWER_ROWS,
    "banked": UPPER_ROWS + LOWER_ROWS,
    "scandinavian": UPPER_ROWS + LOWER_ROWS,
    "yahtzee": UPPER_ROWS + [r for r in LOWER_ROWS if r not in ("pair", "two_pairs")],
}
PENALTY = {
    "pair": -12,
    "two_pairs": -22,
    "three_of_a_kind": -18,
    "four_of_a_kind": -24,
    "full_house": -28,
    "small_straight": -15,
    "large_straight": -20,
    "poker": -30,
    "chance": -30,
}


def face_of(row: str) -> int:
    return UPPER_ROWS.index(row) + 1


def _forms(row: str, part: Sequence[int]) -> bool:  # noqa: PLR0911 - one answer per figure: the rules as written
    """Does this sub-multiset of dice, all of it, form the figure?"""
    k = Counter(part)
    shape = sorted(k.values())
    n = len(part)
    if row == "pair":
        return n == 2 and shape == [2]
    if row == "two_pairs":
        return n == 4 and shape == [2, 2]
    if row == "three_of_a_kind":
        return n == 3 and shape == [3]
    if row == "four_of_a_kind":
        return n == 4 and shape == [4]
    if row == "poker":
        return n == 5 and shape == [5]
    if row == "full_house":
        return n == 5 and shape == [2, 3]
    if row == "small_straight":
        return sorted(part) == [1, 2, 3, 4, 5]
    if row == "large_straight":
        return sorted(part) == [2, 3, 4, 5, 6]
    if row == "chance":
        return n == 5
    raise AssertionError(row)


def best_forming_sum(row: str, dice: Sequence[int]) -> int | None:
    """Max sum over every choice of dice that forms `row`, None if no choice does."""
    return _best(row, tuple(sorted(dice)))


@cache
def _best(row: str, dice: tuple[int, ...]) -> int | None:
    sums = [
        sum(part) for size in range(1, 6) for part in combinations(dice, size) if _forms(row, part)
    ]
    return max(sums) if sums else None


def present(row: str, dice: Sequence[int]) -> bool:
    return best_forming_sum(row, dice) is not None


def four_run(dice: Sequence[int]) -> bool:
    s = set(dice)
    return {1, 2, 3, 4} <= s or {2, 3, 4, 5} <= s or {3, 4, 5, 6} <= s


def value(rules: str, row: str, dice: Sequence[int], first: bool) -> int | None:  # noqa: PLR0911, PLR0912 - the rules as written, figure by figure
    """Points of a MADE figure (premium included), or None when the figure is absent.

    Upper rows of classic / yatzy / yahtzee / scandinavian always have a value (any
    free upper row may take any dice); banked's need three dice of the face.
    """
    if row in UPPER_ROWS:
        f = face_of(row)
        n = list(dice).count(f)
        if rules == "classic":
            return (n - 3) * f
        if rules == "banked":
            return 0 if n >= 3 else None
        return n * f
    if rules in ("yatzy", "yahtzee"):
        if row in ("pair", "two_pairs", "three_of_a_kind", "four_of_a_kind"):
            return sum(dice) if present(row, dice) else None
        if row == "chance":
            return sum(dice)
        if row == "full_house":
            return 25 if present(row, dice) else None
        if row == "small_straight":
            return 30 if four_run(dice) else None
        if row == "large_straight":
            return 40 if sorted(dice) in ([1, 2, 3, 4, 5], [2, 3, 4, 5, 6]) else None
        if row == "poker":
            return 50 if present(row, dice) else None
        raise AssertionError(row)
    base = best_forming_sum(row, dice)
    if base is None:
        return None
    if rules == "scandinavian" and row == "poker":
        return 50
    if rules == "classic":
        if first and row != "chance":
            base *= 2
        return base + (50 if row == "poker" else 0)
    if rules == "banked":
        return base + {"four_of_a_kind": 30, "poker": 50}.get(row, 0)
    return base


def scratch(rules: str, row: str) -> int:
    """What a row records without its figure (or for a leaver outside banked)."""
    if rules == "classic" and row in UPPER_ROWS:
        return -3 * face_of(row)
    return 0


def joker_value(row: str, dice: Sequence[int]) -> int:
    if row in UPPER_ROWS:
        return list(dice).count(face_of(row)) * face_of(row)
    fixed = {"full_house": 25, "small_straight": 30, "large_straight": 40, "poker": 50}
    return fixed.get(row, sum(dice))


def replay(doc: dict[str, Any]) -> dict[str, Any]:  # noqa: PLR0912, PLR0915 - the rules as written, step by step
    """The docs/rules.md output of a LEGAL replay document, computed from scratch."""
    rules: str = doc["rules"]
    names: list[str] = doc["players"]
    rows = ROWS[rules]
    card = {p: dict.fromkeys(rows) for p in names}
    extra = dict.fromkeys(names, 0)
    bank = dict.fromkeys(names, 0)
    gone: set[str] = set()
    seat = 0
    rnd = 1
    dice: list[int] = []
    throws = 0
    finished = False
    someone_done = False

    def full(p: str) -> bool:
        return all(v is not None for v in card[p].values())

    def next_turn() -> None:
        nonlocal seat, rnd, dice, throws, finished
        dice, throws = [], 0
        if len(gone) == len(names):
            finished = True
            return
        if rules != "banked" and all(full(p) for p in names):
            finished = True
            return
        k = seat
        while True:
            k += 1
            if k == len(names):  # the round is over
                if rules == "banked" and (someone_done or rnd == 40):
                    finished = True
                    return
                k, rnd = 0, rnd + 1
            if names[k] not in gone and (rules == "banked" or not full(names[k])):
                seat = k
                return

    for act in doc["actions"]:
        assert not finished
        p = act["player"]
        if "leave" in act:
            gone.add(p)
            if rules == "banked" and p == names[seat]:
                bank[p] -= max(0, throws - 3)  # leaving mid-turn spends as a pass does
            if rules != "banked":
                for r in rows:
                    if card[p][r] is None:
                        card[p][r] = scratch(rules, r)
            if p == names[seat]:
                next_turn()
            elif len(gone) == len(names) or (rules != "banked" and all(full(q) for q in names)):
                finished = True
            continue
        assert p == names[seat]
        if "roll" in act:
            keep = set(act.get("hold", []))
            new = iter(act["roll"])
            dice = [dice[i] if i in keep else next(new) for i in range(5)]
            throws += 1
        elif "pass" in act:
            bank[p] -= max(0, throws - 3)
            next_turn()
        else:
            row = act["score"]
            poker = card[p].get("poker")
            five = len(set(dice)) == 1
            joker = five and (
                (rules == "yatzy" and poker == 50) or (rules == "yahtzee" and poker is not None)
            )
            if joker:
                card[p][row] = joker_value(row, dice)
                extra[p] += 100 if poker == 50 else 0
            else:
                v = value(rules, row, dice, throws == 1)
                card[p][row] = scratch(rules, row) if v is None else v
            if rules == "banked":
                bank[p] += 3 - throws
                someone_done = someone_done or full(p)
            next_turn()

    if finished and rules == "banked":
        for p in names:
            for r in rows:
                if card[p][r] is None:
                    # Only the free program is penalised; an upper figure counts 0.
                    card[p][r] = 0 if r in UPPER_ROWS else PENALTY[r]

    out = []
    for p in names:
        upper = sum(card[p][r] or 0 for r in UPPER_ROWS)
        lower = sum(card[p][r] or 0 for r in rows if r not in UPPER_ROWS)
        if rules == "classic":
            bonus = 50 if all(card[p][r] is not None for r in UPPER_ROWS) and upper >= 0 else 0
        elif rules in ("yatzy", "yahtzee"):
            bonus = 35 if upper >= 63 else 0
        elif rules == "scandinavian":
            bonus = 50 if upper >= 63 else 0
        else:
            bonus = 0
        ext = 3 * bank[p] if rules == "banked" else extra[p]
        out.append(
            {
                "name": p,
                "rows": dict(card[p]),
                "upper": upper,
                "bonus": bonus,
                "lower": lower,
                "extra": ext,
                "banked": bank[p] if rules == "banked" else 0,
                "total": upper + bonus + lower + ext,
            }
        )
    mean = sum(o["total"] for o in out) / len(out)
    for o in out:
        o["settlement"] = o["total"] - mean
        o["rank"] = 1 + sum(1 for q in out if q["total"] > o["total"])
    return {"rules": rules, "finished": finished, "players": out}
