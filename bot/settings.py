"""Configuration from the environment or `.env`; built in `main`, never at import time."""

from __future__ import annotations

from pathlib import Path

from pydantic import SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

from db import sqlite_url


class Settings(BaseSettings):
    # env_ignore_empty: `.env.example` leaves optional settings as `NAME=` (DEV_GUILD_ID in
    # production); an empty value means "not set", never "parse the empty string".
    model_config = SettingsConfigDict(
        env_file=".env", env_file_encoding="utf-8", extra="ignore", env_ignore_empty=True
    )

    discord_token: SecretStr | None = None
    # Which store: `sqlite:///data/dicepoker.sqlite3` (the default) or `postgresql://…`.
    database_url: str | None = None
    database_path: Path = Path("data/dicepoker.sqlite3")  # older setting: the SQLite file
    dev_guild_id: int | None = None
    log_level: str = "INFO"
    strategy_dir: Path = Path("data/strategy")  # cached strategy tables (bot/strategy)
    # At start-up, load every cached table and compute the missing ones in a worker process
    # (minutes of CPU once, then milliseconds per start). Unset: on for a bot with a token
    # (`python -m bot`), off in the offline harnesses (tests, benchmarks, demo, screenshots).
    strategy_precompute: bool | None = None

    @property
    def store_url(self) -> str:
        """DATABASE_URL, else the SQLite file DATABASE_PATH names."""
        return self.database_url or sqlite_url(self.database_path)

    @property
    def precompute_tables(self) -> bool:
        if self.strategy_precompute is not None:
            return self.strategy_precompute
        return self.discord_token is not None and bool(self.discord_token.get_secret_value())

    bot_pause: float = 0.8  # seconds between a computer seat's visible steps (0 in tests)
