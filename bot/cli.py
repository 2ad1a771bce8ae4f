"""The bot's commands that need settings: run, sync, migrate, solve.

Every failure a user can cause at start-up (a rejected token, Discord out of reach, a
database that cannot be opened, a setting that does not parse) is one line on stderr that
says what to do, and a non-zero exit; the traceback only with LOG_LEVEL=DEBUG.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import sys
from collections.abc import Awaitable
from pathlib import Path
from typing import TypeVar

import aiohttp
import discord
from pydantic import ValidationError

from db import DatabaseUnavailable, DatabaseUrlError, GameStore, SchemaError, migrate, open_store

from .app import create_bot
from .logging import setup_logging
from .settings import Settings
from .strategy.cli import solve, solve_all

log = logging.getLogger("bot")
T = TypeVar("T")

EXIT_USAGE = 2  # a setting the user must fix
EXIT_FAILED = 1  # the bot could not start or stopped on an error


class StartupError(Exception):
    """A start-up failure the user can act on; the message is the one line shown."""


def command(name: str, *, rules: str | None = None, every: bool = False,
            directory: Path | None = None, recompute: bool = False) -> int:  # fmt: skip
    """Run `name` (run, sync, migrate, solve); the exit status."""
    debug = False
    try:
        settings = load_settings()
        debug = settings.log_level.upper() == "DEBUG"
        if name == "solve":
            where = directory or settings.strategy_dir
            if every:
                return solve_all(where, recompute=recompute)
            assert rules is not None
            return solve(rules, where, recompute=recompute)
        setup_logging(settings.log_level, shards=settings.shards)
        if name == "migrate":
            version = asyncio.run(_friendly(migrate(settings.store_url), settings))
            log.info("the database is at schema version %s", version)
            return 0
        token = settings.discord_token.get_secret_value() if settings.discord_token else ""
        if not token:
            raise StartupError(
                "DISCORD_TOKEN is not set: copy .env.example to .env and put the bot token there."
            )
        asyncio.run(run_bot(settings, token, sync_only=name == "sync"))
    except StartupError as exc:
        if debug:
            log.debug("start-up failed", exc_info=exc.__cause__ or exc)
        logging.disable()  # the line below is the last word: no late log line after it
        print(exc, file=sys.stderr)
        usage = isinstance(exc.__cause__, ValidationError | DatabaseUrlError)
        return EXIT_USAGE if usage else EXIT_FAILED
    except KeyboardInterrupt:
        return 0
    return 0


def load_settings() -> Settings:
    try:
        return Settings()
    except ValidationError as exc:
        error = exc.errors()[0]
        name = ".".join(str(part) for part in error["loc"]).upper()
        reason = str(error["msg"]).removeprefix("Value error, ")
        if not name:  # settings that do not fit together (the shards)
            raise StartupError(f"The settings in .env or the environment: {reason}.") from exc
        raise StartupError(
            f"{name} in .env or the environment is not valid ({reason}): fix it, "
            "or leave it empty to use the default."
        ) from exc


async def _friendly(work: Awaitable[T], settings: Settings) -> T:
    """`work`, with the database's failures turned into one line."""
    try:
        return await work
    except DatabaseUrlError as exc:
        raise StartupError(f"DATABASE_URL: {exc}") from exc
    except SchemaError as exc:
        raise StartupError(f"The database {_shown(settings.store_url)}: {exc}.") from exc
    except (DatabaseUnavailable, OSError, ValueError) as exc:
        raise StartupError(
            f"Cannot open the database {_shown(settings.store_url)}: {_reason(exc)}. "
            "Check DATABASE_URL (or DATABASE_PATH) and that the folder is writable "
            "or the server accepts connections."
        ) from exc


async def run_bot(settings: Settings, token: str, *, sync_only: bool = False) -> None:
    """Open the store (a database problem is reported before Discord is asked anything),
    log in, then run until stopped; with `sync_only`, sync the commands globally and exit."""
    store: GameStore = await _friendly(open_store(settings.store_url), settings)
    bot = create_bot(settings, store=store, sync_globally=True if sync_only else None)
    # SIGTERM (docker stop, a rolling deploy) closes the bot as Ctrl-C does: its gateway
    # sessions end, a computer player's step being written finishes, the pool closes.
    asyncio.get_running_loop().add_signal_handler(
        signal.SIGTERM, lambda: asyncio.ensure_future(bot.close())
    )
    try:
        async with bot:
            await _discord(bot.login(token))  # login runs setup_hook, which syncs with sync_only
            if sync_only:
                log.info("slash commands synced globally")
                return
            await _discord(bot.connect())
    finally:
        if not bot.is_closed():
            await bot.close()


async def _discord(work: Awaitable[None]) -> None:
    """`work`, with Discord's refusals and an unreachable Discord turned into one line."""
    try:
        await work
    except discord.LoginFailure as exc:
        raise StartupError(
            "Discord rejected the bot token: copy it again from the developer portal "
            "(Bot → Reset Token) into DISCORD_TOKEN in .env."
        ) from exc
    except discord.PrivilegedIntentsRequired as exc:  # pragma: no cover - the bot asks none
        raise StartupError("Discord refused the gateway intents the bot asked for.") from exc
    except (aiohttp.ClientError, OSError, TimeoutError) as exc:
        raise StartupError(
            f"Cannot reach Discord ({_reason(exc)}): check the network connection, then "
            "start the bot again."
        ) from exc
    except discord.HTTPException as exc:
        raise StartupError(f"Discord answered {exc.status}: {exc.text or exc}.") from exc


def _reason(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def _shown(url: str) -> str:
    """A database URL without its password."""
    if "@" in url and "://" in url:
        scheme, rest = url.split("://", 1)
        who, where = rest.rsplit("@", 1)
        return f"{scheme}://{who.split(':', 1)[0]}@{where}"
    return url
