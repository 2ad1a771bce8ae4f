"""The crash tests run on both stores: `crash_url` is None (a SQLite file in the test's
folder) or the URL of a PostgreSQL database of the test's own."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.pg import (
    create_database,
    drop_database,
    postgres_url,  # noqa: F401 (the session's server, a fixture)
)


@pytest.fixture(params=["sqlite", "postgres"])
async def crash_url(request: pytest.FixtureRequest) -> AsyncIterator[str | None]:
    if request.param == "sqlite":
        yield None
        return
    server = request.getfixturevalue("postgres_url")
    url = await create_database(server, "crash")
    try:
        yield url
    finally:
        await drop_database(server, url)
