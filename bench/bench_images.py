"""How long a scorecard's pictures take to draw (target: ≤ 50 ms a message, eight players
included, however many pictures it has; the chart of `/poker stats` too).

Each sample is a different game, so the text cache sees new numbers as it would in a bot.
The first message of a process also loads the fonts: it is reported on its own.
"""

from __future__ import annotations

import random
import statistics
import time

from bot.engine import Game, Pass, Score
from bot.render import chart, image

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
        chart.scores_chart_png(list(range(-30, 30 * n, 30))[:n], title="Ann · last games")
        charts.append((time.process_time() - start) * 1000)
    print("stats chart, 1 / 20 / 60 games: CPU " + " / ".join(f"{c:.1f}" for c in charts) + " ms")
    for label, value in (("wall", worst), ("CPU", worst_cpu)):
        verdict = "within" if value <= TARGET_MS else "OVER"
        print(f"worst {label} p95 {value:.1f} ms: {verdict} the {TARGET_MS:.0f} ms target")
    print("(wall time on a busy machine also counts other processes; CPU time does not)")
