"""One store: the standings are kept by the finishing transaction, the host only in the
snapshot, and SQLite's indexes are PostgreSQL's.

* The triggers and functions that kept `standings`, `member_names` and the daily standings
  go: db/sql.py writes them in the same transaction as the results (the append-only guards
  stay). The running totals already stored are kept as they are.
* `games.host_id` was the host at the lobby's opening and never followed the host's
  powers: every snapshot holds `host_id` (filled in here where one lacks it) and the column
  goes. A daily's member moves to `member_id` (NULL at a table), which the one-daily index
  uses.
* SQLite's games_active, games_due and games_finished take PostgreSQL's columns.

SQLite drops the column in place (ALTER TABLE … DROP COLUMN, SQLite ≥ 3.35), in Alembic's
batch mode without a copy: a copy would drop `games` under the foreign keys of the tables
that reference it. Downgrading is not supported: restore the backup taken before.
"""

from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None

_COUNTING = {  # trigger: its table (PostgreSQL: and its function)
    "results_count": ("results", "count_results"),
    "results_analysed": ("results", "count_analysis"),
    "results_name": ("results", "name_members"),
    "daily_results_name": ("daily_results", "name_daily"),
    "daily_results_count": ("daily_results", "count_daily"),
}
_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def _where(predicate: str) -> dict[str, Any]:
    return {"sqlite_where": sa.text(predicate), "postgresql_where": sa.text(predicate)}


def upgrade() -> None:
    sqlite = op.get_bind().dialect.name == "sqlite"
    for trigger, (table, function) in _COUNTING.items():
        op.execute(f"DROP TRIGGER {trigger}" if sqlite else f"DROP TRIGGER {trigger} ON {table}")
        if not sqlite:
            op.execute(f"DROP FUNCTION {function}()")

    if sqlite:
        op.execute("UPDATE games SET state = json_set(state, '$.host_id', host_id)"
                   " WHERE json_type(state, '$.host_id') IS NULL")  # fmt: skip
    else:
        op.execute("UPDATE games SET state = jsonb_set(state, '{host_id}', to_jsonb(host_id))"
                   " WHERE jsonb_typeof(state) = 'object' AND NOT state ? 'host_id'")  # fmt: skip
    op.add_column("games", sa.Column("member_id", _ID))
    op.execute("UPDATE games SET member_id = host_id WHERE kind = 'daily'")
    op.drop_index("games_one_daily", table_name="games")
    with op.batch_alter_table("games", recreate="never") as games:
        games.drop_column("host_id")
    op.create_index("games_one_daily", "games", ["member_id", "rules", "day"], unique=True,
                    **_where("kind = 'daily'"))  # fmt: skip

    if sqlite:
        active = "status IN ('lobby', 'playing')"
        for name, columns, predicate in (
            ("games_active", ["id"], f"{active} AND kind = 'table'"),
            ("games_due", ["deadline", "id"], f"deadline IS NOT NULL AND {active}"),
            ("games_finished", ["guild_id", "updated_at", "id"],
             "status = 'finished' AND kind = 'table'"),
        ):  # fmt: skip
            op.drop_index(name, table_name="games")
            op.create_index(name, "games", columns, **_where(predicate))


def downgrade() -> None:
    raise RuntimeError("0009 cannot be undone: restore the backup taken before the upgrade")
