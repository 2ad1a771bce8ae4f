"""The PostgreSQL store: an asyncpg pool; several bot processes may share one database.

Everything that must hold across processes is the database's: a save's version check is
in its UPDATE, one active game per channel is a partial unique index, standings are kept
by triggers. A save is ONE statement (data-modifying CTEs), so one round trip and its own
transaction: it writes everything or, on any refusal, nothing.

Settings are not cached: another process may change them at any moment and a reader must
see that at once; a read is one primary-key lookup (~0.05 ms on a local socket, bench
store), and a cache woken by LISTEN/NOTIFY would still be stale until the notification
arrived (and silently so while its listening connection was down).

Store options may ride on the URL's query and are taken off before asyncpg sees it:
`pool_min_size` (default 1), `pool_max_size` (10; pool size × processes must stay under the
server's max_connections) and `statement_cache_size` (asyncpg's; 0 behind PgBouncer in
transaction mode).
"""

from __future__ import annotations

import itertools
import json
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import TYPE_CHECKING, Any, Self, TypeAlias
from urllib.parse import unquote_plus

import asyncpg

from db.ratings import HistoricGame, historic_ids, rate_history
from db.rows import daily_line, stored_rating
from db.rows import migrations as shipped_migrations
from db.store import (
    ID_MAX,
    METRICS,
    SETTINGS_FIELDS,
    SKILL_MIN_GAMES,
    STATUSES,
    ActionConflict,
    BoardLine,
    BoardPage,
    ChannelBusy,
    DailyBest,
    DailyBoard,
    DailyLine,
    DailyStats,
    DailyTaken,
    FinishedGame,
    GameNotFound,
    GameRecord,
    GuildSettings,
    MemberStats,
    RatingChange,
    SeatResult,
    Shards,
    StaleRating,
    StaleVersion,
    StoredRating,
    StoredResult,
    check_counts,
    check_ids,
    check_names,
    check_settings,
)

log = logging.getLogger(__name__)

if TYPE_CHECKING:  # asyncpg's classes are generic in its stubs only
    from asyncpg import Record

    Pool: TypeAlias = asyncpg.Pool[Record]
    Connection: TypeAlias = asyncpg.pool.PoolConnectionProxy[Record]  # a pool's
    RawConnection: TypeAlias = asyncpg.Connection[Record]

# pg_advisory_xact_lock key of the migrations: any fixed number no other code locks.
_MIGRATION_LOCK = 0x6469_6365_706F_6B72  # "dicepokr"
_ONE_ACTIVE = "games_one_active_per_channel"
_ONE_DAILY = "games_one_daily"


def migrations() -> list[tuple[int, str, str]]:
    """(version, file name, SQL) of every migration shipped in this dialect's migrations/."""
    return shipped_migrations(__package__ or "db.postgres")


@dataclass(frozen=True)
class PoolOptions:
    min_size: int = 1
    max_size: int = 10
    statement_cache_size: int = 100  # asyncpg's default


def split_options(url: str) -> tuple[str, PoolOptions]:
    """The URL without the store's own query options, and those options.

    asyncpg would send an unknown query option to the server as a setting (and fail). The
    rest of the URL is kept as written (a re-built URL loses the `//` of `postgres:///db`).
    """
    base, mark, query = url.partition("?")
    kept: list[str] = []
    values: dict[str, int] = {}
    for item in query.split("&") if mark else ():
        key, _, value = item.partition("=")
        name = _OPTIONS.get(unquote_plus(key))
        if name is None:
            kept.append(item)
            continue
        value = unquote_plus(value)
        if not value.isdigit():
            raise ValueError(f"{key} must be a whole number, not {value!r}")
        values[name] = int(value)
    options = PoolOptions(**values)
    if not 0 <= options.min_size <= options.max_size or options.max_size < 1:
        raise ValueError("want 0 <= pool_min_size <= pool_max_size and pool_max_size >= 1")
    return base + ("?" + "&".join(kept) if kept else ""), options


_OPTIONS = {
    "pool_min_size": "min_size",
    "pool_max_size": "max_size",
    "statement_cache_size": "statement_cache_size",
}


def _aware(moment: datetime | None) -> datetime | None:
    if moment is not None and moment.tzinfo is None:
        raise ValueError("times must be timezone-aware")
    return moment


def _now(moment: datetime | None) -> datetime:
    """The caller's time, else this machine's, as in SQLite's store (never the server's
    now(): the bot's clock, simulated in tests, is the one that counts)."""
    return _aware(moment) or datetime.now(UTC)


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


# A guild's shard, as Discord computes it; games outside a guild are on shard 0.
_ON_SHARDS = "((COALESCE(guild_id, 0) >> 22) % ${count}) = ANY(${ids}::integer[])"


def _shard_filter(shards: Shards | None, first: int) -> tuple[str, tuple[Any, ...]]:
    """(" AND …", params) for the shard filter with parameters numbered from `first`."""
    if shards is None:
        return "", ()
    where = _ON_SHARDS.format(count=first, ids=first + 1)
    return f" AND {where}", (shards.count, sorted(shards.ids))


async def _reset(conn: RawConnection) -> None:
    """What a connection needs before the pool lends it again. asyncpg's default reset is
    a round trip on every release (unlock advisory locks, close cursors, UNLISTEN, RESET
    ALL: ~0.08 ms of each query here); this store leaves none of those behind (its only
    lock is transaction-scoped), so only an unfinished transaction is rolled back."""
    if conn.is_in_transaction():
        await conn.execute("ROLLBACK")


class PostgresStore:
    """Use `await PostgresStore.open("postgresql://…")`; it migrates the database."""

    def __init__(self, pool: Pool, schema: int | None = None) -> None:
        self._pool = pool
        # A database opened `upto` an older schema (upgrade tests) finishes games as that
        # schema did: results only.
        self._finish_sql = _FINISH_SQL if schema is None or schema >= _DAILY_SCHEMA else (
            _FINISH_SQL_V5
        )

    # --- life cycle -------------------------------------------------------------

    @classmethod
    async def open(cls, url: str, *, upto: int | None = None) -> Self:
        """Connect a pool and migrate; `upto` stops at an older schema version (tests)."""
        dsn, options = split_options(url)
        pool: Pool = await asyncpg.create_pool(
            dsn,
            min_size=options.min_size,
            max_size=options.max_size,
            statement_cache_size=options.statement_cache_size,
            reset=_reset,
            # No idle-connection timer: asyncpg would arm (and cancel) a 300-s timer at
            # every release, one per query; a pool of a few connections may stay open.
            max_inactive_connection_lifetime=0,
        )
        try:
            async with pool.acquire() as conn:
                await _migrate(conn, upto)
                schema = await _version(conn)
        except BaseException:
            await pool.close()
            raise
        return cls(pool, schema)

    async def close(self) -> None:
        await self._pool.close()

    async def schema_version(self) -> int:
        async with self._pool.acquire() as conn:
            return await _version(conn)

    # --- games ------------------------------------------------------------------

    async def create_game(
        self,
        *,
        guild_id: int | None,
        channel_id: int,
        host_id: int,
        rules: str,
        state: dict[str, Any],
        deadline: datetime | None = None,
        now: datetime | None = None,
        day: date | None = None,
    ) -> GameRecord:
        """A new lobby (version 0); ChannelBusy if the channel has an active game. With
        `day`: the host's daily, in play at once; DailyTaken if they have that one."""
        check_ids(guild_id=guild_id, channel_id=channel_id, host_id=host_id)
        stamp, due, state_text = _now(now), _aware(deadline), _json(state)
        if day is not None:
            return await self._create_daily(guild_id, channel_id, host_id, rules, state_text,
                                            day, stamp)  # fmt: skip
        for _ in range(3):
            try:
                row = await self._pool.fetchrow(
                    "INSERT INTO games (guild_id, channel_id, host_id, rules, status, version,"
                    " state, created_at, updated_at, deadline)"
                    " VALUES ($1, $2, $3, $4, 'lobby', 0, $5::jsonb, $6, $6, $7) RETURNING *",
                    guild_id, channel_id, host_id, rules, state_text, stamp, due,
                )
            except asyncpg.UniqueViolationError as error:
                if error.constraint_name != _ONE_ACTIVE:
                    raise
                busy = await self._active_id(channel_id)
                if busy is not None:
                    raise ChannelBusy(busy) from None
                continue  # the other game ended meanwhile: the channel is free again
            assert row is not None
            return _record(row)
        raise RuntimeError(f"channel {channel_id} keeps being taken and freed")

    async def _create_daily(
        self,
        guild_id: int | None,
        channel_id: int,
        host_id: int,
        rules: str,
        state_text: str,
        day: date,
        stamp: datetime,
    ) -> GameRecord:
        if guild_id is None:
            raise ValueError("a daily is played in a server")
        if isinstance(day, datetime):
            raise TypeError("day must be a date")
        try:
            row = await self._pool.fetchrow(
                "INSERT INTO games (guild_id, channel_id, host_id, rules, status, version,"
                " state, created_at, updated_at, kind, day)"
                " VALUES ($1, $2, $3, $4, 'playing', 0, $5::jsonb, $6, $6, 'daily', $7)"
                " RETURNING *",
                guild_id, channel_id, host_id, rules, state_text, stamp, day,
            )
        except asyncpg.UniqueViolationError as error:
            if error.constraint_name != _ONE_DAILY:
                raise
            taken = await self.daily_game(host_id, rules, day)
            if taken is None:  # pragma: no cover - dailies are never deleted
                raise
            raise DailyTaken(taken.id) from None
        assert row is not None
        return _record(row)

    async def get_game(self, game_id: int) -> GameRecord | None:
        check_ids(game_id=game_id)
        row = await self._pool.fetchrow("SELECT * FROM games WHERE id = $1", game_id)
        return _record(row) if row else None

    async def daily_game(self, player_id: int, rules: str, day: date) -> GameRecord | None:
        check_ids(player_id=player_id)
        row = await self._pool.fetchrow(
            "SELECT * FROM games WHERE host_id = $1 AND rules = $2 AND day = $3"
            " AND kind = 'daily'",
            player_id, rules, day,
        )
        return _record(row) if row else None

    async def active_game(self, channel_id: int) -> GameRecord | None:
        check_ids(channel_id=channel_id)
        row = await self._pool.fetchrow(
            "SELECT * FROM games WHERE channel_id = $1 AND status IN ('lobby', 'playing')"
            " AND kind = 'table'",
            channel_id,
        )
        return _record(row) if row else None

    async def active_games(self, *, shards: Shards | None = None) -> list[GameRecord]:
        where, params = _shard_filter(shards, 1)
        rows = await self._pool.fetch(
            "SELECT * FROM games WHERE status IN ('lobby', 'playing') AND kind = 'table'"  # noqa: S608
            f"{where} ORDER BY id",
            *params,
        )
        return [_record(r) for r in rows]

    async def due_games(
        self, now: datetime, *, shards: Shards | None = None, limit: int = 100
    ) -> list[int]:
        """Read through games_due: the predicate repeats the index's literally, so the
        planner may use it (a parameter for the statuses would not match it)."""
        check_counts(limit=limit)
        _aware(now)
        where, params = _shard_filter(shards, 3)
        rows = await self._pool.fetch(
            "SELECT id FROM games WHERE deadline IS NOT NULL AND deadline <= $1"  # noqa: S608
            f" AND status IN ('lobby', 'playing'){where} ORDER BY deadline, id LIMIT $2",
            now, limit, *params,
        )
        return [int(r[0]) for r in rows]

    async def claim_due(
        self,
        now: datetime,
        *,
        lease: timedelta,
        shards: Shards | None = None,
        ids: Sequence[int] | None = None,
        limit: int = 100,
    ) -> list[int]:
        """One statement: the due rows are locked as they are found, and rows another
        process is claiming at that moment are skipped (SKIP LOCKED), never waited for; a
        claim that committed meanwhile is seen by the re-check of the locked row."""
        check_counts(limit=limit)
        _aware(now)
        if lease <= timedelta(0):
            raise ValueError("a claim's lease must be positive")
        params: list[Any] = [now, now + lease, limit]
        among = ""
        if ids is not None:
            for game_id in ids:
                check_ids(game_id=game_id)
            params.append(list(ids))
            among = f" AND id = ANY(${len(params)}::bigint[])"
        where, shard_params = _shard_filter(shards, len(params) + 1)
        params += shard_params
        rows = await self._pool.fetch(
            "UPDATE games SET claimed_until = $2, claimed_version = version"  # noqa: S608
            " WHERE id IN (SELECT id FROM games WHERE deadline IS NOT NULL AND deadline <= $1"
            " AND status IN ('lobby', 'playing') AND (claimed_until IS NULL"
            " OR claimed_until <= $1 OR claimed_version <> version)"
            f"{among}{where} ORDER BY deadline, id LIMIT $3 FOR UPDATE SKIP LOCKED)"
            " RETURNING id, deadline",
            *params,
        )
        return [int(r["id"]) for r in sorted(rows, key=lambda r: (r["deadline"], r["id"]))]

    async def active_versions(self, *, shards: Shards | None = None) -> dict[int, int]:
        where, params = _shard_filter(shards, 1)
        rows = await self._pool.fetch(
            "SELECT id, version FROM games WHERE status IN ('lobby', 'playing')"  # noqa: S608
            f"{where}",
            *params,
        )
        return {int(r["id"]): int(r["version"]) for r in rows}

    async def save(
        self,
        game_id: int,
        *,
        expect_version: int,
        state: dict[str, Any],
        status: str | None = None,
        actions: Sequence[tuple[int, dict[str, Any]]] = (),
        results: Sequence[SeatResult] = (),
        deadline: datetime | None = None,
        now: datetime | None = None,
        ratings: Sequence[RatingChange] = (),
    ) -> GameRecord:
        """Append `actions`, replace the snapshot and deadline, bump the version: one
        statement, so one transaction (a finish: one transaction of two statements, the
        finish and the ratings).

        The UPDATE writes only when the version matches, no action conflicts and results
        come with a finish; the inserts read the UPDATE's row, so a refused UPDATE writes
        nothing at all. The statement also returns what a refusal needs to be explained.
        """
        if status is not None and status not in STATUSES:
            raise ValueError(f"unknown status {status!r}")
        check_ids(game_id=game_id)
        check_counts(expect_version=expect_version)
        seqs, payloads = _unique_actions(game_id, actions)
        for r in results:
            check_ids(player_id=r.player_id)
        if ratings and not results:
            raise ValueError("ratings change only with a game's results")
        for c in ratings:
            check_counts(games=c.games)
            check_names(rules=c.rules)
        params: list[Any] = [
            game_id, expect_version, _json(state), status, _aware(deadline), _now(now),
            seqs, payloads,
        ]
        if results:
            params += [
                [r.seat for r in results],
                [r.player_id for r in results],
                [r.name for r in results],
                [r.is_bot for r in results],
                [r.total for r in results],
                [r.rank for r in results],
                [float(r.settlement) for r in results],
                [r.ev_loss for r in results],
            ]
        try:
            row = (
                await self._finish(game_id, params, results, ratings)
                if results
                else await self._pool.fetchrow(_SAVE_SQL, *params)
            )
        except asyncpg.UniqueViolationError as error:
            # Only a cancelled or finished game brought back to life in a channel that has
            # a new one can break the one-active-game index here.
            if error.constraint_name != _ONE_ACTIVE:
                raise
            busy = await self._pool.fetchval(
                "SELECT b.id FROM games g JOIN games b ON b.channel_id = g.channel_id"
                " AND b.status IN ('lobby', 'playing') AND b.kind = 'table' WHERE g.id = $1",
                game_id,
            )
            if busy is None:
                raise
            raise ChannelBusy(int(busy)) from None
        assert row is not None  # the statement always returns its one row
        if row["id"] is not None:
            return _record(row)
        stored = row["stored_version"]
        if stored is not None and stored == expect_version:
            if row["conflict_seq"] is not None:
                raise ActionConflict(game_id, row["conflict_seq"])
            # The version matched in the statement's snapshot, yet the UPDATE wrote nothing:
            # it waited for a save that committed meanwhile, or refused results without a
            # finish. Only a new statement sees the newer version.
            stored = await self._version(game_id)
        if stored is None:
            raise GameNotFound(game_id)
        if stored != expect_version:
            raise StaleVersion(game_id, expect_version, stored)
        raise ValueError("results are stored only when a game finishes")

    async def _finish(
        self,
        game_id: int,
        params: list[Any],
        results: Sequence[SeatResult],
        ratings: Sequence[RatingChange],
    ) -> Record:
        """The finishing save: the finish statement, then the ratings, in one transaction.
        The ratings' rows are locked first, in key order (two games finishing at once with
        the same players queue instead of deadlocking); a rating computed from an older
        one rolls everything back (StaleRating)."""
        async with self._pool.acquire() as conn, conn.transaction():
            if self._finish_sql is _FINISH_SQL:
                kind = await conn.fetchval("SELECT kind FROM games WHERE id = $1", game_id)
                if kind == "daily" and (len(results) != 1 or results[0].player_id is None):
                    raise ValueError("a daily has one seat, a member's")
            if ratings:
                await conn.execute(
                    "SELECT 1 FROM ratings r JOIN games g ON g.id = $1"
                    " AND r.guild_id = g.guild_id"
                    " JOIN unnest($2::text[], $3::bigint[]) AS k (rules, player_id)"
                    " ON r.rules = k.rules AND r.player_id = k.player_id"
                    " ORDER BY r.rules, r.player_id FOR UPDATE OF r",
                    game_id, [c.rules for c in ratings], [c.player_id for c in ratings],
                )
            row = await conn.fetchrow(self._finish_sql, *params)
            assert row is not None
            if row["id"] is None:
                return row  # nothing was written: the caller explains why
            if ratings:
                if row["guild_id"] is None or row.get("kind", "table") != "table":
                    raise ValueError("only a server's table games are rated")
                written = await conn.fetchval(
                    _RATE_SQL,
                    row["guild_id"],
                    [c.rules for c in ratings],
                    [c.player_id for c in ratings],
                    [c.mu for c in ratings],
                    [c.sigma for c in ratings],
                    [c.ordinal for c in ratings],
                    [c.games for c in ratings],
                    row["updated_at"],
                )
                if written != len(ratings):
                    raise StaleRating(game_id)
            return row

    async def save_messages(
        self,
        game_id: int,
        *,
        expect_version: int,
        state: dict[str, Any],
        now: datetime | None = None,
    ) -> GameRecord:
        """Replace the snapshot of a change already saved (a posted message's id), keeping
        the version: the message just posted carries it in its custom_ids."""
        check_ids(game_id=game_id)
        check_counts(expect_version=expect_version)
        row = await self._pool.fetchrow(
            "WITH saved AS (UPDATE games SET state = $3::jsonb, updated_at = $4"
            " WHERE id = $1 AND version = $2 RETURNING *)"
            " SELECT saved.*, (SELECT version FROM games WHERE id = $1) AS stored_version"
            " FROM (VALUES (1)) AS one LEFT JOIN saved ON true",
            game_id, expect_version, _json(state), _now(now),
        )
        assert row is not None
        if row["id"] is not None:
            return _record(row)
        stored = row["stored_version"]
        if stored == expect_version:  # a save committed while the UPDATE waited (see save)
            stored = await self._version(game_id)
        if stored is None:
            raise GameNotFound(game_id)
        raise StaleVersion(game_id, expect_version, stored)

    async def actions(self, game_id: int) -> list[dict[str, Any]]:
        check_ids(game_id=game_id)
        rows = await self._pool.fetch(
            "SELECT payload FROM actions WHERE game_id = $1 ORDER BY seq", game_id
        )
        return [json.loads(r[0]) for r in rows]

    # --- results, leaderboards, stats, history ------------------------------------

    async def results(self, game_id: int) -> list[StoredResult]:
        check_ids(game_id=game_id)
        rows = await self._pool.fetch(
            "SELECT * FROM results WHERE game_id = $1 ORDER BY seat", game_id
        )
        return [_result(r) for r in rows]

    async def record_analysis(self, game_id: int, losses: Mapping[int, float]) -> int:
        """Fill in ev_loss of the listed seats not analysed yet (a trigger keeps the
        standings); one statement."""
        if any(not value >= 0 for value in losses.values()):
            raise ValueError("points lost are never negative")
        check_ids(game_id=game_id)
        check_counts(**{f"seat {seat}": seat for seat in losses})
        written = await self._pool.fetchval(
            "WITH given AS (SELECT * FROM unnest($2::bigint[], $3::double precision[])"
            " AS g (seat, loss)),"
            " seats AS (UPDATE results SET ev_loss = given.loss FROM given"
            " WHERE results.game_id = $1 AND results.seat = given.seat"
            " AND results.ev_loss IS NULL RETURNING 1),"
            # a daily has one seat, 0
            " daily AS (UPDATE daily_results SET ev_loss = given.loss FROM given"
            " WHERE daily_results.game_id = $1 AND given.seat = 0"
            " AND daily_results.ev_loss IS NULL RETURNING 1)"
            " SELECT (SELECT count(*) FROM seats) + (SELECT count(*) FROM daily)",
            game_id, list(losses), [float(v) for v in losses.values()],
        )
        return int(written or 0)

    async def leaderboard(
        self,
        guild_id: int,
        *,
        metric: str = "wins",
        rules: str | None = None,
        page: int = 0,
        per_page: int = 10,
        member_id: int | None = None,
    ) -> BoardPage:
        """One page of the server's board, ranked in SQL (RANK(): 1, 2, 2, 4)."""
        if metric not in METRICS:
            raise ValueError(f"unknown metric {metric!r}")
        if per_page < 1:
            raise ValueError("per_page must be positive")
        check_ids(guild_id=guild_id, member_id=member_id)
        check_counts(per_page=per_page)
        sql = _BOARD_SQL[(metric, rules is not None)]
        scope: tuple[Any, ...] = (guild_id, rules) if rules is not None else (guild_id,)
        # Past the last page is clamped below; this bound only keeps the offsets in range.
        page = min(max(page, 0), ID_MAX // per_page - 1)
        async with self._pool.acquire() as conn:
            rows = await conn.fetch(sql, *scope, page * per_page, (page + 1) * per_page, member_id)
            if not any(r["pos"] > page * per_page for r in rows) and page > 0:
                # Past the last page (the board shrank since the button was drawn): the last.
                ranked = rows[0]["n"] if rows else await _board_size(conn, sql, scope)
                page = max(0, (ranked - 1) // per_page)
                rows = await conn.fetch(
                    sql, *scope, page * per_page, (page + 1) * per_page, member_id
                )
            ranked = rows[0]["n"] if rows else 0
            has_games = ranked > 0 or bool(
                await conn.fetchval(_ANY_SQL[(_SOURCE[metric], rules is not None)], *scope)
            )
        lines = [_line(r) for r in rows if page * per_page < r["pos"] <= (page + 1) * per_page]
        me = next((_line(r) for r in rows if r["player_id"] == member_id), None)
        return BoardPage(
            metric=metric,
            rules=rules,
            page=page,
            pages=max(1, -(-ranked // per_page)),
            ranked=ranked,
            lines=lines,
            me=me,
            has_games=has_games,
        )

    async def member_stats(self, guild_id: int, member_id: int) -> list[MemberStats]:
        """The member's totals over every rule set (first, rules None), then per rule set;
        empty when the member has played no game here."""
        check_ids(guild_id=guild_id, member_id=member_id)
        rows = await self._pool.fetch(_STATS_SQL, guild_id, member_id)
        return [
            MemberStats(
                rules=r["rules"],
                games=r["games"],
                wins=r["wins"],
                average=r["average"],
                best=r["best"],
                net=r["net"],
                skill=r["skill"],
                analysed=r["analysed"],
            )
            for r in rows
        ]

    async def recent_scores(
        self, guild_id: int, member_id: int, limit: int = 20
    ) -> list[StoredResult]:
        """The member's last `limit` results here, oldest first."""
        check_ids(guild_id=guild_id, member_id=member_id)
        check_counts(limit=limit)
        rows = await self._pool.fetch(
            "SELECT * FROM results WHERE guild_id = $1 AND player_id = $2 AND NOT is_bot"
            " ORDER BY finished_at DESC, game_id DESC LIMIT $3",
            guild_id, member_id, limit,
        )
        return [_result(r) for r in reversed(rows)]

    async def history(
        self, guild_id: int, *, limit: int = 10, offset: int = 0
    ) -> list[FinishedGame]:
        """The server's finished games, newest first, each with its seats' results (a
        finished game's results commit with its finish, so any game read has them)."""
        check_ids(guild_id=guild_id)
        check_counts(limit=limit, offset=offset)
        async with self._pool.acquire() as conn:
            games = await conn.fetch(
                "SELECT * FROM games WHERE guild_id = $1 AND status = 'finished'"
                " AND kind = 'table' ORDER BY updated_at DESC, id DESC LIMIT $2 OFFSET $3",
                guild_id, limit, offset,
            )
            ids = [g["id"] for g in games]
            seats = await conn.fetch(
                "SELECT * FROM results WHERE game_id = ANY($1::bigint[]) ORDER BY game_id, seat",
                ids,
            ) if ids else []
        by_game: dict[int, list[StoredResult]] = {i: [] for i in ids}
        for row in seats:
            by_game[row["game_id"]].append(_result(row))
        return [FinishedGame(_record(g), by_game[g["id"]]) for g in games]

    async def finished_count(self, guild_id: int) -> int:
        check_ids(guild_id=guild_id)
        count = await self._pool.fetchval(
            "SELECT count(*) FROM games WHERE guild_id = $1 AND status = 'finished'"
            " AND kind = 'table'",
            guild_id,
        )
        return int(count or 0)

    async def ratings(
        self, guild_id: int, players: Sequence[int], rules: Sequence[str] | None = None
    ) -> list[StoredRating]:
        check_ids(guild_id=guild_id)
        if rules is not None:
            check_names(**{f"rules {i}": r for i, r in enumerate(rules)})
        ids = [int(p) for p in players]
        if any(abs(p) > ID_MAX for p in ids):
            raise ValueError("a player id is out of range (0 to 2**63 - 1)")
        rows = await self._pool.fetch(
            "SELECT * FROM ratings WHERE guild_id = $1 AND player_id = ANY($2::bigint[])"
            " AND ($3::text[] IS NULL OR rules = ANY($3::text[]))"
            ' ORDER BY rules COLLATE "C", player_id',
            guild_id, ids, None if rules is None else list(rules),
        )
        return [stored_rating(r) for r in rows]

    # --- the daily dice ----------------------------------------------------------------

    async def daily_board(
        self,
        guild_id: int,
        rules: str,
        day: date,
        *,
        limit: int = 10,
        member_id: int | None = None,
    ) -> DailyBoard:
        """The first `limit` lines in the board index's order, their ranks from the lines
        themselves (the position of the first line with the same total), the member's own
        rank by counting those ahead: range scans however many played."""
        check_ids(guild_id=guild_id, member_id=member_id)
        check_counts(limit=limit)
        async with self._pool.acquire() as conn:
            top = await conn.fetch(
                "SELECT * FROM daily_results WHERE guild_id = $1 AND rules = $2 AND day = $3"
                " ORDER BY total DESC, player_id LIMIT $4",
                guild_id, rules, day, limit,
            )
            count = await conn.fetchval(
                "SELECT count(*) FROM daily_results"
                " WHERE guild_id = $1 AND rules = $2 AND day = $3",
                guild_id, rules, day,
            )
            mine = (
                await conn.fetchrow(_DAILY_ME_SQL, guild_id, rules, day, member_id)
                if member_id is not None
                else None
            )
        lines: list[DailyLine] = []
        for position, row in enumerate(top, 1):
            same = next((x for x in lines if x.total == row["total"]), None)
            lines.append(daily_line(row, same.rank if same else position, position))
        me = next((x for x in lines if x.player_id == member_id), None)
        if me is None and mine is not None:
            me = daily_line(mine, mine["ahead"] + 1, mine["before"] + 1)
        return DailyBoard(guild_id, rules, day, int(count or 0), lines, me)

    async def daily_stats(self, guild_id: int, member_id: int) -> list[DailyStats]:
        check_ids(guild_id=guild_id, member_id=member_id)
        rows = await self._pool.fetch(
            "SELECT s.rules, s.played, s.wins, s.best_streak,"
            " (SELECT max(total) FROM daily_results r WHERE r.guild_id = s.guild_id"
            "  AND r.player_id = s.player_id AND r.rules = s.rules) AS best"
            " FROM daily_standings s WHERE s.guild_id = $1 AND s.player_id = $2"
            ' ORDER BY s.rules COLLATE "C"',
            guild_id, member_id,
        )
        per_rules = [
            DailyStats(r["rules"], r["played"], r["wins"], r["best_streak"], r["best"])
            for r in rows
        ]
        if not per_rules:
            return []
        overall = DailyStats(
            None,
            sum(x.played for x in per_rules),
            sum(x.wins for x in per_rules),
            max(x.best_streak for x in per_rules),
            max(x.best for x in per_rules),
        )
        return [overall, *per_rules]

    async def daily_best(self, dice: str, rules: str, day: date) -> DailyBest | None:
        row = await self._pool.fetchrow(
            "SELECT score, exact FROM daily_best WHERE dice = $1 AND rules = $2 AND day = $3",
            dice, rules, day,
        )
        return DailyBest(int(row["score"]), bool(row["exact"])) if row else None

    async def put_daily_best(
        self, dice: str, rules: str, day: date, best: DailyBest, *, now: datetime | None = None
    ) -> None:
        await self._pool.execute(
            "INSERT INTO daily_best VALUES ($1, $2, $3, $4, $5, $6)"
            " ON CONFLICT (dice, rules, day) DO NOTHING",
            dice, rules, day, best.score, best.exact, _now(now),
        )

    async def deployment_secret(
        self, name: str, candidate: bytes, *, now: datetime | None = None
    ) -> bytes:
        """Insert-if-absent, then read: processes starting at once all get the first."""
        value = await self._pool.fetchval(
            "WITH made AS (INSERT INTO secrets VALUES ($1, $2, $3)"
            " ON CONFLICT (name) DO NOTHING RETURNING value)"
            " SELECT value FROM made UNION ALL SELECT value FROM secrets WHERE name = $1",
            name, bytes(candidate), _now(now),
        )
        if value is None:  # a concurrent first insert committed after our snapshot
            value = await self._pool.fetchval("SELECT value FROM secrets WHERE name = $1", name)
        assert value is not None
        return bytes(value)

    # --- per-server settings --------------------------------------------------------

    async def guild_settings(self, guild_id: int) -> GuildSettings:
        """Read from the table every time (see the module's docstring)."""
        check_ids(guild_id=guild_id)
        row = await self._pool.fetchrow(
            "SELECT * FROM guild_settings WHERE guild_id = $1", guild_id
        )
        return _settings(row) if row else GuildSettings(guild_id)

    async def update_settings(
        self, guild_id: int, changes: dict[str, Any], *, now: datetime | None = None
    ) -> GuildSettings:
        """Change some settings (the others keep their value); ValueError on a bad one.

        One upsert that names only the changed columns: two processes changing different
        settings of a new server at once both keep their change (a read-merge-write would
        let the second put back the first one's default)."""
        check_settings(changes)
        check_ids(guild_id=guild_id)
        names = [f for f in SETTINGS_FIELDS if f in changes]  # fixed names, never input
        columns = "".join(f", {n}" for n in names)
        values = "".join(f", ${i}" for i in range(3, len(names) + 3))
        updates = "".join(f"{n} = excluded.{n}, " for n in names)
        row = await self._pool.fetchrow(
            f"INSERT INTO guild_settings (guild_id, updated_at{columns})"  # noqa: S608
            f" VALUES ($1, $2{values}) ON CONFLICT (guild_id)"
            f" DO UPDATE SET {updates}updated_at = excluded.updated_at RETURNING *",
            guild_id, _now(now), *(changes[n] for n in names),
        )
        assert row is not None
        return _settings(row)

    async def _version(self, game_id: int) -> int | None:
        found = await self._pool.fetchval("SELECT version FROM games WHERE id = $1", game_id)
        return None if found is None else int(found)

    async def _active_id(self, channel_id: int) -> int | None:
        found = await self._pool.fetchval(
            "SELECT id FROM games WHERE channel_id = $1 AND status IN ('lobby', 'playing')"
            " AND kind = 'table'",
            channel_id,
        )
        return None if found is None else int(found)


def _unique_actions(
    game_id: int, actions: Sequence[tuple[int, dict[str, Any]]]
) -> tuple[list[int], list[str]]:
    """The actions as (seqs, JSON texts), a seq given twice kept once: the statement
    compares against the actions stored before it, not against its own rows. A seq given
    twice with different actions conflicts, as it does in SQLite."""
    seqs: list[int] = []
    payloads: list[str] = []
    given: dict[int, Any] = {}
    for seq, action in actions:
        check_counts(seq=seq)
        if seq in given:
            if given[seq] != action:
                raise ActionConflict(game_id, seq)
            continue
        given[seq] = action
        seqs.append(seq)
        payloads.append(_json(action))
    return seqs, payloads


# $1 game, $2 expected version, $3 state, $4 status (NULL: keep), $5 deadline, $6 now,
# $7 seqs, $8 payloads; the finish adds $9… the seats' columns.
# Every statement of a WITH sees the rows as they were before it: `conflict` compares with
# the actions already stored and `stored_version` is the version the UPDATE met. A
# concurrent save of the same game makes the UPDATE wait for its commit and then find a
# newer version: no row, nothing written.
_SAVE_HEAD = """
WITH given AS (
    SELECT g.seq, g.payload::jsonb AS payload, g.ord
    FROM unnest($7::bigint[], $8::text[]) WITH ORDINALITY AS g (seq, payload, ord)
),
conflict AS (
    SELECT given.seq FROM given
    JOIN actions ON actions.game_id = $1 AND actions.seq = given.seq
    WHERE actions.payload <> given.payload
    ORDER BY given.ord LIMIT 1
),
saved AS (
    UPDATE games SET state = $3::jsonb, status = COALESCE($4, status), deadline = $5,
        version = version + 1, updated_at = $6
    WHERE id = $1 AND version = $2 AND NOT EXISTS (SELECT FROM conflict) {finished}
    RETURNING *
),
logged AS (
    INSERT INTO actions (game_id, seq, payload, created_at)
    SELECT saved.id, given.seq, given.payload, $6 FROM saved, given
    ON CONFLICT (game_id, seq) DO NOTHING
){seated}
SELECT saved.*, (SELECT version FROM games WHERE id = $1) AS stored_version,
       (SELECT seq FROM conflict) AS conflict_seq
FROM (VALUES (1)) AS one LEFT JOIN saved ON true
"""

# Only with results: an INSERT into results fires the standings trigger (once per
# statement, even for no rows), which a plain save need not pay for. A daily's seat goes
# to daily_results instead, with its streak (the member's streak of the day before in this
# server and rule set, plus one: a primary-key lookup).
_SEAT = """,
seat AS (
    SELECT * FROM unnest($9::integer[], $10::bigint[], $11::text[], $12::boolean[],
                         $13::integer[], $14::integer[], $15::float8[], $16::float8[])
         AS s (seat, player_id, name, is_bot, total, rank, settlement, ev_loss)
),
seated AS (
    INSERT INTO results (game_id, seat, guild_id, rules, player_id, name, is_bot, total,
                         rank, settlement, ev_loss, duration_s, finished_at)
    SELECT saved.id, s.seat, saved.guild_id, saved.rules, s.player_id, s.name, s.is_bot,
           s.total, s.rank, s.settlement, s.ev_loss,
           GREATEST(0, EXTRACT(EPOCH FROM saved.updated_at - saved.created_at))::float8,
           saved.updated_at
    FROM saved, seat s{only_tables}
)"""
_DAILY_SEAT = """,
daily AS (
    INSERT INTO daily_results (day, rules, player_id, guild_id, game_id, name, total,
                               streak, ev_loss, finished_at)
    SELECT saved.day, saved.rules, s.player_id, saved.guild_id, saved.id, s.name, s.total,
           1 + COALESCE((SELECT d.streak FROM daily_results d
                         WHERE d.day = saved.day - 1 AND d.rules = saved.rules
                           AND d.player_id = s.player_id AND d.guild_id = saved.guild_id), 0),
           s.ev_loss, saved.updated_at
    FROM saved, seat s WHERE saved.kind = 'daily'
)"""
_SEATED = _SEAT.format(only_tables=" WHERE saved.kind = 'table'") + _DAILY_SEAT

# The ratings after a finish: each only over the one it was computed from (its `games`
# count; 0: none stored). $1 guild, $2… the changes' columns, $8 the time. Returns how
# many were written: fewer than given means one was stale.
_RATE_SQL = """
WITH given AS (
    SELECT * FROM unnest($2::text[], $3::bigint[], $4::float8[], $5::float8[], $6::float8[],
                         $7::integer[]) AS g (rules, player_id, mu, sigma, ordinal, games)
),
made AS (
    INSERT INTO ratings (guild_id, rules, player_id, mu, sigma, ordinal, games, updated_at)
    SELECT $1, rules, player_id, mu, sigma, ordinal, 1, $8 FROM given WHERE games = 0
    ON CONFLICT (guild_id, rules, player_id) DO NOTHING
    RETURNING 1
),
moved AS (
    UPDATE ratings r SET mu = g.mu, sigma = g.sigma, ordinal = g.ordinal,
        games = r.games + 1, updated_at = $8
    FROM given g
    WHERE r.guild_id = $1 AND r.rules = g.rules AND r.player_id = g.player_id
      AND g.games > 0 AND r.games = g.games
    RETURNING 1
)
SELECT (SELECT count(*) FROM made) + (SELECT count(*) FROM moved)
"""

_SAVE_SQL = _SAVE_HEAD.format(finished="", seated="")
_FINISH_SQL = _SAVE_HEAD.format(
    finished="AND COALESCE($4, status) = 'finished'", seated=_SEATED
)
_DAILY_SCHEMA = 6  # the migration that brought dailies (games.kind)
_FINISH_SQL_V5 = _SAVE_HEAD.format(
    finished="AND COALESCE($4, status) = 'finished'", seated=_SEAT.format(only_tables="")
)


# Where each metric is ranked from: the table games' running totals, the dailies', the
# ratings.
_SOURCE = dict.fromkeys(METRICS, "standings") | {"daily": "daily_standings", "rating": "ratings"}
_ANY_SQL = {
    (source, by_rules): f"SELECT EXISTS (SELECT FROM {source} WHERE guild_id = $1"  # noqa: S608
    + (" AND rules = $2" if by_rules else (" AND rules = '*'" if source == "ratings" else ""))
    + ")"
    for source in set(_SOURCE.values())
    for by_rules in (False, True)
}


def _named(first: int) -> str:
    return (
        " SELECT ranked.*, COALESCE(m.name, '') AS name FROM ranked"  # noqa: S608 - numbers
        " LEFT JOIN member_names m ON m.guild_id = $1 AND m.player_id = ranked.player_id"
        f" WHERE (pos > ${first} AND pos <= ${first + 1})"
        f" OR ranked.player_id = ${first + 2} ORDER BY pos"
    )


def _board_sql(metric: str, by_rules: bool) -> str:
    """The leaderboard query for one metric, over running totals (`standings`,
    `daily_standings`) or the ratings. Built once at import from fixed fragments (never
    from user input); every value is a parameter."""
    scope = "guild_id = $1 AND rules = $2" if by_rules else "guild_id = $1"
    first = 3 if by_rules else 2
    if metric == "daily":  # days won, then the longest streak; both tie for a shared rank
        return (
            "WITH agg AS (SELECT player_id, SUM(played) AS games, SUM(wins) AS wins,"  # noqa: S608
            f" MAX(best_streak) AS streak FROM daily_standings WHERE {scope}"
            " GROUP BY player_id),"
            " ranked AS (SELECT player_id, games, wins::float8 AS value,"
            " streak::float8 AS extra,"
            " RANK() OVER (ORDER BY wins DESC, streak DESC) AS rnk,"
            " ROW_NUMBER() OVER (ORDER BY wins DESC, streak DESC, player_id) AS pos,"
            " COUNT(*) OVER () AS n FROM agg)" + _named(first)
        )
    if metric == "rating":  # every rule set together is the '*' scope
        where = scope if by_rules else "guild_id = $1 AND rules = '*'"
        rounded = "ROUND(ordinal::numeric, 6)"
        return (
            "WITH ranked AS (SELECT player_id, games, ordinal AS value, sigma AS extra,"  # noqa: S608
            f" RANK() OVER (ORDER BY {rounded} DESC) AS rnk,"
            f" ROW_NUMBER() OVER (ORDER BY {rounded} DESC, player_id) AS pos,"
            f" COUNT(*) OVER () AS n FROM ratings WHERE {where})" + _named(first)
        )
    value, direction = {
        "wins": ("wins", "DESC"),
        # Rounded so float noise in sums of thirds cannot split a real tie (numeric: the
        # float8 round() takes no digits).
        "net": ("ROUND(net::numeric, 6)::float8", "DESC"),
        "average": ("average", "DESC"),
        "best": ("best", "DESC"),
        "skill": ("ROUND(skill::numeric, 6)::float8", "ASC"),
    }[metric]
    having = f" HAVING SUM(analysed) >= {SKILL_MIN_GAMES:d}" if metric == "skill" else ""
    return (
        "WITH agg AS (SELECT player_id, SUM(games) AS games, SUM(wins) AS wins,"  # noqa: S608
        " SUM(net) AS net, SUM(score_sum)::float8 / SUM(games) AS average,"
        " MAX(best) AS best, SUM(loss_sum) / NULLIF(SUM(analysed), 0) AS skill"
        f" FROM standings WHERE {scope} GROUP BY player_id{having}),"
        f" ranked AS (SELECT player_id, games, {value} AS value,"
        f" RANK() OVER (ORDER BY {value} {direction}) AS rnk,"
        f" ROW_NUMBER() OVER (ORDER BY {value} {direction}, player_id) AS pos,"
        " COUNT(*) OVER () AS n FROM agg)"
        " SELECT ranked.*, COALESCE(m.name, '') AS name FROM ranked"
        " LEFT JOIN member_names m ON m.guild_id = $1 AND m.player_id = ranked.player_id"
        f" WHERE (pos > ${first} AND pos <= ${first + 1})"
        f" OR ranked.player_id = ${first + 2} ORDER BY pos"
    )


_BOARD_SQL = {(m, r): _board_sql(m, r) for m in METRICS for r in (False, True)}

# Totals over every rule set first (rules NULL), then one row per rule set in byte order
# (as SQLite sorts; the database's collation might not).
_STATS_SQL = """
SELECT * FROM (
    SELECT NULL::text AS rules, count(*) AS games, count(*) FILTER (WHERE rank = 1) AS wins,
           avg(total)::float8 AS average, max(total) AS best, sum(settlement) AS net,
           avg(ev_loss) AS skill, count(ev_loss) AS analysed
    FROM results WHERE guild_id = $1 AND player_id = $2 AND NOT is_bot HAVING count(*) > 0
    UNION ALL
    SELECT rules, count(*), count(*) FILTER (WHERE rank = 1), avg(total)::float8, max(total),
           sum(settlement), avg(ev_loss), count(ev_loss)
    FROM results WHERE guild_id = $1 AND player_id = $2 AND NOT is_bot
    GROUP BY rules
) AS stats
ORDER BY rules IS NOT NULL, rules COLLATE "C"
"""


async def _board_size(conn: Connection, sql: str, scope: tuple[Any, ...]) -> int:
    rows = await conn.fetch(sql, *scope, 0, 1, None)
    return int(rows[0]["n"]) if rows else 0


def _line(row: Record) -> BoardLine:
    return BoardLine(
        rank=row["rnk"],
        position=row["pos"],
        player_id=row["player_id"],
        value=row["value"],
        games=row["games"],
        name=row["name"],
        extra=row.get("extra"),
    )


# The member's line of a day's board: counted in the board index's range (total DESC).
_DAILY_ME_SQL = """
SELECT r.*,
    (SELECT count(*) FROM daily_results b WHERE b.guild_id = r.guild_id AND b.rules = r.rules
     AND b.day = r.day AND b.total > r.total) AS ahead,
    (SELECT count(*) FROM daily_results b WHERE b.guild_id = r.guild_id AND b.rules = r.rules
     AND b.day = r.day AND (b.total > r.total OR (b.total = r.total AND b.player_id < r.player_id)))
     AS before
FROM daily_results r WHERE r.guild_id = $1 AND r.rules = $2 AND r.day = $3 AND r.player_id = $4
"""


def _record(row: Record) -> GameRecord:
    return GameRecord(
        id=row["id"],
        guild_id=row["guild_id"],
        channel_id=row["channel_id"],
        host_id=row["host_id"],
        rules=row["rules"],
        status=row["status"],
        version=row["version"],
        state=json.loads(row["state"]),
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        # (a database opened `upto` an older schema for an upgrade test has no column)
        deadline=row.get("deadline"),
        kind=row.get("kind", "table"),
        day=row.get("day"),
    )


def _result(row: Record) -> StoredResult:
    return StoredResult(
        game_id=row["game_id"],
        seat=row["seat"],
        guild_id=row["guild_id"],
        rules=row["rules"],
        player_id=row["player_id"],
        name=row["name"],
        is_bot=row["is_bot"],
        total=row["total"],
        rank=row["rank"],
        settlement=row["settlement"],
        ev_loss=row["ev_loss"],
        duration_s=row["duration_s"],
        finished_at=row["finished_at"],
    )


def _settings(row: Record) -> GuildSettings:
    return GuildSettings(
        guild_id=row["guild_id"],
        default_rules=row["default_rules"],
        turn_timeout=row["turn_timeout"],
        bots_allowed=row["bots_allowed"],
        hints_allowed=row["hints_allowed"],
        images=row["images"],
        language=row["language"],
        scorecards=row.get("scorecards", "turn"),
    )


async def _version(conn: Connection) -> int:
    exists = await conn.fetchval("SELECT to_regclass('schema_version') IS NOT NULL")
    if not exists:
        return 0
    return int(await conn.fetchval("SELECT COALESCE(max(version), 0) FROM schema_version"))


async def _migrate(conn: Connection, upto: int | None = None) -> None:
    """Apply every migration newer than the database, all in ONE transaction under an
    advisory lock: processes starting at once queue here and the later ones find nothing
    left to do; a failure leaves the database as it was."""
    known = migrations()
    async with conn.transaction():
        await conn.execute("SELECT pg_advisory_xact_lock($1)", _MIGRATION_LOCK)
        await conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_version ("
            " version integer PRIMARY KEY, name text NOT NULL,"
            " applied_at timestamptz NOT NULL DEFAULT now())"
        )
        current = await _version(conn)
        if current > len(known):
            raise RuntimeError(
                f"the database is at schema version {current}, newer than this code "
                f"({len(known)})"
            )
        for version, name, sql in known:
            if version <= current or (upto is not None and version > upto):
                continue
            log.info("applying migration %s", name)
            await conn.execute(sql)  # no parameters: the simple protocol, many statements
            step = _DATA_STEPS.get(name)
            if step is not None:  # data the SQL cannot compute, in the same transaction
                await step(conn)
            await conn.execute(
                "INSERT INTO schema_version (version, name) VALUES ($1, $2)", version, name
            )


async def _rate_results(conn: Connection) -> None:
    """V7: rate the results stored before ratings existed, game by game in the order they
    finished, exactly as a finish now does (db/ratings.py)."""
    rows = await conn.fetch(
        "SELECT r.game_id, r.guild_id, r.rules, r.seat, r.player_id, r.is_bot, r.rank,"
        " CASE WHEN r.is_bot THEN g.state END AS state"
        " FROM results r JOIN games g ON g.id = r.game_id WHERE r.guild_id IS NOT NULL"
        " ORDER BY r.finished_at, r.game_id, r.seat"
    )
    games: list[HistoricGame] = []
    for _, seats in itertools.groupby(rows, key=lambda r: r["game_id"]):
        seated = list(seats)
        state: dict[str, Any] = next(
            (json.loads(r["state"]) for r in seated if r["state"]), {}
        )
        players = historic_ids(state, [(r["seat"], r["player_id"], r["is_bot"]) for r in seated])
        first = seated[0]
        games.append(
            HistoricGame(first["guild_id"], first["rules"], players, [r["rank"] for r in seated])
        )
    rated = rate_history(games)
    if rated:
        await conn.executemany(
            "INSERT INTO ratings VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
            [
                (guild, r.rules, r.player_id, r.mu, r.sigma, r.ordinal, r.games, _now(None))
                for guild, r in rated
            ],
        )


_DATA_STEPS: dict[str, Callable[[Connection], Awaitable[None]]] = {
    "V7__ratings.sql": _rate_results,
}
