"""The Alembic history: a database that the stores before it made (schema V8, built here by
their own migration files, tests/db/v8/) upgrades in place with every row kept, and ends
at the same schema as a new database made from db/schema.py; an older or a newer one is
refused with one clear line; a failed upgrade leaves the database as it was."""

from __future__ import annotations

import json
import re
import sqlite3
import tomllib
from collections import defaultdict
from datetime import date, timedelta
from fnmatch import fnmatch
from pathlib import Path
from typing import Any

import asyncpg
import pytest

import db
from db import GameStore, SchemaError, SeatResult
from db.engine import BASELINE, head

from .v8 import T0, fill_postgres, fill_sqlite, postgres_v8, rows, sqlite_v8

ROOT = Path(__file__).parents[2]


async def build(backend, data=None, *, upto: int = 8) -> None:
    """A database as the old migrations made it, with `data` written into it."""
    if backend.kind == "sqlite":
        backend.path.parent.mkdir(parents=True, exist_ok=True)
        sqlite_v8(backend.path, upto)
        if data:
            fill_sqlite(backend.path, data)
    else:
        await postgres_v8(backend.url, upto)
        if data:
            await fill_postgres(backend.url, data)


async def dump(backend) -> dict[str, list[dict[str, Any]]]:
    """Every row of every table but the migrations' own, JSON parsed, in key order."""
    out: dict[str, list[dict[str, Any]]] = {}
    if backend.kind == "sqlite":
        conn = sqlite3.connect(backend.path)
        conn.row_factory = sqlite3.Row
        try:
            tables = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            names = [r[0] for r in tables]
            for name in names:
                out[name] = [dict(r) for r in conn.execute(f"SELECT * FROM {name}")]
        finally:
            conn.close()
    else:
        conn = await asyncpg.connect(backend.url)
        try:
            names = [r[0] for r in await conn.fetch(
                "SELECT tablename FROM pg_tables WHERE schemaname = 'public'")]
            for name in names:
                out[name] = [dict(r) for r in await conn.fetch(f"SELECT * FROM {name}")]
        finally:
            await conn.close()
    for name in ("alembic_version", "schema_version"):
        out.pop(name, None)
    for table in out.values():
        for row in table:
            for key in ("state", "payload"):
                if isinstance(row.get(key), str):
                    row[key] = json.loads(row[key])
        table.sort(key=lambda r: json.dumps(r, default=str, sort_keys=True))
    return out


async def test_a_v8_database_upgrades_in_place_with_every_row_kept(backend) -> None:
    data = rows(60)
    await build(backend, data)
    before = await dump(backend)
    assert len(before["results"]) == 180
    assert before["standings"]
    assert before["daily_standings"]
    # Every table of V8 has rows, so "every row kept" below is checked on each of them.
    assert [name for name, table in before.items() if not table] == []
    store = await backend.open()
    try:
        assert await store.schema_version() == int(head())
        after = await dump(backend)
        # The host is in every snapshot now (from the column where it lacked), a daily's
        # member in member_id; every other column of every row is as it was.
        for old, new in zip(before["games"], after["games"], strict=True):
            host = old.pop("host_id")
            assert new.pop("member_id") == (host if old["kind"] == "daily" else None)
            old["state"].setdefault("host_id", host)
            assert new == old
        assert set(before) <= set(after)
        for name in before:
            if name != "games":
                # (the seasons' columns are new: every server's seasons are off)
                news = {"season": "off", "season_channel": None, "season_since": None}
                kept = [{k: v for k, v in row.items() if k not in news or v != news[k]}
                        for row in after[name]] if name == "guild_settings" else after[name]
                assert kept == before[name], name
        lacked = next(g[0] for g in data["games"] if "host_id" not in g[7])
        game = await store.get_game(lacked)
        assert game is not None
        assert game.state["host_id"] == data["games"][lacked - 1][3]
        assert (await store.daily_game(7, "classic", date(2025, 6, 1))).kind == "daily"
        await _the_store_reads_and_counts_on(store, data)
    finally:
        await store.close()


async def _the_store_reads_and_counts_on(store: GameStore, data) -> None:
    """The upgraded database through the store: the boards read the standings the old
    triggers kept, and a finish now counts in the same totals."""
    wins: dict[int, int] = defaultdict(int)
    for r in data["results"]:
        wins[r[4]] += r[8] == 1
    g = await store.create_game(guild_id=1, channel_id=900, host_id=5, rules="classic",
                                state={"host_id": 5}, now=T0)
    seats = [SeatResult(0, 5, "five", False, 300, 1, 50.0),
             SeatResult(1, 6, "six", False, 200, 2, -50.0)]
    await store.save(g.id, expect_version=0, state={"host_id": 5}, status="finished",
                     results=seats, now=T0 + timedelta(minutes=5))
    wins[5] += 1
    wins[6] += 0
    board = await store.leaderboard(1, metric="wins", per_page=200)
    assert {x.player_id: x.value for x in board.lines} == dict(wins)
    assert next(x.name for x in board.lines if x.player_id == 6) == "six"
    settings = await store.guild_settings(1)
    assert (settings.default_rules, settings.turn_timeout) == ("yatzy", 60)
    assert not settings.bots_allowed
    assert (settings.language, settings.scorecards) == ("ro", "round")
    assert [r.ordinal for r in await store.ratings(1, [7])] == [241.0]
    assert await store.deployment_secret("daily", b"t" * 32) == b"s" * 32
    assert (await store.daily_best("fp", "classic", date(2025, 6, 1))).score == 300
    day2 = await store.create_game(guild_id=1, channel_id=600, host_id=8, rules="classic",
                                   state={}, day=date(2025, 6, 2))
    await store.save(day2.id, expect_version=0, state={}, status="finished",
                     results=[SeatResult(0, 8, "m8", False, 400, 1, 0.0)])
    board = await store.daily_board(1, "classic", date(2025, 6, 2), member_id=8)
    assert (board.me.streak, board.me.rank, board.players) == (2, 1, 2)  # after V8's day 1
    stats = {s.rules: (s.played, s.wins) for s in await store.daily_stats(1, 7)}
    assert stats == {None: (2, 0), "classic": (2, 0)}  # day 2 taken from member 7 …
    stats = {s.rules: (s.played, s.wins) for s in await store.daily_stats(1, 8)}
    assert stats == {None: (2, 2), "classic": (2, 2)}  # … by member 8


async def test_a_new_and_an_upgraded_database_have_the_same_schema(backend) -> None:
    fresh = await backend.fresh()
    store = await fresh.open()
    await store.close()
    await build(backend)
    store = await backend.open()
    await store.close()
    made, upgraded = await _schema(fresh), await _schema(backend)
    assert made == upgraded
    await fresh.close()


async def _schema(backend) -> dict[str, Any]:
    """What a schema is, as the database itself describes it (names aside where the
    database names things itself)."""
    if backend.kind == "sqlite":
        conn = sqlite3.connect(backend.path)
        try:
            found: dict[str, Any] = {"version": conn.execute("PRAGMA user_version").fetchone()}
            for kind, name, table, sql in conn.execute(
                "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name"
            ):
                if kind == "table":
                    # (a key column is never NULL, NOT NULL written or not: V1 did not)
                    columns = [(*c[:3], c[3] or c[5], *c[4:])
                               for c in conn.execute(f"PRAGMA table_info({name})")]
                    found[name] = (
                        columns,
                        conn.execute(f"PRAGMA foreign_key_list({name})").fetchall(),
                        "WITHOUT ROWID" in sql.upper(), sql.upper().count("CHECK"),
                    )
                elif kind == "index" and sql:
                    found[name] = re.sub(r"\s+", " ", sql.replace("\n", " ")).strip()
                elif kind == "trigger":
                    found[name] = table
            return found
        finally:
            conn.close()
    conn = await asyncpg.connect(backend.url)
    try:
        queries = {
            "columns": "SELECT table_name, column_name, row_number() OVER (PARTITION BY table_name"
            " ORDER BY ordinal_position), data_type, is_nullable,"  # (a dropped one leaves a gap)
            " column_default, is_identity FROM information_schema.columns"
            " WHERE table_schema = 'public' AND table_name <> 'schema_version'",
            "indexes": "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public'"
            " AND tablename <> 'schema_version'",
            "constraints": "SELECT conrelid::regclass::text, contype, pg_get_constraintdef(oid)"
            " FROM pg_constraint WHERE connamespace = 'public'::regnamespace"
            " AND conrelid::regclass::text <> 'schema_version'",
            "triggers": "SELECT tgname, pg_get_triggerdef(oid) FROM pg_trigger"
            " WHERE NOT tgisinternal",
            "functions": "SELECT proname FROM pg_proc WHERE pronamespace = 'public'::regnamespace",
        }
        return {k: sorted(tuple(r) for r in await conn.fetch(q)) for k, q in queries.items()}
    finally:
        await conn.close()


@pytest.mark.parametrize("older", [1, 5, 7])
async def test_a_database_older_than_v8_is_refused_saying_what_to_do(backend, older) -> None:
    await build(backend, upto=older)
    before = await dump(backend)
    with pytest.raises(SchemaError, match=f"schema version {older} of the migrations before"
                       r" Alembic: run `python -m bot migrate` with dicepoker 0\.1\.0 first"):
        await backend.open()
    assert await dump(backend) == before  # nothing was changed


async def test_a_database_of_a_newer_revision_is_refused(backend) -> None:
    store = await backend.open()
    await store.close()
    if backend.kind == "sqlite":
        conn = sqlite3.connect(backend.path)
        with conn:
            conn.execute("UPDATE alembic_version SET version_num = '9999'")
        conn.close()
    else:
        conn = await asyncpg.connect(backend.url)
        await conn.execute("UPDATE alembic_version SET version_num = '9999'")
        await conn.close()
    with pytest.raises(SchemaError, match="revision 9999 is newer than this code's"):
        await backend.open()


async def test_a_failed_upgrade_leaves_the_v8_database_as_it_was(backend, monkeypatch) -> None:
    await build(backend, rows(5))
    before = await dump(backend)
    from alembic import op

    real = op.create_index

    def broken(*args: Any, **kw: Any) -> None:  # the last step of 0009 fails
        real(*args, **kw)
        raise RuntimeError("disk full")

    monkeypatch.setattr(op, "create_index", broken)
    with pytest.raises(RuntimeError, match="disk full"):
        await backend.open()
    monkeypatch.undo()
    assert await dump(backend) == before
    store = await backend.open()  # and the next start upgrades it
    await store.close()


async def test_a_new_database_is_made_at_the_newest_revision_once(backend) -> None:
    assert await db.migrate(backend.url) == int(head()) == db.latest_version()
    assert await db.migrate(backend.url) == int(head())  # nothing left to do
    assert int(BASELINE) < int(head())


def test_the_history_is_one_line_and_is_shipped() -> None:
    from db.engine import _script

    script = _script()
    revisions = list(script.walk_revisions())
    assert len(script.get_heads()) == 1
    assert revisions[-1].revision == BASELINE  # the first one
    assert all(int(r.revision) for r in revisions)  # schema_version() is a number
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    globs = pyproject["tool"]["setuptools"]["package-data"]["db"]
    shipped = [p.relative_to(ROOT / "db").as_posix() for p in (ROOT / "db/migrations").rglob("*")
               if p.is_file() and "__pycache__" not in p.parts]
    assert "migrations/env.py" in shipped
    for name in shipped:
        assert any(fnmatch(name, g) for g in globs), name
