"""Tournaments: the `tournaments` rows (snapshot and version), their append-only log of
actions, which table game belongs to which tournament, and what a finished one counts for
each member (`tournament_results`: /poker stats and the `tournaments` board).

The four tables are new and nothing else changes, so they are made from db/schema.py's own
declarations (with their indexes): a new database and an upgraded one end at the same
schema by construction. A later change to them takes a revision of its own. Downgrading
drops them.
"""

from alembic import op

from db import schema

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None

TABLES = (schema.tournaments, schema.tournament_actions, schema.tournament_games,
          schema.tournament_results)  # fmt: skip


def upgrade() -> None:
    bind = op.get_bind()
    for table in TABLES:
        table.create(bind)


def downgrade() -> None:
    bind = op.get_bind()
    for table in reversed(TABLES):
        table.drop(bind)
