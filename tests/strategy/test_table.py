"""Caching tables on disk, the hint API and the solve command."""

import random
from dataclasses import replace

import numpy as np
import pytest

from bot.__main__ import main
from bot.engine import Game
from bot.strategy import (
    FORMAT_VERSION,
    Hold,
    PassTurn,
    Record,
    advise,
    choose,
    compute,
    load,
    load_or_compute,
    loss,
    path_for,
    save,
    value_of,
)
from bot.strategy import table as table_module


@pytest.fixture(scope="module")
def classic():
    return compute("classic")


def test_save_then_load_gives_the_same_values(tmp_path, classic):
    target = save(classic, tmp_path)
    assert target == path_for("classic", tmp_path)
    assert target.name == f"classic.v{FORMAT_VERSION}.npz"
    assert [p.name for p in tmp_path.iterdir()] == [target.name]  # no temporary left
    loaded = load("classic", tmp_path)
    assert loaded is not None
    np.testing.assert_array_equal(loaded.values, classic.values)
    assert loaded.optimum == classic.optimum


def test_load_refuses_missing_damaged_and_other_version_files(tmp_path, classic, monkeypatch):
    assert load("classic", tmp_path) is None
    path_for("classic", tmp_path).write_bytes(b"not a table")
    assert load("classic", tmp_path) is None
    good = save(classic, tmp_path).read_bytes()
    path_for("classic", tmp_path).write_bytes(good[: len(good) // 2])  # a torn copy
    assert load("classic", tmp_path) is None
    save(classic, tmp_path)
    monkeypatch.setattr(table_module, "FORMAT_VERSION", FORMAT_VERSION + 1)
    assert load("classic", tmp_path) is None  # another version's file name
    with pytest.raises(ValueError, match="no exact table"):
        load("banked", tmp_path)


def test_load_or_compute_computes_once_then_loads(tmp_path, monkeypatch):
    first = load_or_compute("classic", tmp_path)
    assert first.seconds > 0
    monkeypatch.setattr(table_module, "compute", lambda *_: pytest.fail("recomputed"))
    second = load_or_compute("classic", tmp_path)
    assert second.seconds == 0
    assert second.optimum == first.optimum


def test_advise_before_during_and_after_the_throws(classic):
    game = Game.new("classic", ["ann", "bob"])
    start = advise(classic, game)
    assert start.best.decision == Hold(())
    assert start.best.expected == pytest.approx(classic.optimum)
    game, _ = game.roll("ann", (), [6, 6, 6, 2, 1])
    hint = advise(classic, game)
    assert len(hint.choices) == 3
    values = [c.expected for c in hint.choices]
    assert values == sorted(values, reverse=True)
    # The best first-throw choice keeps the three sixes (sixes row: at least 0, maybe +12).
    assert hint.best.decision == Hold((0, 1, 2))
    game, _ = game.roll("ann", (0, 1, 2), [6, 3])
    game, _ = game.roll("ann", (0, 1, 2, 3), [6])
    last = advise(classic, game)
    assert last.best.decision == Record("sixes")  # five sixes: +12
    assert all(isinstance(c.decision, Record) for c in last.choices)


def test_loss_is_zero_for_the_best_choice_and_positive_for_a_bad_one(classic):
    game = Game.new("classic", ["ann"])
    game, _ = game.roll("ann", (), [5, 5, 5, 5, 5])
    best = advise(classic, game).best
    assert loss(classic, game, best.decision) == 0.0
    assert loss(classic, game, Record("ones")) > 10  # five fives wasted as −3
    assert loss(classic, game, Hold(())) > 0
    with pytest.raises(ValueError, match="cannot be recorded"):
        value_of(classic, game, Record("pair"))  # the upper rows come first
    with pytest.raises(ValueError, match="no pass"):
        loss(classic, game, PassTurn())
    with pytest.raises(ValueError, match="positions"):
        loss(classic, game, Hold((0, 0)))
    done = replace(game, throws=3)
    with pytest.raises(ValueError, match="no throws left"):
        loss(classic, done, Hold((0,)))


def test_holding_all_five_is_valued_like_throwing_nothing(classic):
    game = Game.new("classic", ["ann"])
    game, _ = game.roll("ann", (), [1, 2, 3, 4, 6])
    keep_all = value_of(classic, game, Hold((0, 1, 2, 3, 4)))
    best = advise(classic, game).best.expected
    assert keep_all <= best + 1e-9


def test_advice_for_another_rule_set_or_a_finished_game_is_refused(classic):
    with pytest.raises(ValueError, match="the table is for classic"):
        advise(classic, Game.new("yatzy", ["a"]))
    game = replace(Game.new("classic", ["a"]), finished=True)
    with pytest.raises(ValueError, match="over"):
        advise(classic, game)
    with pytest.raises(ValueError, match="over"):
        choose("perfect", game, classic, random.Random(0))


def test_solve_command_prints_the_optimum_and_caches(tmp_path, capsys):
    assert main(["solve", "--rules", "classic", "--dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out.split()
    assert out[0] == "classic"
    assert out[1] == f"{compute('classic').optimum:.4f}"
    assert out[2].endswith("s")
    assert path_for("classic", tmp_path).exists()
    assert main(["solve", "--rules", "classic", "--dir", str(tmp_path)]) == 0
    assert "(loaded)" in capsys.readouterr().out


def test_solve_command_refuses_unknown_rules(tmp_path, capsys):
    assert main(["solve", "--rules", "poker", "--dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "unknown rules 'poker'" in err
    assert not any(tmp_path.iterdir())


def test_each_player_is_advised_from_their_own_card(classic):
    game = Game.new("classic", ["ann", "bob"])
    game, _ = game.roll("ann", (), [6, 6, 6, 6, 6])
    game, _ = game.score("ann", "sixes")
    assert game.player == "bob"
    assert advise(classic, game).best.expected == pytest.approx(classic.optimum)
    ann = game.card_of("ann")
    assert classic.expected(ann) > classic.optimum  # +12 in sixes is a good start


def test_solve_for_banked_reports_the_policy_average(tmp_path, capsys):
    from bot.strategy.cli import solve

    assert solve("banked", tmp_path, games=30) == 0
    out = capsys.readouterr().out
    assert out.startswith("banked no exact solution: the banked policy averages ")
    assert "over 30 games" in out
    assert not any(tmp_path.iterdir())  # nothing to cache
