"""`python -m bot` runs the bot; `python -m bot replay FILE` checks a game."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .engine.replay import cli as replay_cli
from .settings import Settings


def replay(path: str) -> int:
    """Exit 0 with the result JSON, or 2 with one line on stderr; never a traceback."""
    # Bytes in and out: the locale must not decide how a game file is read or printed.
    stdin = getattr(sys.stdin, "buffer", None)  # None when started with stdin closed
    return replay_cli(path, stdin, sys.stdout.buffer, sys.stderr)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bot", description="Dice poker for Discord.")
    sub = parser.add_subparsers(dest="command")
    p_replay = sub.add_parser("replay", help="replay a game's actions and print the result")
    p_replay.add_argument("file", help="the replay JSON file, - for standard input")
    sub.add_parser("sync", help="sync the slash commands globally, then exit")
    p_solve = sub.add_parser("solve", help="compute or load a strategy table, print its optimum")
    p_solve.add_argument("--rules", required=True, help="classic, yatzy, yahtzee, scandinavian")
    p_solve.add_argument("--dir", type=Path, help="table cache (default: STRATEGY_DIR)")
    p_solve.add_argument("--recompute", action="store_true", help="ignore a cached table")
    args = parser.parse_args(argv)
    if args.command == "replay":
        return replay(args.file)
    if args.command == "solve":
        from .strategy.cli import solve  # noqa: PLC0415 - numpy only for this command

        return solve(args.rules, args.dir or Settings().strategy_dir, recompute=args.recompute)
    settings = Settings()
    if settings.discord_token is None or not settings.discord_token.get_secret_value():
        print(
            "DISCORD_TOKEN is not set: copy .env.example to .env and put the bot token there.",
            file=sys.stderr,
        )
        return 2
    return run_bot(settings, sync_only=args.command == "sync")


def run_bot(settings: Settings, *, sync_only: bool = False) -> int:
    """Run the bot until stopped; with `sync_only`, sync the commands globally and exit."""
    import asyncio  # noqa: PLC0415 - the replay path needs none of this
    import logging  # noqa: PLC0415

    from .app import DicePokerBot  # noqa: PLC0415
    from .logging import setup_logging  # noqa: PLC0415

    setup_logging(settings.log_level)
    assert settings.discord_token is not None
    token = settings.discord_token.get_secret_value()
    if sync_only:

        async def sync() -> None:
            async with DicePokerBot(settings, sync_globally=True) as bot:
                await bot.login(token)  # login runs setup_hook, which syncs
            logging.getLogger("bot").info("slash commands synced globally")

        asyncio.run(sync())
        return 0
    DicePokerBot(settings).run(token, log_handler=None)
    return 0


if __name__ == "__main__":
    sys.exit(main())
