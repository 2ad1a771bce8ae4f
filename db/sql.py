"""The store, written once for SQLite and PostgreSQL (SQLAlchemy Core over db/schema.py).

Each method checks its input, then runs one function of a `Connection` through its
`Database` (db/engine.py). Plain Python decisions (a board's page clamped, a day's ranks,
the totals over every rule set, what a finish adds to the standings) are made here, once.
Dialect-specific, each measured (bench store): `SqliteStore` caches the server settings
(one process owns the file); `PostgresStore._save` writes a plain save in ONE statement
(a round trip instead of four).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import fields
from datetime import UTC, date, datetime, timedelta
from typing import Any, TypeVar

import sqlalchemy as sa
from sqlalchemy import Connection, Row, Select, bindparam, func, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import IntegrityError

from . import engine
from . import schema as tables
from . import store as api
from .engine import direct
from .schema import ACTIVE, AT_TABLE, DAILY, FINISHED, Float8, Json, Moment, dumps, literally
from .store import check_counts, check_ids, check_names, check_settings

games, actions, results, ratings = tables.games, tables.actions, tables.results, tables.ratings
standings, names, settings = tables.standings, tables.member_names, tables.guild_settings
dailies, days, daily_standings = tables.daily_results, tables.daily_days, tables.daily_standings
G, A, R, S = games.c, actions.c, results.c, settings.c
tournaments, tournament_actions = tables.tournaments, tables.tournament_actions
tournament_games, tournament_results = tables.tournament_games, tables.tournament_results
T = tournaments.c
Rec = TypeVar("Rec")


def _aware(moment: datetime | None) -> datetime | None:
    if moment is not None and moment.tzinfo is None:
        raise ValueError("times must be timezone-aware")
    return moment


def _now(moment: datetime | None) -> datetime:
    """The caller's time, else this machine's (never the server's: the bot's clock,
    simulated in tests, is the one that counts)."""
    return _aware(moment) or datetime.now(UTC)


def _upsert(conn: Connection, table: sa.Table) -> Any:
    """An INSERT that takes ON CONFLICT (each dialect has its own construct for it)."""
    return (postgresql if conn.dialect.name == "postgresql" else sqlite).insert(table)


def _shards(shards: api.Shards | None) -> dict[str, Any]:
    """The shard filter's parameters (count 1 and shard 0 hold every guild)."""
    count, ids = (1, [0]) if shards is None else (shards.count, sorted(shards.ids))
    return {"count": count, "shards": ids}


# A guild's shard, as Discord computes it; games outside a guild are on shard 0.
_ON_SHARDS = (func.coalesce(G.guild_id, sa.literal_column("0")).op(">>", return_type=sa.Integer)(
    sa.literal_column("22")) % bindparam("count")).in_(bindparam("shards", expanding=True))
_BY_ID = select(games).where(G.id == bindparam("id"))
_VERSION = select(G.version).where(G.id == bindparam("id"))
_ACTIVE_IN = select(G.id).where(G.channel_id == bindparam("channel"), ACTIVE, AT_TABLE)
_b = games.alias("busy").c  # the game active in the channel of game `id`
_BUSY = select(_b.id).where(literally(_b.status, "lobby", "playing"), literally(
    _b.kind, "table"), _b.channel_id == select(G.channel_id).where(G.id == bindparam("id"))
    .scalar_subquery())
_KEY = (G.id == bindparam("b_id")) & (G.version == bindparam("b_version"))
# A save returns every column but the snapshot it wrote (not read back and parsed again:
# a sixth of a click's commit); the record is made with the caller's.
_SAVED = [games.c[f.name] for f in fields(api.GameRecord) if f.name != "state"]
_SAVE = update(games).where(_KEY).values(
    state=bindparam("b_state", type_=Json), deadline=bindparam("b_deadline", type_=Moment),
    status=func.coalesce(bindparam("b_status", type_=sa.Text), G.status),
    version=G.version + 1, updated_at=bindparam("b_now", type_=Moment)).returning(*_SAVED)
_SAVE_MESSAGES = update(games).where(_KEY).values(
    state=bindparam("b_state", type_=Json), updated_at=bindparam("b_now", type_=Moment),
).returning(*_SAVED)
_STORED = select(A.seq, A.payload).where(A.game_id == bindparam("id"),
                                         A.seq.in_(bindparam("seqs", expanding=True)))
# The actions logged: the seqs written come back (an identical re-append writes nothing).
_LOG = {d.dialect.name: d.insert(actions).values(
    game_id=bindparam("b_id"), seq=bindparam("b_seq"), payload=bindparam("b_payload"),
    created_at=bindparam("b_now")).on_conflict_do_nothing().returning(A.seq)
    for d in (sqlite, postgresql)}
_SETTINGS = select(settings).where(S.guild_id == bindparam("guild"))
# The hot reads, in their indexes' terms (tests/db/test_postgres.py reads their plans).
_ACTIVE_GAMES = select(games).where(ACTIVE, AT_TABLE, _ON_SHARDS).order_by(G.id)
_DUE = select(G.id).where(G.deadline.is_not(None), G.deadline <= bindparam("now"), ACTIVE,
                          _ON_SHARDS).order_by(G.deadline, G.id).limit(bindparam("limit"))
_HISTORY = select(games).where(G.guild_id == bindparam("guild"), FINISHED).order_by(
    G.updated_at.desc(), G.id.desc()).limit(bindparam("limit")).offset(bindparam("offset"))


def _made(record: type[Rec]) -> Callable[..., Rec]:
    """A record made from a row's columns of the same names (`given`: fields not in it)."""
    names = [f.name for f in fields(record)]  # type: ignore[arg-type]
    return lambda row, **given: record(**{n: getattr(row, n) for n in names if n not in given},
                                       **given)


_record, _result = _made(api.GameRecord), _made(api.StoredResult)
_settings = _made(api.GuildSettings)


def _refusal(conn: Connection, game_id: int, expect_version: int,
             given: Mapping[int, Any] | None = None) -> Exception:
    """Why a save's UPDATE found no row (a statement of its own sees the newest version)."""
    stored = conn.execute(_VERSION, {"id": game_id}).scalar()
    if stored is None:
        return api.GameNotFound(game_id)
    conflict = _conflict(conn, game_id, given) if given and stored == expect_version else None
    if conflict is not None:
        return api.ActionConflict(game_id, conflict)
    return api.StaleVersion(game_id, expect_version, stored)


def _conflict(conn: Connection, game_id: int, given: Mapping[int, Any]) -> int | None:
    """The first given seq stored with another action (parsed JSON compared: key order
    aside, the same action is the same)."""
    stored = {r.seq: r.payload for r in conn.execute(_STORED, {"id": game_id, "seqs": list(given)})}
    return next((s for s, a in given.items() if s in stored and stored[s] != a), None)


def _given(game_id: int, acts: Sequence[tuple[int, dict[str, Any]]]) -> dict[int, Any]:
    """seq → action, a seq given twice kept once (twice with different actions conflicts)."""
    given: dict[int, Any] = {}
    for seq, action in acts:
        check_counts(seq=seq)
        if given.setdefault(seq, action) != action:
            raise api.ActionConflict(game_id, seq)
    return given


class Store:
    """The game store over a `Database`: `db.open_store(url)` opens the right one."""

    def __init__(self, database: engine.Database, *, cached: bool = False) -> None:
        self._db = database
        # The server settings, read every turn, when one process owns the database.
        self._cache: dict[int, api.GuildSettings] | None = {} if cached else None

    async def close(self) -> None:
        await self._db.close()

    async def schema_version(self) -> int:
        return await self._db.run(engine.schema_version)

    # --- games ---------------------------------------------------------------------------

    async def create_game(  # noqa: PLR0913 - the protocol's keyword arguments
        self, *, guild_id: int | None, channel_id: int, host_id: int, rules: str,
        state: dict[str, Any], deadline: datetime | None = None, now: datetime | None = None,
        day: date | None = None,
    ) -> api.GameRecord:
        check_ids(guild_id=guild_id, channel_id=channel_id, host_id=host_id)
        stamp = _now(now)
        kind: dict[str, Any] = {"status": "lobby", "deadline": _aware(deadline)}
        if day is not None:
            if guild_id is None:
                raise ValueError("a daily is played in a server")
            if isinstance(day, datetime):
                raise TypeError("day must be a date")
            kind = {"status": "playing", "kind": "daily", "day": day, "member_id": host_id}
        made = sa.insert(games).values(
            guild_id=guild_id, channel_id=channel_id, rules=rules, state=state, version=0,
            created_at=stamp, updated_at=stamp, **kind).returning(*games.c)
        for _ in range(3):
            try:
                return _record(await self._db.run(lambda c: c.execute(made).one()))
            except IntegrityError:
                if day is not None:
                    taken = await self.daily_game(host_id, rules, day)
                    if taken is None:
                        raise
                    raise api.DailyTaken(taken.id) from None
                busy = await self._db.run(
                    lambda c: c.execute(_ACTIVE_IN, {"channel": channel_id}).scalar())
                if busy is not None:
                    raise api.ChannelBusy(busy) from None  # else it ended meanwhile: again
        raise RuntimeError(f"channel {channel_id} keeps being taken and freed")

    async def _game(self, query: Select[Any], **params: Any) -> api.GameRecord | None:
        row = await self._db.run(lambda c: c.execute(query, params).first())
        return _record(row) if row else None

    async def get_game(self, game_id: int) -> api.GameRecord | None:
        check_ids(game_id=game_id)
        rows = await self._db.fetch(_BY_ID, {"id": game_id})
        return _record(rows[0]) if rows else None

    async def daily_game(self, player_id: int, rules: str, day: date) -> api.GameRecord | None:
        check_ids(player_id=player_id)
        return await self._game(select(games).where(
            G.member_id == player_id, G.rules == rules, G.day == day, DAILY))

    async def active_game(self, channel_id: int) -> api.GameRecord | None:
        check_ids(channel_id=channel_id)
        return await self._game(select(games).where(G.channel_id == channel_id, ACTIVE, AT_TABLE))

    async def active_games(self, *, shards: api.Shards | None = None) -> list[api.GameRecord]:
        rows = await self._db.run(lambda c: c.execute(_ACTIVE_GAMES, _shards(shards)).all())
        return [_record(r) for r in rows]

    async def due_games(
        self, now: datetime, *, shards: api.Shards | None = None, limit: int = 100
    ) -> list[int]:
        check_counts(limit=limit)
        params = {"now": _aware(now), "limit": limit, **_shards(shards)}
        return list(await self._db.run(lambda c: c.execute(_DUE, params).scalars()))

    async def claim_due(
        self, now: datetime, *, lease: timedelta, shards: api.Shards | None = None,
        ids: Sequence[int] | None = None, limit: int = 100,
    ) -> list[int]:
        """One statement: due rows are locked as they are found and rows another process
        is claiming are skipped (SKIP LOCKED; SQLite's one writer needs none). On SQLite at
        synchronous=NORMAL: a claim lost to an OS crash only lets the timer act again,
        which the version check makes harmless."""
        check_counts(limit=limit)
        if lease <= timedelta(0):
            raise ValueError("a claim's lease must be positive")
        for game_id in ids or ():
            check_ids(game_id=game_id)
        due = select(G.id).where(
            G.deadline.is_not(None), G.deadline <= _aware(now), ACTIVE, _ON_SHARDS,
            sa.or_(G.claimed_until.is_(None), G.claimed_until <= now,
                   G.claimed_version != G.version),
            sa.true() if ids is None else G.id.in_(list(ids)),
        ).order_by(G.deadline, G.id).limit(limit).with_for_update(skip_locked=True)
        claim = update(games).where(G.id.in_(due.scalar_subquery())).values(
            claimed_until=now + lease, claimed_version=G.version).returning(G.id, G.deadline)
        rows = await self._db.run(lambda c: c.execute(claim, _shards(shards)).all(),
                                  durable=False)
        return [r.id for r in sorted(rows, key=lambda r: (r.deadline, r.id))]

    async def active_versions(self, *, shards: api.Shards | None = None) -> dict[int, int]:
        query = select(G.id, G.version).where(ACTIVE, _ON_SHARDS)
        rows = await self._db.run(lambda c: c.execute(query, _shards(shards)).all())
        return {r.id: r.version for r in rows}

    async def save(  # noqa: PLR0913 - the protocol's keyword arguments
        self, game_id: int, *, expect_version: int, state: dict[str, Any],
        status: str | None = None, actions: Sequence[tuple[int, dict[str, Any]]] = (),
        results: Sequence[api.SeatResult] = (), deadline: datetime | None = None,
        now: datetime | None = None, ratings: Sequence[api.RatingChange] = (),
    ) -> api.GameRecord:
        """(At a finish the transaction also writes the standings and the names.)"""
        if status is not None and status not in api.STATUSES:
            raise ValueError(f"unknown status {status!r}")
        check_ids(game_id=game_id)
        check_counts(expect_version=expect_version)
        given = _given(game_id, actions)
        for r in results:
            check_ids(player_id=r.player_id)
        if ratings and not results:
            raise ValueError("ratings change only with a game's results")
        for c in ratings:
            check_counts(games=c.games)
            check_names(rules=c.rules)
        params = {"b_id": game_id, "b_version": expect_version, "b_state": state,
                  "b_status": status, "b_deadline": _aware(deadline), "b_now": _now(now)}
        try:
            if results:
                return await self._db.run(lambda c: _finish(c, params, given, results, ratings),
                                          transaction=True)
            return await self._save(params, given)
        except IntegrityError:
            # Only a game brought back to life in a channel that has a new one can break an
            # index here.
            busy = await self._db.run(lambda c: c.execute(_BUSY, {"id": game_id}).scalar())
            if busy is None:
                raise
            raise api.ChannelBusy(busy) from None

    async def _save(self, params: dict[str, Any], given: dict[int, Any]) -> api.GameRecord:
        return await self._db.run(lambda c: _write(c, params, given), transaction=True)

    async def save_messages(
        self, game_id: int, *, expect_version: int, state: dict[str, Any],
        now: datetime | None = None,
    ) -> api.GameRecord:
        """Replace the snapshot of a change already saved (a posted message's id), keeping
        the version. SQLite commits it at synchronous=NORMAL: it survives the process dying
        (WAL) and is at risk only from an OS crash until the next save's fsync; what could be
        lost is a message id, never an action (the bot finds its messages again)."""
        check_ids(game_id=game_id)
        check_counts(expect_version=expect_version)
        params = {"b_id": game_id, "b_version": expect_version, "b_state": state,
                  "b_now": _now(now)}

        rows = await self._db.fetch(_SAVE_MESSAGES, params, durable=False)
        if not rows:
            raise await self._db.run(lambda c: _refusal(c, game_id, expect_version))
        return _record(rows[0], state=state)

    async def actions(self, game_id: int) -> list[dict[str, Any]]:
        check_ids(game_id=game_id)
        query = select(A.payload).where(A.game_id == game_id).order_by(A.seq)
        return list(await self._db.run(lambda c: c.execute(query).scalars()))

    # --- results, leaderboards, stats, history -------------------------------------------

    async def results(self, game_id: int) -> list[api.StoredResult]:
        check_ids(game_id=game_id)
        return await self._results(select(results).where(R.game_id == game_id).order_by(R.seat))

    async def _results(self, query: Select[Any]) -> list[api.StoredResult]:
        return [_result(r) for r in await self._db.run(lambda c: c.execute(query).all())]

    async def record_analysis(self, game_id: int, losses: Mapping[int, float]) -> int:
        if any(not value >= 0 for value in losses.values()):
            raise ValueError("points lost are never negative")
        check_ids(game_id=game_id)
        check_counts(**{f"seat {seat}": seat for seat in losses})
        return await self._db.run(lambda c: _analyse(c, game_id, losses), transaction=True)

    async def ratings(
        self, guild_id: int, players: Sequence[int], rules: Sequence[str] | None = None
    ) -> list[api.StoredRating]:
        check_ids(guild_id=guild_id)
        if rules is not None:
            check_names(**{f"rules {i}": r for i, r in enumerate(rules)})
        ids = [int(p) for p in players]
        if any(abs(p) > api.ID_MAX for p in ids):
            raise ValueError("a player id is out of range (0 to 2**63 - 1)")
        c = ratings.c
        query = select(ratings).where(c.guild_id == guild_id, c.player_id.in_(ids))
        if rules is not None:
            query = query.where(c.rules.in_(list(rules)))
        rows = await self._db.run(lambda conn: conn.execute(query).all())
        return sorted((api.StoredRating(r.rules, r.player_id, r.mu, r.sigma, r.ordinal, r.games)
                       for r in rows), key=lambda r: (r.rules, r.player_id))

    async def leaderboard(  # noqa: PLR0913 - the protocol's keyword arguments
        self, guild_id: int, *, metric: str = "wins", rules: str | None = None, page: int = 0,
        per_page: int = 10, member_id: int | None = None, since: datetime | None = None,
        until: datetime | None = None,
    ) -> api.BoardPage:
        """One page of the server's board, ranked in SQL (RANK(): 1, 2, 2, 4); a page past
        the last one (the board shrank since the button was drawn) is the last one. With
        `since`/`until`, the board of the results that finished in [since, until): summed
        from those results (the rating board: the window's own scope, `season_scope`)."""
        if metric not in api.METRICS:
            raise ValueError(f"unknown metric {metric!r}")
        if per_page < 1:
            raise ValueError("per_page must be positive")
        check_ids(guild_id=guild_id, member_id=member_id)
        check_counts(per_page=per_page)
        window = since is not None or until is not None
        # The tournaments board is always over a window (all time: the columns' whole range).
        bounded = window or metric == "tournaments"
        scope = {"guild": guild_id, "rules": rules, **(_window(since, until) if bounded else {})}
        if window and metric == "rating":  # a season's ratings are a scope of their own
            if since is None or until is None:
                raise ValueError("a season's ratings need both ends of its window")
            scope["rules"] = api.season_scope(rules or api.OVERALL, since, until)
            check_names(rules=scope["rules"])
        query, any_games = _BOARDS[metric, rules is not None or scope["rules"] is not None,
                                   window and metric != "rating"]
        page = min(max(page, 0), api.ID_MAX // per_page - 1)  # keeps the offsets in range

        def read(conn: Connection) -> tuple[int, list[Row[Any]], bool]:
            def at(page: int, size: int = per_page, me: int | None = member_id) -> list[Any]:
                bounds = {"lo": page * size, "hi": (page + 1) * size, "me": me}
                return list(conn.execute(query, scope | bounds).all())

            rows, shown = at(page), page
            if page > 0 and not any(r.pos > page * per_page for r in rows):
                ranked = (rows or at(0, 1, None) or [None])[0]
                shown = max(0, ((ranked.n if ranked else 0) - 1) // per_page)
                rows = at(shown)
            return shown, rows, bool(rows) or conn.execute(any_games, scope).first() is not None

        page, rows, has_games = await self._db.run(read)
        ranked = rows[0].n if rows else 0
        lines = [_line(r) for r in rows if page * per_page < r.pos <= (page + 1) * per_page]
        me = next((_line(r) for r in rows if r.player_id == member_id), None)
        return api.BoardPage(metric, rules, page, max(1, -(-ranked // per_page)), ranked,
                             lines, me, has_games)

    async def member_stats(
        self, guild_id: int, member_id: int, *, since: datetime | None = None,
        until: datetime | None = None,
    ) -> list[api.MemberStats]:
        """Every rule set together, then each; with `since`/`until`, of the results that
        finished in [since, until)."""
        check_ids(guild_id=guild_id, member_id=member_id)
        bounds = _window(since, until)
        query = select(
            R.rules, func.count(), func.sum(sa.case((R.rank == 1, 1), else_=0)),
            func.sum(R.total), func.max(R.total), func.sum(R.settlement), func.sum(R.ev_loss),
            func.count(R.ev_loss),
        ).where(R.guild_id == guild_id, R.player_id == member_id, R.is_bot == sa.false(),
                R.finished_at >= bounds["since"], R.finished_at < bounds["until"],
                ).group_by(R.rules)
        rows = sorted(await self._db.run(lambda c: c.execute(query).all()), key=lambda r: r[0])
        if not rows:
            return []
        every = [sum(r[i] or 0 for r in rows) for i in range(1, 8)]
        every[3] = max(r[4] for r in rows)  # the best total is the best of the bests
        return [_stats(None, *every), *(_stats(*r) for r in rows)]

    async def recent_scores(
        self, guild_id: int, member_id: int, limit: int = 20
    ) -> list[api.StoredResult]:
        check_ids(guild_id=guild_id, member_id=member_id)
        check_counts(limit=limit)
        query = select(results).where(R.guild_id == guild_id, R.player_id == member_id,
                                      R.is_bot == sa.false())
        return list(reversed(await self._results(
            query.order_by(R.finished_at.desc(), R.game_id.desc()).limit(limit))))

    async def history(
        self, guild_id: int, *, limit: int = 10, offset: int = 0
    ) -> list[api.FinishedGame]:
        check_ids(guild_id=guild_id)
        check_counts(limit=limit, offset=offset)
        params = {"guild": guild_id, "limit": limit, "offset": offset}

        def read(conn: Connection) -> list[api.FinishedGame]:
            found = [_record(g) for g in conn.execute(_HISTORY, params)]
            seats: dict[int, list[api.StoredResult]] = {g.id: [] for g in found}
            seated = select(results).where(R.game_id.in_(list(seats)))
            for row in conn.execute(seated.order_by(R.game_id, R.seat)):
                seats[row.game_id].append(_result(row))
            return [api.FinishedGame(g, seats[g.id]) for g in found]

        return await self._db.run(read)

    async def finished_count(self, guild_id: int) -> int:
        check_ids(guild_id=guild_id)
        query = select(func.count()).where(G.guild_id == guild_id, FINISHED)
        return int(await self._db.run(lambda c: c.execute(query).scalar_one()))

    # --- the daily dice ------------------------------------------------------------------

    async def daily_board(
        self, guild_id: int, rules: str, day: date, *, limit: int = 10,
        member_id: int | None = None,
    ) -> api.DailyBoard:
        """The first `limit` lines in the board index's order (a range scan however many
        played), ranked from the lines themselves (the position of the first line with the
        same total), and the member's own line by counting those ahead."""
        check_ids(guild_id=guild_id, member_id=member_id)
        check_counts(limit=limit)
        d = dailies.c
        key = sa.and_(d.guild_id == guild_id, d.rules == rules, d.day == day)
        top = select(dailies).where(key).order_by(d.total.desc(), d.player_id).limit(limit)

        def read(conn: Connection) -> tuple[list[Row[Any]], int, Row[Any] | None]:
            mine = conn.execute(_DAILY_MINE, {"g": guild_id, "r": rules, "d": day,
                                              "m": member_id}).first()
            count = conn.execute(select(func.count()).where(key)).scalar_one()
            return list(conn.execute(top).all()), int(count), mine

        rows, count, mine = await self._db.run(read)
        lines: list[api.DailyLine] = []
        for position, row in enumerate(rows, 1):
            same = next((x for x in lines if x.total == row.total), None)
            lines.append(_daily_line(row, same.rank if same else position, position))
        me = next((x for x in lines if x.player_id == member_id), None)
        if me is None and mine is not None:
            me = _daily_line(mine, mine.ahead + 1, mine.before + 1)
        return api.DailyBoard(guild_id, rules, day, count, lines, me)

    async def daily_stats(self, guild_id: int, member_id: int) -> list[api.DailyStats]:
        check_ids(guild_id=guild_id, member_id=member_id)
        s, d = daily_standings.c, dailies.c
        best = select(func.max(d.total)).where(d.guild_id == s.guild_id,
                                               d.player_id == s.player_id, d.rules == s.rules)
        query = select(s.rules, s.played, s.wins, s.best_streak, best.scalar_subquery()).where(
            s.guild_id == guild_id, s.player_id == member_id)
        found = await self._db.run(lambda c: c.execute(query).all())
        rows = sorted((api.DailyStats(*r) for r in found), key=lambda x: x.rules or "")
        if not rows:
            return []
        return [api.DailyStats(None, sum(x.played for x in rows), sum(x.wins for x in rows),
                               max(x.best_streak for x in rows), max(x.best for x in rows)),
                *rows]

    async def daily_best(self, dice: str, rules: str, day: date) -> api.DailyBest | None:
        b = tables.daily_best.c
        query = select(b.score, b.exact).where(b.dice == dice, b.rules == rules, b.day == day)
        row = await self._db.run(lambda c: c.execute(query).first())
        return api.DailyBest(row.score, row.exact) if row else None

    async def put_daily_best(
        self, dice: str, rules: str, day: date, best: api.DailyBest, *,
        now: datetime | None = None,
    ) -> None:
        values = {"dice": dice, "rules": rules, "day": day, "score": best.score,
                  "exact": best.exact, "computed_at": _now(now)}
        await self._db.run(lambda c: c.execute(
            _upsert(c, tables.daily_best).values(values).on_conflict_do_nothing()))

    async def deployment_secret(
        self, name: str, candidate: bytes, *, now: datetime | None = None
    ) -> bytes:
        """Insert if absent, then read: processes starting at once all get the first one."""
        values = {"name": name, "value": bytes(candidate), "created_at": _now(now)}
        secrets = tables.secrets

        def work(conn: Connection) -> bytes:
            conn.execute(_upsert(conn, secrets).values(values).on_conflict_do_nothing())
            return bytes(conn.execute(select(secrets.c.value).where(
                secrets.c.name == name)).scalar_one())

        return await self._db.run(work)

    # --- per-server settings -------------------------------------------------------------

    async def guild_settings(self, guild_id: int) -> api.GuildSettings:
        check_ids(guild_id=guild_id)
        if self._cache is not None and (found := self._cache.get(guild_id)) is not None:
            return found
        rows = await self._db.fetch(_SETTINGS, {"guild": guild_id})
        return self._remember(_settings(rows[0]) if rows else api.GuildSettings(guild_id))

    async def update_settings(
        self, guild_id: int, changes: dict[str, Any], *, now: datetime | None = None
    ) -> api.GuildSettings:
        """One upsert naming only the changed columns: two processes changing different
        settings of a new server at once both keep their change."""
        check_settings(changes)
        check_ids(guild_id=guild_id)
        values = {"guild_id": guild_id, "updated_at": _now(now), **changes}
        if "season" in changes:
            values["season_since"] = values["updated_at"]

        def work(conn: Connection) -> api.GuildSettings:
            made = _upsert(conn, settings).values(values)
            changed = {n: made.excluded[n] for n in values if n != "guild_id"}
            upsert = made.on_conflict_do_update(index_elements=["guild_id"],
                                                set_=changed | _season_since(made, values))
            return self._remember(_settings(conn.execute(upsert.returning(*settings.c)).one()))

        return await self._db.run(work)

    def _remember(self, found: api.GuildSettings) -> api.GuildSettings:
        """(Called on SQLite's thread: the cache is written in commit order.)"""
        if self._cache is not None:
            self._cache[found.guild_id] = found
        return found

    # --- tournaments ------------------------------------------------------------------------

    async def create_tournament(
        self, *, guild_id: int | None, channel_id: int, state: dict[str, Any],
        actions: Sequence[dict[str, Any]], now: datetime | None = None,
    ) -> api.TournamentRecord:
        """A new sign-up and its first actions, in one transaction."""
        check_ids(guild_id=guild_id, channel_id=channel_id)
        stamp = _now(now)

        def work(conn: Connection) -> api.TournamentRecord:
            row = conn.execute(sa.insert(tournaments).values(
                guild_id=guild_id, channel_id=channel_id, status="signup", version=0,
                state=state, created_at=stamp, updated_at=stamp).returning(*tournaments.c)).one()
            _log_tournament(conn, row.id, 0, actions, stamp)
            return _tournament(row)

        return await self._db.run(work, transaction=True)

    async def get_tournament(self, tournament_id: int) -> api.TournamentRecord | None:
        check_ids(tournament_id=tournament_id)
        query = select(tournaments).where(T.id == tournament_id)
        row = await self._db.run(lambda c: c.execute(query).first())
        return _tournament(row) if row else None

    async def active_tournaments(self) -> list[api.TournamentRecord]:
        query = select(tournaments).where(_TOURNAMENT_ACTIVE).order_by(T.id)
        return [_tournament(r) for r in await self._db.run(lambda c: c.execute(query).all())]

    async def tournament_of_game(self, game_id: int) -> int | None:
        check_ids(game_id=game_id)
        c = tournament_games.c
        query = select(c.tournament_id).where(c.game_id == game_id)
        found = await self._db.run(lambda conn: conn.execute(query).scalar())
        return None if found is None else int(found)

    async def save_tournament(  # noqa: PLR0913 - the protocol's keyword arguments
        self, tournament_id: int, *, expect_version: int, state: dict[str, Any],
        status: str | None = None, actions: Sequence[dict[str, Any]] = (),
        games: Sequence[int] = (), results: Sequence[api.TournamentResult] = (),
        now: datetime | None = None,
    ) -> api.TournamentRecord:
        """Append `actions` after the log's end, replace the snapshot, bump the version, note
        the table games it opened and, at its finish, each member's result: one transaction.
        StaleVersion (nothing written) when another change was saved first: of two processes
        advancing one round, one does."""
        if status is not None and status not in api.TOURNAMENT_STATUSES:
            raise ValueError(f"unknown status {status!r}")
        check_ids(tournament_id=tournament_id)
        check_counts(expect_version=expect_version)
        for game_id in games:
            check_ids(game_id=game_id)
        for r in results:
            check_ids(player_id=r.player_id)
        stamp = _now(now)
        ended = status in ("finished", "cancelled")

        def work(conn: Connection) -> api.TournamentRecord:
            changed = {"state": state, "version": T.version + 1, "updated_at": stamp}
            if status is not None:
                changed["status"] = status
            if ended:
                changed["finished_at"] = stamp
            row = conn.execute(update(tournaments).where(
                T.id == tournament_id, T.version == expect_version).values(changed)
                .returning(*tournaments.c)).first()
            if row is None:
                stored = conn.execute(select(T.version).where(T.id == tournament_id)).scalar()
                if stored is None:
                    raise api.GameNotFound(tournament_id)
                raise api.StaleVersion(tournament_id, expect_version, stored)
            start = conn.execute(select(func.count()).where(
                tournament_actions.c.tournament_id == tournament_id)).scalar() or 0
            _log_tournament(conn, tournament_id, int(start), actions, stamp)
            if games:
                conn.execute(sa.insert(tournament_games), [
                    {"game_id": g, "tournament_id": tournament_id} for g in games])
            if results and row.guild_id is not None:
                rules = str(state.get("rules", ""))
                conn.execute(sa.insert(tournament_results), [
                    {"tournament_id": tournament_id, "player_id": r.player_id,
                     "guild_id": row.guild_id, "rules": rules, "name": r.name,
                     "rounds": r.rounds, "final": r.final, "place": r.place,
                     "champion": r.champion, "finished_at": stamp} for r in results])
            return _tournament(row)

        try:
            return await self._db.run(work, transaction=True)
        except IntegrityError:
            # The log's next seq (or a game) was written by another change first.
            stored = await self.get_tournament(tournament_id)
            if stored is None:
                raise
            raise api.StaleVersion(tournament_id, expect_version, stored.version) from None

    async def tournament_actions(self, tournament_id: int) -> list[dict[str, Any]]:
        check_ids(tournament_id=tournament_id)
        c = tournament_actions.c
        query = select(c.payload).where(c.tournament_id == tournament_id).order_by(c.seq)
        return list(await self._db.run(lambda conn: conn.execute(query).scalars()))

    async def tournament_stats(
        self, guild_id: int, member_id: int, *, since: datetime | None = None,
        until: datetime | None = None,
    ) -> api.TournamentStats:
        """A member's finished tournaments in the server, in [since, until) if given."""
        check_ids(guild_id=guild_id, member_id=member_id)
        c = tournament_results.c
        query = select(func.count(), func.sum(_one(c.champion)), func.sum(_one(c.final)),
                       func.min(c.place)).where(c.guild_id == guild_id,
                                                c.player_id == member_id, *_in_window(c))
        row = (await self._db.run(lambda conn: conn.execute(query, _window(since, until)).one()))
        return api.TournamentStats(int(row[0] or 0), int(row[1] or 0), int(row[2] or 0), row[3])

    # --- seasons (issue 20) --------------------------------------------------------------

    async def first_result(self, guild_id: int) -> datetime | None:
        """When the server's first table game finished (its seasons begin there)."""
        check_ids(guild_id=guild_id)
        query = select(func.min(R.finished_at)).where(R.guild_id == guild_id)
        return await self._db.run(lambda c: c.execute(query).scalar())

    async def season_guilds(self) -> list[api.GuildSettings]:
        """The settings of every server with seasons on (the periodic podium check)."""
        query = select(settings).where(S.season != "off").order_by(S.guild_id)
        return [_settings(r) for r in await self._db.run(lambda c: c.execute(query).all())]

    async def last_podium(self, guild_id: int, mode: str) -> int | None:
        """The number of the last season of `mode` whose podium was posted here."""
        check_ids(guild_id=guild_id)
        p = tables.season_podiums.c
        query = select(func.max(p.number)).where(p.guild_id == guild_id, p.mode == mode,
                                                  p.posted_at.is_not(None))
        return await self._db.run(lambda c: c.execute(query).scalar())

    async def claim_podium(
        self, guild_id: int, mode: str, number: int, *, now: datetime, lease: timedelta,
    ) -> str:
        """Claim the posting of a season's podium until `now + lease`: "mine" (post it,
        then `podium_posted`), "posted" (done already) or "busy" (another process holds
        the claim). One statement, so two processes never both get "mine"; a claim whose
        lease ran out without a post is taken over."""
        check_ids(guild_id=guild_id)
        check_counts(number=number)
        table = tables.season_podiums
        p, start = table.c, _now(now)

        def work(conn: Connection) -> str:
            made = _upsert(conn, table).values(guild_id=guild_id, mode=mode, number=number,
                                               claimed_until=start + lease)
            claimed = conn.execute(made.on_conflict_do_update(
                index_elements=["guild_id", "mode", "number"],
                set_={"claimed_until": made.excluded.claimed_until},
                where=p.posted_at.is_(None) & (p.claimed_until <= start),
            ).returning(p.number)).first()
            if claimed is not None:
                return "mine"
            posted = conn.execute(select(p.posted_at).where(
                p.guild_id == guild_id, p.mode == mode, p.number == number)).scalar()
            return "busy" if posted is None else "posted"

        return await self._db.run(work)

    async def podium_posted(
        self, guild_id: int, mode: str, number: int, *, message_id: int | None,
        now: datetime | None = None,
    ) -> None:
        """A claimed podium is posted (`message_id`; None: there was nowhere to post it)."""
        check_ids(guild_id=guild_id, message_id=message_id)
        p = tables.season_podiums.c
        done = update(tables.season_podiums).where(
            p.guild_id == guild_id, p.mode == mode, p.number == number,
        ).values(posted_at=_now(now), message_id=message_id)
        await self._db.run(lambda c: c.execute(done))


# --- what a save writes, in its transaction -----------------------------------------------


def _write(conn: Connection, params: dict[str, Any], given: dict[int, Any]) -> api.GameRecord:
    """A save's UPDATE and its new actions."""
    game_id = params["b_id"]
    rows = direct(conn, _SAVE, params)
    if not rows:
        raise _refusal(conn, game_id, params["b_version"])
    log = _LOG[conn.dialect.name]
    logged = sum(len(direct(conn, log, {**params, "b_seq": seq, "b_payload": action}))
                 for seq, action in given.items())
    conflict = _conflict(conn, game_id, given) if logged < len(given) else None
    if conflict is not None:
        raise api.ActionConflict(game_id, conflict)
    return _record(rows[0], state=params["b_state"])


def _finish(conn: Connection, params: dict[str, Any], given: dict[int, Any],
            seats: Sequence[api.SeatResult], changes: Sequence[api.RatingChange],
            ) -> api.GameRecord:
    """The finishing save: the results and the running totals with the last action. The
    ratings' rows are locked first, in key order, and the standings' rows are written in
    key order: two finishes with the same players queue instead of deadlocking."""
    locked = _lock_ratings(conn, params["b_id"], changes) if changes else {}
    record = _write(conn, params, given)
    if record.status != "finished":
        raise ValueError("results are stored only when a game finishes")
    now = params["b_now"]
    if record.kind == "daily":
        _daily_result(conn, record, seats, now)
        return record
    duration = max(0.0, (now - record.created_at).total_seconds())
    conn.execute(sa.insert(results), [{
        "game_id": record.id, "seat": r.seat, "guild_id": record.guild_id, "rules": record.rules,
        "player_id": r.player_id, "name": r.name, "is_bot": r.is_bot, "total": r.total,
        "rank": r.rank, "settlement": float(r.settlement), "ev_loss": r.ev_loss,
        "duration_s": duration, "finished_at": now} for r in seats])
    humans = [r for r in seats if not r.is_bot and r.player_id is not None]
    if record.guild_id is not None and humans:  # DM games and bot seats are on no board
        _count(conn, record.guild_id, record.rules, humans)
        _name(conn, record.guild_id, {r.player_id: r.name for r in humans}, now)
    if changes:
        _rate(conn, record, changes, locked, now)
    return record


def _count(conn: Connection, guild: int, rules: str, seats: Sequence[api.SeatResult]) -> None:
    """Add a finish's members to the running totals (a row each, in key order)."""
    added: dict[int, dict[str, Any]] = {}
    for r in seats:
        t = added.setdefault(r.player_id or 0, {
            "guild_id": guild, "rules": rules, "player_id": r.player_id, "games": 0, "wins": 0,
            "net": 0.0, "score_sum": 0, "best": r.total, "loss_sum": 0.0, "analysed": 0})
        t["games"] += 1
        t["wins"] += r.rank == 1
        t["net"] += r.settlement
        t["score_sum"] += r.total
        t["best"] = max(t["best"], r.total)
        t["loss_sum"] += r.ev_loss or 0.0
        t["analysed"] += r.ev_loss is not None
    s, made = standings.c, _upsert(conn, standings)
    summed = ("games", "wins", "net", "score_sum", "loss_sum", "analysed")
    best = sa.case((made.excluded.best > s.best, made.excluded.best), else_=s.best)
    conn.execute(made.on_conflict_do_update(
        index_elements=["guild_id", "rules", "player_id"],
        set_={**{c: s[c] + made.excluded[c] for c in summed}, "best": best},
    ), [added[p] for p in sorted(added)])


def _name(conn: Connection, guild: int, named: Mapping[Any, str], at: datetime) -> None:
    """The names members last played under (an older finish saved later renames nobody)."""
    made = _upsert(conn, names)
    conn.execute(made.on_conflict_do_update(
        index_elements=["guild_id", "player_id"],
        set_={"name": made.excluded.name, "named_at": made.excluded.named_at},
        where=made.excluded.named_at >= names.c.named_at,
    ), [{"guild_id": guild, "player_id": p, "name": named[p], "named_at": at}
        for p in sorted(named)])


def _lock_ratings(conn: Connection, game_id: int, changes: Sequence[api.RatingChange],
                  ) -> dict[tuple[str, int], int]:
    """The stored ratings' `games` counts, their rows locked (PostgreSQL) in key order."""
    r = ratings.c
    guild = select(G.guild_id).where(G.id == game_id).scalar_subquery()
    keys = [(c.rules, c.player_id) for c in changes]
    rows = conn.execute(select(r.rules, r.player_id, r.games).where(
        r.guild_id == guild, sa.tuple_(r.rules, r.player_id).in_(keys),
    ).order_by(r.rules, r.player_id).with_for_update())
    return {(row.rules, row.player_id): row.games for row in rows}


def _rate(conn: Connection, record: api.GameRecord, changes: Sequence[api.RatingChange],
          locked: Mapping[tuple[str, int], int], now: datetime) -> None:
    """Each rating written only over the one it was computed from (its `games` count)."""
    if record.guild_id is None or record.kind != "table":
        raise ValueError("only a server's table games are rated")
    if any(locked.get((c.rules, c.player_id), 0) != c.games for c in changes):
        raise api.StaleRating(record.id)
    rows = [{"guild_id": record.guild_id, "rules": c.rules, "player_id": c.player_id,
             "mu": c.mu, "sigma": c.sigma, "ordinal": c.ordinal, "games": c.games + 1,
             "updated_at": now} for c in changes]
    fresh = [row for row, c in zip(rows, changes, strict=True) if c.games == 0]
    if fresh:  # a new player's first rating, unless another finish wrote it meanwhile
        made = _upsert(conn, ratings).values(fresh).on_conflict_do_nothing()
        if len(conn.execute(made.returning(ratings.c.player_id)).all()) != len(fresh):
            raise api.StaleRating(record.id)
    r = ratings.c
    moved = update(ratings).where(
        r.guild_id == bindparam("g"), r.rules == bindparam("r"), r.player_id == bindparam("p"),
    ).values(mu=bindparam("mu"), sigma=bindparam("sigma"), ordinal=bindparam("ordinal"),
             games=r.games + 1, updated_at=bindparam("updated_at"))
    kept = [{"g": row["guild_id"], "r": row["rules"], "p": row["player_id"], **row}
            for row, c in zip(rows, changes, strict=True) if c.games > 0]
    if kept:
        conn.execute(moved, kept)


def _daily_result(conn: Connection, record: api.GameRecord, seats: Sequence[api.SeatResult],
                  now: datetime) -> None:
    """A daily's one seat, with its streak (one more than the member's of the day before,
    in this server and rule set), the day's best and the daily standings: a total above the
    day's best takes the win from the day's leaders so far, an equal one shares it. The
    day's row is locked first, so finishes of one day queue."""
    if len(seats) != 1 or seats[0].player_id is None or record.day is None:
        raise ValueError("a daily has one seat, a member's")
    seat, guild, rules, day = seats[0], record.guild_id, record.rules, record.day
    d, dd, ds = dailies.c, days.c, daily_standings.c
    before = conn.execute(select(d.streak).where(
        d.day == day - timedelta(days=1), d.rules == rules, d.player_id == seat.player_id,
        d.guild_id == guild)).scalar() or 0
    conn.execute(sa.insert(dailies).values(
        day=day, rules=rules, player_id=seat.player_id, guild_id=guild, game_id=record.id,
        name=seat.name, total=seat.total, streak=before + 1, ev_loss=seat.ev_loss,
        finished_at=now))
    _name(conn, guild or 0, {seat.player_id: seat.name}, now)
    today = sa.and_(dd.guild_id == guild, dd.rules == rules, dd.day == day)
    first = conn.execute(_upsert(conn, days).values(
        guild_id=guild, rules=rules, day=day, best=seat.total,
    ).on_conflict_do_nothing().returning(dd.best)).first()
    won = 1
    if first is None:
        best = conn.execute(select(dd.best).where(today).with_for_update()).scalar_one()
        if seat.total > best:
            leaders = select(d.player_id).where(d.guild_id == guild, d.rules == rules,
                                                d.day == day, d.total == best,
                                                d.player_id != seat.player_id)
            theirs = sa.and_(ds.guild_id == guild, ds.rules == rules, ds.player_id.in_(leaders))
            conn.execute(select(ds.player_id).where(theirs).order_by(ds.player_id)
                         .with_for_update())
            conn.execute(update(daily_standings).where(theirs).values(wins=ds.wins - 1))
            conn.execute(update(days).where(today).values(best=seat.total))
        won = int(seat.total >= best)
    made = _upsert(conn, daily_standings).values(
        guild_id=guild, rules=rules, player_id=seat.player_id, played=1, wins=won,
        best_streak=before + 1)
    longest = sa.case((made.excluded.best_streak > ds.best_streak, made.excluded.best_streak),
                      else_=ds.best_streak)
    conn.execute(made.on_conflict_do_update(
        index_elements=["guild_id", "rules", "player_id"],
        set_={"played": ds.played + 1, "wins": ds.wins + made.excluded.wins,
              "best_streak": longest}))


def _analyse(conn: Connection, game_id: int, losses: Mapping[int, float]) -> int:
    """ev_loss of the seats not analysed yet (a daily's seat 0 too), and the standings."""
    if not losses:
        return 0
    loss = sa.case({seat: sa.literal(float(v), Float8) for seat, v in losses.items()},
                   value=R.seat)
    filled = conn.execute(update(results).where(
        R.game_id == game_id, R.seat.in_(list(losses)), R.ev_loss.is_(None),
    ).values(ev_loss=loss).returning(R.guild_id, R.rules, R.player_id, R.is_bot, R.ev_loss))
    added: dict[tuple[int, str, int], list[float]] = defaultdict(lambda: [0.0, 0])
    count = 0
    for row in filled:
        count += 1
        if row.guild_id is not None and not row.is_bot:
            added[row.guild_id, row.rules, row.player_id][0] += row.ev_loss
            added[row.guild_id, row.rules, row.player_id][1] += 1
    s = standings.c
    if added:
        conn.execute(update(standings).where(
            s.guild_id == bindparam("g"), s.rules == bindparam("r"), s.player_id == bindparam("p"),
        ).values(loss_sum=s.loss_sum + bindparam("l"), analysed=s.analysed + bindparam("n")),
            [{"g": g, "r": r, "p": p, "l": v[0], "n": v[1]} for (g, r, p), v in sorted(
                added.items())])
    if 0 in losses:
        d = dailies.c
        count += conn.execute(update(dailies).where(d.game_id == game_id, d.ev_loss.is_(None))
                              .values(ev_loss=float(losses[0]))).rowcount
    return count


def _stats(  # noqa: PLR0913 - one a column of the stats query
    rules: str | None, played: int, wins: int, score: int, best: int, net: float,
    loss: float | None, analysed: int,
) -> api.MemberStats:
    return api.MemberStats(rules, played, wins, score / played, best, net,
                           (loss or 0.0) / analysed if analysed else None, analysed)


def _daily_line(row: Row[Any], rank: int, position: int) -> api.DailyLine:
    return api.DailyLine(rank, position, row.player_id, row.name, row.total, row.streak,
                         row.ev_loss, row.game_id)


def _line(row: Row[Any]) -> api.BoardLine:
    return api.BoardLine(row.rnk, row.pos, row.player_id, row.value, row.games, row.name,
                         row.extra)


# --- the boards ---------------------------------------------------------------------------


# --- a season's boards: the running totals of a window, summed from its results --------------

FAR_PAST, FAR_FUTURE = datetime(1970, 1, 1, tzinfo=UTC), datetime(9999, 1, 1, tzinfo=UTC)


def _window(since: datetime | None, until: datetime | None) -> dict[str, Any]:
    """A window's parameters: its times (results) and days (dailies: a daily counts in
    the window of its day); an open end is as far as the columns go."""
    start, end = _aware(since) or FAR_PAST, _aware(until) or FAR_FUTURE
    if start >= end:
        raise ValueError("a window ends after it begins")
    return {"since": start, "until": end, "since_day": start.astimezone(UTC).date(),
            "until_day": end.astimezone(UTC).date()}


def _results_window() -> Any:
    """`standings` of the results that finished in [since, until) (results_season's range)."""
    return select(
        R.guild_id, R.rules, R.player_id, func.count().label("games"),
        func.sum(sa.case((R.rank == 1, 1), else_=0)).label("wins"),
        func.sum(R.settlement).label("net"), func.sum(R.total).label("score_sum"),
        func.max(R.total).label("best"), func.coalesce(func.sum(R.ev_loss), 0.0).label("loss_sum"),
        func.count(R.ev_loss).label("analysed"),
    ).where(R.guild_id == bindparam("guild"), R.finished_at >= bindparam("since", type_=Moment),
            R.finished_at < bindparam("until", type_=Moment), R.is_bot == sa.false(),
            ).group_by(R.guild_id, R.rules, R.player_id).subquery("standings")


def _daily_window() -> Any:
    """`daily_standings` of the window's days: days played, days won (the day's best
    total, shared or not), and the longest streak reached in it."""
    d, dd = dailies.c, days.c
    return select(
        d.guild_id, d.rules, d.player_id, func.count().label("played"),
        func.sum(sa.case((d.total >= dd.best, 1), else_=0)).label("wins"),
        func.max(d.streak).label("best_streak"),
    ).join_from(dailies, days, sa.and_(dd.guild_id == d.guild_id, dd.rules == d.rules,
                                       dd.day == d.day)).where(
        d.guild_id == bindparam("guild"), d.day >= bindparam("since_day", type_=tables.Day),
        d.day < bindparam("until_day", type_=tables.Day),
    ).group_by(d.guild_id, d.rules, d.player_id).subquery("daily_standings")


def _season_since(made: Any, values: Mapping[str, Any]) -> dict[str, Any]:
    """`season_since` moves only when the season setting takes another value."""
    if "season" not in values:
        return {}
    return {"season_since": sa.case((S.season != made.excluded.season,
                                     made.excluded.season_since), else_=S.season_since)}


def _round6(value: Any) -> Any:
    """Rounded, so float noise in sums of thirds cannot split a real tie."""
    return sa.cast(func.round(sa.cast(value, sa.Numeric), 6), Float8)


def _board(metric: str, by_rules: bool, window: bool = False,
           ) -> tuple[Select[Any], Select[Any]]:
    """One board's page query (over the running totals `standings`, `daily_standings` or
    the ratings; in a `window`, over the same totals summed from its results), and the
    query whether its scope has any game at all."""
    table: Any = {"daily": daily_standings, "rating": ratings}.get(metric, standings)
    if window and metric != "rating":  # (a season's ratings are a scope of their own)
        table = _daily_window() if metric == "daily" else _results_window()
    t, sum_, max_ = table.c, func.sum, func.max
    scope = [t.guild_id == bindparam("guild")]
    if by_rules:
        scope.append(t.rules == bindparam("rules"))
    elif metric == "rating":  # every rule set together is a scope of its own
        scope.append(t.rules == api.OVERALL)
    if metric == "rating":
        agg = select(t.player_id, t.games, t.ordinal.label("value"), t.sigma.label("extra"))
        order = [_round6(t.ordinal).desc()]
    elif metric == "daily":  # days won, then the longest streak; both tie for a shared rank
        agg = select(t.player_id, sum_(t.played).label("games"), sum_(t.wins).label("value"),
                     max_(t.best_streak).label("extra")).group_by(t.player_id)
        order = [sum_(t.wins).desc(), max_(t.best_streak).desc()]
    else:
        value = {
            "wins": sum_(t.wins), "net": _round6(sum_(t.net)), "best": max_(t.best),
            "average": sa.cast(sum_(t.score_sum), Float8) / sum_(t.games),
            "skill": _round6(sum_(t.loss_sum) / func.nullif(sum_(t.analysed), 0)),
        }[metric]
        agg = select(t.player_id, sum_(t.games).label("games"), value.label("value"),
                     sa.null().label("extra")).group_by(t.player_id)
        if metric == "skill":
            agg = agg.having(sum_(t.analysed) >= api.SKILL_MIN_GAMES)
        order = [value.asc() if metric == "skill" else value.desc()]
    ranked = agg.where(*scope).add_columns(
        func.rank().over(order_by=order).label("rnk"),
        func.row_number().over(order_by=[*order, t.player_id]).label("pos"),
        func.count().over().label("n"),
    ).subquery("ranked")
    k, n = ranked.c, names.c
    page = select(ranked, func.coalesce(n.name, "").label("name")).outerjoin(
        names, sa.and_(n.guild_id == bindparam("guild"), n.player_id == k.player_id),
    ).where(sa.or_(sa.and_(k.pos > bindparam("lo"), k.pos <= bindparam("hi")),
                   k.player_id == bindparam("me"))).order_by(k.pos)
    return page, select(sa.literal(1)).select_from(table).where(*scope).limit(1)


_BOARDS = {(m, r, w): _board(m, r, w) for m in api.METRICS if m != "tournaments"
           for r in (False, True) for w in ((False,) if m == "rating" else (False, True))}

# The member's line of a day's board: counted in the board index's range (total DESC).
_o, _d = dailies.alias("b").c, dailies.c
_DAY_OF = sa.and_(_o.guild_id == _d.guild_id, _o.rules == _d.rules, _o.day == _d.day)
_DAILY_MINE = select(
    dailies,
    select(func.count()).where(_DAY_OF, _o.total > _d.total).scalar_subquery().label("ahead"),
    select(func.count()).where(_DAY_OF, sa.or_(_o.total > _d.total, sa.and_(
        _o.total == _d.total, _o.player_id < _d.player_id))).scalar_subquery().label("before"),
).where(_d.guild_id == bindparam("g"), _d.rules == bindparam("r"), _d.day == bindparam("d"),
        _d.player_id == bindparam("m"))


# --- the two databases' own -----------------------------------------------------------------


class SqliteStore(Store):
    """The embedded default: `await SqliteStore.open(path)` (":memory:" works too). One
    process owns the file, so the server settings are cached."""

    @classmethod
    async def open(cls, path: object) -> SqliteStore:
        return cls(await engine.SqliteDatabase.open(str(path)), cached=True)


class PostgresStore(Store):
    """Several processes on one database: `await PostgresStore.open("postgresql://…")`
    (store options on the URL: db/engine.py's `split_options`)."""

    @classmethod
    async def open(cls, url: str) -> PostgresStore:
        return cls(await engine.PostgresDatabase.open(url))

    async def _save(self, params: dict[str, Any], given: dict[int, Any]) -> api.GameRecord:
        """A plain save as ONE statement, so one round trip and its own transaction: the
        UPDATE writes only when the version matches and no given action conflicts, the
        INSERT reads the UPDATE's row, so a refused UPDATE writes nothing (a second
        statement then says why)."""
        values = {**params, "seqs": list(given), "payloads": [dumps(a) for a in given.values()]}
        rows = await self._db.fetch(_PG_SAVE, values)
        if not rows:
            raise await self._db.run(
                lambda c: _refusal(c, params["b_id"], params["b_version"], given))
        return _record(rows[0], state=params["b_state"])


def _pg_save() -> Select[Any]:
    jsonb = postgresql.JSONB
    given = select(
        func.unnest(bindparam("seqs", type_=postgresql.ARRAY(sa.BigInteger))).label("seq"),
        sa.cast(func.unnest(bindparam("payloads", type_=postgresql.ARRAY(sa.Text))), jsonb)
        .label("payload"),
    ).cte("given")
    conflict = select(given.c.seq).join(actions, sa.and_(
        A.game_id == bindparam("b_id"), A.seq == given.c.seq,
    )).where(A.payload != given.c.payload).cte("conflict")
    saved = _SAVE.where(~sa.exists(select(conflict.c.seq))).cte("saved")
    logged = postgresql.insert(actions).from_select(
        ["game_id", "seq", "payload", "created_at"],
        select(saved.c.id, given.c.seq, given.c.payload, bindparam("b_now", type_=Moment))
        .select_from(saved.join(given, sa.true())),
    ).on_conflict_do_nothing().cte("logged")
    return select(saved).add_cte(logged)


_PG_SAVE = _pg_save()


# --- tournaments ------------------------------------------------------------------------------

_TOURNAMENT_ACTIVE = literally(T.status, *tables.TOURNAMENT_ACTIVE)


def _tournament(row: Row[Any]) -> api.TournamentRecord:
    return api.TournamentRecord(
        id=row.id, guild_id=row.guild_id, channel_id=row.channel_id, status=row.status,
        version=row.version, state=row.state, created_at=row.created_at,
        updated_at=row.updated_at, finished_at=row.finished_at)


def _log_tournament(conn: Connection, tournament_id: int, start: int,
                    payloads: Sequence[dict[str, Any]], at: datetime) -> None:
    if payloads:
        conn.execute(sa.insert(tournament_actions), [
            {"tournament_id": tournament_id, "seq": start + i, "payload": p, "created_at": at}
            for i, p in enumerate(payloads)])


def _one(flag: Any) -> Any:
    return sa.case((flag == sa.true(), 1), else_=0)


def _in_window(c: Any) -> list[Any]:
    return [c.finished_at >= bindparam("since", type_=Moment),
            c.finished_at < bindparam("until", type_=Moment)]


def _tournament_board(by_rules: bool) -> tuple[Select[Any], Select[Any]]:
    """The `tournaments` board: tournaments won, then final tables reached, over the
    tournaments finished in the window [since, until)."""
    c, n = tournament_results.c, names.c
    scope = [c.guild_id == bindparam("guild"), *_in_window(c)]
    if by_rules:
        scope.append(c.rules == bindparam("rules"))
    wins, finals = func.sum(_one(c.champion)), func.sum(_one(c.final))
    order = [wins.desc(), finals.desc()]
    ranked = select(
        c.player_id, func.count().label("games"), wins.label("value"),
        finals.label("extra"), func.rank().over(order_by=order).label("rnk"),
        func.row_number().over(order_by=[*order, c.player_id]).label("pos"),
        func.count().over().label("n"),
    ).where(*scope).group_by(c.player_id).subquery("ranked")
    k = ranked.c
    page = select(ranked, func.coalesce(n.name, "").label("name")).outerjoin(
        names, sa.and_(n.guild_id == bindparam("guild"), n.player_id == k.player_id),
    ).where(sa.or_(sa.and_(k.pos > bindparam("lo"), k.pos <= bindparam("hi")),
                   k.player_id == bindparam("me"))).order_by(k.pos)
    return page, select(sa.literal(1)).select_from(tournament_results).where(*scope).limit(1)


_BOARDS.update({("tournaments", r, w): _tournament_board(r) for r in (False, True)
                for w in (False, True)})  # (always over a window: see `leaderboard`)
