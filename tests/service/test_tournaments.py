"""The tournament service on its own, on PostgreSQL: two processes (two stores on one
database, each with its own services) finding the same done round at start-up advance it
once, and the final table is opened once."""

from __future__ import annotations

import asyncio
import random
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from itertools import count

from bot.match.tournament import Placing, Table, Tournament
from bot.render.tournament import tournament_embed
from bot.service import GameService, ServerSettings, TournamentService, tournament_of
from db import open_store
from tests.multi.fixtures import pg_database, postgres_url  # noqa: F401 (fixtures)
from tests.service.test_games import Recorder

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
GUILD, CHANNEL = 7, 70
THREADS = count(9000)


@dataclass
class Threads:
    """A tournament publisher that opens "threads" (ids) and shows nothing."""

    opened: list[tuple[int, int, int]] = field(default_factory=list)

    async def show(self, tn: Tournament) -> int | None:
        return None

    async def open_thread(self, tn: Tournament, table: Table) -> int:
        thread = next(THREADS)
        self.opened.append((table.round, table.no, thread))
        return thread

    async def welcome(self, tn: Tournament, table: Table) -> None:
        return None

    async def close_thread(self, tn: Tournament, table: Table) -> None:
        return None


def process(store, seed: int) -> tuple[TournamentService, Threads]:
    games = GameService(store, publisher=Recorder(), clock=lambda: T0,
                        settings=ServerSettings(store))  # fmt: skip
    threads = Threads()
    return TournamentService(store, games, publisher=threads, clock=lambda: T0,
                             dice=random.Random(seed)), threads  # fmt: skip


async def test_two_processes_advance_a_round_once(pg_database) -> None:  # noqa: F811
    one, two = await open_store(pg_database), await open_store(pg_database)
    try:
        first, _ = process(one, 1)
        draft = Tournament.new(id=0, channel_id=CHANNEL, guild_id=GUILD, host_id=1,
                               host_name="p1", rules="classic", now=T0, table_size=2)  # fmt: skip
        tn = await first.open(draft)
        for p in (2, 3, 4):
            tn = await first.apply(tn.id, lambda x, p=p: x.join(p, f"p{p}"))
        tn = await first.start(tn.id, 1, manager=False)
        assert [tb.status for tb in tn.rounds[0].tables] == ["playing", "playing"]
        # Both tables' games end while no process is up: recorded (as a stopped process
        # left them), the round is done, the next one not formed.
        for tb in tn.rounds[0].tables:
            a, b = tb.players
            tn = tn.record(1, tb.no, [Placing(a, 1, 200, 10.0), Placing(b, 2, 180, -10.0)],
                           random.Random(0))  # fmt: skip
            record = await one.save_tournament(
                tn.id, expect_version=tn.version, state=tn.to_dict(),
                actions=[x.to_json() for x in tn.actions], now=T0)  # fmt: skip
            tn = tournament_of(record)
        assert tournament_of(await one.get_tournament(tn.id)).awaiting_advance

        a_service, _a_threads = process(one, 2)
        b_service, _b_threads = process(two, 3)
        await asyncio.gather(a_service.resume(), b_service.resume())

        after = tournament_of(await two.get_tournament(tn.id))
        assert len(after.rounds) == 2
        assert after.rounds[1].final
        assert after.rounds[1].tables[0].status == "playing"
        log = [next(iter(a)) for a in await one.tournament_actions(tn.id)]
        assert log.count("advance") == 1
        assert log.count("table") == 3  # two tables of round 1, the final once
        final_game = after.rounds[1].tables[0].game_id
        assert (await one.get_game(final_game)).status == "playing"
    finally:
        await one.close()
        await two.close()


async def test_a_tie_across_the_cut_is_thrown_off_once_and_shown(tmp_path) -> None:
    """Two players tied for the one place that goes on (a shared first place: equal totals,
    so equal settlements too, which decide nothing): the bot throws one roll-off, stores
    the dice in the log, and the tournament message shows them."""
    store = await open_store(f"sqlite:///{tmp_path / 'roll.sqlite3'}")
    try:
        service, _ = process(store, 5)
        draft = Tournament.new(id=0, channel_id=CHANNEL, guild_id=GUILD, host_id=1,
                               host_name="p1", rules="classic", now=T0, table_size=3)  # fmt: skip
        tn = await service.open(draft)
        for p in (2, 3):
            tn = await service.apply(tn.id, lambda x, p=p: x.join(p, f"p{p}"))
        tn = await service.start(tn.id, 1, manager=False)
        (final,) = tn.rounds[0].tables
        a, b, c = final.players
        tied = [Placing(a, 1, 250, 20.0), Placing(b, 1, 250, 20.0), Placing(c, 3, 210, -40.0)]
        dice = random.Random(9)
        done = await service.apply(tn.id, lambda x: x.record(1, 1, tied, dice))
        table = done.rounds[0].tables[0]
        assert {p for p, _ in table.rolloff} == {a, b}
        assert table.why(done.champion) in ("rolloff", "seed")
        assert done.status == "finished"
        log = await store.tournament_actions(tn.id)
        result = next(x["result"] for x in log if "result" in x)
        assert sorted(p for p, _ in result["rolloff"]) == sorted([a, b])
        shown = tournament_embed(done, "en").to_dict()
        text = str(shown)
        assert "Roll-off" in text
        stats = await store.tournament_stats(GUILD, done.champion)
        assert (stats.played, stats.wins, stats.finals, stats.best_place) == (1, 1, 1, 1)
    finally:
        await store.close()


async def test_a_sign_up_nobody_starts_closes_after_a_day(tmp_path) -> None:
    store = await open_store(f"sqlite:///{tmp_path / 'expiry.sqlite3'}")
    try:
        now = [T0]
        games = GameService(store, publisher=Recorder(), clock=lambda: now[0],
                            settings=ServerSettings(store))  # fmt: skip
        service = TournamentService(store, games, publisher=Threads(), clock=lambda: now[0],
                                    dice=random.Random(1))  # fmt: skip
        draft = Tournament.new(id=0, channel_id=CHANNEL, guild_id=GUILD, host_id=1,
                               host_name="p1", rules="classic", now=T0)  # fmt: skip
        tn = await service.open(draft)
        now[0] = T0 + timedelta(hours=23, minutes=59)
        assert await service.expire_due() == []
        now[0] = T0 + timedelta(hours=24, minutes=10)
        (closed,) = await service.expire_due()
        assert (closed.id, closed.status, closed.cancelled_by) == (tn.id, "cancelled", None)
        assert await service.expire_due() == []
    finally:
        await store.close()
