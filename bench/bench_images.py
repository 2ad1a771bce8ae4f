"""How long a scorecard's pictures take to draw (target: ≤ 50 ms a message, eight players
included, however many pictures it has; the chart of `/poker stats` too).

Each sample is a different game, so the text cache sees new numbers as it would in a bot.
The first message of a process also loads the fonts: it is reported on its own.

Then the event loop while pictures are drawn (bot/service/pictures.py): the CPU the bot's
own process spends per finished turn (its loop: `process_time` of this process, which
also counts its threads) and the loop's lag (the worst delay of a 1 ms timer), with the
pictures drawn on the loop (the bot before issue 21), in a thread, and in the worker
pool; and the same lag while a hint, an analysis-sized run of hints and a day's
hindsight run in their threads (`asyncio.to_thread`, as the bot runs them).
"""

from __future__ import annotations

import asyncio
import functools
import os
import random
import statistics
import time
from collections.abc import Awaitable, Callable
from datetime import date
from pathlib import Path

from bot.engine import Game, Pass, Score
from bot.engine.daily import DailyDice
from bot.render import chart, image
from bot.service import Pictures
from bot.strategy import advise, load
from bot.strategy.hindsight import hindsight

TARGET_MS = 50.0
SAMPLES = 40
NAMES = [
    "Ann",
    "Борис Константинович",
    "अनीता कुमारी",
    "🤖 Bot 1 (perfect)",
    "bob_the_long_named",
    "Zoë ✨",
    "Игорь",
    "राहुल",
]


def _game(rules: str, players: int, seed: int) -> Game:
    rng = random.Random(seed)
    game = Game.new(rules, NAMES[:players])
    while not game.finished:
        who = game.player
        game, _ = game.apply(game.draw(who, rng))
        if game.can_roll(who) and rng.random() < 0.5:
            game, _ = game.apply(game.draw(who, rng))
        options = game.options()
        if options:
            pick = max(options, key=lambda o: o.points + rng.random() * 10)
            game, _ = game.apply(Score(who, pick.row))
        else:
            game, _ = game.apply(Pass(who))
    return game


def _pictures(game: Game, lang: str) -> list[bytes]:
    return image.scorecard_pngs(
        game.rules, [(c.name, c) for c in game.cards], lang, title="Dice poker", final=True
    )


def _draw(game: Game, lang: str) -> float:
    start = time.perf_counter()
    _pictures(game, lang)
    return (time.perf_counter() - start) * 1000


def _cpu(game: Game, lang: str) -> float:
    # CPU time of this process: on a shared machine wall time also counts other work.
    start = time.process_time()
    _pictures(game, lang)
    return (time.process_time() - start) * 1000


def main() -> None:
    print(f"text layout: {image.SHAPING}")
    start = time.perf_counter()
    image.warm_up()
    print(f"loading the fonts (once, at start-up): {(time.perf_counter() - start) * 1000:.1f} ms")
    first = _draw(_game("classic", 2, 0), "en")
    print(f"first message (nothing cached yet): {first:.1f} ms")
    worst = worst_cpu = 0.0
    for rules, lang, players in (
        ("classic", "en", 2),
        ("classic", "ru", 4),
        ("yatzy", "hi", 4),
        ("banked", "ro", 8),
        ("yatzy", "hi", 8),
    ):
        games = [_game(rules, players, seed) for seed in range(SAMPLES)]
        count = len(_pictures(games[0], lang))
        times = sorted(_draw(g, lang) for g in games)
        cpu = sorted(_cpu(g, lang) for g in games)
        p95, cpu_p95 = times[int(0.95 * (len(times) - 1))], cpu[int(0.95 * (len(cpu) - 1))]
        worst, worst_cpu = max(worst, p95), max(worst_cpu, cpu_p95)
        print(
            f"{rules:8} {lang} {players} players, {count} pictures:"
            f" wall median {statistics.median(times):5.1f} ms,"
            f" p95 {p95:5.1f} ms, max {times[-1]:5.1f} ms; CPU median"
            f" {statistics.median(cpu):4.1f} ms, p95 {cpu_p95:4.1f} ms"
        )
    charts = []
    for n in (1, 20, 60):
        start = time.process_time()
        chart.scores_chart_png(list(range(-30, 30 * n, 30))[:n], name="Ann")
        charts.append((time.process_time() - start) * 1000)
    print("stats chart, 1 / 20 / 60 games: CPU " + " / ".join(f"{c:.1f}" for c in charts) + " ms")
    for label, value in (("wall", worst), ("CPU", worst_cpu)):
        verdict = "within" if value <= TARGET_MS else "OVER"
        print(f"worst {label} p95 {value:.1f} ms: {verdict} the {TARGET_MS:.0f} ms target")
    print("(wall time on a busy machine also counts other processes; CPU time does not)")
    asyncio.run(_loop_figures())


TURNS = 20  # finished turns, each with an 8-player table's three pictures


async def _lagging(work: Callable[[], Awaitable[object]]) -> tuple[float, float, float]:
    """`work` alone (this process's CPU s, wall s), then again with a 1 ms timer beside it
    (its worst lag ms: the timer's own CPU is not counted)."""
    loop = asyncio.get_running_loop()
    cpu, wall = time.process_time(), time.perf_counter()
    await work()
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    worst, done = 0.0, False

    async def tick() -> None:
        nonlocal worst
        while not done:
            due = loop.time() + 0.001
            await asyncio.sleep(0.001)
            worst = max(worst, loop.time() - due)

    ticker = loop.create_task(tick())
    await asyncio.sleep(0.01)
    await work()
    done = True
    await ticker
    return worst * 1000, cpu, wall


async def _loop_figures() -> None:
    games = [_game("yatzy", 8, 100 + seed) for seed in range(TURNS)]
    names = {n: n for n in NAMES}

    async def on_loop() -> None:
        for game in games:
            image.game_pngs(game, names, 1, "hi")
            await asyncio.sleep(0)  # the next click's turn

    async def through(pictures: Pictures) -> None:
        for game in games:
            await pictures.draw(image.game_pngs, game, names, 1, "hi")

    thread, pool = Pictures(0), Pictures()
    await pool.draw(int)  # the worker started (the bot starts it at start-up)
    await through(thread)  # and this process's fonts loaded
    cases: list[tuple[str, Callable[[], Awaitable[object]]]] = [
        ("on the loop (before)", on_loop),
        ("in a thread (PICTURE_WORKERS=0)", lambda: through(thread)),
        (f"in the pool ({pool.workers} worker(s), the default)", lambda: through(pool)),
    ]
    print(f"the loop while {TURNS} finished turns draw their pictures (yatzy, 8 players, hi):")
    for label, work in cases:
        lag, cpu, wall = await _lagging(work)
        print(
            f"  {label:40} loop CPU {cpu / TURNS * 1000:5.1f} ms a turn, wall {wall:5.2f} s"
            f" (CPU {cpu:5.2f} s), worst 1 ms-timer lag {lag:6.1f} ms"
        )
    await pool.close()
    await thread.close()
    await _thread_figures()


async def _thread_figures() -> None:
    """The hint, an analysis and the hindsight in their threads: the loop's lag (GIL)."""
    table = load("classic", Path(os.environ.get("STRATEGY_DIR", "data/strategy")))
    jobs: list[tuple[str, Callable[[], object]]] = []
    if table is not None:
        game = _game("classic", 2, 1)
        start = Game.new("classic", game.players)
        thrown, _ = start.apply(start.draw(start.player, random.Random(1)))
        jobs.append(("a hint (advise, classic)", lambda: advise(table, thrown)))
        jobs.append(
            ("200 hints (an analysis' size)", lambda: [advise(table, thrown) for _ in range(200)])
        )
    else:
        print("  (no classic table in data/strategy: `python -m bot solve classic` for the hint)")
    dice = DailyDice(b"bench_images: a fixed secret ...", date(2025, 1, 1), "classic")
    jobs.append(("a day's hindsight (classic)", lambda: hindsight(dice)))
    print("the loop while a strategy job runs in a thread (asyncio.to_thread):")
    for label, job in jobs:
        lag, cpu, wall = await _lagging(functools.partial(asyncio.to_thread, job))
        print(f"  {label:40} wall {wall:6.2f} s (CPU {cpu:5.2f} s), worst lag {lag:6.1f} ms")
