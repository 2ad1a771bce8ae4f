"""How long a tournament's pure steps take (target: forming the next round of 64 players
≤ 10 ms), wall and CPU time side by side (on a shared machine wall time also counts other
work; CPU time is what the step costs on an idle core).

- start: a 64-player sign-up seeded by rating (a third unrated) into 16 tables of 4: the
  draw, the seeding, the snake, the first round's tables;
- advance: the next round formed once every table of round 1 is done (16 players from
  64, seeded afresh by rating), and the round after it (the final of 4);
- record: a table's result in, with a roll-off (one of 64 players' 16 tables);
- snapshot: the 64-player tournament to its JSON snapshot and back (what each change
  stores, and what a restart reads);
- replay: a whole 64-player tournament rebuilt from its log of actions.
Also the bracket's pictures and the tournament message of that tournament.
"""

from __future__ import annotations

import json
import random
import statistics
import time
from collections.abc import Callable
from datetime import UTC, datetime

from bot.match.tournament import Placing, Tournament, TournamentAction
from bot.render.bracket import bracket_pngs
from bot.render.tournament import tournament_embed
from bot.strategy.rating import Rating

TARGET_MS = 10.0
SAMPLES = 200
T0 = datetime(2026, 12, 1, 20, 0, tzinfo=UTC)
PLAYERS = 64


def _signup(log: list[TournamentAction]) -> Tournament:
    tn = Tournament.new(id=1, channel_id=2, guild_id=3, host_id=1000, host_name="host 0",
                        rules="classic", now=T0)  # fmt: skip
    log.extend(tn.actions)
    for i in range(1, PLAYERS):
        tn = tn.join(1000 + i, f"member {i} with a long name")
        log.extend(tn.actions)
    return tn


def _ratings(rng: random.Random) -> dict[int, Rating]:
    return {
        1000 + i: Rating(rng.gauss(25, 4), rng.uniform(1.5, 8))
        for i in range(PLAYERS)
        if i % 3
    }


def _finish_round(tn: Tournament, rng: random.Random, log: list[TournamentAction]) -> Tournament:
    for i, table in enumerate(tn.to_open, 1):
        tn = tn.open_table(table.round, table.no, 100 * table.round + i, 9000 + i)
        log.extend(tn.actions)
    assert tn.current is not None
    for table in tn.current.tables:
        totals = [rng.choice((180, 200, 220)) for _ in table.players]
        average = sum(totals) / len(totals)
        placings = [
            Placing(p, 1 + sum(o > v for o in totals), v, v - average)
            for p, v in zip(table.players, totals, strict=True)
        ]
        tn = tn.record(table.round, table.no, placings, rng)
        log.extend(tn.actions)
    return tn


def _time(step: Callable[[], object]) -> tuple[float, float]:
    """Wall and CPU milliseconds of one call."""
    wall, cpu = time.perf_counter(), time.process_time()
    step()
    return (time.perf_counter() - wall) * 1000, (time.process_time() - cpu) * 1000


def _report(name: str, samples: list[tuple[float, float]], target: float | None = None) -> None:
    walls = sorted(w for w, _ in samples)
    cpus = sorted(c for _, c in samples)
    p95 = walls[int(0.95 * (len(walls) - 1))]
    verdict = ""
    if target is not None:
        verdict = " ok" if statistics.median(cpus) <= target else f" OVER {target:.0f} ms"
    print(
        f"{name:>34}: median {statistics.median(walls):6.2f} ms wall"
        f" (p95 {p95:6.2f}), CPU {statistics.median(cpus):6.2f} ms{verdict}",
        flush=True,
    )


def main() -> None:
    rng = random.Random(1)
    log: list[TournamentAction] = []
    signup = _signup(log)
    ratings = _ratings(rng)
    _report(
        "start: 64 players into 16 tables",
        [_time(lambda: signup.start(1000, ratings, rng, T0)) for _ in range(SAMPLES)],
        TARGET_MS,
    )
    first = signup.start(1000, ratings, rng, T0)
    log.extend(first.actions)
    done = _finish_round(first, rng, [*log])
    _report(
        "advance: round 2 from 64 players",
        [_time(lambda: done.advance_round(ratings, T0)) for _ in range(SAMPLES)],
        TARGET_MS,
    )
    # A table's result with a forced tie for its one place that goes on: a roll-off.
    opened = first
    for i, table in enumerate(first.to_open, 1):
        opened = opened.open_table(1, table.no, 100 + i, 9000 + i)
    table = opened.table(1, 1)
    tied = [Placing(p, 1, 200, 0.0) for p in table.players]
    _report(
        "record: a table's result, a roll-off",
        [_time(lambda: opened.record(1, 1, tied, rng)) for _ in range(SAMPLES)],
    )

    log = []
    tn = _signup(log).start(1000, ratings, rng, T0)
    log.extend(tn.actions)
    while tn.status == "playing":
        tn = _finish_round(tn, rng, log)
        if tn.awaiting_advance:
            tn = tn.advance_round(ratings, T0)
            log.extend(tn.actions)
    assert tn.status == "finished"
    state = json.dumps(done.to_dict())

    def round_trip() -> None:
        Tournament.from_snapshot(json.loads(json.dumps(done.to_dict())), id=1, channel_id=2,
                                 guild_id=3, status="playing", version=1)  # fmt: skip

    _report("snapshot: to JSON and back", [_time(round_trip) for _ in range(SAMPLES)])
    wire = json.loads(json.dumps([a.to_json() for a in log]))
    _report(
        f"replay: {len(log)} actions, {len(tn.rounds)} rounds",
        [_time(lambda: Tournament.replay(wire, id=1, channel_id=2, guild_id=3))
         for _ in range(SAMPLES // 4)],
    )  # fmt: skip
    print(f"{'snapshot size':>34}: {len(state.encode()):,} bytes (64 players, round 1 done)")
    embed = [_time(lambda: tournament_embed(done, "en").to_dict()) for _ in range(SAMPLES // 4)]
    _report("message: the embed of round 1", embed)
    bracket_pngs(tn, "en")  # fonts loaded once
    pictures = [_time(lambda: bracket_pngs(tn, "en")) for _ in range(5)]
    _report(f"bracket: {len(bracket_pngs(tn, 'en'))} pictures of 64 players", pictures)


if __name__ == "__main__":
    main()
