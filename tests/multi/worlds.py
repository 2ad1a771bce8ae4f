"""Several bot processes, each with its own simulated Discord, in one test.

simcord runs one live world per event loop, so each `World` is a thread with its own loop:
a bot (built by the test, e.g. holding some shards on the test's PostgreSQL database) in
its own simcord world. Worlds built by the same `layout` get the same ids (simcord's
snowflakes come from its virtual clock and a counter), so the same server, channel and
members exist in each, and a click on a copy of a message in one world carries the same
custom_id as in the other: that is how "the same click delivered to two processes" is
played. Each world's clock moves alone (`advance`).

    async with World.open(bot_a, layout) as a, World.open(bot_b, layout) as b:
        res = await a.do(lambda w: w.ann.slash(w.channel, "poker new"))

After the layout each world draws new ids (messages, interactions) from a range of its
own, as two real Discord clients never see two messages with one id: a message posted in
one world can never be mistaken for another's.

Every job runs inside the world's one host task (simcord's context variables must be set
and reset in the same task); two worlds' jobs run at the same time, one world's in turn.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import itertools
import threading
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import discord
import simcord

T = TypeVar("T")
JOB_TIMEOUT = 120.0  # real seconds: a job that hangs fails the test instead of the run
PARTS = 8  # worlds alive at once with ids of their own
_parts = itertools.count()


def own_ids(backend: Any, part: int) -> None:
    """From now on, `backend` allocates snowflakes only in its part of each millisecond's
    sequence numbers (simcord allocates (ms << 22) | sequence; `_allocate_at` is its one
    allocator)."""
    span = (1 << 22) // PARTS
    allocate = backend._allocate_at

    def allocate_in_part(milliseconds: int) -> int:
        if backend._sequences.get(milliseconds, 0) < part * span:
            backend._sequences[milliseconds] = part * span
        return allocate(milliseconds)

    backend._allocate_at = allocate_in_part


@dataclass
class Table:
    """One server of a world: its channel "dice" and its members by name."""

    guild: Any
    channel: Any
    members: dict[str, Any] = field(default_factory=dict)

    def __getattr__(self, name: str) -> Any:
        try:
            return self.__dict__["members"][name]
        except KeyError:
            raise AttributeError(name) from None

    def by_id(self) -> dict[int, Any]:
        return {m.id: m for m in self.members.values()}


Layout = Callable[[Any], list[Table]]


def layout(*shards: int, names: tuple[str, ...] = ("ann", "bob", "cid")) -> Layout:
    """One Discord: a server on each of `shards` (in that order), each with a channel
    "dice" and the same members, the first of them (ann) managing the server. A process
    receives only the servers of the shards it holds; the others exist all the same, as
    on Discord."""

    def build(env: Any) -> list[Table]:
        users = [env.create_user(name) for name in names]
        tables = []
        for shard in shards or (None,):
            guild = env.create_guild(f"Casino {shard}", shard_id=shard)
            channel = guild.create_text_channel("dice")
            boss = guild.create_role("boss", permissions=discord.Permissions(manage_guild=True))
            members = {
                u.name: guild.add_member(u, roles=[] if i else [boss]) for i, u in enumerate(users)
            }
            tables.append(Table(guild, channel, members))
        return tables

    return build


class World:
    def __init__(self, name: str, bot: discord.Client, build: Layout, options: dict[str, Any]):
        self.name = name
        self.bot = bot
        self._build = build
        self._options = options
        self.env: Any = None
        self.tables: list[Table] = []
        self.loop = asyncio.new_event_loop()
        self._jobs: asyncio.Queue[Any] | None = None
        self._ready: concurrent.futures.Future[None] = concurrent.futures.Future()
        self._done: concurrent.futures.Future[None] = concurrent.futures.Future()
        self._thread = threading.Thread(target=self._main, name=f"world-{name}", daemon=True)

    @classmethod
    @contextlib.asynccontextmanager
    async def open(
        cls, bot: discord.Client, build: Layout, *, name: str = "world", **options: Any
    ) -> AsyncIterator[World]:
        world = cls(name, bot, build, options)
        await world.start()
        try:
            yield world
        finally:
            await world.stop()

    # --- the world's thread -------------------------------------------------------------

    def _main(self) -> None:
        asyncio.set_event_loop(self.loop)
        try:
            self.loop.run_until_complete(self._host())
        finally:
            self.loop.run_until_complete(self.loop.shutdown_asyncgens())
            self.loop.close()

    async def _host(self) -> None:
        self._jobs = asyncio.Queue()
        try:
            async with simcord.run(self.bot, **self._options) as env:
                self.env = env
                self.tables = self._build(env)
                own_ids(env.backend, next(_parts) % PARTS)
                self._ready.set_result(None)
                while (job := await self._jobs.get()) is not None:
                    work, future = job
                    try:
                        future.set_result(await work(self))
                    except BaseException as error:  # handed to the test that asked
                        future.set_exception(error)
                if not env.bot.is_closed():  # simcord never closes the bot
                    await env.bot.close()
        except BaseException as error:
            if not self._ready.done():
                self._ready.set_exception(error)
            self._done.set_exception(error)
        else:
            self._done.set_result(None)

    # --- from the test's loop -----------------------------------------------------------

    async def start(self) -> None:
        self._thread.start()
        await asyncio.wait_for(asyncio.wrap_future(self._ready), JOB_TIMEOUT)

    async def do(self, work: Callable[[World], Awaitable[T]]) -> T:
        """Run `work(world)` in the world's host task; its result (or its exception)."""
        future: concurrent.futures.Future[T] = concurrent.futures.Future()
        assert self._jobs is not None
        self.loop.call_soon_threadsafe(self._jobs.put_nowait, (work, future))
        return await asyncio.wait_for(asyncio.wrap_future(future), JOB_TIMEOUT)

    async def stop(self) -> None:
        """Close the bot and leave the world (simcord's checks run here)."""
        if self._thread.is_alive() and self._jobs is not None and not self._done.done():
            self.loop.call_soon_threadsafe(self._jobs.put_nowait, None)
        if self._thread.is_alive() or self._done.done():
            await asyncio.wait_for(asyncio.wrap_future(self._done), JOB_TIMEOUT)
        await asyncio.to_thread(self._thread.join, JOB_TIMEOUT)

    # --- shortcuts ----------------------------------------------------------------------

    @property
    def table(self) -> Table:
        """The layout's first server."""
        return self.tables[0]

    def __getattr__(self, name: str) -> Any:
        """The first server's channel, guild and members: `world.channel`, `world.ann`."""
        tables = self.__dict__.get("tables")
        if not tables:
            raise AttributeError(name)
        return getattr(tables[0], name)

    # In a job only (`do`): the store and the service belong to the world's loop.
    @property
    def service(self) -> Any:
        return self.env.bot.play.service

    @property
    def store(self) -> Any:
        return self.env.bot.store

    async def advance(self, seconds: float, step: float = 60.0) -> None:
        """Move this world's clock in steps (each jump has simcord's real-time budget)."""
        left = seconds
        while left > 0:
            jump = min(step, left)
            await self.do(lambda w, jump=jump: w.env.advance_time(jump))
            left -= jump

    async def restart(self, bot: discord.Client) -> None:
        """The world's bot stops (closed) and `bot`, a new process, takes its place: the
        messages stay, as Discord's do."""

        async def swap(world: World) -> None:
            old = world.env.bot
            await old.close()
            await world.env.restart_bot(bot)
            world.bot = bot

        await self.do(swap)
