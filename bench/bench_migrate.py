"""Start-up migration, on SQLite and on PostgreSQL (`python -m bench migrate`): opening an
empty database (the schema made at the newest revision), a V8 database of the stores before
Alembic with 100,000 results (upgraded in place: tests/db/v8 builds it with those stores'
own migration files), and an up-to-date one (what every start pays). Seconds, as
`python -m bot migrate` would take them, on /dev/shm when there is one (fsyncs aside).
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from pathlib import Path

from db import migrate, sqlite_url
from tests.db.v8 import fill_postgres, fill_sqlite, postgres_v8, rows, sqlite_v8
from tests.pg import ThrowawayPostgres, create_database

RESULTS = 100_000
SEATS = 4


def _timed(url: str) -> float:
    began = time.perf_counter()
    asyncio.run(migrate(url))
    return time.perf_counter() - began


def _row(store: str, empty: float, v8: float, again: float) -> None:
    print(f"{store:<12}{empty:>10.2f}{v8:>16.2f}{again:>14.3f}")


def main() -> None:
    data = rows(RESULTS // SEATS, seats=SEATS)
    print(f"a V8 database: {len(data['results']):,} results, {len(data['games']):,} games")
    print(f"{'store':<12}{'empty s':>10}{'V8, 100k s':>16}{'up to date s':>14}")
    shm = "/dev/shm" if Path("/dev/shm").is_dir() else None  # noqa: S108
    with tempfile.TemporaryDirectory(dir=shm) as folder:
        empty = _timed(sqlite_url(Path(folder) / "empty.sqlite3"))
        old = Path(folder) / "v8.sqlite3"
        sqlite_v8(old)
        fill_sqlite(old, data)
        _row("SQLite", empty, _timed(sqlite_url(old)), _timed(sqlite_url(old)))
    server = ThrowawayPostgres.start(durable=True, where=shm)
    try:
        empty_url = asyncio.run(create_database(server.url(), "empty"))
        old_url = asyncio.run(create_database(server.url(), "v8"))

        async def build() -> None:
            await postgres_v8(old_url)
            await fill_postgres(old_url, data)

        asyncio.run(build())
        _row("PostgreSQL", _timed(empty_url), _timed(old_url), _timed(old_url))
    finally:
        server.stop()


if __name__ == "__main__":
    main()
