"""The daily dice: fixed per (day, rule set, turn, throw, position), uniform, secret."""

from __future__ import annotations

import hmac
import random
import struct
from collections import Counter
from datetime import UTC, date, datetime, timedelta, timezone
from hashlib import sha256

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.engine import RULESETS, Game, GameError, Pass
from bot.engine.daily import DailyDice, new_secret, uniform_face, utc_day

SECRET = b"a fixed test secret, 32 bytes.."
DAY = date(2025, 6, 1)
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def first_dice(daily: DailyDice, turns: int = 15) -> list[int]:
    return [daily.die(t, k, p) for t in range(turns) for k in (1, 2, 3) for p in range(5)]


def test_same_inputs_same_dice():
    a, b = DailyDice(SECRET, DAY, "classic"), DailyDice(SECRET, DAY, "classic")
    assert first_dice(a) == first_dice(b)
    assert a.throw(3, 2) == tuple(a.die(3, 2, p) for p in range(5))


def test_days_rules_and_secrets_differ():
    base = first_dice(DailyDice(SECRET, DAY, "classic"))
    others = [
        DailyDice(SECRET, DAY + timedelta(days=1), "classic"),
        DailyDice(SECRET, DAY, "yatzy"),
        DailyDice(SECRET[:-1] + b"!", DAY, "classic"),
    ]
    for other in others:
        assert first_dice(other) != base
    # The rule sets of one day are independent of each other too.
    assert len({tuple(first_dice(DailyDice(SECRET, DAY, r))) for r in RULESETS}) == len(RULESETS)


def test_known_values_pin_the_encoding():
    """The message is domain || ISO day || len(rules) (u16) || rules || t, k, p (u32 each)
    || block counter (u32), big-endian. Changing it would change every day's dice."""
    daily = DailyDice(SECRET, DAY, "yatzy")
    for t, k, p in [(0, 1, 0), (7, 3, 4), (39, 9, 2)]:
        message = (
            b"dicepoker/daily/v1"
            + b"2025-06-01"
            + struct.pack(">H", 5)
            + b"yatzy"
            + struct.pack(">III", t, k, p)
        )
        digest = hmac.new(SECRET, message + struct.pack(">I", 0), sha256).digest()
        byte = next(b for b in digest if b < 252)
        assert daily.die(t, k, p) == byte % 6 + 1


def test_rejection_path_is_taken():
    """Find a die whose digest starts with a rejected byte: its face comes from the next."""
    daily = DailyDice(SECRET, DAY, "classic")
    prefix = b"dicepoker/daily/v1" + b"2025-06-01" + struct.pack(">H", 7) + b"classic"
    for t in range(2000):
        message = prefix + struct.pack(">III", t, 1, 0) + struct.pack(">I", 0)
        digest = hmac.new(SECRET, message, sha256).digest()
        if digest[0] >= 252:
            second = next(b for b in digest[1:] if b < 252)
            assert daily.die(t, 1, 0) == second % 6 + 1
            return
    pytest.fail("no rejected first byte in 2000 digests (expected about 31)")


def test_uniform_face_rejects_and_extends():
    assert uniform_face([bytes([251])]) == 251 % 6 + 1
    assert uniform_face([bytes([252, 253, 254, 255, 7])]) == 7 % 6 + 1
    # A wholly rejected block: the next block (the counter's) is used.
    assert uniform_face([b"\xff" * 32, b"\xfc\x0b"]) == 11 % 6 + 1
    with pytest.raises(ValueError, match="ended"):
        uniform_face([b"\xfe" * 32])
    # Every accepted byte maps to each face exactly 42 times.
    assert Counter(uniform_face([bytes([b])]) for b in range(252)) == dict.fromkeys(
        range(1, 7), 42
    )


def test_faces_are_uniform():
    """Chi-square over 60,000 dice of a fixed secret (deterministic, so it cannot flake).
    5 degrees of freedom: 35 is far in the tail (p ~ 2e-6); a fair source sits near 5."""
    daily = DailyDice(SECRET, DAY, "banked")
    n = 4000 * 3 * 5
    counts = Counter(daily.die(t, k, p) for t in range(4000) for k in (1, 2, 3) for p in range(5))
    expected = n / 6
    chi2 = sum((counts[f] - expected) ** 2 / expected for f in range(1, 7))
    assert set(counts) == set(range(1, 7))
    assert chi2 < 35, (chi2, counts)


def test_checks_its_arguments():
    with pytest.raises(ValueError, match="16 bytes"):
        DailyDice(b"short", DAY, "classic")
    with pytest.raises(TypeError):
        DailyDice(SECRET, datetime(2025, 6, 1, tzinfo=UTC), "classic")
    daily = DailyDice(SECRET, DAY, "classic")
    for bad in [(-1, 1, 0), (0, 0, 0), (0, 1, 5), (0, 1, -1)]:
        with pytest.raises(ValueError, match="no die"):
            daily.die(*bad)
    assert SECRET.hex() not in repr(daily)
    assert "secret" not in repr(daily)


def test_new_secret():
    a, b = new_secret(), new_secret()
    assert len(a) == 32
    assert a != b
    DailyDice(a, DAY, "classic")


def test_utc_day():
    moscow = timezone(timedelta(hours=3))
    assert utc_day(datetime(2025, 3, 1, 1, 0, tzinfo=moscow)) == date(2025, 2, 28)
    assert utc_day(datetime(2025, 3, 1, 23, 59, tzinfo=UTC)) == date(2025, 3, 1)
    with pytest.raises(ValueError, match="naive"):
        utc_day(datetime(2025, 3, 1))


def test_draw_checks_rules_and_turn():
    daily = DailyDice(SECRET, DAY, "classic")
    with pytest.raises(ValueError, match="yatzy"):
        daily.draw(Game.new("yatzy", ["ann"]), "ann")
    game = Game.new("classic", ["ann", "bob"])
    with pytest.raises(GameError):
        daily.draw(game, "bob")
    with pytest.raises(GameError):
        daily.draw(game, "ann", hold=[0])  # nothing to hold before the first throw


def test_draw_keeps_the_marked_dice():
    daily = DailyDice(SECRET, DAY, "classic")
    game = Game.new("classic", ["ann"])
    game, _ = game.apply(daily.draw(game, "ann"))
    assert game.dice == daily.throw(0, 1)
    game = game.toggle_hold("ann", 1).toggle_hold("ann", 3)
    roll = daily.draw(game, "ann")
    assert roll.hold == (1, 3)
    assert roll.values == tuple(daily.die(0, 2, p) for p in (0, 2, 4))
    assert daily.draw(game, "ann", hold=[4, 0]).hold == (0, 4)


def _solo(daily: DailyDice, rules: str, rng: random.Random) -> dict[tuple[int, int, int], int]:
    """A random solo game on the day's dice: what each thrown position showed, keyed by
    (turn, throw, position) as the test counts them (a record or a pass ends a turn)."""
    game = Game.new(rules, ["p"])
    seen: dict[tuple[int, int, int], int] = {}
    turn = throw = 0
    while not game.finished:
        options = game.options()
        if game.rules.banked and rng.random() < 0.1:
            game, _ = game.apply(Pass("p"))
            turn, throw = turn + 1, 0
            continue
        if game.throws_left() and (not options or rng.random() < 0.6):
            hold = sorted(rng.sample(range(5), rng.randint(0, 5))) if game.dice else []
            game, _ = game.apply(daily.draw(game, "p", hold))
            throw += 1
            for p in set(range(5)) - set(hold):
                seen[turn, throw, p] = game.dice[p]
            continue
        if not options:
            game, _ = game.apply(Pass("p"))
        else:
            game, _ = game.score("p", rng.choice(options).row)
        turn, throw = turn + 1, 0
    return seen


@SETTINGS
@given(st.sampled_from(sorted(RULESETS)), st.integers(0, 2**32), st.integers(0, 2**32))
def test_players_who_throw_a_position_see_the_same_value(rules, seed_a, seed_b):
    daily = DailyDice(SECRET, DAY, rules)
    a = _solo(daily, rules, random.Random(seed_a))
    b = _solo(DailyDice(SECRET, DAY, rules), rules, random.Random(seed_b))
    both = a.keys() & b.keys()
    for key in both:
        assert a[key] == b[key] == daily.die(*key)
