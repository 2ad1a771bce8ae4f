"""`python -m bot solve`: banked has no exact table and simulates instead, saying so and
how far it is while it runs (the deploy step's 2000 games take about a minute)."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from bot.strategy import cli


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_banked_says_it_simulates_and_shows_progress_in_a_log(tmp_path: Path, capsys) -> None:
    assert cli.solve("banked", tmp_path, games=20) == 0
    out, err = capsys.readouterr()
    lines = err.splitlines()
    assert lines[0] == "banked has no exact table: simulating 20 games of its computer player…"
    # A log gets a line every tenth, the last at the end; the result alone on stdout.
    assert lines[1:] == [f"  {n}/20 games" for n in range(2, 21, 2)]
    assert re.fullmatch(
        r"banked no exact solution: the banked policy averages \d+\.\d{4} ± \d+\.\d{4} "
        r"over 20 games, \d+\.\d\ds\n",
        out,
    ), out


def test_banked_progress_updates_in_place_on_a_terminal(tmp_path: Path, capsys) -> None:
    shown = Terminal()
    assert cli.solve("banked", tmp_path, games=200, progress=shown) == 0
    text = shown.getvalue()
    first, rest = text.split("\n", 1)
    assert first.endswith("computer player…")
    assert rest.count("\r") == 99
    assert rest.endswith("  200/200 games\n")
    assert "  2/200 games\r" in rest
    assert capsys.readouterr().out.count("\n") == 1


def test_the_deploy_steps_count_is_said_to_take_a_minute(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setattr(cli, "play_solitaire", lambda *_args: 240)
    shown = io.StringIO()
    assert cli.solve("banked", tmp_path, progress=shown) == 0
    assert shown.getvalue().splitlines()[0] == (
        f"banked has no exact table: simulating {cli.BANKED_GAMES} games of its computer "
        "player (about a minute)…"
    )


@pytest.mark.parametrize("rules", ["poker", ""])
def test_unknown_rules_are_one_line(rules: str, tmp_path: Path, capsys) -> None:
    assert cli.solve(rules, tmp_path) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith("solve: unknown rules")
