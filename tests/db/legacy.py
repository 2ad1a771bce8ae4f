"""Rows written straight into an older schema (the store's own code writes the newest)."""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime
from pathlib import Path

from db import SeatResult
from db.sqlite.store import to_text


def legacy_game(
    path: Path,
    *,
    guild: int | None,
    channel: int,
    rules: str,
    status: str,
    version: int,
    state: dict,
    actions: list[dict],
    at: datetime,
    results: list[SeatResult] = (),
) -> int:
    conn = sqlite3.connect(path)
    try:
        with conn:
            stamp = to_text(at)
            cur = conn.execute(
                "INSERT INTO games (guild_id, channel_id, host_id, rules, status, version, state,"
                " created_at, updated_at) VALUES (?, ?, 1, ?, ?, ?, ?, ?, ?)",
                (guild, channel, rules, status, version, json.dumps(state), stamp, stamp),
            )
            game_id = int(cur.lastrowid)
            conn.executemany(
                "INSERT INTO actions (game_id, seq, payload, created_at) VALUES (?, ?, ?, ?)",
                [(game_id, i, json.dumps(a), stamp) for i, a in enumerate(actions)],
            )
            if not results:
                return game_id
            conn.executemany(
                "INSERT INTO results VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        game_id,
                        r.seat,
                        guild,
                        rules,
                        r.player_id,
                        r.name,
                        int(r.is_bot),
                        r.total,
                        r.rank,
                        r.settlement,
                        r.ev_loss,
                        720.0,
                        stamp,
                    )
                    for r in results
                ],
            )
    finally:
        conn.close()
    return game_id
