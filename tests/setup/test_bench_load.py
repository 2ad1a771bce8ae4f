"""`python -m bench load`'s two ways of clicking, on a few games: one click after another
(each settled by simcord), and the open loop (several clicks in flight, unsettled, through
simcord's own builders of a component interaction). No timing is asserted: every click
is answered, none refused, and each game's turns go on in order."""

from __future__ import annotations

from pathlib import Path

import pytest
import simcord

from bench import bench_load


@pytest.fixture
def fast_settle(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(simcord.Env, "_settle_internal", bench_load._fast_settle)


@pytest.mark.parametrize("rate", [None, 400.0])
async def test_every_click_is_answered(fast_settle: None, tmp_path: Path,
                                       rate: float | None) -> None:
    games, turns = 3, 2
    clicks = games * turns * len(bench_load.STEPS)
    async with bench_load.world(bench_load.Options(games=games), tmp_path) as here:
        # (the games start at different steps of their turns: bench_load._stagger)
        first = [(live.step, live.message.id) for live in here.tables]
        assert {step for step, _ in first} == set(range(games))
        run = await here.run("test", clicks, rate)
        assert run.errors == 0
        assert len(run.samples) == clicks
        assert all(sample >= 0 for sample in run.samples)
        for live, (step, was) in zip(here.tables, first, strict=True):
            assert live.step == step  # whole turns: each record posted the next turn's message
            assert live.message.id != was
            assert bench_load.controls(here.env, live.message)["roll"]
