"""Every test here plays on PostgreSQL: the fixtures of tests/multi/fixtures.py (the root
`table` fixture then plays on PostgreSQL too, restarts included)."""

from tests.multi.fixtures import (  # noqa: F401 (fixtures)
    bot_factory,
    pg_database,
    postgres_url,
    shared_strategy,
)
