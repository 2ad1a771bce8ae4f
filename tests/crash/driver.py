"""The crash test's child process: the real bot on a database (a SQLite file, or
PostgreSQL) against a fresh simcord world, and a driver that plays by clicks and logs
every acknowledged action.

    python -m tests.crash.driver --db D --log L --seed S --world W [--stop-after N]
                                 [--shards IDS]

`--db` is a SQLite file or a postgresql:// URL. With `--shards` the bot is a sharded one
holding those of 4 shards (the server is on shard 1): each restart may hold another set,
as a new process taking over the killed one's shard does.

Each acknowledged action is appended to the log as one JSON line (game id, sequence
number, the action as the replay format writes it, derived from what Discord showed:
the dice on the message after a Roll, the row chosen) and fsync'd before the next click.
The parent SIGKILLs this process at random moments and checks the database against the
log. `--stop-after N` plays N actions and exits cleanly instead.

A restart is a new simcord world. It is built in the same order, so the server, channel
and members get the same ids as before and the stored game is found again; then the
virtual clock jumps `world` minutes so new message ids never repeat an old world's (the
clock stands still within a world; minutes, not hours, so a stored lobby is not expired
by the 30-minute lobby timer). The game's old messages are gone, so the driver first posts
the last turn message it saw (saved beside the log after each action, as Discord would
still show it) and clicks it, as a member would click an old button after the restart:
it must be answered, either applied (and logged) or refused as out of date (the kill came
between a change's commit and its answer). Then it asks `/poker resume` for the live one.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import sys
from collections import Counter
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import IO, Any

import discord
import simcord

from bot.app import create_bot
from bot.i18n import t
from bot.settings import Settings

MENTION = re.compile(r"<@!?(\d+)>")
HELD_STYLE = 3  # discord.ButtonStyle.success
SHARDS = 4
GUILD_SHARD = 1
STALE = t("errors.stale")


class Desync(Exception):  # noqa: N818 - the driver lost track; it re-reads the game
    pass


def controls(message: Any) -> dict[str, Any]:
    """Raw component dicts by action (`message`: a discord.Message, simcord's copy, or
    such a copy saved as JSON)."""
    out: dict[str, Any] = {"hold": []}
    rows = message["components"] if isinstance(message, dict) else message.components
    for row in rows:
        items = (
            row.get("components", [])
            if isinstance(row, dict)
            else [c.to_dict() for c in getattr(row, "children", [])]
        )
        for item in items:
            custom_id = item.get("custom_id") or ""
            if custom_id.startswith("poker:"):
                action = custom_id.split(":")[1]
                if action == "hold":
                    out["hold"].append(item)
                else:
                    out[action] = item
    return out


def keep(dice: list[int]) -> set[int]:
    counts = Counter(dice)
    face = max(counts, key=lambda f: (counts[f], f))
    return {i for i, d in enumerate(dice) if d == face}


class Driver:
    def __init__(
        self, env: Any, channel: Any, members: list[Any], log: IO[str], seen: Path | None = None
    ) -> None:
        self.env = env
        self.channel = channel
        self.members = {m.id: m for m in members}
        self.host = members[0]
        self.log = log
        self.seen = seen
        self.logged = 0

    def fresh(self, message: Any) -> Any:
        return self.env.backend.get_message(self.channel.id, message.id)

    def record(self, game_id: int, seq: int, action: dict[str, Any]) -> None:
        """Append one acknowledged action and make it durable before going on."""
        self.log.write(json.dumps({"game": game_id, "seq": seq, "action": action}) + "\n")
        self.log.flush()
        os.fsync(self.log.fileno())
        self.logged += 1

    def remember(self, message: Any) -> None:
        """Keep the turn message as Discord shows it now (atomically): the next process's
        first click is on it."""
        if self.seen is None:
            return
        shown = self.fresh(message)
        data = {"content": shown.content, "components": shown.components}
        tmp = self.seen.with_suffix(".tmp")
        tmp.write_text(json.dumps(data), encoding="utf-8")
        tmp.replace(self.seen)

    async def old_button(self) -> str:
        """Click the previous process's last turn message, posted again as it was: "applied"
        (logged), "stale" (politely refused) or "none" (nothing to click)."""
        if self.seen is None or not self.seen.exists():
            return "none"
        shown = json.loads(self.seen.read_text(encoding="utf-8"))
        c = controls(shown)
        member = MENTION.search(shown["content"] or "")
        if "roll" not in c or member is None or int(member[1]) not in self.members:
            return "none"
        await post(self.env.bot, self.channel.id, shown)
        message = self.channel.last_message
        player = self.members[int(member[1])]
        game_id = int(c["roll"]["custom_id"].split(":")[2])
        seq = len(await self.env.bot.store.actions(game_id))
        held = [i for i, b in enumerate(c["hold"]) if b.get("style") == HELD_STYLE]
        if not c["roll"].get("disabled"):
            res = await player.click(message, custom_id=c["roll"]["custom_id"])
            action: dict[str, Any] = {"player": str(player.id)}
        else:
            row = c["score"]["options"][0]["value"]
            res = await player.select(message, [row], custom_id=c["score"]["custom_id"])
            action = {"player": str(player.id), "score": row}
        if not res.acknowledged:
            raise RuntimeError(f"an old button was not answered: {res!r}")
        if res.ephemeral:
            text = res.response.content if res.response else ""
            if text != STALE:
                raise RuntimeError(f"an old button was refused impolitely: {text!r}")
            return "stale"
        if "score" not in action:
            live = self.turn_message()
            if live is None:
                raise RuntimeError("an old Roll was applied but no turn message shows it")
            dice = [int(b["label"]) for b in controls(self.fresh(live))["hold"]]
            if held:
                action["hold"] = held
            action["roll"] = [d for i, d in enumerate(dice) if i not in held]
        self.record(game_id, seq, action)
        return "applied"

    def latest(self, action: str) -> Any | None:
        """The newest of the channel's last messages with a `poker:<action>` control."""
        for message in reversed(self.channel.history()[-6:]):
            if action in controls(message):
                return message
        return None

    def turn_message(self) -> Any | None:
        return self.latest("roll")

    async def ensure_game(self) -> Any:
        """The live turn message: a new game, the stored lobby started, or the stored game
        shown again."""
        store = self.env.bot.store
        record = await store.active_game(self.channel.id)
        others = [m for m in self.members.values() if m is not self.host]
        if record is None:
            await self.host.slash(self.channel, "poker new", rules="classic")
        else:
            await self.host.slash(self.channel, "poker resume")
            if record.status == "playing":
                return self.turn_message()
        lobby = self.latest("join")
        if lobby is None:
            raise RuntimeError("no lobby message after /poker new or /poker resume")
        for member in others:
            await member.click(lobby, label="Join")  # "already joined" is fine
        await self.host.click(lobby, label="Start")
        return self.turn_message()

    async def play_turn(self, message: Any) -> None:
        store = self.env.bot.store
        player = self.members[int(MENTION.search(message.content)[1])]
        game_id = int(controls(message)["roll"]["custom_id"].split(":")[2])
        seq = len(await store.actions(game_id))  # where this turn starts (after a restart too)
        for _ in range(3):
            shown = controls(self.fresh(message))
            if shown["roll"].get("disabled"):
                break
            held = [i for i, b in enumerate(shown["hold"]) if b.get("style") == HELD_STYLE]
            res = await player.click(message, custom_id=shown["roll"]["custom_id"])
            if not res.acknowledged or res.ephemeral:
                raise Desync(f"roll refused: {res!r}")
            dice = [int(b["label"]) for b in controls(self.fresh(message))["hold"]]
            action: dict[str, Any] = {"player": str(player.id)}
            if held:
                action["hold"] = held
            action["roll"] = [d for i, d in enumerate(dice) if i not in held]
            self.record(game_id, seq, action)
            self.remember(message)
            seq += 1
            after = controls(self.fresh(message))
            if after["roll"].get("disabled"):
                break
            want = keep(dice)
            for pos, button in enumerate(after["hold"]):
                if (button.get("style") == HELD_STYLE) != (pos in want):
                    now = controls(self.fresh(message))["hold"][pos]["custom_id"]
                    res = await player.click(message, custom_id=now)
                    if not res.acknowledged or res.ephemeral:
                        raise Desync(f"hold refused: {res!r}")
                    self.remember(message)
        select = controls(self.fresh(message)).get("score")
        if select is None or not select.get("options"):
            raise Desync("no row to record")
        row = select["options"][0]["value"]
        res = await player.select(message, [row], custom_id=select["custom_id"])
        if not res.acknowledged or res.ephemeral:
            raise Desync(f"record refused: {res!r}")
        self.record(game_id, seq, {"player": str(player.id), "score": row})
        live = self.turn_message()
        if live is not None:
            self.remember(live)

    async def run(self, stop_after: int | None) -> None:
        print(f"old button: {await self.old_button()}", flush=True)
        message = await self.ensure_game()
        while stop_after is None or self.logged < stop_after:
            if message is None:
                message = await self.ensure_game()
                continue
            try:
                await self.play_turn(message)
            except Desync as exc:
                print(f"desync: {exc}", file=sys.stderr, flush=True)
                message = await self.ensure_game()
                continue
            message = self.turn_message()


async def post(bot: Any, channel_id: int, shown: dict[str, Any]) -> None:
    """Post a message with `shown`'s content and components over plain HTTP (no view of
    the bot's own claims its buttons: only its registered dynamic items answer them)."""
    view = discord.ui.View(timeout=None)
    for n, row in enumerate(shown["components"]):
        for raw in row.get("components", []):
            if raw["type"] == 2:
                item: discord.ui.Item[Any] = discord.ui.Button(
                    style=discord.ButtonStyle(raw.get("style", 2)), label=raw.get("label"),
                    custom_id=raw.get("custom_id"), disabled=bool(raw.get("disabled")), row=n,
                )  # fmt: skip
            else:
                options = [
                    discord.SelectOption(label=o["label"], value=o["value"])
                    for o in raw.get("options", [])
                ]
                item = discord.ui.Select(custom_id=raw["custom_id"], options=options, row=n)
            view.add_item(item)
    with discord.http.handle_message_parameters(content=shown["content"], view=view) as params:
        await bot.http.send_message(channel_id, params=params)


def settings_for(args: argparse.Namespace) -> Settings:
    where: dict[str, Any] = (
        {"database_url": args.db} if "://" in args.db else {"database_path": Path(args.db)}
    )
    if args.shards:
        where.update(shard_count=SHARDS, shard_ids=args.shards)
    return Settings(
        _env_file=None,  # type: ignore[call-arg]
        discord_token=None,
        dev_guild_id=None,
        log_level="WARNING",
        **where,
    )


async def main(args: argparse.Namespace, log: IO[str]) -> int:
    bot = create_bot(settings_for(args), dice=random.Random(args.seed * 10_007 + args.world))
    bot.sync_globally = True
    async with simcord.run(bot, check_errors=False) as env:
        guild = env.create_guild("Crash", shard_id=GUILD_SHARD if args.shards else None)
        channel = guild.create_text_channel("dice")
        members = [guild.add_member(env.create_user(name)) for name in ("ann", "bob")]
        env.backend.clock.advance(args.world * 60)  # new message ids: see the docstring
        store = bot.store
        assert store is not None
        stray = [g for g in await store.active_games() if g.channel_id != channel.id]
        if stray:
            print(f"world not reproduced: channel {channel.id}", file=sys.stderr, flush=True)
            return 3
        # A day per turn: the turn timer never plays for the driver.
        await store.update_settings(guild.id, {"turn_timeout": 86_400})
        print("ready", flush=True)
        try:
            seen = Path(args.log).with_name("last-turn.json")
            await Driver(env, channel, members, log, seen).run(args.stop_after)
        finally:
            await bot.close()  # the store's SQLite thread would keep the process alive
    return 0


def arguments(prog: str) -> argparse.ArgumentParser:
    """The options every crash driver takes (this one's and tournament_driver's)."""
    parser = argparse.ArgumentParser(prog=prog)
    parser.add_argument("--db", required=True)
    parser.add_argument("--log", required=True)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--world", type=int, default=0)
    parser.add_argument("--shards", default=None, help="shard ids held, of 4 (e.g. 0-1)")
    return parser


def parse(argv: list[str]) -> argparse.Namespace:
    parser = arguments("python -m tests.crash.driver")
    parser.add_argument("--stop-after", type=int, default=None)
    return parser.parse_args(argv)


Main = Callable[[argparse.Namespace, IO[str]], Coroutine[Any, Any, int]]


def run_driver(main: Main, args: argparse.Namespace) -> int:
    """`main` with the log the harness reads, appended to."""
    with Path(args.log).open("a", encoding="utf-8") as log:
        return asyncio.run(main(args, log))


def run(argv: list[str]) -> int:
    return run_driver(main, parse(argv))


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
