"""`python -m bot replay FILE` as a user runs it: a real subprocess, bytes in, bytes out."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from bot.engine import UPPER
from bot.engine.replay import document
from tests.engine import reference as ref
from tests.engine.play import play

ROOT = Path(__file__).resolve().parents[2]


def replay(arg: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "bot", "replay", arg],
        input=stdin,
        capture_output=True,
        cwd=ROOT,
        check=False,
        timeout=120,
    )


def replay_doc(doc, tmp_path: Path) -> subprocess.CompletedProcess[bytes]:
    path = tmp_path / "game.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return replay(str(path))


def assert_refused(proc: subprocess.CompletedProcess[bytes], start: str) -> str:
    """Exit 2, nothing on stdout, exactly one line on stderr starting with `start`."""
    err = proc.stderr.decode("utf-8", "replace")
    assert proc.returncode == 2, err
    assert proc.stdout == b""
    assert "Traceback" not in err
    assert err.endswith("\n")
    assert err.count("\n") == 1, err
    assert err.startswith(start), err
    return err


EXAMPLE = {
    "rules": "classic",
    "players": ["ann", "bob"],
    "actions": [
        {"player": "ann", "roll": [2, 3, 6, 2, 1]},
        {"player": "ann", "hold": [0, 3], "roll": [2, 5, 4]},
        {"player": "ann", "score": "twos"},
        {"player": "bob", "roll": [1, 1, 1, 4, 5]},
        {"player": "bob", "score": "ones"},
    ],
}


def empty_rows(rules: str) -> dict:
    return dict.fromkeys(ref.ROWS[rules])


def test_rules_md_example_from_a_file_and_from_stdin(tmp_path):
    ann_rows = {**empty_rows("classic"), "twos": 0}  # 2 2 5 2 4: three twos
    bob_rows = {**empty_rows("classic"), "ones": 0}
    zero = {"upper": 0, "bonus": 0, "lower": 0, "extra": 0, "banked": 0, "total": 0}
    expected = {
        "rules": "classic",
        "finished": False,
        "players": [
            {"name": "ann", "rows": ann_rows, **zero, "settlement": 0.0, "rank": 1},
            {"name": "bob", "rows": bob_rows, **zero, "settlement": 0.0, "rank": 1},
        ],
    }
    from_file = replay_doc(EXAMPLE, tmp_path)
    from_stdin = replay("-", json.dumps(EXAMPLE).encode())
    for proc in (from_file, from_stdin):
        assert proc.returncode == 0, proc.stderr
        assert proc.stderr == b""
        assert proc.stdout == (json.dumps(expected) + "\n").encode()


def test_a_finished_classic_game_by_hand(tmp_path):
    """One player, every row worked out by hand from docs/rules.md."""
    script = [
        ("ones", [1, 1, 1, 1, 2]),  # +1
        ("twos", [2, 2, 2, 2, 2]),  # +4
        ("threes", [3, 3, 3, 1, 1]),  # 0
        ("fours", [1, 1, 1, 1, 1]),  # −12
        ("fives", [5, 5, 5, 5, 1]),  # +5
        ("sixes", [6, 6, 6, 6, 6]),  # +12  → upper 10, bonus 50
        ("pair", [5, 5, 3, 3, 1]),  # first throw: 20
        ("two_pairs", [2, 2, 2, 5, 5]),  # 28
        ("three_of_a_kind", [4, 4, 4, 1, 2]),  # 24
        ("four_of_a_kind", [1, 2, 3, 4, 5]),  # scratch 0
        ("full_house", [2, 2, 2, 3, 3]),  # 24
        ("small_straight", [1, 2, 3, 4, 5]),  # 30
        ("large_straight", [2, 3, 4, 5, 6]),  # 40
        ("poker", [6, 6, 6, 6, 6]),  # 110
        ("chance", [1, 3, 5, 4, 6]),  # 19, never doubled
    ]
    actions = []
    for row, dice in script:
        actions += [{"player": "ann", "roll": dice}, {"player": "ann", "score": row}]
    # A second throw for the last row would not double: check one by hand too.
    actions[-2:] = [
        {"player": "ann", "roll": [1, 1, 5, 4, 6]},
        {"player": "ann", "hold": [1, 2, 3, 4], "roll": [3]},
        {"player": "ann", "score": "chance"},
    ]
    proc = replay_doc({"rules": "classic", "players": ["ann"], "actions": actions}, tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    rows = out["players"][0]["rows"]
    assert [rows[r] for r in UPPER] == [1, 4, 0, -12, 5, 12]
    assert rows["pair"] == 20
    assert rows["two_pairs"] == 28
    assert rows["four_of_a_kind"] == 0
    assert rows["poker"] == 110
    assert rows["chance"] == 19
    assert out == {
        "rules": "classic",
        "finished": True,
        "players": [
            {
                "name": "ann",
                "rows": rows,
                "upper": 10,
                "bonus": 50,
                "lower": 20 + 28 + 24 + 0 + 24 + 30 + 40 + 110 + 19,
                "extra": 0,
                "banked": 0,
                "total": 10 + 50 + 295,
                "settlement": 0.0,
                "rank": 1,
            }
        ],
    }


def test_a_banked_game_that_hits_the_cap(tmp_path):
    actions = [{"player": "ann", "roll": [1, 1, 1, 2, 3]}, {"player": "ann", "score": "ones"}]
    actions += [{"player": "ann", "pass": True}] * 39
    proc = replay_doc({"rules": "banked", "players": ["ann"], "actions": actions}, tmp_path)
    assert proc.returncode == 0, proc.stderr
    player = json.loads(proc.stdout)["players"][0]
    assert player["rows"]["ones"] == 0
    assert player["rows"]["twos"] == 0  # only the free program is penalised
    assert player["rows"]["chance"] == -30
    assert (player["upper"], player["lower"], player["extra"], player["banked"]) == (
        0,
        -199,
        6,
        2,
    )
    assert player["total"] == -193


def test_settlement_is_the_raw_float_and_rank_shares_ties(tmp_path):
    actions = []
    for name, dice in (("a", [1, 1, 1, 1, 1]), ("b", [1, 1, 1, 1, 1]), ("c", [2, 2, 2, 2, 2])):
        actions += [{"player": name, "roll": dice}, {"player": name, "score": "ones"}]
    proc = replay_doc(
        {"rules": "classic", "players": ["a", "b", "c"], "actions": actions}, tmp_path
    )
    players = json.loads(proc.stdout)["players"]
    assert [p["total"] for p in players] == [2, 2, -3]
    assert [p["settlement"] for p in players] == [2 - 1 / 3, 2 - 1 / 3, -3 - 1 / 3]
    assert [p["rank"] for p in players] == [1, 1, 3]


@pytest.mark.parametrize("rules", sorted(ref.ROWS))
def test_random_games_of_every_rule_set_match_the_reference(rules, tmp_path):
    _, actions = play(rules, ["ann", "bob", "cat"], random.Random(rules), luck=0.6, fives=0.2)
    doc = document(rules, ["ann", "bob", "cat"], actions)
    proc = replay_doc(doc, tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == ref.replay(doc)


def test_non_ascii_names_are_printed_as_utf8(tmp_path):
    doc = {"rules": "yatzy", "players": ["Ана", "राम"], "actions": []}
    proc = replay_doc(doc, tmp_path)
    assert proc.returncode == 0
    assert "राम".encode() in proc.stdout
    assert [p["name"] for p in json.loads(proc.stdout)["players"]] == ["Ана", "राम"]


def _finished_yahtzee() -> dict:
    _, actions = play("yahtzee", ["ann"], random.Random(3))
    return document("yahtzee", ["ann"], actions)


def _doc(actions, rules="classic", players=("ann", "bob")) -> dict:
    return {"rules": rules, "players": list(players), "actions": actions}


R = {"player": "ann", "roll": [1, 2, 3, 4, 5]}

BAD_ACTIONS = {
    "unknown row": (_doc([R, {"player": "ann", "score": "yahtzee"}]), 1),
    "die above six": (_doc([{"player": "ann", "roll": [1, 2, 3, 4, 7]}]), 0),
    "die zero": (_doc([{"player": "ann", "roll": [0, 2, 3, 4, 5]}]), 0),
    "die true": (_doc([{"player": "ann", "roll": [True, 2, 3, 4, 5]}]), 0),
    "die 3.0": (_doc([{"player": "ann", "roll": [3.0, 2, 3, 4, 5]}]), 0),
    "huge die": (_doc([{"player": "ann", "roll": [10**30, 2, 3, 4, 5]}]), 0),
    "four dice": (_doc([{"player": "ann", "roll": [1, 2, 3, 4]}]), 0),
    "hold on first throw": (_doc([{"player": "ann", "hold": [0], "roll": [1, 2, 3, 4]}]), 0),
    "hold out of range": (_doc([R, {"player": "ann", "hold": [5], "roll": [1, 2, 3, 4]}]), 1),
    "hold twice": (_doc([R, {"player": "ann", "hold": [1, 1], "roll": [1, 2, 3]}]), 1),
    "hold not a list": (_doc([R, {"player": "ann", "hold": 1, "roll": [1, 2, 3, 4]}]), 1),
    "fourth throw": (_doc([R, R, R, R]), 3),
    "wrong player": (_doc([R, {"player": "bob", "roll": [1, 2, 3, 4, 5]}]), 1),
    "unknown player": (_doc([{"player": "zed", "roll": [1, 2, 3, 4, 5]}]), 0),
    "filled row": (
        _doc([R, {"player": "ann", "score": "ones"}, R, {"player": "ann", "score": "ones"}], None),
        3,
    ),
    "lower row too early": (_doc([R, {"player": "ann", "score": "chance"}]), 1),
    "banked figure not made": (_doc([R, {"player": "ann", "score": "ones"}], "banked"), 1),
    "pass outside banked": (_doc([R, {"player": "ann", "pass": True}]), 1),
    "pass false": (_doc([{"player": "ann", "pass": False}], "banked"), 0),
    "score before a throw": (_doc([{"player": "ann", "score": "ones"}]), 0),
    "unknown key in an action": (_doc([{"player": "ann", "roll": [1, 2, 3, 4, 5], "x": 1}]), 0),
    "action not an object": (_doc([R, ["ann", "ones"]]), 1),
    "no player": (_doc([{"roll": [1, 2, 3, 4, 5]}]), 0),
    "leave twice": (_doc([{"player": "bob", "leave": True}, {"player": "bob", "leave": True}]), 1),
}


@pytest.mark.parametrize("case", sorted(BAD_ACTIONS))
def test_illegal_action_exits_2_naming_its_index(case, tmp_path):
    doc, index = BAD_ACTIONS[case]
    if doc["rules"] is None:  # one player so the same player throws again
        doc = {**doc, "rules": "yatzy", "players": ["ann"]}
    assert_refused(replay_doc(doc, tmp_path), f"action {index}: ")


def test_a_name_with_a_newline_is_escaped_on_the_one_line(tmp_path):
    doc = _doc([{"player": "c", "roll": [1, 2, 3, 4, 5]}], players=["a\nb\r", "c"])
    err = assert_refused(replay_doc(doc, tmp_path), "action 0: ")
    assert "a\\nb\\r" in err


def test_action_after_the_end(tmp_path):
    doc = _finished_yahtzee()
    n = len(doc["actions"])
    assert n >= 26
    doc["actions"].append({"player": "ann", "roll": [1, 2, 3, 4, 5]})
    err = assert_refused(replay_doc(doc, tmp_path), f"action {n}: ")
    assert "over" in err


BAD_INPUTS = {
    "bad JSON": b'{"rules": "classic", ',
    "empty file": b"",
    "a list": b"[1, 2]",
    "a string": b'"classic"',
    "null": b"null",
    "deeply nested": b"[" * 200_000 + b"]" * 200_000,
    "deeply nested object": b'{"a":' * 100_000 + b"1" + b"}" * 100_000,
    "integer past the digit limit": b'{"rules": "classic", "players": ["a"], "actions": ['
    + b'{"player": "a", "roll": ['
    + b"9" * 5000
    + b"]}]}",
    "NaN is not JSON": b'{"rules": "classic", "players": ["a"], "actions": [{"player": "a", '
    + b'"roll": [NaN, 1, 1, 1, 1]}]}',
    "not UTF-8": b'{"rules": "classic", "players": ["\xff\xfe"], "actions": []}',
    "unknown rules": json.dumps(_doc([], "poker")).encode(),
    "rules not a string": json.dumps(_doc([], 5)).encode(),
    "unknown top-level key": json.dumps({**_doc([]), "seed": 1}).encode(),
    "no players": json.dumps(_doc([], players=[])).encode(),
    "duplicate players": json.dumps(_doc([], players=["ann", "ann"])).encode(),
    "empty player name": json.dumps(_doc([], players=[""])).encode(),
    "players not a list": json.dumps(
        {"rules": "classic", "players": "ann", "actions": []}
    ).encode(),
    "actions missing": json.dumps({"rules": "classic", "players": ["ann"]}).encode(),
}


@pytest.mark.parametrize("case", sorted(BAD_INPUTS))
def test_malformed_input_exits_2_with_one_line(case, tmp_path):
    data = BAD_INPUTS[case]
    path = tmp_path / "game.json"
    path.write_bytes(data)
    assert_refused(replay(str(path)), "input: ")
    err = assert_refused(replay("-", data), "input: ")
    assert "set_int_max_str_digits" not in err


def test_a_number_too_big_for_a_float_is_no_die(tmp_path):
    data = b'{"rules": "classic", "players": ["a"], "actions": [{"player": "a", "roll": [1e999'
    data += b", 1, 1, 1, 1]}]}"
    assert_refused(replay("-", data), "action 0: ")


def test_closed_standard_input():
    proc = subprocess.run(
        ["/bin/sh", "-c", f'exec "{sys.executable}" -m bot replay - <&-'],
        capture_output=True,
        cwd=ROOT,
        check=False,
        timeout=120,
    )
    assert_refused(proc, "input: ")


def test_missing_file_and_directory(tmp_path):
    err = assert_refused(replay(str(tmp_path / "nope.json")), "input: ")
    assert "nope.json" in err
    assert_refused(replay(str(tmp_path)), "input: ")
