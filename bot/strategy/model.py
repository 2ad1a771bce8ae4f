"""The state space of one player's card for the exact rule sets.

A turn-start state is (upper state, lower state):

* upper state = (filled upper rows as a 6-bit mask, what the upper bonus still needs). For
  threshold rule sets (yatzy, yahtzee, scandinavian: bonus at upper sum ≥ 63) that is the
  sum so far while the bonus is still open, or `None` once it is decided (reached: the bonus
  is then credited as a reward of the row that reached it; or out of reach even with five of
  every free face). For classic (bonus once all six are filled if the signed subtotal is
  ≥ 0) it is the exact signed subtotal until the upper rows are full.
* lower state = (filled lower rows as a bit mask, joker flag). The flag is only used by
  yatzy/yahtzee once the poker row is filled: it is set when poker holds 50 (the +100 and,
  in yatzy, the joker itself depend on it).

`V[u, l]` is the expected number of points still to come from a turn start, with every
point already on the card (bonus included, as `totals_of` counts it) excluded, so the
expected final score of a card is its current total plus `V`.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache

import numpy as np

from bot.engine import FACE, UPPER, RuleSet, get_rules

from .dice import COUNTS, OUTCOMES, BoolArray, FloatArray, IntArray

UpperKey = tuple[int, int | None]  # (mask, bonus progress or None when decided)
NEG = -np.inf


def _popcount(x: int) -> int:
    return bin(x).count("1")


class Model:
    """Rule-set data the solver needs: transitions, rewards, score tables."""

    def __init__(self, rules: RuleSet, start: Mapping[str, int | None] | None = None) -> None:
        if rules.banked:
            raise ValueError("banked has no exact model: use the banked policy")
        self.rules = rules
        self.lower: tuple[str, ...] = rules.lower
        self.nlow = len(self.lower)
        self.joker = rules.joker
        self.poker_bit = 1 << self.lower.index("poker") if "poker" in self.lower else 0
        self.flag_bit = 1 << self.nlow
        self.full_lower = (1 << self.nlow) - 1
        rows = start if start is not None else dict.fromkeys(rules.rows)
        self.start_upper = self.upper_key(rows)
        self.start_lower = self.lower_key(rows)
        self._build_upper()
        self._build_lower()
        self._build_points()

    # --- card → state -------------------------------------------------------------

    def _max_rest(self, mask: int) -> int:
        return sum(
            self.rules.upper_value(f, 5) or 0 for f in range(1, 7) if not mask >> (f - 1) & 1
        )

    def _normal(self, mask: int, s: int) -> int | None:
        rs = self.rules
        if rs.bonus_when_complete:
            return None if mask == 63 else s
        if s >= rs.bonus_threshold or s + self._max_rest(mask) < rs.bonus_threshold:
            return None
        return s

    def upper_key(self, rows: Mapping[str, int | None]) -> UpperKey:
        mask = sum(1 << (FACE[r] - 1) for r in UPPER if rows.get(r) is not None)
        s = sum(rows.get(r) or 0 for r in UPPER)
        return mask, self._normal(mask, s)

    def lower_key(self, rows: Mapping[str, int | None]) -> int:
        mask = sum(1 << i for i, r in enumerate(self.lower) if rows.get(r) is not None)
        if self.joker != "none" and rows.get("poker") == 50:
            mask |= self.flag_bit
        return mask

    def state(self, rows: Mapping[str, int | None]) -> tuple[int, int]:
        """(upper index, lower index) of a card; KeyError when outside this model."""
        return self.upper_index[self.upper_key(rows)], self.lower_index[self.lower_key(rows)]

    # --- upper ----------------------------------------------------------------------

    def step_upper(self, key: UpperKey, f: int, n: int) -> tuple[UpperKey, int]:
        """The upper state after recording face f with n dice showing it, and the reward."""
        rs = self.rules
        mask, s = key
        pts = rs.upper_value(f, n)
        assert pts is not None
        mask2 = mask | 1 << (f - 1)
        if s is None:
            return (mask2, None), pts
        s2 = s + pts
        reward = pts
        if rs.bonus_when_complete:
            if mask2 == 63 and s2 >= rs.bonus_threshold:
                reward += rs.bonus
        elif s2 >= rs.bonus_threshold:
            reward += rs.bonus
        return (mask2, self._normal(mask2, s2)), reward

    def _build_upper(self) -> None:
        seen = {self.start_upper}
        frontier = [self.start_upper]
        while frontier:
            nxt = []
            for key in frontier:
                for f in range(1, 7):
                    if key[0] >> (f - 1) & 1:
                        continue
                    for n in range(6):
                        k2, _ = self.step_upper(key, f, n)
                        if k2 not in seen:
                            seen.add(k2)
                            nxt.append(k2)
            frontier = nxt
        self.upper_keys: list[UpperKey] = sorted(seen, key=lambda k: (k[0], k[1] is None, k[1]))
        self.upper_index = {k: i for i, k in enumerate(self.upper_keys)}
        nu = len(self.upper_keys)
        # unext[u, f-1, n]: next upper index, -1 when face f is already filled (V has a
        # trailing -inf row so that index -1 reads as "not allowed").
        self.unext: IntArray = np.full((nu, 6, 6), -1, dtype=np.int64)
        self.urew: FloatArray = np.zeros((nu, 6, 6))
        for u, key in enumerate(self.upper_keys):
            for f in range(1, 7):
                if key[0] >> (f - 1) & 1:
                    continue
                for n in range(6):
                    k2, reward = self.step_upper(key, f, n)
                    self.unext[u, f - 1, n] = self.upper_index[k2]
                    self.urew[u, f - 1, n] = reward
        self.upper_pop = np.array([_popcount(k[0]) for k in self.upper_keys])

    # --- lower ----------------------------------------------------------------------

    def _build_lower(self) -> None:
        start = self.start_lower
        base = start & self.full_lower
        keys = []
        for mask in range(1 << self.nlow):
            if mask & base != base:
                continue
            if self.joker != "none" and mask & self.poker_bit:
                if base & self.poker_bit:
                    keys.append(mask | (start & self.flag_bit))
                else:
                    keys += [mask, mask | self.flag_bit]
            else:
                keys.append(mask)
        self.lower_keys: list[int] = keys
        self.lower_key_array: IntArray = np.array(keys, dtype=np.int64)
        self.lower_index = {k: i for i, k in enumerate(keys)}
        nl = len(keys)
        # lnext[l, r, made]: lower index after recording lower row r (made = poker scored 50).
        self.lnext: IntArray = np.full((nl, self.nlow, 2), -1, dtype=np.int64)
        for i, key in enumerate(keys):
            for r in range(self.nlow):
                if key >> r & 1:
                    continue
                for made in (0, 1):
                    k2 = key | 1 << r
                    if made and self.joker != "none" and 1 << r == self.poker_bit:
                        k2 |= self.flag_bit
                    self.lnext[i, r, made] = self.lower_index[k2]
        self.lower_pop = np.array([_popcount(k & self.full_lower) for k in keys])

    def joker_active(self, lkeys: IntArray) -> BoolArray:
        """Per lower key: whether a throw of poker is a forced joker."""
        bit = {"yatzy": self.flag_bit, "yahtzee": self.poker_bit}.get(self.joker, 0)
        active: BoolArray = (lkeys & bit) != 0
        return active

    # --- points -----------------------------------------------------------------------

    def _build_points(self) -> None:
        rs = self.rules
        # points[first][r]: what lower row r scores for each outcome (-inf: not allowed).
        self.points: list[FloatArray] = []
        for first in (False, True):
            table = np.full((self.nlow, len(OUTCOMES)), NEG)
            for r, row in enumerate(self.lower):
                for o, dice in enumerate(OUTCOMES):
                    made = rs.made_value(row, dice, first)
                    if made is not None:
                        table[r, o] = made
                    elif rs.scratch:
                        table[r, o] = rs.scratch_value(row)
            self.points.append(table)
        self.doubling = rs.first_throw_double
        # Under the joker every lower row counts as made: joker_points[r, f-1].
        self.joker_points = np.array(
            [[rs.joker_value(row, (f,) * 5) for f in range(1, 7)] for row in self.lower],
            dtype=np.float64,
        )
        self.poker_made = np.array([len(set(o)) == 1 for o in OUTCOMES]) if self.poker_bit else None
        self.counts = COUNTS


@lru_cache(maxsize=8)
def model_for(name: str) -> Model:
    """The model of an empty card of rule set `name`, built once (loading, normal play)."""
    return Model(get_rules(name))
