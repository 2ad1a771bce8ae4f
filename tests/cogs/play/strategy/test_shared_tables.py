"""Bot processes sharing one strategy directory: a table missing there is computed by one
of them (under the directory's lock) and loaded by the others."""

from __future__ import annotations

import asyncio
from pathlib import Path

from bot.service import SolutionCache
from bot.service import solutions as solutions_module
from bot.strategy import ValueTable, computing


async def test_two_processes_needing_a_table_compute_it_once(tmp_path: Path, monkeypatch) -> None:
    made: list[str] = []
    compute = solutions_module.compute

    def counted(rules: str) -> ValueTable:
        made.append(rules)
        return compute(rules)

    monkeypatch.setattr(solutions_module, "compute", counted)
    first, second = SolutionCache(tmp_path), SolutionCache(tmp_path)
    try:
        # Both ask while the table is being made elsewhere (the lock is held here): both
        # wait on the lock; the first to get it computes, the other then loads.
        with computing(tmp_path):
            assert first.get("classic") is None
            assert second.get("classic") is None
        tables = await asyncio.gather(first.wait("classic"), second.wait("classic"))
    finally:
        first.close()
        second.close()
    assert made == ["classic"]
    assert tables[0] is not None
    assert tables[1] is not None
    assert tables[0].optimum == tables[1].optimum
