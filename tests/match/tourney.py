"""Tournaments played out without Discord: sign-ups of any size, tables finished with
made-up standings (ties on purpose) or real engine games, players leaving on the way."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from datetime import UTC, datetime

from bot.engine import Game, Leave
from bot.match.tournament import (
    OPEN,
    PLAYING,
    Placing,
    Table,
    Tournament,
    TournamentAction,
    placings_of,
)
from bot.strategy.rating import Rating
from tests.engine.play import legal_action

T0 = datetime(2026, 12, 1, 20, 0, tzinfo=UTC)
HOST = 1000


def signup(
    players: int,
    *,
    size: int = 4,
    advance: int = 1,
    bots: int = 0,
    lang: str = "en",
    rules: str = "classic",
    log: list[TournamentAction] | None = None,
    names: Sequence[str] = (),
) -> Tournament:
    """A sign-up of `players` in all: the host, members 1001…, then `bots` computer players
    (members named from `names` in turn, else "member 1"…)."""

    def name(i: int) -> str:
        return names[i % len(names)] if names else f"member {i}"

    tn = Tournament.new(
        id=7,
        channel_id=70,
        guild_id=700,
        host_id=HOST,
        host_name=name(0) if names else "host",
        rules=rules,
        now=T0,
        table_size=size,
        advance=advance,
        lang=lang,
    )
    steps = [tn]
    for i in range(1, players - bots):
        steps.append(steps[-1].join(HOST + i, name(i)))
    levels = ("easy", "normal", "perfect")
    for i in range(bots):
        steps.append(steps[-1].add_computer(HOST, levels[i % 3]))
    if log is not None:
        log.extend(a for s in steps for a in s.actions)
    return steps[-1]


def made_up(table: Table, tn: Tournament, rng: random.Random) -> list[Placing]:
    """Standings for a table: totals from few values (ties are common), places and
    settlement as the engine computes them; players who are out have left the game."""
    totals = {p: 10 * rng.randint(0, 3) for p in table.players}
    average = sum(totals.values()) / len(totals)
    out = []
    for p in table.players:
        e = tn.entrant(p)
        place = 1 + sum(v > totals[p] for v in totals.values())
        out.append(Placing(p, place, totals[p], totals[p] - average, bool(e and e.out)))
    return out


def engine_game(table: Table, tn: Tournament, rng: random.Random) -> Game:
    """A real random game of the table's players: those who are out leave it first (the
    edge applies their leave), the others play it to its end."""
    game = Game.new(tn.rules, [str(p) for p in table.players])
    for p in table.players:
        if (e := tn.entrant(p)) is not None and e.out and not game.finished:
            game, _ = game.apply(Leave(str(p)))
    while not game.finished:
        game, _ = game.apply(legal_action(game, rng, greed=0.5))
    return game


Ratings = Callable[[Tournament], dict[int, Rating]]


def no_ratings(_: Tournament) -> dict[int, Rating]:
    return {}


def run(
    tn: Tournament,
    rng: random.Random,
    *,
    leave: float = 0.0,
    engine: bool = False,
    ratings: Ratings = no_ratings,
    log: list[TournamentAction] | None = None,
    check: Callable[[Tournament], None] | None = None,
) -> Tournament:
    """Starts the sign-up (when it is one) and plays it to the end: each round's tables
    open, some players leave (`leave`: the chance for each player in a round), every
    table finishes, the round advances. `check` sees every state."""
    actions: list[TournamentAction] = [] if log is None else log

    def step(after: Tournament) -> Tournament:
        actions.extend(after.actions)
        if check is not None:
            check(after)
        return after

    if tn.status == "signup":
        tn = step(tn.start(HOST, ratings(tn), rng, T0))
    game_id = 5000
    while tn.status == PLAYING:
        for table in tn.to_open:
            game_id += 1
            tn = step(tn.open_table(table.round, table.no, game_id, game_id * 10))
        rnd = tn.current
        assert rnd is not None
        for player in list(rnd.seeds):
            if rng.random() < leave and tn.can_leave(player):
                tn = step(tn.leave(player))
        for table in list(tn.current.tables if tn.current else ()):
            if tn.status != PLAYING:
                break
            current = tn.table(table.round, table.no)
            if current.status != OPEN:
                continue
            if engine:
                game = engine_game(current, tn, rng)
                tn = step(tn.record(current.round, current.no, placings_of(game), rng))
            else:
                tn = step(tn.record(current.round, current.no, made_up(current, tn, rng), rng))
        if tn.awaiting_advance:
            tn = step(tn.advance_round(ratings(tn), T0))
    return tn
