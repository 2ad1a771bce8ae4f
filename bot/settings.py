"""Configuration from the environment or `.env`; built in `main`, never at import time."""

from __future__ import annotations

from pathlib import Path

from pydantic import SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from bot.engine.daily import MIN_SECRET_BYTES
from bot.records import Shards

LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
MAX_PICTURE_WORKERS = 64  # more would only queue on the cores (and each holds its fonts)
BOT_PAUSE_MAX = 60.0  # seconds: longer, and a computer player's turn would look stuck


class Settings(BaseSettings):
    # env_ignore_empty: `.env.example` leaves optional settings as `NAME=` (DEV_GUILD_ID in
    # production); an empty value means "not set", never "parse the empty string".
    # hide_input_in_errors: a setting that does not parse (a short DAILY_SECRET) is never
    # echoed into a log.
    model_config = SettingsConfigDict(
        env_file=".env",
        env_file_encoding="utf-8",
        extra="ignore",
        env_ignore_empty=True,
        hide_input_in_errors=True,
    )

    discord_token: SecretStr | None = None
    # Which store: `sqlite:///data/dicepoker.sqlite3` (the default) or `postgresql://…`.
    database_url: str | None = None
    database_path: Path = Path("data/dicepoker.sqlite3")  # older setting: the SQLite file
    dev_guild_id: int | None = None
    log_level: str = "INFO"  # one of LOG_LEVELS, any case
    strategy_dir: Path = Path("data/strategy")  # cached strategy tables (bot/strategy)
    # At start-up, load every cached table and compute the missing ones in a worker process
    # (minutes of CPU once, then milliseconds per start). Unset: on for a bot with a token
    # (`python -m bot`), off in the offline harnesses (tests, benchmarks, demo, screenshots).
    strategy_precompute: bool | None = None

    # Several processes, each holding some of Discord's shards (README "Running many
    # shards"): SHARD_COUNT with SHARD_IDS ("0,1" or "0-3"), or with CLUSTER_INDEX of
    # CLUSTER_COUNT processes (each takes every CLUSTER_COUNT-th shard). Neither: one shard.
    shard_count: int | None = None
    shard_ids: str | None = None
    cluster_index: int | None = None
    cluster_count: int | None = None
    metrics_port: int | None = None  # Prometheus /metrics and /healthz (bot/health.py)
    # Loopback: nothing outside the machine reaches them. In a container, 0.0.0.0 with the
    # port published on the host's loopback only (compose.yaml) keeps it so.
    metrics_host: str = "127.0.0.1"

    @field_validator("log_level")
    @classmethod
    def _known_level(cls, value: str) -> str:
        level = value.strip().upper()
        if level not in LOG_LEVELS:
            raise ValueError(f"it must be one of {', '.join(LOG_LEVELS)}")
        return level

    @model_validator(mode="after")
    def _valid_shards(self) -> Settings:
        self.shards  # noqa: B018 - raises on shard settings that do not fit together
        return self

    @property
    def shards(self) -> Shards | None:
        """The shards this process holds, or None (a single-shard bot, as without them)."""
        if self.shard_count is None:
            if self.shard_ids or self.cluster_index is not None:
                raise ValueError("SHARD_IDS and CLUSTER_INDEX need SHARD_COUNT")
            return None
        count = self.shard_count
        if count < 1:
            raise ValueError("SHARD_COUNT must be at least 1")
        if self.shard_ids:
            ids = _shard_ids(self.shard_ids)
        elif self.cluster_index is not None or self.cluster_count is not None:
            index, of = self.cluster_index, self.cluster_count
            if index is None or of is None or not 0 <= index < of:
                raise ValueError("CLUSTER_INDEX must be 0 … CLUSTER_COUNT - 1")
            if of > count:  # some process would hold no shard
                raise ValueError("CLUSTER_COUNT must not exceed SHARD_COUNT")
            ids = frozenset(range(index, count, of))
        else:
            ids = frozenset(range(count))
        if not ids or not all(0 <= i < count for i in ids):
            raise ValueError(f"shard ids must be 0 … {count - 1}")
        return Shards(count, ids)

    @property
    def store_url(self) -> str:
        """DATABASE_URL, else the SQLite file DATABASE_PATH names (as `db.sqlite_url`
        writes it: settings sit below the store and know no store code)."""
        return self.database_url or f"sqlite:///{self.database_path}"

    # Full garbage collections once a minute between clicks instead of inside them
    # (bot/housekeeping.py). Unset: on for a bot with a token, off in the test harnesses
    # (many bots in one process; the benchmarks turn it on to measure what runs).
    quiet_gc: bool | None = None

    @property
    def collect_between_clicks(self) -> bool:
        if self.quiet_gc is not None:
            return self.quiet_gc
        return self.discord_token is not None and bool(self.discord_token.get_secret_value())

    @property
    def precompute_tables(self) -> bool:
        if self.strategy_precompute is not None:
            return self.strategy_precompute
        return self.discord_token is not None and bool(self.discord_token.get_secret_value())

    # Processes drawing the pictures (bot/service/pictures.py). Unset: one per core the
    # event loop leaves spare, at least one; 0: in a thread of the bot's own process.
    picture_workers: int | None = None

    @field_validator("picture_workers")
    @classmethod
    def _workers(cls, value: int | None) -> int | None:
        if value is not None and not 0 <= value <= MAX_PICTURE_WORKERS:
            raise ValueError(f"it must be a number of processes from 0 to {MAX_PICTURE_WORKERS}")
        return value

    bot_pause: float = 0.8  # seconds between a computer seat's visible steps (0 in tests)

    @field_validator("bot_pause")
    @classmethod
    def _a_pause(cls, value: float) -> float:
        if not 0 <= value <= BOT_PAUSE_MAX:  # also NaN, which compares false
            raise ValueError(f"it must be a number of seconds from 0 to {BOT_PAUSE_MAX:g}")
        return value

    # The daily dice's secret (at least 16 bytes; changing it changes every day's dice).
    # Unset: one is made on first use and kept in the database.
    daily_secret: SecretStr | None = None

    @field_validator("daily_secret")
    @classmethod
    def _long_enough(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None and 0 < len(value.get_secret_value().encode()) < MIN_SECRET_BYTES:
            raise ValueError(f"it must have at least {MIN_SECRET_BYTES} bytes")
        return value

    @property
    def daily_secret_bytes(self) -> bytes | None:
        if self.daily_secret is None or not self.daily_secret.get_secret_value():
            return None
        return self.daily_secret.get_secret_value().encode()


def _shard_ids(text: str) -> frozenset[int]:
    """ "0,1,4-6" → {0, 1, 4, 5, 6}."""
    ids: set[int] = set()
    for part in text.replace(" ", "").split(","):
        if not part:
            continue
        low, _, high = part.partition("-")
        if not low.isdigit() or (high and not high.isdigit()):
            raise ValueError(f"SHARD_IDS: {part!r} is not a shard number or a range")
        ids.update(range(int(low), int(high or low) + 1))
    return frozenset(ids)
