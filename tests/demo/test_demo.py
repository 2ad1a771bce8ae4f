"""`make demo`: the real bot in a simulated guild, served on loopback for a browser."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.demo import MEMBERS, control_id, current_player, parse, play_turn, serve

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


# --- the demo behaves like the bot (bot/demo/live.py works around simcord's preview) ------

PATIENCE = 90.0  # wall-clock seconds a test waits for something that must come (slow machine)


async def eventually(check, what: str, patience: float = PATIENCE):
    """`check()` (awaited if need be) once it is truthy, polling on the wall clock: the test
    never moves the simulated time itself."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + patience
    while True:
        found = check()
        if asyncio.iscoroutine(found):
            found = await found
        if found:
            return found
        if loop.time() > deadline:
            raise AssertionError(f"{what}: not within {patience:.0f} s")
        await asyncio.sleep(0.1)


def run_demo(tmp_path, ready):
    """The demo world (in the test's event loop) until `ready` returns."""
    args = parse(["--port", "0", "--seconds", "0", "--no-tables"])
    return serve(args, tmp_path / "demo.sqlite3", ready=ready)


async def start_with_computers(preview, channel, host, computers: int):
    """A lobby of `host` with `computers` easy computer players, started."""
    lobby = (await host.slash(channel, "poker new")).response
    for _ in range(computers):  # the select's custom_id carries the lobby's version
        addbot = control_id(env_message(preview, lobby), "addbot")
        await host.select(lobby, ["easy"], custom_id=addbot)
    await host.click(lobby, custom_id=control_id(env_message(preview, lobby), "start"))
    return lobby


def anas_turn(channel, ana):
    """The turn message when it is `ana`'s turn (else None)."""
    last = channel.last_message
    if control_id(last, "roll") is None:
        return None
    try:
        return last if current_player(last, [ana]) is ana else None
    except (LookupError, StopIteration):
        return None


class Page:
    """One browser page of the preview, read and driven through its HTTP API, as the
    preview's own script does (without a browser)."""

    def __init__(self, preview, http):
        self.base = preview.url.split("#")[0]
        self.http = http
        self.headers = {"X-Simcord-Capability": preview.capability}

    async def open(self, viewer=None):
        body = {} if viewer is None else {"viewer_id": str(viewer.id)}
        async with self.http.post(f"{self.base}api/pages", json=body, headers=self.headers) as r:
            snapshot = await r.json()
        self.headers = {**self.headers, "X-Simcord-Context": snapshot["context"]["id"]}
        return snapshot

    async def state(self):
        async with self.http.get(f"{self.base}api/state", headers=self.headers) as r:
            return await r.json()

    async def act(self, body):
        async with self.http.post(f"{self.base}api/action", json=body, headers=self.headers) as r:
            return await r.json()

    async def asset(self, asset_id):
        async with self.http.get(f"{self.base}api/assets/{asset_id}", headers=self.headers) as r:
            assert r.status == 200, await r.text()
            return await r.read()


async def test_the_clock_starts_now_and_keeps_to_the_wall_clock(tmp_path):
    seen: dict[str, object] = {}

    async def ready(preview, channel, members):
        env = preview.env
        seen["start"] = env.now() - datetime.now(UTC)
        began = env.now()
        behind: list[timedelta] = []

        def moved():
            behind.append(datetime.now(UTC) - env.now())
            return env.now() >= began + timedelta(seconds=2) and behind[-1] < timedelta(seconds=0.5)

        await eventually(moved, "the simulated clock moving by itself to the wall clock")
        seen["behind"] = min(behind)

    await run_demo(tmp_path, ready)
    # Not 1 Jan 2026 (simcord's epoch): the day and hour of the admin trying it.
    assert abs(seen["start"]) < timedelta(minutes=1)
    # Never ahead of the wall clock: a turn timer fires after its seconds, not before.
    assert seen["behind"] >= -timedelta(milliseconds=50)


async def test_a_turn_timer_fires_on_the_wall_clock_with_nobody_clicking(tmp_path):
    seen: dict[str, object] = {}

    async def ready(preview, channel, members):
        ana, boris = members[0], members[1]
        await ana.slash(channel, "poker settings", turn_timeout="30s")
        lobby = (await ana.slash(channel, "poker new")).response
        await boris.click(lobby, custom_id=control_id(env_message(preview, lobby), "join"))
        await ana.click(lobby, custom_id=control_id(env_message(preview, lobby), "start"))
        turn = channel.last_message
        loop = asyncio.get_running_loop()
        began, first = loop.time(), turn.content
        await eventually(
            lambda: channel.last_message.content != first, "the turn timing out", patience=120
        )
        seen["after"] = loop.time() - began

    await run_demo(tmp_path, ready)
    # Nobody clicked and the test moved no time: the bot's timer played the turn once its
    # 30 s had passed on the wall clock (before: never, the simulated clock stood still).
    # (A busy machine may hold the clock back a moment while the bot works: not to the s.)
    assert seen["after"] >= 25


async def test_a_click_answers_at_once_and_the_computer_players_go_on_by_themselves(tmp_path):
    seen: dict[str, object] = {}

    async def ready(preview, channel, members):
        ana = members[0]
        await start_with_computers(preview, channel, ana, computers=3)
        await eventually(lambda: anas_turn(channel, ana), "Ana's first turn")
        # Her row recorded, three computer players play their turns with the bot's pause
        # between steps: the click does not wait for them (before, its settling ran out
        # after 5 s: "bot did not settle", in the browser "Action outcome uncertain").
        await play_turn(channel, members)
        seen["right after"] = anas_turn(channel, ana)
        await eventually(lambda: anas_turn(channel, ana), "Ana's next turn")
        contents = [m.content or "" for m in channel.history()]
        # A computer's turn ends in a row recorded or scratched (an easy one does scratch).
        moves = [c for c in contents if "Bot" in c and ("recorded" in c or "scratched" in c)]
        seen["computer moves"] = moves

    await run_demo(tmp_path, ready)
    assert seen["right after"] is None  # the computer players were still to play
    assert len(seen["computer moves"]) >= 3, seen["computer moves"]


async def test_new_messages_reach_an_open_page_without_refresh(tmp_path):
    seen: dict[str, object] = {}

    async def ready(preview, channel, members):
        async with aiohttp.ClientSession() as http:
            page = Page(preview, http)
            opened = await page.open()
            seen["before"] = len(opened["timeline"])
            lobby = (await members[1].slash(channel, "poker new")).response  # another member
            lobby_id = str(getattr(lobby, "message", lobby).id)

            async def published():
                state = await page.state()
                return state if lobby_id in state["timeline"] else None

            state = await eventually(published, "the new lobby on the open page")
            seen["revision"] = (opened["publishedRevision"], state["publishedRevision"])

    await run_demo(tmp_path, ready)
    assert seen["before"] == 0
    before, after = seen["revision"]
    assert after > before  # republished by the demo: nobody pressed Refresh


async def test_a_click_sent_against_an_older_publication_still_reaches_the_bot(tmp_path):
    seen: dict[str, object] = {}

    async def ready(preview, channel, members):
        ana, boris, chitra = members[0], members[1], members[2]
        lobby = (await ana.slash(channel, "poker new")).response
        async with aiohttp.ClientSession() as http:
            page = Page(preview, http)
            opened = await page.open(boris)
            lobby_id = str(getattr(lobby, "message", lobby).id)
            join = next(
                c
                for row in opened["messages"][lobby_id]["components"]
                for c in row["components"]
                if c.get("label") == "Join"
            )
            # Chitra joins meanwhile: the lobby changes and the page is published again.
            await chitra.click(lobby, custom_id=join["custom_id"])

            async def newer():
                return (await page.state())["publishedRevision"] > opened["publishedRevision"]

            await eventually(newer, "the page published again")
            seen["was"] = env_message(preview, lobby).embeds[0]["fields"][1]["value"]
            result = await page.act(
                {
                    "protocol_version": 3,
                    "sequence": 1,
                    "request_id": "boris-joins",
                    "generation": opened["context"]["generation"],
                    "bot_generation": opened["botGeneration"],
                    "published_revision": opened["publishedRevision"],  # what Boris saw
                    "kind": "click",
                    "control_key": join["control_key"],
                    "target_id": lobby_id,
                }
            )
            seen["rejected"] = result.get("rejected")
            seen["players"] = env_message(preview, lobby).embeds[0]["fields"][1]["value"]

    await run_demo(tmp_path, ready)
    assert seen["rejected"] is False  # simcord alone refused it: "stale revision"
    assert "Boris" not in seen["was"]
    assert "Boris" in seen["players"]


async def test_each_picture_is_checked_once_whichever_page_shows_it(tmp_path, monkeypatch):
    from simcord.preview._media import MediaWorker

    checked: list[str] = []
    check = MediaWorker._decode

    async def counted(self, key, blob, media_time):
        checked.append(key)  # simcord's check of one picture: a new Python process
        return await check(self, key, blob, media_time)

    monkeypatch.setattr(MediaWorker, "_decode", counted)
    seen: dict[str, object] = {}

    async def ready(preview, channel, members):
        ana = members[0]
        await start_with_computers(preview, channel, ana, computers=1)
        await eventually(lambda: anas_turn(channel, ana), "Ana's turn")
        await play_turn(channel, members)  # her row: a scorecard picture
        async with aiohttp.ClientSession() as http:
            shown = []
            for viewer in (ana, members[1], ana):  # switching the viewer opens a new page
                page = Page(preview, http)
                snapshot = await page.open(viewer)
                ids = [
                    a
                    for a, m in snapshot["assets"].items()
                    if m["available"] and m["contentType"] == "image/png"
                ]
                shown.append([await page.asset(a) for a in ids])
            seen["shown"] = shown

    await run_demo(tmp_path, ready)
    pictures = {bytes(p) for p in seen["shown"][0]}
    assert pictures  # the scorecard pictures
    assert all({bytes(p) for p in shown} == pictures for shown in seen["shown"])
    # One check per picture, not one per picture and page (each a new Python process).
    assert len(checked) == len(set(checked)) == len(pictures)


async def test_the_page_gets_the_demo_changes_to_simcords_scripts(tmp_path):
    from bot.demo import live

    seen: dict[str, str] = {}

    async def ready(preview, channel, members):
        base = preview.url.split("#")[0]
        async with aiohttp.ClientSession() as http:
            for name in live.PAGE_ENDINGS:
                async with http.get(base + name) as r:
                    seen[name] = await r.text()

    await run_demo(tmp_path, ready)
    assert set(seen) == {"text.js", "media.js", "timeline.js", "preview.css"}
    for name, text in seen.items():
        assert text.endswith(live.PAGE_ENDINGS[name])
    for name, _, replacement in live.PAGE_PATCHES:
        assert replacement in seen[name]


def test_a_changed_simcord_page_is_refused_not_half_patched():
    from bot.demo import live

    with pytest.raises(RuntimeError, match=r"simcord's preview changed: text\.js"):
        live.patched_file("text.js", "function renderTimestamp() {}")
