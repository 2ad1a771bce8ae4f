"""Computer seats play their turns a step at a time, through the game service.

An observer of the service: after every change it looks whether a computer seat is to
move; if so, one task per game plays that turn (and the next computer's) — set the holds,
throw, record — with a short pause between steps so the table can follow, each step an
ordinary `service.apply` with the version it read (so a leave, a cancel or another
process's move in between is simply read again). On start-up every game whose player to
move is a computer continues, and so does one the service finds, reconciling, that another
process left mid-turn. When two processes hold one shard both may drive the same seat:
each step is decided on one version and stored only if that is still the game's, so each
is taken once, by whichever process got there first.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Iterable

import discord

from bot.engine import DiceSource, GameError
from bot.match import Match, Seat
from bot.service import GameService, NotShown, SolutionCache
from bot.strategy import LEVELS, Decision, Level, PassTurn, Record, choose

from ._via import Via

log = logging.getLogger(__name__)

MAX_REFUSALS = 3  # consecutive refused steps before a computer gives up (a bug, not a race)


def step(match: Match, seat: Seat, decision: Decision, dice: DiceSource) -> Match:
    """One visible step towards `decision`: mark the dice to hold, else throw, else record."""
    if isinstance(decision, Record):
        return match.score(seat.user_id, decision.row)
    if isinstance(decision, PassTurn):
        return match.pass_turn(seat.user_id)
    game = match.require_game()
    wanted = frozenset(decision.positions) if game.dice else frozenset()
    if game.dice and wanted != game.held:
        for position in sorted(wanted ^ game.held):
            match = match.toggle_hold(seat.user_id, position)
        return match
    return match.roll(seat.user_id, dice)


class ComputerPlayers:
    def __init__(
        self,
        service: GameService[Via],
        solutions: SolutionCache,
        dice: DiceSource,
        client: discord.Client,
        *,
        pause: float,
    ) -> None:
        self.service = service
        self.solutions = solutions
        self.dice = dice
        self.client = client
        self.pause = pause
        self._tasks: dict[int, asyncio.Task[None]] = {}
        self._writing: set[int] = set()  # games whose task is inside `service.apply`
        self._stopped = False

    def committed(self, before: Match, after: Match) -> None:  # noqa: ARG002 - Observer API
        if self._stopped or after.computer_to_move is None:
            return
        running = self._tasks.get(after.id)
        if running is not None and not running.done():
            return  # that task reads the match again after each of its steps
        task = asyncio.get_running_loop().create_task(
            self._run(after.id), name=f"poker-computer-{after.id}"
        )
        self._tasks[after.id] = task
        task.add_done_callback(lambda done: self._done(after.id, done))

    def resume(self, matches: Iterable[Match]) -> None:
        """Start-up: continue every game whose player to move is a computer."""
        for match in matches:
            if match.status == "playing":
                self.solutions.preload(match.rules)  # hints after a restart too
            self.committed(match, match)

    async def stop(self, grace: float = 5.0) -> None:
        """A step being written finishes (its transaction is never cut); tasks that only
        wait (the pause, a table) are cancelled. A restart resumes them."""
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
        refusals = 0
        # At start-up the task is made before the gateway is ready; its posts can wait.
        await self.client.wait_until_ready()
        while not self._stopped:
            match = await self.service.get(game_id)
            seat = match.computer_to_move if match is not None else None
            if match is None or seat is None:
                return
            await asyncio.sleep(self.pause)
            decision = await self._decide(match, seat)

            def change(
                m: Match, s: Seat = seat, d: Decision = decision, dice: DiceSource = self.dice
            ) -> Match:
                return step(m, s, d, dice)

            self._writing.add(game_id)
            try:
                await self.service.apply(game_id, change, version=match.version)
            except NotShown:
                pass  # stored; shown again by the next change or /poker resume
            except GameError as refusal:
                # Someone acted in between (a leave, a cancel, a timer, another process
                # holding the shard taking this very step): read again. Only refusals of
                # a game that stood still count towards giving up.
                now = await self.service.get(game_id)
                refusals = 0 if now is None or now.version != match.version else refusals + 1
                if refusals >= MAX_REFUSALS:
                    log.error("game %s: %s refused %s times (%s)", game_id, seat.name,
                              refusals, refusal.code)  # fmt: skip
                    return
                continue
            finally:
                self._writing.discard(game_id)
            refusals = 0

    async def _decide(self, match: Match, seat: Seat) -> Decision:
        game = match.require_game()
        level: Level = next((known for known in LEVELS if known == seat.level), "normal")
        table = await self.solutions.wait(game.rules.name) if level == "perfect" else None
        # Seeded by the game and its state: the same position gets the same choice.
        rng = random.Random(f"{match.id}:{match.version}")
        # The first use of a rule set builds its model (~0.1 s): off the event loop.
        return await asyncio.to_thread(choose, level, game, table, rng)
