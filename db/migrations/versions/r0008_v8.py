"""The schema V8: where the migrations before Alembic ended (db/sqlite and db/postgres
migrations V1–V8, kept in tests/db/v8/ to build such databases for the upgrade tests).

A V8 database (PRAGMA user_version, or PostgreSQL's schema_version table) is stamped at this
revision and upgraded from here; a new database is made at the head from db/schema.py, so
nothing ever runs this step. An older one is refused: the previous release migrates it to V8.
"""

revision = "0008"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    raise RuntimeError("a new database is made by `python -m bot migrate`, not from revision 0008")


def downgrade() -> None:
    raise RuntimeError("0008 is the first revision")
