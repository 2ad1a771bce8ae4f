"""Post-game analysis: each human's mean expected loss per decision, after the finish.

An observer of the service: when a game finishes, its log is read from the store and
judged against the rule set's strategy table in a worker thread (a long game has a few
hundred decisions), off the finishing click's path; each human's mean is stored with
their result (`GameStore.record_analysis`: the skill leaderboard reads it) and added to
the final standings. Computer seats are not analysed; a rule set without a table
(banked), or a table not loaded, stores nothing and the standings say why. The analysis
never computes a table: it uses the one loaded at start-up or at the game's start.
"""

from __future__ import annotations

import asyncio
import logging

from bot.engine import Game, parse_action
from bot.match import Match
from bot.render.advice import analysis_lines
from bot.service import GameService, SolutionCache
from bot.strategy.analysis import Proficiency, analyse

from ._publish import DiscordPublisher
from ._via import Via

log = logging.getLogger(__name__)

Report = dict[str, Proficiency]


def humans(match: Match) -> list[str]:
    """The engine names of the human seats that played, in seat order."""
    game = match.require_game()
    return [s.player for s in match.seats if not s.is_bot and s.player in game.players]


class Analysis:
    def __init__(
        self, service: GameService[Via], solutions: SolutionCache, publisher: DiscordPublisher
    ) -> None:
        self.service = service
        self.solutions = solutions
        self.publisher = publisher
        self._tasks: set[asyncio.Task[None]] = set()

    def committed(self, before: Match, after: Match) -> None:
        if after.status != "finished" or before.status == "finished" or not humans(after):
            return
        task = asyncio.get_running_loop().create_task(self._run(after))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def stop(self) -> None:
        for task in list(self._tasks):
            task.cancel()

    async def report(self, match: Match) -> Report | None:
        """Each human's proficiency, or None when there is no table for this game now."""
        game = match.require_game()
        if game.rules.banked:
            return None
        table = self.solutions.loaded(game.rules.name)
        if table is None:
            self.solutions.preload(game.rules.name)  # a table cached meanwhile serves next time
            return None
        log_ = [parse_action(a) for a in await self.service.store.actions(match.id)]
        start = Game.new(game.rules, game.players)
        return await asyncio.to_thread(analyse, table, start, log_, humans(match))

    async def _run(self, match: Match) -> None:
        try:
            report = await self.report(match)
            if report is not None:
                order = list(match.require_game().players)
                losses = {order.index(p): r.mean for p, r in report.items() if r.decisions}
                await self.service.store.record_analysis(match.id, losses)
            shown = await self.service.get(match.id) or match
            lines = analysis_lines(humans(match), report, match.names, match.rules, match.lang)
            if lines is not None:
                await self.publisher.show_analysis(shown, *lines)
        except Exception:
            log.exception("game %s: the post-game analysis failed", match.id)
