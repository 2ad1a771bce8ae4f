"""The PostgreSQL store (asyncpg pool, several processes on one database)."""

from .store import PostgresStore, migrations, split_options

__all__ = ["PostgresStore", "migrations", "split_options"]
