"""The README's set-up path, followed literally: `cp .env.example .env`, fill in a token,
start. Every start-up failure a user can cause is one clear line and a non-zero exit.

Discord is made unreachable (a closed loopback port) or refusing (a loopback server that
rejects the token) for the bot's process only, through a `sitecustomize` that points
discord.py's API address there: the real `python -m bot` runs, nothing else is changed.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])  # closed again when the block ends


class _Refusing(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = json.dumps({"message": "401: Unauthorized", "code": 0}).encode()
        self.send_response(401)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_args: object) -> None:
        pass


@pytest.fixture
def refusing_discord() -> Iterator[str]:
    server = HTTPServer(("127.0.0.1", 0), _Refusing)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/api/v10"
    server.shutdown()


@pytest.fixture
def scratch(tmp_path: Path) -> Path:
    """A folder set up as the README says: .env copied from .env.example, a token in it."""
    env = tmp_path / ".env"
    shutil.copy(ROOT / ".env.example", env)
    text = env.read_text(encoding="utf-8").replace("DISCORD_TOKEN=\n", "DISCORD_TOKEN=fake.token\n")
    env.write_text(text, encoding="utf-8")
    return tmp_path


def start(folder: Path, api: str, *args: str, **extra: str) -> subprocess.CompletedProcess[str]:
    hook = folder / "hook"
    hook.mkdir(exist_ok=True)
    (hook / "sitecustomize.py").write_text(
        "import discord.http\ndiscord.http.Route.BASE = " + repr(api) + "\n", encoding="utf-8"
    )
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("DISCORD", "DATABASE", "DEV_"))
    }
    env.update(PYTHONPATH=f"{hook}{os.pathsep}{ROOT}", **extra)
    return subprocess.run(
        [sys.executable, "-m", "bot", *args],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def one_line(done: subprocess.CompletedProcess[str]) -> str:
    """The failure's line: last on stderr, no traceback anywhere."""
    assert done.returncode != 0, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    assert done.stdout == ""
    return done.stderr.strip().splitlines()[-1]


@pytest.mark.parametrize("command", [(), ("sync",)], ids=["make run", "make sync"])
def test_unreachable_discord_is_one_line(scratch: Path, command: tuple[str, ...]) -> None:
    line = one_line(start(scratch, f"http://127.0.0.1:{closed_port()}/api/v10", *command))
    assert line.startswith("Cannot reach Discord"), line
    assert "check the network connection" in line


@pytest.mark.parametrize("command", [(), ("sync",)], ids=["make run", "make sync"])
def test_a_rejected_token_is_one_line(
    scratch: Path, refusing_discord: str, command: tuple[str, ...]
) -> None:
    line = one_line(start(scratch, refusing_discord, *command))
    assert line.startswith("Discord rejected the bot token"), line
    assert "DISCORD_TOKEN" in line


def test_a_database_that_cannot_be_written_is_one_line(scratch: Path) -> None:
    blocker = scratch / "not-a-folder"
    blocker.write_text("a file where the database folder should be", encoding="utf-8")
    done = start(scratch, "http://127.0.0.1:9/api", DATABASE_PATH=str(blocker / "db.sqlite3"))
    line = one_line(done)
    assert line.startswith("Cannot open the database"), line


def _not_writable(scratch: Path) -> Path:
    """A folder the bot may not write in: read-only for a user; for root, who may write in
    any folder of a disk, /proc (no file can be made there)."""
    if os.geteuid() == 0:
        return Path("/proc")
    folder = scratch / "read-only"
    folder.mkdir()
    folder.chmod(0o555)
    return folder


@pytest.mark.parametrize("command", [(), ("migrate",)], ids=["make run", "make migrate"])
def test_a_database_folder_that_is_not_writable_is_one_line(
    scratch: Path, command: tuple[str, ...]
) -> None:
    path = _not_writable(scratch) / "db.sqlite3"
    done = start(scratch, "http://127.0.0.1:9/api", *command, DATABASE_PATH=str(path))
    line = one_line(done)  # nothing after it either: no thread reporting to a closed loop
    assert line.startswith(f"Cannot open the database sqlite:///{path}: unable to open"), line
    assert "Check DATABASE_URL (or DATABASE_PATH)" in line
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_a_missing_token_is_one_line(scratch: Path) -> None:
    (scratch / ".env").write_text("DEV_GUILD_ID=\n", encoding="utf-8")
    line = one_line(start(scratch, "http://127.0.0.1:9/api"))
    assert line.startswith("DISCORD_TOKEN is not set"), line


def test_a_setting_that_does_not_parse_is_one_line(scratch: Path) -> None:
    done = start(scratch, "http://127.0.0.1:9/api", DEV_GUILD_ID="my server")
    assert done.returncode == 2
    line = one_line(done)
    assert line.startswith("DEV_GUILD_ID"), line


def test_a_traceback_with_log_level_debug(scratch: Path) -> None:
    done = start(scratch, f"http://127.0.0.1:{closed_port()}/api/v10", LOG_LEVEL="DEBUG")
    assert done.returncode != 0
    assert "Traceback" in done.stderr
    assert done.stderr.strip().splitlines()[-1].startswith("Cannot reach Discord")


def test_a_postgresql_server_that_refuses_is_one_line(scratch: Path) -> None:
    url = f"postgresql://dice:secret@127.0.0.1:{closed_port()}/dicepoker"
    line = one_line(start(scratch, "http://127.0.0.1:9/api", DATABASE_URL=url))
    assert line.startswith("Cannot open the database postgresql://dice@127.0.0.1"), line
    assert "secret" not in line  # the password is never shown


def test_a_database_url_of_no_known_kind_is_one_line(scratch: Path) -> None:
    done = start(scratch, "http://127.0.0.1:9/api", DATABASE_URL="mysql://x@y/z")
    assert done.returncode == 2
    assert one_line(done).startswith("DATABASE_URL")


def test_a_short_daily_secret_is_one_line_that_does_not_show_it(scratch: Path) -> None:
    done = start(scratch, "http://127.0.0.1:9/api", DAILY_SECRET="too-short-1234")
    assert done.returncode == 2
    line = one_line(done)
    assert line.startswith("DAILY_SECRET"), line
    assert "16 bytes" in line
    assert "too-short-1234" not in done.stderr


@pytest.mark.parametrize(
    ("name", "value", "says"),
    [
        ("LOG_LEVEL", "LOUD", "DEBUG, INFO, WARNING, ERROR, CRITICAL"),
        ("BOT_PAUSE", "-1", "from 0 to 60"),
        ("BOT_PAUSE", "nan", "from 0 to 60"),
        ("BOT_PAUSE", "a while", "number"),
    ],
)
@pytest.mark.parametrize("command", [(), ("migrate",)], ids=["make run", "make migrate"])
def test_a_log_level_or_pause_out_of_range_is_one_line(
    scratch: Path, name: str, value: str, says: str, command: tuple[str, ...]
) -> None:
    done = start(scratch, "http://127.0.0.1:9/api", *command, **{name: value})
    assert done.returncode == 2
    line = one_line(done)
    assert line.startswith(name), line
    assert says in line
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_a_log_level_in_any_case_is_accepted(scratch: Path) -> None:
    done = start(scratch, f"http://127.0.0.1:{closed_port()}/api/v10", LOG_LEVEL="warning")
    assert one_line(done).startswith("Cannot reach Discord")
