"""`DATABASE_URL`: which store the bot opens.

`sqlite:///data/dicepoker.sqlite3` (the default: a file relative to the working folder),
`sqlite:////var/lib/dicepoker.sqlite3` (an absolute path), `sqlite:///:memory:`, or
`postgresql://user@host:port/db?…` (also `postgres://`, as many hosts write it).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

DEFAULT_URL = "sqlite:///data/dicepoker.sqlite3"


class DatabaseUrlError(ValueError):
    """The URL names no store we have; the message says what is accepted."""


@dataclass(frozen=True)
class DatabaseUrl:
    dialect: str  # "sqlite" | "postgresql"
    target: str  # the SQLite path, or the PostgreSQL DSN as given


def parse(url: str) -> DatabaseUrl:
    scheme = urlsplit(url).scheme.lower()
    if scheme == "sqlite":
        rest = url.split(":", 1)[1]
        if not rest.startswith("///") or len(rest) == 3:
            raise DatabaseUrlError(
                f"{url!r}: write sqlite:///relative/file.sqlite3 or sqlite:////absolute/path"
            )
        return DatabaseUrl("sqlite", rest[3:])
    if scheme in ("postgresql", "postgres"):
        return DatabaseUrl("postgresql", url)
    raise DatabaseUrlError(f"{url!r}: DATABASE_URL starts with sqlite:/// or postgresql://")


def sqlite_url(path: str | Path) -> str:
    """The URL of a SQLite file (what `DATABASE_PATH` stands for)."""
    return f"sqlite:///{path}"
