"""Bytes a save writes: the snapshot of an 8-player classic game, turn by turn.

The store keeps each game's actions as its log; the snapshot holds the state only. Before
(a snapshot carrying the whole history, as until the layered core), a game's snapshot
grew with every action. `python -m bench snapshot` prints both, at the end of a game and
summed over every save of the game (target at the end: ≤ 2 KB).
"""

from __future__ import annotations

import json
import random
from dataclasses import replace
from datetime import UTC, datetime

from bot.match import Match, Seat
from bot.strategy.act import next_action

PLAYERS = 8
NAMES = ("Ana", "Boris", "Chitra", "Dan", "Elena", "Florin", "Gauri", "Ilya")  # typical names


def _size(state: object) -> int:
    # As the store writes it (db/sqlite/store.py `_json`): compact UTF-8.
    return len(json.dumps(state, ensure_ascii=False, separators=(",", ":")).encode())


def main() -> None:
    rng = random.Random(3)
    # Discord ids have 18 or 19 digits.
    seats = tuple(Seat(1_456_074_443_980_800_000 + i, NAMES[i]) for i in range(PLAYERS))
    match = Match(id=1, channel_id=1, guild_id=1, host_id=seats[0].user_id, rules="classic",
                  seats=seats)  # fmt: skip
    match = match.start(seats[0].user_id, rng, datetime(2026, 1, 1, tzinfo=UTC))
    history: list[dict[str, object]] = []
    new_total = old_total = saves = 0
    while match.game is not None and not match.game.finished:
        game = match.game
        action = next_action("normal", game, None, rng, rng)
        after, _ = game.apply(action)
        match = replace(match, game=after)
        history.append(action.to_json())
        state = match.to_dict()
        new = _size(state)
        old = _size({**state, "game": {**state["game"], "history": history}})
        new_total, old_total, saves = new_total + new, old_total + old, saves + 1
    print(f"{PLAYERS}-player classic game: {saves} saves of an action")
    print(f"{'':<22}{'last save':>12}{'per game':>12}")
    print(f"{'snapshot with history':<22}{old / 1024:>10.1f} KB{old_total / 1024:>10.0f} KB")
    print(f"{'snapshot without':<22}{new / 1024:>10.1f} KB{new_total / 1024:>10.0f} KB")
    print("target: ≤ 2 KB a save at the end of an 8-player game")
