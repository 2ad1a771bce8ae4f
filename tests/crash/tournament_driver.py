"""The tournament crash test's child process: the real bot on a SQLite file against a fresh
simcord world, four members in a tournament at tables of two (two tables, then the final),
their turns played by clicks and every acknowledged action logged as tests/crash/driver.py
does for a game.

    python -m tests.crash.tournament_driver --db D --log L --world W [--kill-at POINT]

`--kill-at` makes the process SIGKILL itself at one moment of round 1's end (a real
SIGKILL, at a moment a timer could not hit reliably):

- `game`: the round's last table game stored as finished, the tournament's record of it not;
- `record`: that record stored, the next round not formed;
- `advance`: the next round formed and stored, its table not opened.

Without it the process plays the tournament to its end and exits cleanly. A restart is a
new world built in the same order (the same server, channel and member ids); the bot is
attached once the world exists, as a real process starts with Discord's channels there, so
its start-up resume finds the channel to open the next table's thread in.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import sys
from typing import IO, Any

import discord
import simcord

from bot.app import create_bot
from bot.i18n import t
from bot.match.tournament import FINISHED
from tests.cogs.drive import turn_message
from tests.cogs.tournament.play import sign_up, stored, tournament_id_of

from .driver import Desync, Driver, arguments, run_driver, settings_for

POINTS = ("game", "record", "advance")


def die() -> None:
    print("killing myself", flush=True)
    os.kill(os.getpid(), signal.SIGKILL)


def arm(bot: Any, point: str) -> None:
    """SIGKILL this process at `point` of round 1's end (see the module's docstring)."""
    store = bot.store
    service = bot.services.features["tournament"].service
    seen = {"finished": 0, "result": 0}
    if point == "game":
        observe = service.committed

        def committed(before: Any, after: Any) -> None:
            if after.status == "finished" and before.status != after.status:
                seen["finished"] += 1
                if seen["finished"] == 2:  # the second table of round 1: its last record
                    die()
            observe(before, after)

        service.committed = committed
        return
    save = store.save_tournament

    async def save_tournament(*args: Any, **kwargs: Any) -> Any:
        record = await save(*args, **kwargs)
        kinds = [next(iter(a)) for a in kwargs.get("actions", ())]
        seen["result"] += kinds.count("result")
        if (point == "record" and "result" in kinds and seen["result"] == 2) or (
            point == "advance" and "advance" in kinds
        ):
            die()
        return record

    store.save_tournament = save_tournament


async def play(env: Any, channel: Any, members: list[Any], log: IO[str], tid: int) -> None:
    for _ in range(3000):
        tn = await stored(env, tid)
        if tn.status == FINISHED:
            return
        rnd = tn.current
        moved = False
        for table in rnd.tables if rnd is not None else ():
            if table.over or table.thread_id is None:
                continue
            thread = next((h for h in channel.threads if h.id == table.thread_id), None)
            message = turn_message(thread) if thread is not None else None
            if message is None:
                continue
            try:
                await Driver(env, thread, members, log).play_turn(message)
            except Desync as exc:
                print(f"desync: {exc}", file=sys.stderr, flush=True)
            moved = True
        if not moved:
            await env.settle()
    raise RuntimeError("the tournament does not end")


async def main(args: argparse.Namespace, log: IO[str]) -> int:
    # Pictures in a thread of this process: a picture worker's forkserver would outlive the
    # SIGKILL (an orphan holding the parent's pipe open).
    settings = settings_for(args).model_copy(update={"bot_pause": 0.0, "picture_workers": 0})
    bot = create_bot(settings, dice=random.Random(args.seed * 10_007 + args.world))
    bot.sync_globally = True
    stand_in = discord.Client(intents=discord.Intents.none())
    async with simcord.run(stand_in, check_errors=False) as env:
        guild = env.create_guild("Crash")
        channel = guild.create_text_channel("dice")
        members = [guild.add_member(env.create_user(n)) for n in ("ann", "bob", "cid", "dan")]
        env.backend.clock.advance(args.world * 60)  # new message ids: see driver.py
        await env.restart_bot(bot)  # the bot starts (and resumes) with the world there
        await env.settle()
        store = bot.store
        assert store is not None
        try:
            active = await store.active_tournaments()
            if not active:
                await store.update_settings(guild.id, {"turn_timeout": 86_400})
                message = await sign_up(env, channel, members[0], members[1:], table_size=2)
                tid = tournament_id_of(env, message)
                res = await members[0].click(message, label=t("lobby.start"))
                if not res.acknowledged:
                    raise RuntimeError("the start was not answered")
                await env.settle()
            else:
                tid = active[0].id
            if args.kill_at:
                arm(bot, args.kill_at)
            print("ready", flush=True)
            await play(env, channel, members, log, tid)
            print("finished", flush=True)
        finally:
            await bot.close()
    return 0


def parse(argv: list[str]) -> argparse.Namespace:
    parser = arguments("python -m tests.crash.tournament_driver")  # (--shards: unused here)
    parser.add_argument("--kill-at", choices=POINTS, default=None)
    return parser.parse_args(argv)


def run(argv: list[str]) -> int:
    return run_driver(main, parse(argv))


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
