"""`python -m bench NAME`: a name that is no benchmark is refused in one line, running
nothing (a typo used to run nothing and exit 0, as if it had been measured)."""

from __future__ import annotations

import pytest

from bench.__main__ import main


def test_an_unknown_benchmark_is_refused_in_one_line(capsys: pytest.CaptureFixture[str]):
    assert main(["tournamnet"]) == 2
    out, err = capsys.readouterr()
    assert out == ""  # nothing ran
    assert err.count("\n") == 1
    assert "'tournamnet'" in err
    assert "tournament_play" in err  # the known ones are listed


def test_options_still_go_to_exactly_one_benchmark(capsys: pytest.CaptureFixture[str]):
    assert main(["tournament", "seasons", "--games", "5"]) == 2
    assert "one benchmark" in capsys.readouterr().err
