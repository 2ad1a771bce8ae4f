"""Alembic's environment: the store's migration runner (db/engine.py) hands over the
connection, inside its transaction (and, on PostgreSQL, its advisory lock)."""

from alembic import context

from db.schema import metadata

context.configure(
    connection=context.config.attributes["connection"],
    target_metadata=metadata,
    render_as_batch=True,  # autogenerate writes SQLite's ALTERs in batch mode
    transactional_ddl=True,  # (the runner's transaction holds on SQLite too)
)
with context.begin_transaction():
    context.run_migrations()
