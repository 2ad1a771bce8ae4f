"""A finished daily: the analysis, the day's best, one public line, the member's report.

An observer of the daily service: when a daily finishes (after its commit) a task judges
the member's decisions against the strategy table when it is loaded (stored with
`record_analysis`), waits for the day's best score (`BestScores`, usually ready), reads the
place so far, and posts one short line in the channel where the daily started, in the
server's language, giving no dice away. The finishing click then waits for that task and
turns its message into the member's private report, in their language: the card, the
analysis, the best score the dice allowed and the gap. A finished daily asked for again
(after a restart, a second `/poker daily play`) gets the same report, read back.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import discord

from bot.engine import Game, parse_action
from bot.match import Match
from bot.render.daily import Analysed, Report, public_line, report_embed
from bot.service import BestScores, Dailies, Pictures, ServerSettings, SolutionCache
from bot.strategy.analysis import analyse
from cogs._edge import reply_language

from ._publish import card_fields

log = logging.getLogger(__name__)

FORGET_AFTER = 600.0  # seconds a report nobody collected is kept


class DailyFinish:
    def __init__(  # noqa: PLR0913 - what a finish reads, judges, draws and posts with
        self,
        client: discord.Client,
        dailies: Dailies[Any],
        best: BestScores,
        settings: ServerSettings,
        solutions: SolutionCache,
        pictures: Pictures,
    ) -> None:
        self.client = client
        self.dailies = dailies
        self.best = best
        self.store = dailies.store
        self.settings = settings
        self.solutions = solutions
        self.pictures = pictures
        self._reports: dict[int, asyncio.Task[Report]] = {}

    # --- the observer -------------------------------------------------------------------

    def committed(self, before: Match, after: Match) -> None:
        if after.status != "finished" or before.status == "finished":
            return
        loop = asyncio.get_running_loop()
        task = loop.create_task(self._finish(after), name=f"daily-finish-{after.id}")
        self._reports[after.id] = task

        def forget(done: asyncio.Task[Report]) -> None:
            if not done.cancelled() and done.exception() is not None:
                log.error("daily %s: the finish failed", after.id, exc_info=done.exception())
            loop.call_later(FORGET_AFTER, self._forget, after.id, done)

        task.add_done_callback(forget)

    def _forget(self, game_id: int, task: asyncio.Task[Report]) -> None:
        if self._reports.get(game_id) is task:
            del self._reports[game_id]

    async def stop(self) -> None:
        for task in self._reports.values():
            task.cancel()

    async def _finish(self, match: Match) -> Report:
        analysed = await self._analyse(match)
        report = await self._report(match, analysed)
        await self._announce(match, report)
        return report

    async def _analyse(self, match: Match) -> Analysed:
        game = match.require_game()
        if game.rules.banked:
            return Analysed(None, reason="banked")
        table = self.solutions.loaded(game.rules.name)
        if table is None:
            return Analysed(None)
        try:
            actions = [parse_action(a) for a in await self.store.actions(match.id)]
            start = Game.new(game.rules, game.players)
            player = game.players[0]
            found = await asyncio.to_thread(analyse, table, start, actions, [player])
            judged = found[player]
            if judged.decisions:
                await self.store.record_analysis(match.id, {0: judged.mean})
                return Analysed(judged.mean, judged.decisions)
        except Exception:
            log.exception("daily %s: the analysis failed", match.id)
        return Analysed(None)

    async def _report(self, match: Match, analysed: Analysed) -> Report:
        assert match.day is not None
        assert match.guild_id is not None
        game = match.require_game()
        total = game.totals(game.players[0]).total
        board = await self.store.daily_board(
            match.guild_id, match.rules, match.day, limit=0, member_id=match.host_id
        )
        best = None
        try:
            best = await self.best.wait(match.day, match.rules)
        except Exception:
            log.exception("daily %s: no best score", match.id)
        return Report(
            rules=match.rules,
            day=match.day,
            total=total,
            rank=board.me.rank if board.me else None,
            players=board.players,
            analysed=analysed,
            best=best.score if best else None,
            exact=best.exact if best else True,
        )

    async def _announce(self, match: Match, report: Report) -> None:
        """The one public line, in the server's language (the match's)."""
        if report.rank is None:
            return
        text = public_line(
            match.name_of(match.host_id), match.rules, report.total, report.rank,
            report.players, report.analysed.mean, match.lang,
        )  # fmt: skip
        try:
            channel = self.client.get_channel(match.channel_id) or await self.client.fetch_channel(
                match.channel_id
            )
            send = getattr(channel, "send", None)
            if send is not None:
                await send(content=text, allowed_mentions=discord.AllowedMentions.none())
        except discord.HTTPException as exc:
            log.warning("daily %s: the public line was not posted: %r", match.id, exc)

    # --- the member's report --------------------------------------------------------------

    async def report_of(self, match: Match) -> Report:
        """A finished daily's report: the one its finish made, or read back."""
        task = self._reports.get(match.id)
        if task is not None:
            return await asyncio.shield(task)
        assert match.day is not None
        assert match.guild_id is not None
        board = await self.store.daily_board(
            match.guild_id, match.rules, match.day, limit=0, member_id=match.host_id
        )
        mine = board.me
        if mine is not None and mine.ev_loss is not None:
            analysed = Analysed(mine.ev_loss)
        else:
            reason = "banked" if match.rules == "banked" else "unavailable"
            analysed = Analysed(None, reason=reason)
        return await self._report(match, analysed)

    async def fields(self, match: Match, lang: str) -> dict[str, Any]:
        """The report and the card, as the member's message shows them."""
        report = await self.report_of(match)
        images = (await self.settings.fresh(match.guild_id)).images
        pictures = self.pictures if images else None
        report_ = [report_embed(report, lang)]
        return await card_fields(match, lang, pictures=pictures, report=report_)

    async def deliver(self, interaction: discord.Interaction[Any], match: Match) -> None:
        fields = await self.fields(match, reply_language(interaction))
        fields["content"] = None
        try:
            await interaction.edit_original_response(**fields)
        except discord.HTTPException as exc:
            log.warning("daily %s: the report was not shown: %r", match.id, exc)
