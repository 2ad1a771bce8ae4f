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

# A Discord snowflake or a row id (INTEGER on SQLite: a rowid key), and a float8.
Id: sa.types.TypeEngine[int] = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
Float8: sa.types.TypeEngine[float] = sa.Double().with_variant(REAL(), "sqlite")


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


class _OnSqlite(sa.TypeDecorator[Any]):
    """PostgreSQL's `native` type; on SQLite `stored`, converted by `to` and `back`."""

    impl = Text
    cache_ok = True

    def __init__(self, native: Any, to: Callable[[Any], Any], back: Callable[[Any], Any],
                 stored: Any = None) -> None:
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
    written: list[Any] = [sa.literal_column(f"'{v}'") for v in values]
    return column == written[0] if len(written) == 1 else column.in_(written)


def _sqlite_check(text: str) -> CheckConstraint:
    return CheckConstraint(text).ddl_if(dialect="sqlite")


def _c(name: str, kind: Any, *parts: Any, null: bool = False, **kw: Any) -> Column[Any]:
    """A column, NOT NULL unless `null`; a text among `parts` is a CHECK."""
    made = (CheckConstraint(p) if isinstance(p, str) else p for p in parts)
    return Column(name, kind, *made, nullable=null, **kw)


def _table(name: str, key: str | None, *parts: Any) -> Table:
    """A table; with `key` (its primary key's columns), clustered by it on SQLite."""
    if key is None:
        return Table(name, metadata, *parts)
    return Table(name, metadata, *parts, sa.PrimaryKeyConstraint(*key.split(", ")),
                 sqlite_with_rowid=False)


def _flags(*names: str) -> list[Any]:
    return [_sqlite_check(f"{n} IN (0, 1)") for n in names]


def _index(name: str, table: Table, *columns: Any, where: Any = None, **kw: Any) -> None:
    Index(name, *(table.c[c] if isinstance(c, str) else c for c in columns),
          sqlite_where=where, postgresql_where=where, **kw)


LOSS = "ev_loss IS NULL OR ev_loss >= 0"  # points lost per decision, when analysed
metadata = sa.MetaData()

# A lobby or game: the service's snapshot (`state`, which holds the host) and its version.
games = _table(
    "games", None,
    Column("id", Id, sa.Identity(), primary_key=True), _c("guild_id", Id, null=True),
    _c("channel_id", Id), _c("rules", Text), _c("status", Text, server_default="lobby"),
    _c("version", Id, server_default=sa.text("0")), _c("state", Json),
    _c("created_at", Moment), _c("updated_at", Moment),
    _c("deadline", Moment, null=True),  # when the turn timer acts
    _c("kind", Text, server_default="table"), _c("day", Day, null=True),  # a daily's UTC day
    _c("claimed_until", Moment, null=True),  # a timer's claim on a due game (claim_due) …
    _c("claimed_version", sa.Integer, null=True),  # … for the version it saw
    _c("member_id", Id, null=True),  # a daily's member (NULL at a table)
    CheckConstraint("status IN ('lobby', 'playing', 'finished', 'cancelled')"),
    CheckConstraint("kind IN ('table', 'daily')"),
    CheckConstraint("(day IS NULL) = (kind = 'table')", name="games_daily_day"),
    _sqlite_check("json_valid(state)"),
)
ACTIVE = literally(games.c.status, "lobby", "playing")
AT_TABLE = literally(games.c.kind, "table")
DAILY = literally(games.c.kind, "daily")
FINISHED = literally(games.c.status, "finished") & AT_TABLE
_index("games_one_active_per_channel", games, "channel_id", where=ACTIVE & AT_TABLE, unique=True)
_index("games_active", games, "id", where=ACTIVE & AT_TABLE)  # start-up: the games in play
_index("games_finished", games, "guild_id", "updated_at", "id", where=FINISHED)  # history
_index("games_one_daily", games, "member_id", "rules", "day", where=DAILY, unique=True)
_index("games_due", games, "deadline", "id", where=games.c.deadline.is_not(None) & ACTIVE)

# The audit trail: every action, in order, never updated or deleted.
actions = _table(
    "actions", "game_id, seq", _c("game_id", Id, sa.ForeignKey("games.id")),
    _c("seq", Id, "seq >= 0"), _c("payload", Json), _c("created_at", Moment),
    _sqlite_check("json_valid(payload)"),
)

# A seat of a finished table game, written with its last action (guild_id and rules are
# the game's, so the stats never read games).
results = _table(
    "results", "game_id, seat", _c("game_id", Id, sa.ForeignKey("games.id")),
    _c("seat", sa.Integer, "seat >= 0"), _c("guild_id", Id, null=True), _c("rules", Text),
    _c("player_id", Id, null=True), _c("name", Text), _c("is_bot", Flag),
    _c("total", sa.Integer), _c("rank", sa.Integer, "rank >= 1"),
    _c("settlement", Float8),  # total − the table's average
    _c("ev_loss", Float8, LOSS, null=True), _c("duration_s", Float8, "duration_s >= 0"),
    _c("finished_at", Moment), CheckConstraint("is_bot OR player_id IS NOT NULL"),
    *_flags("is_bot"),
)
_index("results_member_recent", results, "player_id", "guild_id", "finished_at")

guild_settings = _table(
    "guild_settings", None,
    Column("guild_id", Id, primary_key=True, autoincrement=False),
    _c("default_rules", Text, null=True),
    _c("turn_timeout", sa.Integer, "turn_timeout BETWEEN 30 AND 86400",
       server_default=sa.text("300")),
    _c("bots_allowed", Flag, server_default=sa.true()),
    _c("hints_allowed", Flag, server_default=sa.true()),
    _c("images", Flag, server_default=sa.false()), _c("language", Text, null=True),
    _c("updated_at", Moment),
    _c("scorecards", Text, "scorecards IN ('turn', 'round', 'end')", server_default="turn"),
    *_flags("bots_allowed", "hints_allowed", "images"),
)
SCOPE = "guild_id, rules, player_id"  # a running total's key: server, rule set, player


def _scope(*parts: Any) -> list[Any]:
    return [_c("guild_id", Id), _c("rules", Text), _c("player_id", Id), *parts]


# The table games' running totals, written by the finishing transaction (and the
# analysis); the boards rank these rows, never the results. Humans in servers only.
standings = _table(
    "standings", SCOPE, *_scope(
        _c("games", sa.Integer), _c("wins", sa.Integer),  # rank 1, ties included
        _c("net", Float8), _c("score_sum", Id), _c("best", sa.Integer),
        _c("loss_sum", Float8), _c("analysed", sa.Integer)),  # over the analysed games
)
_index("standings_by_member", standings, "guild_id", "player_id")

# The name each member last played under in a server (boards show names, not mentions).
member_names = _table("member_names", "guild_id, player_id", _c("guild_id", Id),
                      _c("player_id", Id), _c("name", Text), _c("named_at", Moment))

# A finished daily; `streak`: the days in a row, up to this one, that the member finished
# this rule set's daily in this server.
daily_results = _table(
    "daily_results", "day, rules, player_id", _c("day", Day), _c("rules", Text),
    _c("player_id", Id), _c("guild_id", Id),
    _c("game_id", Id, sa.ForeignKey("games.id"), unique=True), _c("name", Text),
    _c("total", sa.Integer), _c("streak", sa.Integer, "streak >= 1"),
    _c("ev_loss", Float8, LOSS, null=True), _c("finished_at", Moment),
)
_d = daily_results.c  # a day's board in its order, and a member's dailies
_index("daily_results_board", daily_results, "guild_id", "rules", "day", _d.total.desc(),
       "player_id")
_index("daily_results_member", daily_results, "guild_id", "player_id", "rules")

# The best total of each server's day (who holds the day's win), and the dailies' running
# totals: days played, days won (first so far; a shared first place counts), best streak.
daily_days = _table("daily_days", "guild_id, rules, day", _c("guild_id", Id),
                    _c("rules", Text), _c("day", Day), _c("best", sa.Integer))
daily_standings = _table(
    "daily_standings", SCOPE, *_scope(_c("played", sa.Integer),
                                      _c("wins", sa.Integer, "wins >= 0"),
                                      _c("best_streak", sa.Integer)))
_index("daily_standings_by_member", daily_standings, "guild_id", "player_id")

# The hindsight optimum of a day's dice, computed once (`dice` fingerprints the secret),
# and the deployment's secrets made on first use.
daily_best = _table(
    "daily_best", "dice, rules, day", _c("dice", Text), _c("rules", Text), _c("day", Day),
    _c("score", sa.Integer), _c("exact", Flag), _c("computed_at", Moment), *_flags("exact"),
)
secrets = _table("secrets", None, Column("name", Text, primary_key=True),
                 _c("value", sa.LargeBinary), _c("created_at", Moment))

# A rating per (server, scope: a rule set or '*', player); `games` is the row's version.
ratings = _table(
    "ratings", SCOPE, *_scope(
        _c("mu", Float8), _c("sigma", Float8, "sigma > 0"),
        _c("ordinal", Float8),  # the shown value
        _c("games", sa.Integer, "games >= 1"), _c("updated_at", Moment)),
)

# --- the append-only guards: the database refuses what the store never does ----------------
# (trigger syntax differs, so each dialect has its own: the triggers V8 made, by name)

_FIXED = {  # a result's columns written once (ev_loss is filled in once, after the finish)
    "results": "game_id, seat, guild_id, rules, player_id, name, is_bot, total, rank, "
    "settlement, duration_s, finished_at",
    "daily_results": "day, rules, player_id, guild_id, game_id, name, total, streak, "
    "finished_at",
}
_REFUSE = ("CREATE FUNCTION refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
           " RAISE EXCEPTION '%%', TG_ARGV[0] USING ERRCODE = 'restrict_violation'; END $$")


def _guard(  # noqa: PLR0913 - a trigger's parts, each named
    pg: bool, name: str, when: str, table: str, message: str, only: str = "",
) -> str:
    if not pg:
        only = f" WHEN {only}" if only else ""
        return (f"CREATE TRIGGER {name} BEFORE {when} ON {table}{only} BEGIN"
                f" SELECT RAISE(ABORT, '{message}'); END")
    each, only = "STATEMENT" if when == "TRUNCATE" else "ROW", f" WHEN ({only})" if only else ""
    return (f"CREATE TRIGGER {name} BEFORE {when} ON {table} FOR EACH {each}{only}"
            f" EXECUTE FUNCTION refuse_change('{message}')")


def _guards(pg: bool) -> list[str]:
    kept = "actions are append-only"
    made = [_REFUSE] if pg else []
    made += [_guard(pg, "actions_no_update", "UPDATE OR DELETE" if pg else "UPDATE", "actions",
                    kept),
             _guard(pg, f"actions_no_{'truncate' if pg else 'delete'}",
                    "TRUNCATE" if pg else "DELETE", "actions", kept)]
    for table, fixed in _FIXED.items():
        kept = f"{table.replace('_', ' ')} are append-only"
        made += [_guard(pg, f"{table}_no_update", f"UPDATE OF {fixed}", table, kept),
                 _guard(pg, f"{table}_no_delete", "DELETE", table, kept)]
        made += [_guard(pg, f"{table}_no_truncate", "TRUNCATE", table, kept)] if pg else []
        made.append(_guard(pg, f"{table}_analysed_once", "UPDATE OF ev_loss", table,
                           "a result is analysed once",
                           "OLD.ev_loss IS NOT NULL OR NEW.ev_loss IS NULL"))
    return made


for _dialect in ("sqlite", "postgresql"):  # (DDL is %-formatted: refuse_change's % is %%)
    for _sql in _guards(_dialect == "postgresql"):
        sa.event.listen(metadata, "after_create",
                        sa.DDL(_sql).execute_if(dialect=_dialect))  # type: ignore[no-untyped-call]


# --- tournaments (bot/match/tournament.py) ---------------------------------------------------
# A tournament: its snapshot and version, as a game's; its log of actions (append-only by the
# store; `seq` is its key, so a change stored twice cannot be); which table game is whose (a
# finished game finds its tournament); and what a finished one counts for each member.
TOURNAMENT_ACTIVE = ("signup", "playing")
tournaments = _table(
    "tournaments", None,
    Column("id", Id, sa.Identity(), primary_key=True), _c("guild_id", Id, null=True),
    _c("channel_id", Id), _c("status", Text, server_default="signup"),
    _c("version", Id, server_default=sa.text("0")), _c("state", Json),
    _c("created_at", Moment), _c("updated_at", Moment), _c("finished_at", Moment, null=True),
    CheckConstraint("status IN ('signup', 'playing', 'finished', 'cancelled')"),
    _sqlite_check("json_valid(state)"),
)
_index("tournaments_active", tournaments, "id",
       where=literally(tournaments.c.status, *TOURNAMENT_ACTIVE))
tournament_actions = _table(
    "tournament_actions", "tournament_id, seq",
    _c("tournament_id", Id, sa.ForeignKey("tournaments.id")), _c("seq", Id, "seq >= 0"),
    _c("payload", Json), _c("created_at", Moment), _sqlite_check("json_valid(payload)"),
)
tournament_games = _table(
    "tournament_games", None,
    Column("game_id", Id, sa.ForeignKey("games.id"), primary_key=True, autoincrement=False),
    _c("tournament_id", Id, sa.ForeignKey("tournaments.id")),
)
tournament_results = _table(
    "tournament_results", "tournament_id, player_id",
    _c("tournament_id", Id, sa.ForeignKey("tournaments.id")), _c("player_id", Id),
    _c("guild_id", Id), _c("rules", Text), _c("name", Text),
    _c("rounds", sa.Integer, "rounds >= 0"),
    _c("final", Flag), _c("place", sa.Integer, null=True), _c("champion", Flag),
    _c("finished_at", Moment), *_flags("final", "champion"),
)
_index("tournament_results_board", tournament_results, "guild_id", "finished_at")
_index("tournament_results_member", tournament_results, "guild_id", "player_id")


# --- seasons (issue 20; db/migrations/versions/r0011_seasons.py) -----------------------------

# A server's seasons: off | monthly | quarterly, the channel of the podiums, and when the
# setting took its value (a season that ended before then gets no podium). Appended, so the
# table's columns stay in the order the migration adds them.
for _column in (
    _c("season", Text, "season IN ('off', 'monthly', 'quarterly')", server_default="off"),
    _c("season_channel", Id, null=True), _c("season_since", Moment, null=True),
):
    guild_settings.append_column(_column)

# A season's leaderboards are summed from its results, found by time: the index holds what
# they sum, so neither database reads the table's rows (a season of 10,000 results, 1%
# of the board's time on SQLite reading the results themselves).
_index("results_season", results, "guild_id", "finished_at", "player_id", "rules", "rank",
       "total", "settlement", "ev_loss", "is_bot")

# A season's podium: claimed by the process that posts it (`claimed_until`, a lease, so a
# claimer that dies frees it), then marked posted — once, whatever the processes.
season_podiums = _table(
    "season_podiums", "guild_id, mode, number", _c("guild_id", Id),
    _c("mode", Text, "mode IN ('monthly', 'quarterly')"), _c("number", sa.Integer, "number >= 1"),
    _c("claimed_until", Moment), _c("posted_at", Moment, null=True),
    _c("message_id", Id, null=True),  # None: posted nowhere (no channel, or it is gone)
)
