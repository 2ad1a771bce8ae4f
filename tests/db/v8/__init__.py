"""Databases as the stores before Alembic made them: their migration files V1–V8 (kept here
as they shipped, in sqlite/ and postgres/), applied as their runners did, and rows written
straight into that schema (its triggers kept the standings, the names and the daily
standings, as they did in a running bot). The upgrade tests (test_migrations.py) and the
migration benchmark (bench/bench_migrate.py) build their V8 databases here."""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import asyncpg

FOLDER = Path(__file__).parent


def scripts(dialect: str) -> list[str]:
    """The SQL of V1, V2 … V8, in order."""
    files = sorted((FOLDER / dialect).glob("V*__*.sql"),
                   key=lambda p: int(p.name[1:].split("__")[0]))
    return [p.read_text(encoding="utf-8") for p in files]


def sqlite_v8(path: Path, upto: int = 8) -> None:
    """An empty SQLite database at schema `upto` (PRAGMA user_version), as the old runner
    left it."""
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("PRAGMA journal_mode = WAL")
        for version, sql in enumerate(scripts("sqlite")[:upto], 1):
            conn.executescript(f"BEGIN;\n{sql}\n;PRAGMA user_version = {version};COMMIT;")
    finally:
        conn.close()


async def postgres_v8(url: str, upto: int = 8) -> None:
    """An empty PostgreSQL database at schema `upto` (the schema_version table)."""
    conn = await asyncpg.connect(url)
    try:
        async with conn.transaction():
            await conn.execute(
                "CREATE TABLE schema_version (version integer PRIMARY KEY, name text NOT NULL,"
                " applied_at timestamptz NOT NULL DEFAULT now())"
            )
            for version, sql in enumerate(scripts("postgres")[:upto], 1):
                await conn.execute(sql)
                await conn.execute("INSERT INTO schema_version (version, name) VALUES ($1, $2)",
                                   version, f"V{version}")
    finally:
        await conn.close()


T0 = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)


def _text(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def rows(games: int, *, guild: int = 1, seats: int = 3,
         start: datetime = T0) -> dict[str, list[tuple[Any, ...]]]:
    """Rows of a V8 database, dialect-neutral (times aware, JSON as objects): `games`
    finished table games of `seats` members each (one in every ten analysed, one in every
    seven without `host_id` in its snapshot, as snapshots before it were), a game in play,
    two members' dailies on two days, settings, a rating, a daily best and a secret."""
    out: dict[str, list[tuple[Any, ...]]] = {k: [] for k in (
        "games", "actions", "results", "daily_results", "guild_settings", "ratings",
        "daily_best", "secrets")}
    for n in range(1, games + 1):
        at = start + timedelta(minutes=n)
        members = [1 + (n * 7 + i * 13) % 97 for i in range(seats)]
        state = {"host_id": members[0], "seats": [{"id": m} for m in members], "n": n}
        if n % 7 == 0:
            del state["host_id"]
        out["games"].append((n, guild, 100 + n % 5, members[0], "classic" if n % 2 else "yatzy",
                             "finished", 3, state, at, at + timedelta(minutes=9), None,
                             "table", None, None, None))
        out["actions"] += [(n, seq, {"type": "roll", "seq": seq}, at) for seq in range(2)]
        totals = [120 + (n * 31 + i * 17) % 150 for i in range(seats)]
        avg = sum(totals) / seats
        out["results"] += [
            (n, i, guild, out["games"][-1][4], m, f"member {m}", False, t,
             1 + sum(o > t for o in totals), t - avg, 0.5 if n % 10 == 0 else None, 540.0,
             at + timedelta(minutes=9))
            for i, (m, t) in enumerate(zip(members, totals, strict=True))
        ]
    live = games + 1
    out["games"].append((live, guild, 500, 7, "classic", "playing", 2, {"host_id": 8},
                         T0, T0, T0 + timedelta(minutes=5), "table", None, None, None))
    out["actions"].append((live, 0, {"type": "roll", "name": "Аня"}, T0))
    for k, (member, day) in enumerate(((7, 0), (8, 0), (7, 1))):
        gid = live + 1 + k
        when = date(2025, 6, 1) + timedelta(days=day)
        out["games"].append((gid, guild, 600, member, "classic", "finished", 1, {"d": 1},
                             T0, T0, None, "daily", when, None, None))
        out["daily_results"].append((when, "classic", member, guild, gid, f"m{member}",
                                     200 + 10 * k, 1 + day, None, T0))
    out["guild_settings"].append((guild, "yatzy", 60, False, True, True, "ro", T0, "round"))
    out["ratings"].append((guild, "*", 7, 25.0, 8.0, 241.0, 1, T0))
    out["daily_best"].append(("fp", "classic", date(2025, 6, 1), 300, True, T0))
    out["secrets"].append(("daily", b"s" * 32, T0))
    return out


_COLUMNS = {"games": 15, "actions": 4, "results": 13, "daily_results": 10,
            "guild_settings": 9, "ratings": 8, "daily_best": 6, "secrets": 3}
_V8_GAMES = ("id, guild_id, channel_id, host_id, rules, status, version, state, created_at,"
             " updated_at, deadline, kind, day, claimed_until, claimed_version")
_NAMES = {"games": f"games ({_V8_GAMES})",
          "guild_settings": "guild_settings (guild_id, default_rules, turn_timeout,"
          " bots_allowed, hints_allowed, images, language, updated_at, scorecards)"}


def _sqlite_value(value: Any) -> Any:
    if isinstance(value, datetime):
        return _text(value)
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, dict):
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    if isinstance(value, bool):
        return int(value)
    return value


def fill_sqlite(path: Path, data: dict[str, list[tuple[Any, ...]]]) -> None:
    conn = sqlite3.connect(path)
    try:
        with conn:
            for table, found in data.items():
                marks = ", ".join("?" * _COLUMNS[table])
                conn.executemany(f"INSERT INTO {_NAMES.get(table, table)} VALUES ({marks})",
                                 [tuple(_sqlite_value(v) for v in row) for row in found])
    finally:
        conn.close()


async def fill_postgres(url: str, data: dict[str, list[tuple[Any, ...]]]) -> None:
    """COPY, as a bulk load: the standings' statement triggers run once per table."""
    conn = await asyncpg.connect(url)
    try:
        async with conn.transaction():
            for table, found in data.items():
                columns = _NAMES[table].split("(")[1].rstrip(")").split(", ") if (
                    table in _NAMES) else None
                await conn.copy_records_to_table(table, columns=columns, records=[
                    tuple(json.dumps(v) if isinstance(v, dict) else v for v in row)
                    for row in found])
            await conn.execute("SELECT setval(pg_get_serial_sequence('games', 'id'),"
                               " (SELECT max(id) FROM games))")
    finally:
        await conn.close()
