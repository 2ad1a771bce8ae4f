"""`make demo`: the real bot in a simulated guild, served on loopback for a browser."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from bot.demo import MEMBERS, parse, serve

ROOT = Path(__file__).resolve().parents[2]

aiohttp = pytest.importorskip(
    "aiohttp", reason="the demo extra (simcord[preview]) is not installed"
)


def preview_installed() -> bool:
    import simcord

    try:
        from simcord.preview import _require_preview_runtime

        _require_preview_runtime()
    except (ImportError, simcord.SetupError):
        return False
    return True


pytestmark = pytest.mark.skipif(not preview_installed(), reason="simcord[preview] is missing")


async def test_the_demo_serves_a_world_where_a_game_can_start(tmp_path):
    seen: dict[str, object] = {}

    async def ready(preview, channel, members):
        url = preview.url
        seen["url"] = url
        async with aiohttp.ClientSession() as http, http.get(url.split("#")[0]) as page:
            seen["status"] = page.status
            seen["html"] = await page.text()
        # The world is playable: a member opens a lobby with the real slash command.
        res = await members[0].slash(channel, "poker new")
        seen["lobby"] = res.response.embeds[0].title
        seen["members"] = [m.name for m in members]
        store = preview.env.bot.store
        seen["images"] = (await store.guild_settings(channel.guild.id)).images

    args = parse(["--port", "0", "--seconds", "0", "--language", "ru", "--no-tables"])
    await serve(args, tmp_path / "demo.sqlite3", ready=ready)
    assert str(seen["url"]).startswith("http://127.0.0.1:")
    assert seen["status"] == 200
    assert "<html" in str(seen["html"]).lower()
    assert seen["members"] == list(MEMBERS)
    assert "Покер на костях" in str(seen["lobby"])  # the server's preferred locale is Russian
    assert seen["images"] is True


async def test_the_demo_has_ordinary_names_and_an_organiser(tmp_path):
    seen: dict[str, object] = {}

    async def ready(preview, channel, members):
        lobby = (await members[0].slash(channel, "poker new")).response
        for member in members[1:]:
            await member.click(lobby, label="Join")
        players = env_message(preview, lobby).embeds[0]["fields"][1]["value"]
        seen["names"] = [line.split(" ", 1)[1] for line in players.splitlines()]
        res = await members[0].slash(channel, "poker settings", turn_timeout="2m")
        seen["settings"] = res.response.embeds[0].title if res.response else None
        res = await members[1].slash(channel, "poker settings", turn_timeout="2m")
        seen["refused"] = res.ephemeral

    await serve(parse(["--port", "0", "--seconds", "0", "--no-tables"]), tmp_path / "d.sqlite3",
                ready=ready)  # fmt: skip
    assert seen["names"] == ["Ana", "Boris", "Chitra", "Dan"]
    assert str(seen["settings"]).startswith("Settings changed by Ana")
    assert seen["refused"] is True  # only the organiser manages the server


def env_message(preview, message):
    """The message as the simulated Discord holds it now."""
    inner = getattr(message, "message", message)  # a ResponseMessage wraps the discord one
    return preview.env.backend.get_message(inner.channel.id, inner.id)


def test_ctrl_c_stops_the_demo_at_once_and_leaves_no_folder(tmp_path):
    env = {**os.environ, "TMPDIR": str(tmp_path), "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "bot.demo", "--port", "0", "--no-tables"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    try:
        line = proc.stdout.readline()
        assert "open http://127.0.0.1:" in line, line + proc.stderr.read()
        assert any(p.name.startswith("dicepoker-demo-") for p in tmp_path.iterdir())
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=15)  # one Ctrl-C is enough
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert "Traceback" not in err
    # No start-up noise: simcord's own check builds a client, whose voice and intent
    # warnings are not this bot's.
    assert "voice" not in err, err
    assert "intent" not in err, err
    assert "demo stopped" in out
    assert not any(p.name.startswith("dicepoker-demo-") for p in tmp_path.iterdir())


def test_a_port_already_taken_is_one_line_and_no_folder_is_left(tmp_path):
    env = {**os.environ, "TMPDIR": str(tmp_path), "PYTHONPATH": str(ROOT)}
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "bot.demo", "--port", str(port), "--no-tables"],
            capture_output=True,
            text=True,
            env=env,
            cwd=tmp_path,
            timeout=60,
            check=False,
        )
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert str(port) in lines[0]
    assert "--port 0" in lines[0]
    assert not any(p.name.startswith("dicepoker-demo-") for p in tmp_path.iterdir())
