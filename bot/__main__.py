"""`python -m bot [run|sync|migrate|solve|replay]`: the bot's command line."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .engine.replay import cli as replay_cli


def replay(path: str) -> int:
    """Exit 0 with the result JSON, or 2 with one line on stderr; never a traceback."""
    # Bytes in and out: the locale must not decide how a game file is read or printed.
    stdin = getattr(sys.stdin, "buffer", None)  # None when started with stdin closed
    return replay_cli(path, stdin, sys.stdout.buffer, sys.stderr)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m bot", description="Dice poker for Discord.")
    sub = parser.add_subparsers(dest="command")
    sub.add_parser("run", help="run the bot (the default)")
    sub.add_parser("sync", help="sync the slash commands globally, then exit")
    sub.add_parser("migrate", help="bring the database's schema up to date, then exit")
    p_replay = sub.add_parser("replay", help="replay a game's actions and print the result")
    p_replay.add_argument("file", help="the replay JSON file, - for standard input")
    p_solve = sub.add_parser("solve", help="compute or load strategy tables, print each optimum")
    which = p_solve.add_mutually_exclusive_group(required=True)
    which.add_argument("--rules", help="classic, yatzy, yahtzee, scandinavian (or banked)")
    which.add_argument(
        "--all", action="store_true", dest="every", help="every exact table (a deploy step)"
    )
    p_solve.add_argument("--dir", type=Path, help="table cache (default: STRATEGY_DIR)")
    p_solve.add_argument("--recompute", action="store_true", help="ignore a cached table")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "replay":
        return replay(args.file)
    # The other commands load discord.py, numpy and the store: the replay needs none of it.
    from .cli import command  # noqa: PLC0415 - start-up time of `replay`, not a cycle

    return command(
        args.command or "run",
        rules=getattr(args, "rules", None),
        every=getattr(args, "every", False),
        directory=getattr(args, "dir", None),
        recompute=getattr(args, "recompute", False),
    )


if __name__ == "__main__":
    sys.exit(main())
