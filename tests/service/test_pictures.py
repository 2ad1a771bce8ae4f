"""The picture workers (bot/service/pictures.py): real processes, no timing asserted."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path

import pytest

from bot.engine import Game
from bot.render.image import game_pngs
from bot.service import Pictures, PicturesClosedError
from tests.picture_jobs import WAIT, killed_first, where


def _written(path: Path) -> str:
    return path.read_text() if path.exists() else ""


async def file_appears(path: Path) -> str:
    """What a worker wrote in `path`, once it has (the worker's own pace: no timing)."""
    for _ in range(int(WAIT / 0.02)):
        if text := _written(path):
            return text
        await asyncio.sleep(0.02)
    raise AssertionError(f"{path} never appeared")


async def test_a_picture_is_drawn_in_another_process():
    pictures = Pictures(1)
    try:
        game = Game.new("classic", ["ann", "bob"])
        pngs = await pictures.draw(game_pngs, game, {"ann": "Ann"}, 7, "en", final=False)
        assert pngs
        assert all(png.startswith(b"\x89PNG") for png in pngs)
        assert pngs == game_pngs(game, {"ann": "Ann"}, 7, "en")  # what the loop would draw
        assert await pictures.draw(where) != os.getpid()
    finally:
        await pictures.close()


async def test_zero_workers_draw_in_a_thread_of_this_process():
    pictures = Pictures(0)
    assert await pictures.draw(where) == os.getpid()
    await pictures.close()


async def test_a_worker_killed_during_a_draw_is_replaced_and_the_picture_drawn_again(tmp_path):
    pictures = Pictures(1)
    try:
        before = await pictures.draw(where)  # the first worker
        flag, pid_file = tmp_path / "drawn-once", tmp_path / "pid"
        drawing = asyncio.create_task(pictures.draw(killed_first, str(flag), str(pid_file)))
        victim = int(await file_appears(pid_file))
        assert victim == before
        os.kill(victim, signal.SIGKILL)
        redrawn_by = await drawing  # no error reaches the caller
        assert redrawn_by not in (-1, victim)
        assert pictures.replaced == 1
        assert await pictures.draw(where) == redrawn_by  # the new pool goes on
    finally:
        await pictures.close()


async def test_a_closed_pool_draws_nothing_and_leaves_no_worker():
    pictures = Pictures(1)
    worker = await pictures.draw(where)
    await pictures.close()
    with pytest.raises(PicturesClosedError):
        await pictures.draw(where)
    with pytest.raises(ProcessLookupError):  # joined, not a zombie nor left running
        os.kill(worker, 0)


def test_the_number_of_workers_cannot_be_negative():
    with pytest.raises(ValueError, match="negative"):
        Pictures(-1)


# A bot that draws one picture, says which worker drew it, and waits to be killed.
_BOT = """
import asyncio, time
from bot.service import Pictures
from tests.picture_jobs import where

async def main():
    pictures = Pictures(1)
    print(await pictures.draw(where), flush=True)
    time.sleep(600)

asyncio.run(main())
"""


def _gone(pid: int) -> bool:
    """Ended (a zombie nobody reaped yet counts: it holds nothing)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return True
    return "\nState:\tZ" in status


async def test_workers_end_with_a_bot_killed_by_sigkill():
    """A SIGKILLed bot cannot stop its workers: they watch it and end with it, so none is
    left holding memory and the bot's standard output (whose reader then sees its end)."""
    bot = await asyncio.create_subprocess_exec(
        sys.executable, "-c", _BOT,
        stdout=asyncio.subprocess.PIPE, cwd=Path(__file__).parents[2],
    )
    assert bot.stdout is not None
    worker = int(await asyncio.wait_for(bot.stdout.readline(), WAIT))
    assert not _gone(worker)
    bot.send_signal(signal.SIGKILL)
    await bot.wait()
    assert await asyncio.wait_for(bot.stdout.read(), WAIT) == b""  # every writer is gone
    for _ in range(int(WAIT / 0.05)):
        if _gone(worker):
            break
        await asyncio.sleep(0.05)
    assert _gone(worker)
