"""Computer seats: added in the lobby, then played step by step through the game service.

A bot seat is an ordinary `Seat` with `is_bot` and a `level` (easy, normal, perfect: see
`bot.strategy.choose`) and a negative user id (-1, -2, …): no Discord user has one, the
engine's player name is still `str(user_id)`, and the stored result has no member id.

After every change the service tells `ComputerPlayers`; when the player to move is a bot,
one task per game plays that turn (and the next bot's) a step at a time — set the holds,
throw, record — with a short pause between steps so the table can follow, each step a
normal `service.apply` under the game's lock. Games never wait for each other: each has
its own task. On start-up every game whose player to move is a bot continues.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import random
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import discord

from bot.engine import DiceSource
from bot.i18n import t
from bot.strategy import LEVELS, Decision, Level, PassTurn, Record, choose

from ._table import MAX_SEATS, Refusal, Seat, Table
from ._views import Control, check_permissions, control, custom_id, template

if TYPE_CHECKING:
    from ._service import GameService

log = logging.getLogger(__name__)

DEFAULT_PAUSE = 0.8  # seconds between a bot's visible steps (settings.bot_pause)
REMOVE = "remove"  # the select value prefix that removes a computer seat
MAX_REFUSALS = 3  # consecutive refused steps before a bot gives up (a bug, not a race)


# --- the table side (pure) ---------------------------------------------------------------


def add_bot(table: Table, user_id: int, level: str) -> Table:
    """The lobby with one more computer seat; only the host may add one."""
    if table.status != "lobby":
        raise Refusal("errors.stale")
    if user_id != table.host_id:
        raise Refusal("bots.only_host", name=table.name_of(table.host_id))
    if level not in LEVELS:
        raise Refusal("errors.stale")
    if len(table.seats) >= MAX_SEATS:
        raise Refusal("errors.lobby_full", max=MAX_SEATS)
    seat_id = min((s.user_id for s in table.seats if s.is_bot), default=0) - 1
    name = t("bots.name", table.lang, n=-seat_id, level=t(f"bots.level_{level}", table.lang))
    return replace(table, seats=(*table.seats, Seat(seat_id, name, is_bot=True, level=level)))


def remove_bot(table: Table, user_id: int, seat_id: int) -> Table:
    """The lobby without the computer seat `seat_id`; only the host may remove one."""
    if table.status != "lobby":
        raise Refusal("errors.stale")
    if user_id != table.host_id:
        raise Refusal("bots.only_host", name=table.name_of(table.host_id))
    seat = table.seat(seat_id)
    if seat is None or not seat.is_bot:
        raise Refusal("errors.stale")
    return replace(table, seats=tuple(s for s in table.seats if s.user_id != seat_id))


def bot_to_move(table: Table | None) -> Seat | None:
    """The computer seat whose turn it is, if any."""
    if table is None or table.status != "playing" or table.current_id is None:
        return None
    seat = table.seat(table.current_id)
    return seat if seat is not None and seat.is_bot else None


def play_step(table: Table, seat: Seat, decision: Decision, dice: DiceSource) -> Table:
    """One visible step towards `decision`: mark the dice to hold, else throw, else record."""
    game = table.require_turn(seat.user_id)
    if isinstance(decision, Record):
        return table.score(seat.user_id, decision.row)
    if isinstance(decision, PassTurn):
        return table.pass_turn(seat.user_id)
    wanted = frozenset(decision.positions) if game.dice else frozenset()
    if wanted != game.held and game.dice:
        for position in sorted(wanted ^ game.held):
            table = table.toggle_hold(seat.user_id, position)
        return table
    return table.roll(seat.user_id, dice)


# --- the driver ----------------------------------------------------------------------------


class ComputerPlayers:
    """Plays the computer seats of every game, one task per game at most."""

    def __init__(self, service: GameService, *, pause: float | None = None) -> None:
        self.service = service
        settings = getattr(service.bot, "settings", None)
        self.pause = pause if pause is not None else getattr(settings, "bot_pause", DEFAULT_PAUSE)
        self._tasks: dict[int, asyncio.Task[None]] = {}
        self._writing: set[int] = set()  # games whose task is inside `service.apply`
        self._stopped = False

    def notice(self, table: Table) -> None:
        """Called after each change: start the game's task when a bot is to move."""
        if self._stopped or bot_to_move(table) is None:
            return
        running = self._tasks.get(table.id)
        if running is not None and not running.done():
            return  # that task re-reads the table after each of its steps
        task = asyncio.get_running_loop().create_task(
            self._run(table.id), name=f"poker-bot-{table.id}"
        )
        self._tasks[table.id] = task
        task.add_done_callback(lambda done: self._done(table.id, done))

    def resume(self, tables: Any) -> int:
        """Start-up: continue every game (of `tables`) whose player to move is a bot."""
        count = 0
        for table in list(tables):
            if table.status == "playing":  # hints after a restart: load cached tables now
                self.service.tables.preload(table.rules)
            if bot_to_move(table) is not None:
                self.notice(table)
                count += 1
        return count

    async def stop(self, grace: float = 5.0) -> None:
        """Shut down: a step being written finishes (its transaction is never cut); the
        tasks that only wait (the pause, a table) are cancelled. Restarts resume them."""
        self._stopped = True
        writing = [self._tasks[g] for g in self._writing if g in self._tasks]
        for task in self._tasks.values():
            if task not in writing:
                task.cancel()
        if writing:
            await asyncio.wait(writing, timeout=grace)
        self._tasks.clear()

    def _done(self, game_id: int, task: asyncio.Task[None]) -> None:
        if self._tasks.get(game_id) is task:
            del self._tasks[game_id]
        if not task.cancelled() and task.exception() is not None:
            log.error("game %s: the computer player failed", game_id, exc_info=task.exception())

    async def _run(self, game_id: int) -> None:
        service = self.service
        refusals = 0
        # At start-up the task is made before the gateway is ready; its posts can wait.
        await service.bot.wait_until_ready()
        while not self._stopped:
            table = await service.get(game_id)
            seat = bot_to_move(table)
            if table is None or seat is None:
                return
            await asyncio.sleep(self.pause)
            decision = await self._decide(table, seat)
            step = functools.partial(play_step, seat=seat, decision=decision, dice=service.bot.dice)
            self._writing.add(game_id)
            try:
                await service.apply(game_id, step, version=table.version)
            except Refusal as refusal:
                # Someone acted in between (a leave, a cancel, a timer): read again.
                refusals += 1
                if refusals >= MAX_REFUSALS:
                    log.error(
                        "game %s: bot %s refused %s times (%s)",
                        game_id,
                        seat.name,
                        refusals,
                        refusal.key,
                    )
                    return
                continue
            except discord.HTTPException:
                log.exception("game %s: could not show the computer player's move", game_id)
                return
            finally:
                self._writing.discard(game_id)
            refusals = 0

    async def _decide(self, table: Table, seat: Seat) -> Decision:
        game = table.require_game()
        level: Level = next((known for known in LEVELS if known == seat.level), "normal")
        strategy = None
        if level == "perfect":
            strategy = await self.service.tables.wait(game.rules.name)
        # Seeded by the game and its state: the same position gets the same choice.
        rng = random.Random(f"{table.id}:{game.version}")
        # The first use of a rule set builds its model (~0.1 s): off the event loop.
        return await asyncio.to_thread(choose, level, game, strategy, rng)


# --- the lobby control ---------------------------------------------------------------------


async def bots_allowed(service: GameService, guild_id: int | None) -> bool:
    store = getattr(service.bot, "store", None)
    if store is None or guild_id is None:
        return True
    settings = await store.guild_settings(guild_id)
    return bool(getattr(settings, "bots_allowed", True))


@control("addbot")
class AddBot(Control, template=template("addbot")):
    """The host's select: add a computer player of the chosen level, or remove one."""

    versioned = False  # like Join: lobby controls stay valid while the lobby is open

    async def run(self, interaction: discord.Interaction, service: GameService) -> None:
        values = getattr(self.item, "values", None) or []
        choice = values[0] if len(values) == 1 else ""
        removing = choice.removeprefix(REMOVE)
        if choice not in LEVELS and not (removing.isascii() and removing.isdigit()):
            raise Refusal("errors.stale")
        table = await service.get(self.game)
        if table is None or table.status != "lobby":
            raise Refusal("errors.stale")
        user_id = interaction.user.id
        if user_id != table.host_id:
            raise Refusal("bots.only_host", name=table.name_of(table.host_id))
        if choice not in LEVELS:
            seat_id = -int(removing)
            await self.apply(interaction, service, lambda tb: remove_bot(tb, user_id, seat_id))
            return
        if not await bots_allowed(service, table.guild_id):
            raise Refusal("bots.not_allowed")
        check_permissions(interaction)
        level = choice
        await self.apply(interaction, service, lambda tb: add_bot(tb, user_id, level))
        if level == "perfect":  # start loading (or solving) its table while the lobby fills
            service.tables.get(table.rules)


def add_bot_select(table: Table) -> discord.ui.Item[Any] | None:
    """The lobby's computer-player select: a level to add (while a seat is free), a
    computer seat to remove (value `remove<n>` for seat -n). None when it would be empty."""
    lang, g, v = table.lang, table.id, table.version
    options = []
    if len(table.seats) < MAX_SEATS:
        options += [
            discord.SelectOption(
                label=t(f"bots.level_{level}", lang),
                value=level,
                description=t(f"bots.describe_{level}", lang)[:100],
            )
            for level in LEVELS
        ]
    options += [
        discord.SelectOption(
            label=t("bots.remove", lang, name=s.name)[:100], value=f"{REMOVE}{-s.user_id}"
        )
        for s in table.seats
        if s.is_bot
    ]
    if not options:
        return None
    select: discord.ui.Select[Any] = discord.ui.Select(
        placeholder=t("bots.add", lang),
        custom_id=custom_id("addbot", g, v),
        options=options,  # at most 3 levels + 7 computer seats: under Discord's 25
        row=1,
    )
    return AddBot(select, g, v)
