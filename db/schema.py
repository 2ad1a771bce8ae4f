"""The tables, declared once for both databases (SQLAlchemy Core).

The column types carry the one storage difference: SQLite keeps times as fixed-width UTC
text (text order is time order), days as ISO text, JSON as text and flags as 0/1, as the
stores before SQLAlchemy did, so their databases are read as they are; PostgreSQL has
timestamptz, date, jsonb and boolean. A new database is made from these tables
(`create_all`, then stamped at the newest revision); db/migrations/ takes an older one
there. tests/db/test_migrations.py checks that both ways end at the same schema.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, date, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy import CheckConstraint, Column, Index, Table, Text
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.dialects.sqlite import REAL

Id = sa.BigInteger().with_variant(sa.Integer(), "sqlite")  # a Discord snowflake or a row id
Float8 = sa.Double().with_variant(REAL(), "sqlite")


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


class _OnSqlite(sa.TypeDecorator[Any]):
    """PostgreSQL's `native` type; on SQLite `stored`, converted by `to` and `back`."""

    impl = Text
    cache_ok = True

    def __init__(self, native: Any, to: Callable[[Any], Any], back: Callable[[Any], Any],
                 stored: Any = None) -> None:  # fmt: skip
        super().__init__()
        self.native, self.to, self.back, self.stored = native, to, back, stored

    def load_dialect_impl(self, dialect: sa.Dialect) -> Any:
        sqlite = dialect.name == "sqlite"
        return dialect.type_descriptor((self.stored or Text()) if sqlite else self.native)

    def process_bind_param(self, value: Any, dialect: sa.Dialect) -> Any:
        return value if value is None or dialect.name != "sqlite" else self.to(value)

    def process_result_value(self, value: Any, dialect: sa.Dialect) -> Any:
        return value if value is None or dialect.name != "sqlite" else self.back(value)


def _utc_text(moment: datetime) -> str:  # fixed width, so text order is time order
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


# An aware time read back in UTC (the store checks awareness before a query).
Moment = _OnSqlite(sa.DateTime(timezone=True), _utc_text, datetime.fromisoformat)
Day = _OnSqlite(sa.Date(), date.isoformat, date.fromisoformat)
Json = _OnSqlite(JSONB(), dumps, json.loads)  # (the engine's serializer on PostgreSQL: dumps)
Flag = _OnSqlite(sa.Boolean(), int, bool, sa.Integer())


def literally(column: Any, *values: str) -> Any:
    """`column IN ('a', …)` with the values written out, as in the partial indexes'
    predicates: PostgreSQL's planner uses such an index only for a literal match."""
    written = [sa.literal_column(f"'{v}'") for v in values]
    return column == written[0] if len(written) == 1 else column.in_(written)


def _sqlite_check(text: str) -> CheckConstraint:
    return CheckConstraint(text).ddl_if(dialect="sqlite")  # type: ignore[return-value]


def _flag(name: str, **kw: Any) -> Column[Any]:
    return Column(name, Flag, nullable=False, **kw)


def _no_rowid(name: str, *parts: Any) -> Table:
    """A table clustered by its primary key on SQLite (WITHOUT ROWID)."""
    return Table(name, metadata, *parts, sqlite_with_rowid=False)


metadata = sa.MetaData()

games = Table(
    "games",
    metadata,
    Column("id", Id, sa.Identity(), primary_key=True),
    Column("guild_id", Id),
    Column("channel_id", Id, nullable=False),
    Column("rules", Text, nullable=False),
    Column("status", Text, nullable=False, server_default="lobby"),
    Column("version", Id, nullable=False, server_default=sa.text("0")),
    Column("state", Json, nullable=False),  # the service's snapshot: also the host's id
    Column("created_at", Moment, nullable=False),
    Column("updated_at", Moment, nullable=False),
    Column("deadline", Moment),  # when the turn timer acts
    Column("kind", Text, nullable=False, server_default="table"),  # or "daily"
    Column("day", Day),  # a daily's UTC day
    Column("claimed_until", Moment),  # a timer's claim on the due game (claim_due) …
    Column("claimed_version", sa.Integer),  # … for the version it saw
    Column("member_id", Id),  # a daily's member (a table's host is in its snapshot)
    CheckConstraint("status IN ('lobby', 'playing', 'finished', 'cancelled')"),
    CheckConstraint("kind IN ('table', 'daily')"),
    CheckConstraint("(day IS NULL) = (kind = 'table')", name="games_daily_day"),
    _sqlite_check("json_valid(state)"),
)
ACTIVE = literally(games.c.status, "lobby", "playing")
AT_TABLE = literally(games.c.kind, "table")
DAILY = literally(games.c.kind, "daily")
FINISHED = literally(games.c.status, "finished") & AT_TABLE
Index("games_one_active_per_channel", games.c.channel_id, unique=True,
      sqlite_where=ACTIVE & AT_TABLE, postgresql_where=ACTIVE & AT_TABLE)  # fmt: skip
Index("games_active", games.c.id,
      sqlite_where=ACTIVE & AT_TABLE, postgresql_where=ACTIVE & AT_TABLE)  # fmt: skip
Index("games_finished", games.c.guild_id, games.c.updated_at, games.c.id,
      sqlite_where=FINISHED, postgresql_where=FINISHED)  # fmt: skip
Index("games_one_daily", games.c.member_id, games.c.rules, games.c.day, unique=True,
      sqlite_where=DAILY, postgresql_where=DAILY)  # fmt: skip
_DUE = games.c.deadline.is_not(None) & ACTIVE
Index("games_due", games.c.deadline, games.c.id, sqlite_where=_DUE, postgresql_where=_DUE)

# The audit trail: every action, in order, never updated or deleted.
actions = _no_rowid(
    "actions",
    Column("game_id", Id, sa.ForeignKey("games.id"), nullable=False),
    Column("seq", Id, CheckConstraint("seq >= 0"), nullable=False),
    Column("payload", Json, nullable=False),
    Column("created_at", Moment, nullable=False),
    sa.PrimaryKeyConstraint("game_id", "seq"),
    _sqlite_check("json_valid(payload)"),
)

# One row per seat of a finished table game (written with its last action); guild_id and
# rules are the game's, so boards and stats never read games.
results = _no_rowid(
    "results",
    Column("game_id", Id, sa.ForeignKey("games.id"), nullable=False),
    Column("seat", sa.Integer, CheckConstraint("seat >= 0"), nullable=False),
    Column("guild_id", Id),
    Column("rules", Text, nullable=False),
    Column("player_id", Id),
    Column("name", Text, nullable=False),
    _flag("is_bot"),
    Column("total", sa.Integer, nullable=False),
    Column("rank", sa.Integer, CheckConstraint("rank >= 1"), nullable=False),
    Column("settlement", Float8, nullable=False),  # total − the table's average
    Column("ev_loss", Float8, CheckConstraint("ev_loss IS NULL OR ev_loss >= 0")),
    Column("duration_s", Float8, CheckConstraint("duration_s >= 0"), nullable=False),
    Column("finished_at", Moment, nullable=False),
    sa.PrimaryKeyConstraint("game_id", "seat"),
    CheckConstraint("is_bot OR player_id IS NOT NULL"),
    _sqlite_check("is_bot IN (0, 1)"),
)
Index("results_member_recent", results.c.player_id, results.c.guild_id, results.c.finished_at)

guild_settings = Table(
    "guild_settings",
    metadata,
    Column("guild_id", Id, primary_key=True, autoincrement=False),
    Column("default_rules", Text),
    Column("turn_timeout", sa.Integer, CheckConstraint("turn_timeout BETWEEN 30 AND 86400"),
           nullable=False, server_default=sa.text("300")),  # fmt: skip
    _flag("bots_allowed", server_default=sa.true()),
    _flag("hints_allowed", server_default=sa.true()),
    _flag("images", server_default=sa.false()),
    Column("language", Text),
    Column("updated_at", Moment, nullable=False),
    Column("scorecards", Text, CheckConstraint("scorecards IN ('turn', 'round', 'end')"),
           nullable=False, server_default="turn"),  # fmt: skip
    *(_sqlite_check(f"{f} IN (0, 1)") for f in ("bots_allowed", "hints_allowed", "images")),
)


def _scoped(name: str, *parts: Any) -> Table:
    """Running totals keyed by (server, rule set or scope, player)."""
    return _no_rowid(
        name,
        Column("guild_id", Id, nullable=False),
        Column("rules", Text, nullable=False),
        Column("player_id", Id, nullable=False),
        *parts,
        sa.PrimaryKeyConstraint("guild_id", "rules", "player_id"),
    )


# The table games' running totals per member, written by the finishing transaction (and
# the analysis); the boards rank these rows, never the results.
standings = _scoped(
    "standings",
    Column("games", sa.Integer, nullable=False),
    Column("wins", sa.Integer, nullable=False),  # rank 1, ties included
    Column("net", Float8, nullable=False),
    Column("score_sum", Id, nullable=False),
    Column("best", sa.Integer, nullable=False),
    Column("loss_sum", Float8, nullable=False),  # analysed games only
    Column("analysed", sa.Integer, nullable=False),
)
Index("standings_by_member", standings.c.guild_id, standings.c.player_id)

# The name each member last played under in a server (boards show names, not mentions).
member_names = _no_rowid(
    "member_names",
    Column("guild_id", Id, nullable=False),
    Column("player_id", Id, nullable=False),
    Column("name", Text, nullable=False),
    Column("named_at", Moment, nullable=False),
    sa.PrimaryKeyConstraint("guild_id", "player_id"),
)

# A finished daily. `streak`: the days in a row, up to this one, the member finished this
# rule set's daily in this server.
daily_results = _no_rowid(
    "daily_results",
    Column("day", Day, nullable=False),
    Column("rules", Text, nullable=False),
    Column("player_id", Id, nullable=False),
    Column("guild_id", Id, nullable=False),
    Column("game_id", Id, sa.ForeignKey("games.id"), nullable=False, unique=True),
    Column("name", Text, nullable=False),
    Column("total", sa.Integer, nullable=False),
    Column("streak", sa.Integer, CheckConstraint("streak >= 1"), nullable=False),
    Column("ev_loss", Float8, CheckConstraint("ev_loss IS NULL OR ev_loss >= 0")),
    Column("finished_at", Moment, nullable=False),
    sa.PrimaryKeyConstraint("day", "rules", "player_id"),
)
# A day's board in its order, and a member's dailies.
Index("daily_results_board", daily_results.c.guild_id, daily_results.c.rules,
      daily_results.c.day, daily_results.c.total.desc(), daily_results.c.player_id)  # fmt: skip
Index("daily_results_member", daily_results.c.guild_id, daily_results.c.player_id,
      daily_results.c.rules)  # fmt: skip

# The best total of each server's day (who holds the day's win).
daily_days = _no_rowid(
    "daily_days",
    Column("guild_id", Id, nullable=False),
    Column("rules", Text, nullable=False),
    Column("day", Day, nullable=False),
    Column("best", sa.Integer, nullable=False),
    sa.PrimaryKeyConstraint("guild_id", "rules", "day"),
)

daily_standings = _scoped(
    "daily_standings",
    Column("played", sa.Integer, nullable=False),
    Column("wins", sa.Integer, CheckConstraint("wins >= 0"), nullable=False),  # first place
    Column("best_streak", sa.Integer, nullable=False),
)
Index("daily_standings_by_member", daily_standings.c.guild_id, daily_standings.c.player_id)

# The hindsight optimum of a day's dice, computed once (`dice` fingerprints the secret).
daily_best = _no_rowid(
    "daily_best",
    Column("dice", Text, nullable=False),
    Column("rules", Text, nullable=False),
    Column("day", Day, nullable=False),
    Column("score", sa.Integer, nullable=False),
    _flag("exact"),
    Column("computed_at", Moment, nullable=False),
    sa.PrimaryKeyConstraint("dice", "rules", "day"),
    _sqlite_check("exact IN (0, 1)"),
)

secrets = Table(
    "secrets",
    metadata,
    Column("name", Text, primary_key=True),
    Column("value", sa.LargeBinary, nullable=False),
    Column("created_at", Moment, nullable=False),
)

# A rating per (server, scope: a rule set or '*', player); `games` is the row's version.
ratings = _scoped(
    "ratings",
    Column("mu", Float8, nullable=False),
    Column("sigma", Float8, CheckConstraint("sigma > 0"), nullable=False),
    Column("ordinal", Float8, nullable=False),  # the shown value
    Column("games", sa.Integer, CheckConstraint("games >= 1"), nullable=False),
    Column("updated_at", Moment, nullable=False),
)

# --- the append-only guards: the database refuses changes the store never makes -------------
# (trigger syntax differs, so each dialect's; the same triggers the V8 migrations made)

_FIXED = {  # the columns of a result written once (ev_loss is filled in once, later)
    "results": "game_id, seat, guild_id, rules, player_id, name, is_bot, total, rank, "
    "settlement, duration_s, finished_at",
    "daily_results": "day, rules, player_id, guild_id, game_id, name, total, streak, "
    "finished_at",
}
_ONCE = "OLD.ev_loss IS NOT NULL OR NEW.ev_loss IS NULL"
_APPEND_ONLY = "'{} are append-only'"


def _guards(dialect: str) -> list[str]:
    pg = dialect == "postgresql"

    def guard(name: str, when: str, table: str, message: str, condition: str = "") -> str:
        if pg:
            each = "STATEMENT" if when == "TRUNCATE" else "ROW"
            condition = f" WHEN ({condition})" if condition else ""
            return (f"CREATE TRIGGER {name} BEFORE {when} ON {table} FOR EACH {each}"
                    f"{condition} EXECUTE FUNCTION refuse_change({message})")  # fmt: skip
        condition = f" WHEN {condition}" if condition else ""
        return f"CREATE TRIGGER {name} BEFORE {when} ON {table}{condition} BEGIN " \
            f"SELECT RAISE(ABORT, {message}); END"  # fmt: skip

    made = [
        "CREATE FUNCTION refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
        " RAISE EXCEPTION '%%', TG_ARGV[0] USING ERRCODE = 'restrict_violation'; END $$"
    ] if pg else []  # fmt: skip
    made.append(guard("actions_no_update", "UPDATE OR DELETE" if pg else "UPDATE", "actions",
                      _APPEND_ONLY.format("actions")))  # fmt: skip
    made.append(guard("actions_no_truncate" if pg else "actions_no_delete",
                      "TRUNCATE" if pg else "DELETE", "actions", _APPEND_ONLY.format("actions")))  # fmt: skip
    for table, fixed in _FIXED.items():
        message = _APPEND_ONLY.format(table.replace("_", " "))
        made.append(guard(f"{table}_no_update", f"UPDATE OF {fixed}", table, message))
        made.append(guard(f"{table}_no_delete", "DELETE", table, message))
        if pg:
            made.append(guard(f"{table}_no_truncate", "TRUNCATE", table, message))
        made.append(guard(f"{table}_analysed_once", "UPDATE OF ev_loss", table,
                          "'a result is analysed once'", _ONCE))  # fmt: skip
    return made


for _dialect in ("sqlite", "postgresql"):
    for _sql in _guards(_dialect):
        sa.event.listen(metadata, "after_create", sa.DDL(_sql).execute_if(dialect=_dialect))
        # (DDL text is %-formatted: the one % of refuse_change is written %%)
