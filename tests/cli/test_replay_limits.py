"""The replay command's limits: at most 8 players (more is malformed, exit 2), error lines
that quote at most 80 characters of the input, and long valid files (the benchmark's)."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bench.bench_engine import _long_document
from bot.engine.replay import cli

ROOT = Path(__file__).resolve().parents[2]
LONG = 500  # characters of one input value: far past what a line may quote


def replay(document: Any) -> tuple[int, bytes, str]:
    stdout, stderr = io.BytesIO(), io.StringIO()
    status = cli("-", io.BytesIO(json.dumps(document).encode()), stdout, stderr)
    return status, stdout.getvalue(), stderr.getvalue()


def test_nine_players_are_malformed():
    document = {"rules": "classic", "players": [f"p{i}" for i in range(9)], "actions": []}
    proc = subprocess.run(
        [sys.executable, "-m", "bot", "replay", "-"],
        input=json.dumps(document).encode(),
        capture_output=True,
        cwd=ROOT,
        check=False,
    )
    assert proc.returncode == 2
    assert proc.stdout == b""
    assert proc.stderr.decode().count("\n") == 1
    assert "8" in proc.stderr.decode()
    eight = {**document, "players": document["players"][:8]}
    assert replay(eight)[0] == 0


def _players(name: str) -> dict[str, Any]:
    return {"rules": "classic", "players": ["a", name], "actions": []}


@pytest.mark.parametrize(
    "document",
    [
        {"rules": "x" * LONG, "players": ["a"], "actions": []},
        {"rules": "classic", "players": ["a"], "actions": [{"player": "x" * LONG, "roll": [1]}]},
        {"rules": "classic", "players": ["a"], "actions": [{"player": "a", "score": "x" * LONG}]},
        {"rules": "classic", "players": ["a"], "actions": [{"player": "a", "x" * LONG: 1}]},
        {"rules": "classic", "players": ["a"], "actions": [], "x" * LONG: 1},
        {"rules": "classic", "players": ["a", "a"], "actions": [{"player": "x" * LONG}]},
        {"rules": "classic", "players": ["a"], "actions": [{"player": "a", "roll": ["x" * LONG]}]},
        {"rules": "classic", "players": ["a"], "actions": ["x" * LONG]},
    ],
)
def test_an_error_line_quotes_at_most_80_characters_of_the_input(document: Any):
    status, out, err = replay(document)
    assert status == 2
    assert out == b""
    assert err.count("\n") == 1
    longest = max((len(run) for run in re.findall(r"x+", err)), default=0)
    assert longest <= 80, err


def test_a_long_valid_file_replays():
    document = _long_document(0)
    assert len(document["actions"]) > 1000
    status, out, err = replay(document)
    assert (status, err) == (0, "")
    result = json.loads(out)
    assert result["finished"] is True
    assert len(result["players"]) == 8
