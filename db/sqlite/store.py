"""The SQLite store: one aiosqlite connection, WAL, every write in one explicit transaction.

The embedded default (`sqlite:///data/dicepoker.sqlite3`): one process owns the file, so
the server settings are cached here and every read sees this process's own writes.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any, Self, TypeVar, cast

import aiosqlite

from db.ratings import HistoricGame, historic_ids, rate_history
from db.rows import daily_line, stored_rating
from db.rows import migrations as shipped_migrations
from db.store import (
    ACTIVE_STATUSES,
    ID_MAX,
    METRICS,
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
T = TypeVar("T")

# Fixed width, so text order is time order (isoformat drops zero microseconds).
_TIME_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"


def migrations() -> list[tuple[int, str, str]]:
    """(version, file name, SQL) of every migration shipped in this dialect's migrations/."""
    return shipped_migrations(__package__ or "db.sqlite")


def _stamp(moment: datetime | None) -> str | None:
    return None if moment is None else to_text(moment)


def _shard_params(shards: Shards | None) -> tuple[int, str]:
    """(count, JSON list of ids) for the shard filter; count 1 and [0] hold every guild."""
    if shards is None:
        return 1, "[0]"
    return shards.count, json.dumps(sorted(shards.ids))


# A guild's shard, as Discord computes it; games outside a guild are on shard 0.
_ON_SHARDS = "(COALESCE(guild_id, 0) >> 22) % ? IN (SELECT value FROM json_each(?))"


def to_text(moment: datetime) -> str:
    if moment.tzinfo is None:
        raise ValueError("times must be timezone-aware")
    return moment.astimezone(UTC).strftime(_TIME_FORMAT)


def from_text(text: str) -> datetime:
    return datetime.strptime(text, _TIME_FORMAT).replace(tzinfo=UTC)


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def _utcnow() -> datetime:
    return datetime.now(UTC)


class SqliteStore:
    """The default store. Use `await SqliteStore.open(path)`; `":memory:"` works too."""

    def __init__(self, conn: aiosqlite.Connection) -> None:
        self._conn = conn
        # One connection is shared by every coroutine: a transaction must not interleave
        # with another coroutine's statements, and reads must not see a half-done write.
        self._lock = asyncio.Lock()
        # Settings are read on every turn (timer, pictures) and written only through
        # `update_settings` of this store (one process owns the file): cache them.
        self._settings: dict[int, GuildSettings] = {}

    # --- life cycle -------------------------------------------------------------

    @classmethod
    async def open(cls, path: str | Path, *, upto: int | None = None) -> Self:
        """Open (creating the folder and file) and migrate; `upto` stops at an older
        schema version (for tests of upgrades)."""
        if str(path) != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        # isolation_level=None: no implicit transactions; we issue BEGIN ourselves.
        conn = await aiosqlite.connect(str(path), isolation_level=None)
        try:
            conn.row_factory = aiosqlite.Row
            await _run(conn, "PRAGMA journal_mode = WAL")
            await _run(conn, "PRAGMA foreign_keys = ON")
            await _run(conn, "PRAGMA synchronous = FULL")
            await _run(conn, "PRAGMA busy_timeout = 5000")
            await _migrate(conn, upto)
        except BaseException:
            await conn.close()
            raise
        return cls(conn)

    async def close(self) -> None:
        async with self._lock:
            await self._conn.close()

    async def schema_version(self) -> int:
        async with self._lock:
            return await _user_version(self._conn)

    @asynccontextmanager
    async def _transaction(self) -> AsyncIterator[aiosqlite.Connection]:
        """BEGIN IMMEDIATE … COMMIT under the lock; ROLLBACK on any error."""
        async with self._lock:
            await _run(self._conn, "BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                await _run(self._conn, "ROLLBACK")
                raise
            await _run(self._conn, "COMMIT")

    async def _fetchone(self, sql: str, params: Sequence[Any] = ()) -> aiosqlite.Row | None:
        rows = await self._fetchall(sql, params)
        return rows[0] if rows else None

    async def _fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[aiosqlite.Row]:
        # One trip to the connection's thread (execute + fetch + close would be three):
        # every click reads a setting or two, and each trip costs ~0.1 ms of loop time.
        async with self._lock:
            return list(await self._conn.execute_fetchall(sql, params))

    async def _in_thread(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """Run `work` on the connection's own thread in ONE trip, under the lock.

        aiosqlite sends every statement (and every cursor close) to its thread separately;
        a save was nine trips, ~1 ms of the click, when its fsync alone takes ~0.25 ms.
        `_execute` is aiosqlite's own way of queueing a call on that thread (private but
        what all its methods use); the sqlite3 connection is only ever touched there.
        """
        conn = self._conn
        async with self._lock:
            result = await conn._execute(lambda: work(conn._conn))  # type: ignore[no-untyped-call]
        return cast(T, result)

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
        stamp = to_text(now or _utcnow())
        due = _stamp(deadline)
        if day is not None:
            return await self._create_daily(guild_id, channel_id, host_id, rules, state, day, stamp)
        async with self._transaction() as conn:
            try:
                cur = await conn.execute(
                    "INSERT INTO games (guild_id, channel_id, host_id, rules, status, version,"
                    " state, created_at, updated_at, deadline)"
                    " VALUES (?, ?, ?, ?, 'lobby', 0, ?, ?, ?, ?) RETURNING *",
                    (guild_id, channel_id, host_id, rules, _json(state), stamp, stamp, due),
                )
                row = await cur.fetchone()
                await cur.close()
            except sqlite3.IntegrityError:
                busy = await _active_id(conn, channel_id)
                if busy is None:
                    raise
                raise ChannelBusy(busy) from None
        assert row is not None
        return _record(row)

    async def _create_daily(
        self,
        guild_id: int | None,
        channel_id: int,
        host_id: int,
        rules: str,
        state: dict[str, Any],
        day: date,
        stamp: str,
    ) -> GameRecord:
        if guild_id is None:
            raise ValueError("a daily is played in a server")
        if isinstance(day, datetime):
            raise TypeError("day must be a date")
        async with self._transaction() as conn:
            try:
                cur = await conn.execute(
                    "INSERT INTO games (guild_id, channel_id, host_id, rules, status, version,"
                    " state, created_at, updated_at, kind, day)"
                    " VALUES (?, ?, ?, ?, 'playing', 0, ?, ?, ?, 'daily', ?) RETURNING *",
                    (guild_id, channel_id, host_id, rules, _json(state), stamp, stamp,
                     day.isoformat()),
                )  # fmt: skip
                row = await cur.fetchone()
                await cur.close()
            except sqlite3.IntegrityError:
                taken = await _all(
                    conn,
                    "SELECT id FROM games WHERE host_id = ? AND rules = ? AND day = ?"
                    " AND kind = 'daily'",
                    (host_id, rules, day.isoformat()),
                )
                if not taken:
                    raise
                raise DailyTaken(int(taken[0][0])) from None
        assert row is not None
        return _record(row)

    async def get_game(self, game_id: int) -> GameRecord | None:
        check_ids(game_id=game_id)
        row = await self._fetchone("SELECT * FROM games WHERE id = ?", (game_id,))
        return _record(row) if row else None

    async def daily_game(self, player_id: int, rules: str, day: date) -> GameRecord | None:
        check_ids(player_id=player_id)
        row = await self._fetchone(
            "SELECT * FROM games WHERE host_id = ? AND rules = ? AND day = ? AND kind = 'daily'",
            (player_id, rules, day.isoformat()),
        )
        return _record(row) if row else None

    async def active_game(self, channel_id: int) -> GameRecord | None:
        check_ids(channel_id=channel_id)
        row = await self._fetchone(
            "SELECT * FROM games WHERE channel_id = ? AND status IN ('lobby', 'playing')"
            " AND kind = 'table'",
            (channel_id,),
        )
        return _record(row) if row else None

    async def active_games(self, *, shards: Shards | None = None) -> list[GameRecord]:
        rows = await self._fetchall(
            "SELECT * FROM games WHERE status IN ('lobby', 'playing') AND kind = 'table'"  # noqa: S608
            f" AND {_ON_SHARDS} ORDER BY id",
            _shard_params(shards),
        )
        return [_record(r) for r in rows]

    async def due_games(
        self, now: datetime, *, shards: Shards | None = None, limit: int = 100
    ) -> list[int]:
        check_counts(limit=limit)
        rows = await self._fetchall(
            "SELECT id FROM games WHERE deadline IS NOT NULL AND deadline <= ?"  # noqa: S608
            f" AND status IN ('lobby', 'playing') AND {_ON_SHARDS} ORDER BY deadline, id"
            " LIMIT ?",
            (to_text(now), *_shard_params(shards), limit),
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
        """One write transaction (BEGIN IMMEDIATE serialises claimers). Like
        `save_messages`, at synchronous=NORMAL: a claim lost to an OS crash only lets the
        timer act again, which the version check makes harmless."""
        check_counts(limit=limit)
        if lease <= timedelta(0):
            raise ValueError("a claim's lease must be positive")
        stamp, until = to_text(now), to_text(now + lease)
        among = ""
        chosen: tuple[str, ...] = ()
        if ids is not None:
            for game_id in ids:
                check_ids(game_id=game_id)
            among, chosen = " AND id IN (SELECT value FROM json_each(?))", (json.dumps(list(ids)),)
        sql = (
            "UPDATE games SET claimed_until = ?, claimed_version = version"  # noqa: S608
            " WHERE id IN (SELECT id FROM games WHERE deadline IS NOT NULL AND deadline <= ?"
            " AND status IN ('lobby', 'playing') AND (claimed_until IS NULL"
            " OR claimed_until <= ? OR claimed_version <> version)"
            f"{among} AND {_ON_SHARDS} ORDER BY deadline, id LIMIT ?) RETURNING id, deadline"
        )
        params = (until, stamp, stamp, *chosen, *_shard_params(shards), limit)

        def claim(conn: sqlite3.Connection) -> list[tuple[str, int]]:
            conn.execute("PRAGMA synchronous = NORMAL")
            try:
                conn.execute("BEGIN IMMEDIATE")
                try:
                    rows = [(r[1], int(r[0])) for r in conn.execute(sql, params).fetchall()]
                except BaseException:
                    conn.execute("ROLLBACK")
                    raise
                conn.execute("COMMIT")
            finally:
                conn.execute("PRAGMA synchronous = FULL")
            return rows

        return [game_id for _, game_id in sorted(await self._in_thread(claim))]

    async def active_versions(self, *, shards: Shards | None = None) -> dict[int, int]:
        rows = await self._fetchall(
            "SELECT id, version FROM games WHERE status IN ('lobby', 'playing')"  # noqa: S608
            f" AND {_ON_SHARDS}",
            _shard_params(shards),
        )
        return {int(r[0]): int(r[1]) for r in rows}

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
        transaction.

        StaleVersion (nothing written) unless the stored version is `expect_version`;
        re-appending an identical (seq, action) is a no-op, a different one ActionConflict.
        `results` (one per seat) may only come with the game's finish, in the same save,
        and `ratings` only with results: StaleRating (nothing written) if one was computed
        from a rating that is not the stored one any more.
        """
        if status is not None and status not in STATUSES:
            raise ValueError(f"unknown status {status!r}")
        check_ids(game_id=game_id)
        check_counts(expect_version=expect_version)
        for seq, _ in actions:
            check_counts(seq=seq)
        for r in results:
            check_ids(player_id=r.player_id)
        if ratings and not results:
            raise ValueError("ratings change only with a game's results")
        for c in ratings:
            check_counts(games=c.games)
            check_names(rules=c.rules)
        moment = now or _utcnow()
        change = _Change(
            state=_json(state),
            status=status,
            payloads=[(seq, _json(action)) for seq, action in actions],
            results=results,
            deadline=_stamp(deadline),
            moment=moment,
            stamp=to_text(moment),
            ratings=ratings,
        )

        def write(conn: sqlite3.Connection) -> GameRecord:
            conn.execute("BEGIN IMMEDIATE")
            try:
                record = _save(conn, game_id, expect_version, change)
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
            return record

        return await self._in_thread(write)

    async def save_messages(
        self,
        game_id: int,
        *,
        expect_version: int,
        state: dict[str, Any],
        now: datetime | None = None,
    ) -> GameRecord:
        """Replace the snapshot of a change already saved (a posted message's id), keeping
        the version: the message just posted carries it in its custom_ids.

        Its transaction runs with synchronous=NORMAL: in WAL mode it survives the process
        dying (the WAL is written before COMMIT returns) and is only at risk from an OS
        crash until the next `save`, whose fsync writes it too. What could be lost is a
        message id, never a player's action; the bot finds its messages again.
        """
        check_ids(game_id=game_id)
        check_counts(expect_version=expect_version)
        moment = now or _utcnow()
        stamp = to_text(moment)
        state_text = _json(state)

        def write(conn: sqlite3.Connection) -> GameRecord:
            conn.execute("PRAGMA synchronous = NORMAL")
            try:
                conn.execute("BEGIN IMMEDIATE")
                try:
                    record = _save_messages(conn, game_id, expect_version, state_text, stamp)
                except BaseException:
                    conn.execute("ROLLBACK")
                    raise
                conn.execute("COMMIT")
            finally:
                conn.execute("PRAGMA synchronous = FULL")
            return record

        return await self._in_thread(write)

    async def actions(self, game_id: int) -> list[dict[str, Any]]:
        check_ids(game_id=game_id)
        rows = await self._fetchall(
            "SELECT payload FROM actions WHERE game_id = ? ORDER BY seq", (game_id,)
        )
        return [json.loads(r[0]) for r in rows]

    # --- results, leaderboards, stats, history ------------------------------------

    async def results(self, game_id: int) -> list[StoredResult]:
        check_ids(game_id=game_id)
        rows = await self._fetchall(
            "SELECT * FROM results WHERE game_id = ? ORDER BY seat", (game_id,)
        )
        return [_result(r) for r in rows]

    async def record_analysis(self, game_id: int, losses: Mapping[int, float]) -> int:
        """Fill in ev_loss of the listed seats not analysed yet (a trigger keeps the
        standings); one transaction."""
        if any(not value >= 0 for value in losses.values()):
            raise ValueError("points lost are never negative")
        check_ids(game_id=game_id)
        check_counts(**{f"seat {seat}": seat for seat in losses})
        rows = [(float(v), game_id, seat) for seat, v in losses.items()]

        def write(conn: sqlite3.Connection) -> int:
            conn.execute("BEGIN IMMEDIATE")
            try:
                changed = sum(
                    conn.execute(
                        "UPDATE results SET ev_loss = ?"
                        " WHERE game_id = ? AND seat = ? AND ev_loss IS NULL",
                        row,
                    ).rowcount
                    for row in rows
                )
                changed += sum(  # a daily has one seat, 0
                    conn.execute(
                        "UPDATE daily_results SET ev_loss = ?"
                        " WHERE game_id = ? AND ? = 0 AND ev_loss IS NULL",
                        row,
                    ).rowcount
                    for row in rows
                )
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
            return changed

        return await self._in_thread(write)

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
        scope = (guild_id, rules) if rules is not None else (guild_id,)
        # Past the last page is clamped below; this bound only keeps the offsets in range.
        page = min(max(page, 0), ID_MAX // per_page - 1)
        async with self._lock:
            rows = await _all(
                self._conn,
                sql,
                (*scope, guild_id, page * per_page, (page + 1) * per_page, member_id),
            )
            if not any(r["pos"] > page * per_page for r in rows) and page > 0:
                # Past the last page (the board shrank since the button was drawn): the last.
                ranked = rows[0]["n"] if rows else await _board_size(self._conn, sql, scope)
                page = max(0, (ranked - 1) // per_page)
                rows = await _all(
                    self._conn,
                    sql,
                    (*scope, guild_id, page * per_page, (page + 1) * per_page, member_id),
                )
            ranked = rows[0]["n"] if rows else 0
            has_games = ranked > 0 or bool(
                await _all(self._conn, _ANY_SQL[(_SOURCE[metric], rules is not None)], scope)
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
        rows = await self._fetchall(_STATS_SQL, (guild_id, member_id, guild_id, member_id))
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
        rows = await self._fetchall(
            "SELECT * FROM results WHERE guild_id = ? AND player_id = ? AND is_bot = 0"
            " ORDER BY finished_at DESC, game_id DESC LIMIT ?",
            (guild_id, member_id, limit),
        )
        return [_result(r) for r in reversed(rows)]

    async def history(
        self, guild_id: int, *, limit: int = 10, offset: int = 0
    ) -> list[FinishedGame]:
        """The server's finished games, newest first, each with its seats' results."""
        check_ids(guild_id=guild_id)
        check_counts(limit=limit, offset=offset)
        async with self._lock:
            games = await _all(
                self._conn,
                "SELECT * FROM games WHERE guild_id = ? AND status = 'finished'"
                " AND kind = 'table' ORDER BY updated_at DESC, id DESC LIMIT ? OFFSET ?",
                (guild_id, limit, offset),
            )
            ids = [g["id"] for g in games]
            seats = await _all(
                self._conn,
                "SELECT * FROM results WHERE game_id IN (SELECT value FROM json_each(?))"
                " ORDER BY game_id, seat",
                (json.dumps(ids),),
            )
        by_game: dict[int, list[StoredResult]] = {i: [] for i in ids}
        for row in seats:
            by_game[row["game_id"]].append(_result(row))
        return [FinishedGame(_record(g), by_game[g["id"]]) for g in games]

    async def finished_count(self, guild_id: int) -> int:
        check_ids(guild_id=guild_id)
        row = await self._fetchone(
            "SELECT COUNT(*) FROM games WHERE guild_id = ? AND status = 'finished'"
            " AND kind = 'table'",
            (guild_id,),
        )
        return int(row[0]) if row else 0

    async def ratings(
        self, guild_id: int, players: Sequence[int], rules: Sequence[str] | None = None
    ) -> list[StoredRating]:
        check_ids(guild_id=guild_id)
        if rules is not None:
            check_names(**{f"rules {i}": r for i, r in enumerate(rules)})
        ids = [int(p) for p in players]
        if any(abs(p) > ID_MAX for p in ids):
            raise ValueError("a player id is out of range (0 to 2**63 - 1)")
        sql = (
            "SELECT * FROM ratings WHERE guild_id = ?"
            " AND player_id IN (SELECT value FROM json_each(?))"
        )
        params: list[Any] = [guild_id, json.dumps(ids)]
        if rules is not None:
            sql += " AND rules IN (SELECT value FROM json_each(?))"
            params.append(json.dumps(list(rules)))
        rows = await self._fetchall(sql + " ORDER BY rules, player_id", params)
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
        """The first `limit` lines in the board index's order (a range scan however many
        played), their ranks from the lines themselves (a line's rank is the position of
        the first line with its total), the member's own rank by counting those ahead."""
        check_ids(guild_id=guild_id, member_id=member_id)
        check_counts(limit=limit)
        key = (guild_id, rules, day.isoformat())
        async with self._lock:
            top = await _all(
                self._conn,
                "SELECT * FROM daily_results WHERE guild_id = ? AND rules = ? AND day = ?"
                " ORDER BY total DESC, player_id LIMIT ?",
                (*key, limit),
            )
            count = await _all(
                self._conn,
                "SELECT COUNT(*) FROM daily_results WHERE guild_id = ? AND rules = ? AND day = ?",
                key,
            )
            mine = (
                await _all(self._conn, _DAILY_ME_SQL, (*key, member_id))
                if member_id is not None
                else []
            )
        lines: list[DailyLine] = []
        for position, row in enumerate(top, 1):
            same = next((x for x in lines if x.total == row["total"]), None)
            lines.append(daily_line(row, same.rank if same else position, position))
        me = next((x for x in lines if x.player_id == member_id), None)
        if me is None and mine:
            row = mine[0]
            me = daily_line(row, row["ahead"] + 1, row["before"] + 1)
        return DailyBoard(guild_id, rules, day, int(count[0][0]), lines, me)

    async def daily_stats(self, guild_id: int, member_id: int) -> list[DailyStats]:
        check_ids(guild_id=guild_id, member_id=member_id)
        async with self._lock:
            rows = await _all(
                self._conn,
                "SELECT s.rules, s.played, s.wins, s.best_streak,"
                " (SELECT MAX(total) FROM daily_results r WHERE r.guild_id = s.guild_id"
                "  AND r.player_id = s.player_id AND r.rules = s.rules) AS best"
                " FROM daily_standings s WHERE s.guild_id = ? AND s.player_id = ?"
                " ORDER BY s.rules",
                (guild_id, member_id),
            )
        return _daily_stats(
            [
                DailyStats(r["rules"], r["played"], r["wins"], r["best_streak"], r["best"])
                for r in rows
            ]
        )

    async def daily_best(self, dice: str, rules: str, day: date) -> DailyBest | None:
        row = await self._fetchone(
            "SELECT score, exact FROM daily_best WHERE dice = ? AND rules = ? AND day = ?",
            (dice, rules, day.isoformat()),
        )
        return DailyBest(int(row[0]), bool(row[1])) if row else None

    async def put_daily_best(
        self, dice: str, rules: str, day: date, best: DailyBest, *, now: datetime | None = None
    ) -> None:
        async with self._transaction() as conn:
            await _run(
                conn,
                "INSERT INTO daily_best VALUES (?, ?, ?, ?, ?, ?)"
                " ON CONFLICT (dice, rules, day) DO NOTHING",
                (dice, rules, day.isoformat(), best.score, int(best.exact),
                 to_text(now or _utcnow())),
            )  # fmt: skip

    async def deployment_secret(
        self, name: str, candidate: bytes, *, now: datetime | None = None
    ) -> bytes:
        async with self._transaction() as conn:
            await _run(
                conn,
                "INSERT INTO secrets VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING",
                (name, bytes(candidate), to_text(now or _utcnow())),
            )
            rows = await _all(conn, "SELECT value FROM secrets WHERE name = ?", (name,))
        return bytes(rows[0][0])

    # --- per-server settings --------------------------------------------------------

    async def guild_settings(self, guild_id: int) -> GuildSettings:
        check_ids(guild_id=guild_id)
        cached = self._settings.get(guild_id)
        if cached is not None:
            return cached
        row = await self._fetchone("SELECT * FROM guild_settings WHERE guild_id = ?", (guild_id,))
        # No await between the read (under the lock) and here: an update cannot slip in.
        found = self._settings[guild_id] = _settings(row) if row else GuildSettings(guild_id)
        return found

    async def update_settings(
        self, guild_id: int, changes: dict[str, Any], *, now: datetime | None = None
    ) -> GuildSettings:
        """Change some settings (the others keep their value); ValueError on a bad one."""
        check_settings(changes)
        check_ids(guild_id=guild_id)
        stamp = to_text(now or _utcnow())
        async with self._transaction() as conn:
            rows = await _all(conn, "SELECT * FROM guild_settings WHERE guild_id = ?", (guild_id,))
            current = _settings(rows[0]) if rows else GuildSettings(guild_id)
            merged = replace(current, **changes)
            await _run(
                conn,
                "INSERT INTO guild_settings (guild_id, default_rules, turn_timeout, bots_allowed,"
                " hints_allowed, images, language, scorecards, updated_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
                " ON CONFLICT (guild_id) DO UPDATE SET default_rules = excluded.default_rules,"
                " turn_timeout = excluded.turn_timeout, bots_allowed = excluded.bots_allowed,"
                " hints_allowed = excluded.hints_allowed, images = excluded.images,"
                " language = excluded.language, scorecards = excluded.scorecards,"
                " updated_at = excluded.updated_at",
                (
                    guild_id,
                    merged.default_rules,
                    merged.turn_timeout,
                    int(merged.bots_allowed),
                    int(merged.hints_allowed),
                    int(merged.images),
                    merged.language,
                    merged.scorecards,
                    stamp,
                ),
            )
        self._settings[guild_id] = merged  # committed: from now on the reads see it
        return merged


# Where each metric is ranked from: the table games' running totals, the dailies', the
# ratings.
_SOURCE = dict.fromkeys(METRICS, "standings") | {"daily": "daily_standings", "rating": "ratings"}
_ANY_SQL = {
    (source, by_rules): f"SELECT 1 FROM {source} WHERE guild_id = ?"  # noqa: S608 - fixed
    + (" AND rules = ?" if by_rules else (" AND rules = '*'" if source == "ratings" else ""))
    + " LIMIT 1"
    for source in set(_SOURCE.values())
    for by_rules in (False, True)
}
_NAMED = (
    " SELECT ranked.*, COALESCE(m.name, '') AS name FROM ranked"
    " LEFT JOIN member_names m ON m.guild_id = ? AND m.player_id = ranked.player_id"
    " WHERE (pos > ? AND pos <= ?) OR ranked.player_id IS ? ORDER BY pos"
)


def _board_sql(metric: str, by_rules: bool) -> str:
    """The leaderboard query for one metric, over running totals (`standings`,
    `daily_standings`) or the ratings. Built once at import from fixed fragments (never
    from user input); every value is a parameter."""
    scope = "guild_id = ? AND rules = ?" if by_rules else "guild_id = ?"
    if metric == "daily":  # days won, then the longest streak; both tie for a shared rank
        return (
            "WITH agg AS (SELECT player_id, SUM(played) AS games, SUM(wins) AS wins,"  # noqa: S608
            f" MAX(best_streak) AS streak FROM daily_standings WHERE {scope}"
            " GROUP BY player_id),"
            " ranked AS (SELECT player_id, games, wins AS value, streak AS extra,"
            " RANK() OVER (ORDER BY wins DESC, streak DESC) AS rnk,"
            " ROW_NUMBER() OVER (ORDER BY wins DESC, streak DESC, player_id) AS pos,"
            " COUNT(*) OVER () AS n FROM agg)" + _NAMED
        )
    if metric == "rating":  # every rule set together is the '*' scope
        where = scope if by_rules else "guild_id = ? AND rules = '*'"
        return (
            "WITH ranked AS (SELECT player_id, games, ordinal AS value, sigma AS extra,"  # noqa: S608
            " RANK() OVER (ORDER BY ROUND(ordinal, 6) DESC) AS rnk,"
            " ROW_NUMBER() OVER (ORDER BY ROUND(ordinal, 6) DESC, player_id) AS pos,"
            f" COUNT(*) OVER () AS n FROM ratings WHERE {where})" + _NAMED
        )
    value, direction = {
        "wins": ("wins", "DESC"),
        # Rounded so float noise in sums of thirds cannot split a real tie.
        "net": ("ROUND(net, 6)", "DESC"),
        "average": ("average", "DESC"),
        "best": ("best", "DESC"),
        "skill": ("ROUND(skill, 6)", "ASC"),
    }[metric]
    having = f" HAVING SUM(analysed) >= {SKILL_MIN_GAMES:d}" if metric == "skill" else ""
    return (
        "WITH agg AS (SELECT player_id, SUM(games) AS games, SUM(wins) AS wins,"  # noqa: S608
        " SUM(net) AS net, CAST(SUM(score_sum) AS REAL) / SUM(games) AS average,"
        " MAX(best) AS best, SUM(loss_sum) / NULLIF(SUM(analysed), 0) AS skill"
        f" FROM standings WHERE {scope} GROUP BY player_id{having}),"
        f" ranked AS (SELECT player_id, games, {value} AS value,"
        f" RANK() OVER (ORDER BY {value} {direction}) AS rnk,"
        f" ROW_NUMBER() OVER (ORDER BY {value} {direction}, player_id) AS pos,"
        " COUNT(*) OVER () AS n FROM agg)"
        " SELECT ranked.*, COALESCE(m.name, '') AS name FROM ranked"
        " LEFT JOIN member_names m ON m.guild_id = ? AND m.player_id = ranked.player_id"
        " WHERE (pos > ? AND pos <= ?) OR ranked.player_id IS ? ORDER BY pos"
    )


_BOARD_SQL = {(m, r): _board_sql(m, r) for m in METRICS for r in (False, True)}

# Totals over every rule set first (rules NULL), then one row per rule set.
_STATS_SQL = """
SELECT * FROM (
    SELECT NULL AS rules, COUNT(*) AS games, SUM(rank = 1) AS wins, AVG(total) AS average,
           MAX(total) AS best, SUM(settlement) AS net, AVG(ev_loss) AS skill,
           COUNT(ev_loss) AS analysed
    FROM results WHERE guild_id = ? AND player_id = ? AND is_bot = 0 HAVING COUNT(*) > 0)
UNION ALL
SELECT * FROM (
    SELECT rules, COUNT(*) AS games, SUM(rank = 1) AS wins, AVG(total) AS average,
           MAX(total) AS best, SUM(settlement) AS net, AVG(ev_loss) AS skill,
           COUNT(ev_loss) AS analysed
    FROM results WHERE guild_id = ? AND player_id = ? AND is_bot = 0
    GROUP BY rules ORDER BY rules)
"""


async def _run(conn: aiosqlite.Connection, sql: str, params: Sequence[Any] = ()) -> None:
    """Run a statement whose rows we do not read, and close its cursor at once: an open
    cursor (kept alive, say, by a debug log record) leaves its statement in progress, and
    then COMMIT fails."""
    cur = await conn.execute(sql, params)
    await cur.close()


async def _run_many(conn: aiosqlite.Connection, sql: str, rows: Sequence[Sequence[Any]]) -> None:
    cur = await conn.executemany(sql, rows)
    await cur.close()


async def _all(
    conn: aiosqlite.Connection, sql: str, params: Sequence[Any] = ()
) -> list[aiosqlite.Row]:
    async with conn.execute(sql, params) as cur:
        return list(await cur.fetchall())


async def _board_size(conn: aiosqlite.Connection, sql: str, scope: tuple[Any, ...]) -> int:
    rows = await _all(conn, sql, (*scope, scope[0], 0, 1, None))
    return int(rows[0]["n"]) if rows else 0


def _line(row: aiosqlite.Row) -> BoardLine:
    return BoardLine(
        rank=row["rnk"],
        position=row["pos"],
        player_id=row["player_id"],
        value=row["value"],
        games=row["games"],
        name=row["name"],
        extra=row["extra"] if "extra" in row.keys() else None,  # noqa: SIM118 - a Row
    )


# The member's line of a day's board: counted in the board index's range (total DESC).
_DAILY_ME_SQL = """
SELECT r.*,
    (SELECT COUNT(*) FROM daily_results b WHERE b.guild_id = r.guild_id AND b.rules = r.rules
     AND b.day = r.day AND b.total > r.total) AS ahead,
    (SELECT COUNT(*) FROM daily_results b WHERE b.guild_id = r.guild_id AND b.rules = r.rules
     AND b.day = r.day AND (b.total > r.total OR (b.total = r.total AND b.player_id < r.player_id)))
     AS before
FROM daily_results r WHERE r.guild_id = ? AND r.rules = ? AND r.day = ? AND r.player_id = ?
"""


def _daily_stats(per_rules: list[DailyStats]) -> list[DailyStats]:
    """Every rule set together first (the rule sets' streaks are separate: the longest)."""
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


def _result(row: aiosqlite.Row) -> StoredResult:
    return StoredResult(
        game_id=row["game_id"],
        seat=row["seat"],
        guild_id=row["guild_id"],
        rules=row["rules"],
        player_id=row["player_id"],
        name=row["name"],
        is_bot=bool(row["is_bot"]),
        total=row["total"],
        rank=row["rank"],
        settlement=row["settlement"],
        ev_loss=row["ev_loss"],
        duration_s=row["duration_s"],
        finished_at=from_text(row["finished_at"]),
    )


def _settings(row: aiosqlite.Row) -> GuildSettings:
    return GuildSettings(
        guild_id=row["guild_id"],
        default_rules=row["default_rules"],
        turn_timeout=row["turn_timeout"],
        bots_allowed=bool(row["bots_allowed"]),
        hints_allowed=bool(row["hints_allowed"]),
        images=bool(row["images"]),
        language=row["language"],
        scorecards=row["scorecards"],
    )


@dataclass(frozen=True)
class _Change:
    """One `save`, serialised on the event loop, written on the connection's thread."""

    state: str
    status: str | None
    payloads: Sequence[tuple[int, str]]
    results: Sequence[SeatResult]
    deadline: str | None
    moment: datetime
    stamp: str
    ratings: Sequence[RatingChange] = ()


def _missing_or_stale(conn: sqlite3.Connection, game_id: int, expect_version: int) -> Exception:
    found = conn.execute("SELECT version FROM games WHERE id = ?", (game_id,)).fetchone()
    if found is None:
        return GameNotFound(game_id)
    return StaleVersion(game_id, expect_version, found[0])


def _save_messages(
    conn: sqlite3.Connection, game_id: int, expect_version: int, state_text: str, stamp: str
) -> GameRecord:
    row = conn.execute(
        "UPDATE games SET state = ?, updated_at = ? WHERE id = ? AND version = ? RETURNING *",
        (state_text, stamp, game_id, expect_version),
    ).fetchone()
    if row is None:
        raise _missing_or_stale(conn, game_id, expect_version)
    return _record(row)


def _save(
    conn: sqlite3.Connection, game_id: int, expect_version: int, change: _Change
) -> GameRecord:
    """`SqliteStore.save`'s statements, inside its transaction, on the connection's thread."""
    stamp = change.stamp
    try:
        row = conn.execute(
            "UPDATE games SET state = ?, status = COALESCE(?, status), deadline = ?,"
            " version = version + 1, updated_at = ? WHERE id = ? AND version = ?"
            " RETURNING *",
            (change.state, change.status, change.deadline, stamp, game_id, expect_version),
        ).fetchone()
    except sqlite3.IntegrityError:
        # Only the one-active-game index can fail here: a cancelled or finished
        # game brought back to life in a channel that has a new one.
        channel = conn.execute("SELECT channel_id FROM games WHERE id = ?", (game_id,)).fetchone()
        busy = _active_id_sync(conn, channel[0]) if channel else None
        if busy is None:
            raise
        raise ChannelBusy(busy) from None
    if row is None:
        raise _missing_or_stale(conn, game_id, expect_version)
    for seq, payload in change.payloads:
        inserted = conn.execute(
            "INSERT INTO actions (game_id, seq, payload, created_at) VALUES (?, ?, ?, ?)"
            " ON CONFLICT (game_id, seq) DO NOTHING",
            (game_id, seq, payload, stamp),
        ).rowcount
        if not inserted:
            stored = conn.execute(
                "SELECT payload FROM actions WHERE game_id = ? AND seq = ?", (game_id, seq)
            ).fetchone()
            # Compare parsed JSON: the same action may have been serialised with another
            # key order.
            if stored is None or json.loads(stored[0]) != json.loads(payload):
                raise ActionConflict(game_id, seq)
    record = _record(row)
    results = change.results
    if results and record.status != "finished":
        raise ValueError("results are stored only when a game finishes")
    if results and record.kind == "daily":
        _daily_result(conn, record, results, stamp)
    elif results:
        duration = max(0.0, (change.moment - record.created_at).total_seconds())
        conn.executemany(
            "INSERT INTO results (game_id, seat, guild_id, rules, player_id, name,"
            " is_bot, total, rank, settlement, ev_loss, duration_s, finished_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    game_id,
                    r.seat,
                    record.guild_id,
                    record.rules,
                    r.player_id,
                    r.name,
                    int(r.is_bot),
                    r.total,
                    r.rank,
                    float(r.settlement),
                    r.ev_loss,
                    duration,
                    stamp,
                )
                for r in results
            ],
        )
    if change.ratings:
        _rate(conn, game_id, record, change.ratings, stamp)
    return record


def _daily_result(
    conn: sqlite3.Connection, record: GameRecord, results: Sequence[SeatResult], stamp: str
) -> None:
    """A daily's one seat, with its streak: one more than the member's streak of the day
    before in this server and rule set (a primary-key lookup), else 1."""
    if len(results) != 1 or results[0].player_id is None or record.day is None:
        raise ValueError("a daily has one seat, a member's")
    seat, day = results[0], record.day.isoformat()
    conn.execute(
        "INSERT INTO daily_results (day, rules, player_id, guild_id, game_id, name, total,"
        " streak, ev_loss, finished_at) VALUES (?, ?, ?, ?, ?, ?, ?,"
        " 1 + COALESCE((SELECT streak FROM daily_results WHERE day = date(?, '-1 day')"
        " AND rules = ? AND player_id = ? AND guild_id = ?), 0), ?, ?)",
        (day, record.rules, seat.player_id, record.guild_id, record.id, seat.name, seat.total,
         day, record.rules, seat.player_id, record.guild_id, seat.ev_loss, stamp),
    )  # fmt: skip


def _rate(
    conn: sqlite3.Connection,
    game_id: int,
    record: GameRecord,
    ratings: Sequence[RatingChange],
    stamp: str,
) -> None:
    """Each rating only over the one it was computed from (its `games` count): the
    transaction holds SQLite's write lock, so no other finish can come in between."""
    if record.guild_id is None or record.kind != "table":
        raise ValueError("only a server's table games are rated")
    for c in ratings:
        if c.games == 0:
            written = conn.execute(
                "INSERT INTO ratings VALUES (?, ?, ?, ?, ?, ?, 1, ?)"
                " ON CONFLICT (guild_id, rules, player_id) DO NOTHING",
                (record.guild_id, c.rules, c.player_id, c.mu, c.sigma, c.ordinal, stamp),
            ).rowcount
        else:
            written = conn.execute(
                "UPDATE ratings SET mu = ?, sigma = ?, ordinal = ?, games = games + 1,"
                " updated_at = ? WHERE guild_id = ? AND rules = ? AND player_id = ?"
                " AND games = ?",
                (c.mu, c.sigma, c.ordinal, stamp, record.guild_id, c.rules, c.player_id,
                 c.games),
            ).rowcount  # fmt: skip
        if written != 1:
            raise StaleRating(game_id)


def _active_id_sync(conn: sqlite3.Connection, channel_id: int) -> int | None:
    row = conn.execute(
        "SELECT id FROM games WHERE channel_id = ? AND status IN (?, ?) AND kind = 'table'",
        (channel_id, *ACTIVE_STATUSES),
    ).fetchone()
    return int(row[0]) if row else None


async def _active_id(conn: aiosqlite.Connection, channel_id: int) -> int | None:
    async with conn.execute(
        "SELECT id FROM games WHERE channel_id = ? AND status IN (?, ?) AND kind = 'table'",
        (channel_id, *ACTIVE_STATUSES),
    ) as cur:
        row = await cur.fetchone()
    return int(row[0]) if row else None


def _record(row: aiosqlite.Row | sqlite3.Row) -> GameRecord:
    return GameRecord(
        id=row["id"],
        guild_id=row["guild_id"],
        channel_id=row["channel_id"],
        host_id=row["host_id"],
        rules=row["rules"],
        status=row["status"],
        version=row["version"],
        state=json.loads(row["state"]),
        created_at=from_text(row["created_at"]),
        updated_at=from_text(row["updated_at"]),
        deadline=_deadline(row),
        kind=row["kind"] if "kind" in row.keys() else "table",  # noqa: SIM118 - a Row
        day=date.fromisoformat(row["day"]) if "day" in row.keys() and row["day"] else None,  # noqa: SIM118
    )


def _deadline(row: aiosqlite.Row | sqlite3.Row) -> datetime | None:
    # (a database opened `upto` an older schema for an upgrade test has no column)
    text = row["deadline"] if "deadline" in row.keys() else None  # noqa: SIM118 - a Row
    return from_text(text) if text else None


async def _user_version(conn: aiosqlite.Connection) -> int:
    async with conn.execute("PRAGMA user_version") as cur:
        row = await cur.fetchone()
    return int(row[0]) if row else 0


async def _migrate(conn: aiosqlite.Connection, upto: int | None = None) -> None:
    """Apply every migration newer than PRAGMA user_version, each in its own transaction."""
    known = migrations()
    current = await _user_version(conn)
    if current > len(known):
        raise RuntimeError(
            f"the database is at schema version {current}, newer than this code ({len(known)})"
        )
    for version, name, sql in known:
        if version <= current or (upto is not None and version > upto):
            continue
        log.info("applying migration %s", name)
        try:
            cur = await conn.executescript(f"BEGIN IMMEDIATE;\n{sql}\n;")
            await cur.close()
            step = _DATA_STEPS.get(name)
            if step is not None:  # data the SQL cannot compute, in the same transaction
                await step(conn)
            # user_version is part of the database header, so it commits with the schema.
            await _run(conn, f"PRAGMA user_version = {version:d}")
            await _run(conn, "COMMIT")
        except BaseException:
            if conn.in_transaction:
                await _run(conn, "ROLLBACK")
            raise


async def _rate_results(conn: aiosqlite.Connection) -> None:
    """V7: rate the results stored before ratings existed, game by game in the order they
    finished, exactly as a finish now does (db/ratings.py)."""
    rows = await _all(
        conn,
        "SELECT r.game_id, r.guild_id, r.rules, r.seat, r.player_id, r.is_bot, r.rank,"
        " CASE WHEN r.is_bot THEN g.state END AS state"
        " FROM results r JOIN games g ON g.id = r.game_id WHERE r.guild_id IS NOT NULL"
        " ORDER BY r.finished_at, r.game_id, r.seat",
    )
    games: list[HistoricGame] = []
    for _, seats in itertools.groupby(rows, key=lambda r: r["game_id"]):
        seated = list(seats)
        state: dict[str, Any] = next(
            (json.loads(r["state"]) for r in seated if r["state"]), {}
        )
        players = historic_ids(
            state, [(r["seat"], r["player_id"], bool(r["is_bot"])) for r in seated]
        )
        first = seated[0]
        games.append(
            HistoricGame(first["guild_id"], first["rules"], players, [r["rank"] for r in seated])
        )
    stamp = to_text(_utcnow())
    await _run_many(
        conn,
        "INSERT INTO ratings VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (guild, r.rules, r.player_id, r.mu, r.sigma, r.ordinal, r.games, stamp)
            for guild, r in rate_history(games)
        ],
    )


_DATA_STEPS: dict[str, Callable[[aiosqlite.Connection], Awaitable[None]]] = {
    "V7__ratings.sql": _rate_results,
}
