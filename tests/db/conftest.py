from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from db import SqliteStore


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[SqliteStore]:
    s = await SqliteStore.open(tmp_path / "data" / "test.sqlite3")
    yield s
    await s.close()
