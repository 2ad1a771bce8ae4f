"""`python -m bot` runs the bot; `python -m bot replay FILE` checks a game."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .engine.replay import ReplayError, result, run
from .settings import Settings


def replay(path: str) -> int:
    try:
        text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        print(f"replay: cannot read {path}: {exc}", file=sys.stderr)
        return 2
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        print(f"input: not valid JSON: {exc}", file=sys.stderr)
        return 2
    try:
        game = run(data)
    except ReplayError as exc:
        print(exc, file=sys.stderr)
        return 2
    print(json.dumps(result(game), ensure_ascii=False))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bot", description="Dice poker for Discord.")
    sub = parser.add_subparsers(dest="command")
    p_replay = sub.add_parser("replay", help="replay a game's actions and print the result")
    p_replay.add_argument("file", help="the replay JSON file, - for standard input")
    sub.add_parser("sync", help="sync the slash commands globally, then exit")
    args = parser.parse_args(argv)
    if args.command == "replay":
        return replay(args.file)
    settings = Settings()
    if settings.discord_token is None or not settings.discord_token.get_secret_value():
        print(
            "DISCORD_TOKEN is not set: copy .env.example to .env and put the bot token there.",
            file=sys.stderr,
        )
        return 2
    print("the Discord layer is not built yet", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
