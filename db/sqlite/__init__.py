"""The embedded SQLite store (aiosqlite, WAL, synchronous=FULL)."""

from .store import SqliteStore, migrations

__all__ = ["SqliteStore", "migrations"]
