"""Turn timers: an absent player's turn is played for them; an unstarted lobby expires.

The deadline lives in the table's snapshot (`Table.deadline`, ISO UTC), so it survives a
restart with the game; the service's `commit` calls `stamp` to set it whenever a new turn
begins. One `tasks.loop` ticks every few seconds over the cached active tables (the whole
set is in memory: checking 1,000 of them costs well under a millisecond) and fires the
ones that are due through `GameService.apply` — the same per-game lock as a click, and the
change re-checks the deadline under that lock, so a click that lands first wins and the
timer then does nothing.

A timed-out turn is played by the strategy's computer player ("perfect" when a table for
the rule set is cached in `STRATEGY_DIR`, or for banked, whose policy needs none; else
"easy": the best immediate score). After `AWAY_AFTER` timeouts in a row the seat is marked
away with the engine's `Leave` (its free rows are scratched) and the game goes on.
"""

from __future__ import annotations

import asyncio
import logging
import random
from dataclasses import replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

import discord
from discord.ext import tasks

from bot.engine import DICE, Event, Game, GameError, Passed, Rolled, Scored
from bot.i18n import t
from bot.strategy import EXACT, Hold, Level, PassTurn, Record, choose, load
from bot.strategy import Table as StrategyTable
from db import TURN_TIMEOUT_DEFAULT

from ._table import Refusal, Table

if TYPE_CHECKING:
    from ._service import GameService

log = logging.getLogger(__name__)

LOBBY_TTL = timedelta(minutes=30)
AWAY_AFTER = 3
TICK_SECONDS = 5.0
# A turn is at most a few throws and a record; the cap only stops a policy bug looping.
MAX_STEPS = 64


class NotDue(Refusal):
    """The deadline moved (a click got there first): the timer does nothing."""

    def __init__(self) -> None:
        super().__init__("errors.stale")


# --- deadlines -------------------------------------------------------------------------


def parse(stamp: str | None) -> datetime | None:
    if not stamp:
        return None
    try:
        moment = datetime.fromisoformat(stamp)
    except ValueError:
        return None
    return moment if moment.tzinfo else None


def due_at(table: Table) -> datetime | None:
    """When the timer acts on this table: a lobby 30 minutes after it opened, a turn at
    its deadline; None when nothing is pending."""
    if table.status == "lobby":
        opened = parse(table.created_at)
        return None if opened is None else opened + LOBBY_TTL
    if table.status == "playing" and table.game is not None and not table.game.finished:
        return parse(table.deadline)
    return None


def computer_turn(table: Table) -> bool:
    """The current seat is a computer player (it plays by itself: no deadline shown)."""
    current = table.current_id
    seat = table.seat(current) if current is not None else None
    return seat is not None and seat.is_bot


def turn_key(game: Game) -> tuple[int, int, int, bool]:
    """Changes exactly when a new turn begins (the same player again in a solo game too)."""
    return game.current, game.round, sum(c.turns for c in game.cards), game.finished


async def turn_timeout(store: Any, guild_id: int | None) -> int:
    """The server's turn timeout in seconds (`/poker settings`), else the default."""
    if store is None or guild_id is None:
        return TURN_TIMEOUT_DEFAULT
    settings = await store.guild_settings(guild_id)
    return int(getattr(settings, "turn_timeout", TURN_TIMEOUT_DEFAULT))


async def stamp(store: Any, before: Table, after: Table, now: datetime) -> Table:
    """`after` with the current turn's deadline (and the acting player's strikes cleared).

    Called by `GameService.commit` for every change, before it is written.
    """
    if after.status != "playing" or after.game is None or after.game.finished:
        return after if after.deadline is None else replace(after, deadline=None)
    after = _clear_strikes(before, after)
    same_turn = (
        before.status == "playing"
        and before.game is not None
        and turn_key(before.game) == turn_key(after.game)
    )
    if same_turn and after.deadline:
        return after
    seconds = await turn_timeout(store, after.guild_id)
    return replace(after, deadline=(now + timedelta(seconds=seconds)).isoformat())


def strikes_of(table: Table, user_id: int) -> int:
    return dict(table.strikes).get(user_id, 0)


def with_strikes(table: Table, user_id: int, count: int) -> Table:
    strikes = {**dict(table.strikes), user_id: count}
    return replace(table, strikes=tuple(sorted((u, n) for u, n in strikes.items() if n)))


def _clear_strikes(before: Table, after: Table) -> Table:
    """A player who acts by themselves is back: their run of timeouts starts again."""
    if before.game is None or before.game.finished:
        return after
    was = int(before.game.player)
    count = strikes_of(before, was)
    if count == 0 or strikes_of(after, was) != count:  # none, or the timer's own change
        return after
    acted = any(
        isinstance(e, Rolled | Scored | Passed) and e.player == str(was) for e in after.events
    ) or (after.game is not None and after.game.held != before.game.held)
    return with_strikes(after, was, 0) if acted else after


# --- playing a turn for an absent player ---------------------------------------------


def play_for_absent(
    table: Table,
    dice: Any,
    strategy: StrategyTable | None,
    rng: random.Random,
) -> tuple[Table, bool]:
    """The current player's turn played to its end; (the new table, marked away?)."""
    game = table.require_game()
    player = game.player
    level: Level = "perfect" if strategy is not None or game.rules.banked else "easy"
    events: list[Event] = []
    turn = turn_key(game)
    for _ in range(MAX_STEPS):
        if turn_key(game) != turn:  # the turn is over (a solo player stays the player)
            break
        game, event = _step(game, player, choose(level, game, strategy, rng), dice)
        events.append(event)
    else:  # pragma: no cover - a policy that never ends a turn
        raise RuntimeError(f"the {level} policy did not finish a turn")
    user_id = int(player)
    out = with_strikes(table, user_id, strikes_of(table, user_id) + 1)
    away = strikes_of(out, user_id) >= AWAY_AFTER and not game.finished
    if away and not game.card_of(player).left:
        game, left = game.leave(player)
        events.append(left)
    status = "finished" if game.finished else out.status
    # Only the turn's outcome is summarised (the throws are in the stored actions).
    shown = tuple(e for e in events if not isinstance(e, Rolled))
    return replace(out, game=game, status=status, events=shown), away


def _step(game: Game, player: str, decision: Any, dice: Any) -> tuple[Game, Event]:
    """Apply one decision; anything the engine refuses falls back to the plainest move."""
    try:
        if isinstance(decision, Hold) and game.can_roll(player):
            hold = sorted(decision.positions) if game.dice else []
            values = [dice.randint(1, 6) for _ in range(DICE - len(hold))]
            return game.roll(player, hold, values)
        if isinstance(decision, Record):
            return game.score(player, decision.row)
        if isinstance(decision, PassTurn):
            return game.pass_turn(player)
    except GameError:
        log.warning("game policy chose an illegal move %r; falling back", decision)
    if not game.dice and game.can_roll(player):
        return game.roll(player, [], [dice.randint(1, 6) for _ in range(DICE)])
    options = game.options()
    if options:
        best = max(options, key=lambda o: o.points + o.joker_bonus)
        return game.score(player, best.row)
    if game.can_pass(player):
        return game.pass_turn(player)
    return game.leave(player)


# --- the loop ------------------------------------------------------------------------------


class TurnTimers:
    """Owned by the play cog: started in `cog_load`, stopped in `cog_unload`."""

    def __init__(self, service: GameService) -> None:
        self.service = service
        self._strategies: dict[str, StrategyTable | None] = {}
        self.loop: tasks.Loop[Any] = tasks.loop(seconds=TICK_SECONDS)(self.tick)

    def start(self) -> None:
        if not self.loop.is_running():
            self.loop.start()

    def stop(self) -> None:
        self.loop.cancel()

    async def tick(self) -> None:
        now = discord.utils.utcnow()
        for table in self.service.active_tables():
            try:
                due = due_at(table)
                if due is not None and due <= now:
                    await self.fire(table.id, now)
            except Exception:
                # One game's failure must not stop the loop (a tasks.loop that raises
                # ends) for every other game.
                log.exception("turn timer of game %s failed", table.id)

    async def fire(self, game_id: int, now: datetime) -> bool:
        """Act on a due game; False when there was nothing to do (a click won)."""
        table = await self.service.get(game_id)
        if table is None or not table.active:
            return False
        if table.status == "lobby":
            return await self._expire_lobby(game_id, now)
        strategy = await self._strategy(table.rules)
        outcome: dict[str, Any] = {}

        def change(tb: Table) -> Table:
            due = due_at(tb)
            if tb.status != "playing" or due is None or due > now:
                raise NotDue
            game = tb.require_game()
            outcome["player"] = int(game.player)
            rng = random.Random(tb.id * 1_000_003 + tb.version)
            after, outcome["away"] = play_for_absent(tb, self.service.bot.dice, strategy, rng)
            return after

        from ._service import MissingPermissions, PublishFailed  # noqa: PLC0415 - cycle

        try:
            after = await self.service.apply(game_id, change)
        except NotDue:
            return False
        except (PublishFailed, MissingPermissions):
            return True  # stored; the service logged it, the next click or /poker resume shows it
        name = after.name_of(outcome["player"])
        key = "timer.away" if outcome["away"] else "timer.played"
        await self._tell(after, t(key, after.lang, name=name, strikes=AWAY_AFTER))
        return True

    async def _expire_lobby(self, game_id: int, now: datetime) -> bool:
        service = self.service
        async with service.locked(game_id) as table:
            due = None if table is None else due_at(table)
            if table is None or table.status != "lobby" or due is None or due > now:
                return False
            after = await service.commit(table, replace(table, status="cancelled", events=()))
            minutes = int(LOBBY_TTL.total_seconds() // 60)
            if after.lobby_message_id is not None:
                embed = service.lobby_embed(after, by=t("timer.clock", after.lang))
                try:
                    channel = await service.channel(after)
                    await channel.get_partial_message(after.lobby_message_id).edit(
                        embed=embed, view=None
                    )
                except discord.HTTPException as exc:
                    log.warning("game %s: could not close the expired lobby: %s", game_id, exc)
            await self._tell(after, t("timer.lobby_expired", after.lang, minutes=minutes))
        return True

    async def _tell(self, table: Table, text: str) -> None:
        try:
            channel = await self.service.channel(table)
            await channel.send(text, allowed_mentions=discord.AllowedMentions.none())
        except discord.HTTPException as exc:
            log.warning("game %s: could not post the timer's notice: %s", table.id, exc)

    async def _strategy(self, rules: str) -> StrategyTable | None:
        """The strategy table of `rules` if one is loaded or solved; never computed here
        (solving takes up to a minute: the timer must not wait for it)."""
        if rules not in EXACT:
            return None
        manager = getattr(self.service, "tables", None)  # shared with hints and computers
        loaded = manager.loaded(rules) if manager is not None else None
        if loaded is not None:
            return loaded
        if rules not in self._strategies:
            settings = getattr(self.service.bot, "settings", None)
            directory = getattr(settings, "strategy_dir", None)
            found = None
            if directory is not None:  # load() answers None for a missing or damaged file
                found = await asyncio.to_thread(load, rules, Path(directory))
            self._strategies[rules] = found
        return self._strategies[rules]
