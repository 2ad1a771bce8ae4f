"""The README's commands work as typed after `make run` or `make test`: every
`python -m bot …` it shows runs the virtualenv's Python (`.venv/bin/python`, which the
Makefile makes), outside which the bot's dependencies are missing, and names a
subcommand and options the bot's command line knows."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from bot.__main__ import build_parser

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
COMMAND = re.compile(r"((?:\S*/)?python) -m bot((?: [^`#\n]*)?)")


def commands(*, blocks_only: bool = False) -> list[tuple[str, list[str]]]:
    """(the interpreter as typed, the arguments) of every `python -m bot` in the README:
    in its code blocks (whole commands), and unless `blocks_only` inline (an inline one
    split over two lines joined again; it may name only the subcommand)."""
    text = README.read_text(encoding="utf-8")
    found = []
    for span in re.findall(r"```.*?```|`[^`]+`", text, flags=re.S):
        block = span.startswith("```")
        if blocks_only and not block:
            continue
        lines = span.strip("`").splitlines() if block else [span.strip("`").replace("\n", " ")]
        for line in lines:
            for python, rest in COMMAND.findall(line):
                found.append((python, shlex.split(rest.replace("…", "").strip())))
    return found


def test_the_makefile_makes_the_virtualenv_the_readme_names() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert "VENV := .venv" in makefile
    assert "PY := $(VENV)/bin/python" in makefile


def test_every_command_runs_in_the_virtualenv() -> None:
    found = commands()
    assert len(found) >= 8
    bare = [args for python, args in found if python != ".venv/bin/python"]
    # Once: "or `source .venv/bin/activate` once, then `python -m bot …`".
    assert bare == [[]], bare


@pytest.mark.parametrize("args", [a for _, a in commands(blocks_only=True)], ids=" ".join)
def test_every_command_shown_whole_parses(args: list[str]) -> None:
    parsed = build_parser().parse_args(args)  # argparse exits 2 on anything it does not know
    assert parsed.command == args[0]


def test_every_command_named_inline_exists() -> None:
    known = {"run", "sync", "migrate", "replay", "solve"}
    named = {args[0] for _, args in commands() if args}
    assert named <= known
    assert named >= {"sync", "replay", "solve"}
