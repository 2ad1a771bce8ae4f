from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from db import Store


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[Store]:
    s = await Store.open(tmp_path / "data" / "test.sqlite3")
    yield s
    await s.close()
