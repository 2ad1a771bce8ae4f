"""Seasons of the league (issue 20): the season settings, the index a season's boards read,
and the podiums' claims.
"""

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None

_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def _moment() -> sa.types.TypeEngine[object]:
    # db/schema.py's Moment as the database stores it: fixed-width text on SQLite
    return sa.DateTime(timezone=True).with_variant(sa.Text(), "sqlite")  # type: ignore[return-value]


def upgrade() -> None:
    op.add_column("guild_settings", sa.Column(
        "season", sa.Text(), sa.CheckConstraint("season IN ('off', 'monthly', 'quarterly')"),
        nullable=False, server_default="off"))
    op.add_column("guild_settings", sa.Column("season_channel", _ID, nullable=True))
    op.add_column("guild_settings", sa.Column("season_since", _moment(), nullable=True))
    op.create_index("results_season", "results", [
        "guild_id", "finished_at", "player_id", "rules", "rank", "total", "settlement",
        "ev_loss", "is_bot"])
    op.create_table(
        "season_podiums",
        sa.Column("guild_id", _ID, nullable=False),
        sa.Column("mode", sa.Text(), sa.CheckConstraint("mode IN ('monthly', 'quarterly')"),
                  nullable=False),
        sa.Column("number", sa.Integer(), sa.CheckConstraint("number >= 1"), nullable=False),
        sa.Column("claimed_until", _moment(), nullable=False),
        sa.Column("posted_at", _moment(), nullable=True),
        sa.Column("message_id", _ID, nullable=True),
        sa.PrimaryKeyConstraint("guild_id", "mode", "number"),
        sqlite_with_rowid=False,
    )


def downgrade() -> None:
    op.drop_table("season_podiums")
    op.drop_index("results_season", table_name="results")
    with op.batch_alter_table("guild_settings") as settings:
        for column in ("season_since", "season_channel", "season"):
            settings.drop_column(column)
