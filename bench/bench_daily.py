"""The daily dice: the hindsight optimum per rule set, starting a daily and clicking in it,
and the day's board over 10,000 members.

1. Per rule set, over `DAYS` days: the median, fastest and slowest wall time of `hindsight`
   from an empty card (fresh dice each time, so the HMACs are counted), the engine replay
   of its line, and the optimum's mean. For banked also the bounded search that allows no
   banked throws (a lower bound) and how far below the exact optimum it lands.
   Targets: classic <= 200 ms, yatzy <= 2 s per game on a 2-core machine.
2. Through simcord (simcord's polling made 1 ms, as bench_clicks does): `/poker daily play`
   for `MEMBERS` members (a new daily each: a row, its snapshot, the ephemeral answer),
   then every click of their dailies (hold, Roll, record; the last record also waits for
   the member's report: the analysis, the day's best, the place), median and p99, beside
   an ordinary turn's clicks at a table (bench_clicks' game).
3. `GameStore.daily_board` over `BOARD_MEMBERS` members' results of one day, filled through
   the store as the bot writes them: the first page with the asker's line, for an asker at
   the top, in the middle and at the bottom. Target <= 50 ms.
"""

from __future__ import annotations

import asyncio
import os
import random
import statistics
import tempfile
import time
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import simcord

from bench.bench_clicks import TURNS, _fast_settle, _game, _quantiles
from bench.bench_leaderboard import _scratch_dir
from bot.app import DicePokerBot
from bot.engine import RULESETS, totals_of
from bot.engine.daily import DailyDice
from bot.settings import Settings
from bot.strategy.hindsight import Hindsight, hindsight, replay
from db import GameStore, SeatResult, SqliteStore

from ._sim import answer

DAYS = 7
SECRET = b"bench_daily: a fixed secret ...."
FIRST = date(2025, 1, 1)
MEMBERS = 30  # members playing a whole classic daily each through simcord
BOARD_MEMBERS = 10_000
BOARD_TARGET_MS = 50.0
REPEATS = 9


def _timed(rules: str, day: date, extra: int | None = None) -> tuple[float, float, Hindsight]:
    """Wall and CPU seconds of one hindsight game (CPU: what it costs on an idle core)."""
    dice = DailyDice(SECRET, day, rules)
    began, began_cpu = time.perf_counter(), time.process_time()
    result = hindsight(dice, extra_throws=extra)
    elapsed, cpu = time.perf_counter() - began, time.process_time() - began_cpu
    final, _ = replay(dice, result)
    assert totals_of(final.rules, final.card).total == result.score
    return elapsed, cpu, result


def hindsight_figures() -> None:
    days = [FIRST + timedelta(days=i) for i in range(DAYS)]
    for rules in RULESETS:
        runs = [_timed(rules, day) for day in days]
        ms = [t * 1e3 for t, _, _ in runs]
        cpu = [c * 1e3 for _, c, _ in runs]
        scores = [r.score for _, _, r in runs]
        print(
            f"{rules:13} hindsight median {statistics.median(ms):7.1f} ms "
            f"(cpu {statistics.median(cpu):7.1f} ms; min {min(ms):6.1f}, max {max(ms):6.1f}) "
            f"over {DAYS} days; optimum mean {statistics.fmean(scores):6.1f} "
            f"(min {min(scores)}, max {max(scores)}); exact {all(r.exact for *_, r in runs)}",
            flush=True,
        )
        if RULESETS[rules].banked:
            bounded = [_timed(rules, day, extra=0) for day in days]
            gaps = [e[2].score - b[2].score for e, b in zip(runs, bounded, strict=True)]
            bms = [t * 1e3 for t, _, _ in bounded]
            print(
                f"{'':13} no banked throws: median {statistics.median(bms):7.1f} ms, "
                f"{statistics.fmean(gaps):.1f} points below the optimum on average "
                f"(max {max(gaps)})",
                flush=True,
            )


# --- starting a daily and clicking in it ------------------------------------------------


def _controls(env: Any, message: Any) -> dict[str, Any]:
    stored = env.backend.get_message(message.channel_id, message.id)
    out: dict[str, Any] = {"hold": []}
    for row in stored.components:
        for item in row.get("components", []):
            action = item.get("custom_id", "::").split(":")[1]
            if action == "hold":
                out["hold"].append(item)
            else:
                out[action] = item
    return out


async def _dailies(folder: Path) -> dict[str, list[float]]:
    settings = Settings(
        _env_file=None,  # type: ignore[call-arg]
        database_path=folder / "daily.sqlite3",
        dev_guild_id=None,
        strategy_dir=folder / "strategy",
    )
    bot = DicePokerBot(settings, dice=random.Random(7), sync_globally=True)
    times: dict[str, list[float]] = {"start": [], "roll": [], "hold": [], "record": [],
                                     "finish": []}  # fmt: skip
    async with simcord.run(bot) as env:
        guild = env.create_guild("Bench")
        channel = guild.create_text_channel("dice")
        members = [guild.add_member(env.create_user(f"m{n}")) for n in range(MEMBERS)]
        for member in members:
            began = time.perf_counter()
            message = answer(await member.slash(channel, "poker daily play", rules="classic"))
            times["start"].append((time.perf_counter() - began) * 1000)
            while "roll" in (c := _controls(env, message)):
                began = time.perf_counter()
                await member.click(message, custom_id=c["roll"]["custom_id"])
                times["roll"].append((time.perf_counter() - began) * 1000)
                c = _controls(env, message)
                if not c["roll"].get("disabled"):
                    began = time.perf_counter()
                    await member.click(message, custom_id=c["hold"][0]["custom_id"])
                    times["hold"].append((time.perf_counter() - began) * 1000)
                select = _controls(env, message)["score"]
                last = len(select["options"]) == 1 and _last_row(env, message)
                began = time.perf_counter()
                await member.select(
                    message, [select["options"][0]["value"]], custom_id=select["custom_id"]
                )
                times["finish" if last else "record"].append((time.perf_counter() - began) * 1000)
        await bot.close()
    return times


def _last_row(env: Any, message: Any) -> bool:
    """Is the turn on the message the daily's fifteenth (its round field says 15)?"""
    stored = env.backend.get_message(message.channel_id, message.id)
    fields = stored.embeds[0].get("fields", [])
    return any(f["value"] == "15" for f in fields)


async def click_figures() -> None:
    simcord.Env._settle_internal = _fast_settle  # type: ignore[method-assign]
    with tempfile.TemporaryDirectory() as folder:
        daily = await _dailies(Path(folder))
        table = await _game({"database_path": Path(folder) / "table.sqlite3"})
    print(f"{'click':<16}{'clicks':>8}{'median ms':>12}{'p99 ms':>10}")
    for name, samples in daily.items():
        median, p99 = _quantiles(samples)
        label = "daily " + name
        print(f"{label:<16}{len(samples):>8}{median:>12.2f}{p99:>10.2f}")
    for name, samples in table.items():
        median, p99 = _quantiles(samples)
        print(f"{'table ' + name:<16}{len(samples):>8}{median:>12.2f}{p99:>10.2f}")
    print(
        f"daily start = /poker daily play making a new daily; daily finish = the last record,"
        f" with the report (the day's best was being worked out since the first start);"
        f" table = an ordinary turn ({TURNS} turns of bench_clicks' game)"
    )


# --- the day's board ------------------------------------------------------------------


async def fill_day(store: GameStore, rng: random.Random, day: date) -> None:
    """BOARD_MEMBERS members' dailies of `day` in one server, each finished by its save."""
    at = datetime.combine(day, datetime.min.time(), tzinfo=UTC)
    for member in range(1, BOARD_MEMBERS + 1):
        game = await store.create_game(
            guild_id=1, channel_id=1, host_id=member, rules="classic", state={}, day=day, now=at
        )
        seat = SeatResult(0, member, f"member{member}", is_bot=False, total=rng.randint(80, 380),
                          rank=1, settlement=0.0)  # fmt: skip
        await store.save(
            game.id, expect_version=0, state={}, status="finished", results=[seat], now=at
        )


async def board_figures() -> None:
    day = FIRST
    with tempfile.TemporaryDirectory(dir=_scratch_dir()) as tmp:
        store = await SqliteStore.open(Path(tmp) / "board.sqlite3")
        try:
            began = time.perf_counter()
            await fill_day(store, random.Random(3), day)
            print(
                f"filled {BOARD_MEMBERS:,} members' dailies of one day through the store in "
                f"{time.perf_counter() - began:.1f} s"
            )
            top = (await store.daily_board(1, "classic", day, limit=1)).lines[0].player_id
            whole = await store.daily_board(1, "classic", day, limit=BOARD_MEMBERS)
            middle = whole.lines[BOARD_MEMBERS // 2].player_id
            bottom = whole.lines[-1].player_id
            worst = 0.0
            for name, member in (("top", top), ("middle", middle), ("bottom", bottom)):
                samples = []
                for _ in range(REPEATS):
                    t = time.perf_counter()
                    await store.daily_board(1, "classic", day, limit=10, member_id=member)
                    samples.append((time.perf_counter() - t) * 1000)
                median = statistics.median(samples)
                worst = max(worst, median)
                print(f"daily board, asker at the {name:<6}: median {median:5.2f} ms, "
                      f"max {max(samples):5.2f} ms")  # fmt: skip
            samples = []
            for _ in range(REPEATS):
                t = time.perf_counter()
                league = await store.leaderboard(1, metric="daily", member_id=middle)
                samples.append((time.perf_counter() - t) * 1000)
            median = statistics.median(samples)
            worst = max(worst, median)
            print(f"/poker leaderboard daily ({league.ranked:,} ranked): median {median:5.2f} ms, "
                  f"max {max(samples):5.2f} ms")  # fmt: skip
            verdict = "ok" if worst <= BOARD_TARGET_MS else "OVER TARGET"
            print(f"worst median {worst:.2f} ms (target ≤ {BOARD_TARGET_MS:.0f} ms): {verdict}")
        finally:
            await store.close()


def main() -> None:
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores", flush=True)
    hindsight_figures()
    asyncio.run(click_figures())
    asyncio.run(board_figures())
