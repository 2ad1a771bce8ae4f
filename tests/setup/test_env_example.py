"""The README's set-up path: `cp .env.example .env`, fill in the token, start.

Every variable `.env.example` leaves empty (DEV_GUILD_ID in production) means "not set".
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bot.settings import Settings

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def setup_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    env = tmp_path / ".env"
    shutil.copy(ROOT / ".env.example", env)
    text = env.read_text(encoding="utf-8").replace("DISCORD_TOKEN=\n", "DISCORD_TOKEN=fake\n")
    env.write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    for name in ("DISCORD_TOKEN", "DEV_GUILD_ID", "DATABASE_PATH", "STRATEGY_DIR"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


def test_the_example_env_with_a_token_loads(setup_dir: Path) -> None:
    settings = Settings()
    assert settings.discord_token is not None
    assert settings.discord_token.get_secret_value() == "fake"
    assert settings.dev_guild_id is None  # `DEV_GUILD_ID=` is "not set"


def test_an_empty_variable_in_the_environment_is_not_set(
    setup_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DEV_GUILD_ID", "")
    monkeypatch.setenv("BOT_PAUSE", "")
    settings = Settings()
    assert settings.dev_guild_id is None
    assert settings.bot_pause == 0.8


def test_solve_runs_from_the_example_env(setup_dir: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bot", "solve", "--rules", "classic"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=setup_dir,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert done.stdout.startswith("classic 164.9110 ")
