"""The tournament's rules (`bot.match.tournament`), without Discord, a store or a clock:
the sign-up, seeding, tables and byes, who goes on and why, leavers, the end, cancelling,
snapshots, the log's replay and the export."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.engine import Game, GameError, Leave
from bot.i18n import t
from bot.match.tournament import (
    BYE,
    CANCELLED,
    DONE,
    FINISHED,
    MAX_PLAYERS,
    OPEN,
    PLAYING,
    SIGNUP_TTL,
    WAITING,
    WHY,
    Cancelled,
    Finished,
    Formed,
    Out,
    Placing,
    Result,
    RoundDone,
    Table,
    TableDone,
    Tournament,
    TournamentAction,
    decide,
    export,
    form_round,
    needs_rolloff,
    outcomes,
    parse_action,
    placings_of,
    snake,
    table_count,
)
from bot.strategy.rating import Rating, conservative

from .tourney import HOST, T0, engine_game, made_up, run, signup


class Dice:
    """Dice that give the values asked for, in order (then random ones)."""

    def __init__(self, *values: int, seed: int = 0) -> None:
        self.values = list(values)
        self.rng = random.Random(seed)

    def randint(self, a: int, b: int) -> int:
        if self.values:
            value = self.values.pop(0)
            assert a <= value <= b
            return value
        return self.rng.randint(a, b)


def refused(code: str, change: Callable[[], Any]) -> GameError:
    with pytest.raises(GameError) as info:
        change()
    assert info.value.code == code, info.value.code
    return info.value


def started(players: int, *, size: int = 4, advance: int = 1, seed: int = 1) -> Tournament:
    return signup(players, size=size, advance=advance).start(HOST, {}, random.Random(seed), T0)


def opened(tn: Tournament) -> Tournament:
    for i, table in enumerate(tn.to_open, 1):
        tn = tn.open_table(table.round, table.no, 100 * table.round + i, 9000 + i)
    return tn


def standing(*rows: tuple[int, int]) -> list[Placing]:
    """Placings from (player, total) as the engine ranks them."""
    average = sum(total for _, total in rows) / len(rows)
    return [
        Placing(p, 1 + sum(o > total for _, o in rows), total, total - average) for p, total in rows
    ]


# --- the sign-up ------------------------------------------------------------------------


def test_the_host_opens_the_sign_up_and_is_its_first_player():
    tn = signup(1)
    assert tn.status == "signup"
    assert [e.id for e in tn.entrants] == [HOST]
    assert tn.due_at() == T0 + SIGNUP_TTL
    assert (tn.table_size, tn.advance) == (4, 1)


@pytest.mark.parametrize(
    ("options", "code"),
    [
        ({"table_size": 1}, "tournament.bad_table_size"),
        ({"table_size": 9}, "tournament.bad_table_size"),
        ({"table_size": 4, "advance": 4}, "tournament.bad_advance"),
        ({"table_size": 4, "advance": 0}, "tournament.bad_advance"),
        ({"rules": "chess"}, "errors.unknown_rules"),
        ({"lang": "xx"}, "tournament.bad_action"),
    ],
)
def test_options_out_of_range_are_refused(options: dict[str, Any], code: str):
    values: dict[str, Any] = {"rules": "classic", "table_size": 4, "advance": 1, "lang": "en"}
    values.update(options)
    refused(
        code,
        lambda: Tournament.new(
            id=1, channel_id=2, guild_id=3, host_id=HOST, host_name="h", now=T0, **values
        ),
    )


def test_join_leave_and_the_host_who_cannot_leave():
    tn = signup(1).join(1, "ann").join(2, "bob")
    refused("errors.already_joined", lambda: tn.join(1, "ann"))
    refused("tournament.host_cannot_leave", lambda: tn.leave(HOST))
    refused("tournament.not_signed_up", lambda: tn.leave(3))
    after = tn.leave(1)
    assert [e.id for e in after.entrants] == [HOST, 2]
    assert not after.can_join(HOST)
    assert after.can_join(1)


def test_sixty_four_players_at_most_computers_included():
    tn = signup(MAX_PLAYERS - 1)
    tn = tn.add_computer(HOST, "perfect")
    assert len(tn.entrants) == MAX_PLAYERS
    refused("tournament.full", lambda: tn.join(1, "late"))
    refused("tournament.full", lambda: tn.add_computer(HOST, "easy"))
    assert not tn.can_join(1)


def test_computer_players_the_host_adds_unless_the_server_forbids_them():
    tn = signup(2)
    refused("bots.only_host", lambda: tn.add_computer(HOST + 1, "easy"))
    refused("bots.not_allowed", lambda: tn.add_computer(HOST, "easy", allowed=False))
    refused("errors.stale", lambda: tn.add_computer(HOST, "genius"))
    tn = tn.add_computer(HOST, "easy").add_computer(HOST, "perfect")
    bots = [e for e in tn.entrants if e.is_bot]
    assert [(e.id, e.level) for e in bots] == [(-1, "easy"), (-2, "perfect")]
    assert bots[1].name == "🤖 Bot 2 (perfect)"
    assert [e.rated_id for e in bots] == [-1, -3]  # rated as their level
    ru = signup(1, lang="ru").add_computer(HOST, "normal")  # named in the tournament's language
    assert ru.entrants[-1].name == t("bots.name", "ru", n=1, level=t("bots.level_normal", "ru"))
    assert ru.entrants[-1].name != t("bots.name", "en", n=1, level=t("bots.level_normal", "en"))


def test_the_host_or_a_manager_removes_players_from_the_sign_up():
    tn = signup(3).add_computer(HOST, "easy")
    refused("tournament.only_host_remove", lambda: tn.remove(HOST + 1, HOST + 2))
    refused("tournament.remove_self", lambda: tn.remove(HOST, HOST))
    refused("tournament.host_cannot_leave", lambda: tn.remove(HOST + 1, HOST, manager=True))
    refused("tournament.not_playing", lambda: tn.remove(HOST, 5))
    assert [e.id for e in tn.remove(HOST, -1).entrants] == [HOST, HOST + 1, HOST + 2]
    assert [e.id for e in tn.remove(HOST + 1, HOST + 2, manager=True).entrants] == [
        HOST,
        HOST + 1,
        -1,
    ]


def test_start_needs_two_players_and_the_host_or_a_manager():
    refused("tournament.too_few", lambda: signup(1).start(HOST, {}, random.Random(1), T0))
    tn = signup(2)
    refused("tournament.only_host_start", lambda: tn.start(HOST + 1, {}, random.Random(1), T0))
    assert tn.can_start(HOST + 1, manager=True)
    assert tn.start(HOST + 1, {}, random.Random(1), T0, manager=True).status == PLAYING


def test_a_sign_up_nobody_starts_expires():
    tn = signup(3)
    refused("errors.stale", lambda: tn.expire(T0 + SIGNUP_TTL - timedelta(seconds=1)))
    closed = tn.expire(T0 + SIGNUP_TTL)
    assert closed.status == CANCELLED
    assert closed.cancelled_by is None
    assert closed.events == (Cancelled(()),)


# --- seeding and tables -------------------------------------------------------------------


def test_seeds_by_conservative_rating_then_the_unrated_then_the_draw():
    tn = signup(6).add_computer(HOST, "perfect")
    ratings = {
        HOST + 1: Rating(30, 2),  # 24
        HOST + 2: Rating(40, 8),  # 16
        -3: Rating(35, 1),  # the perfect level: 32
        HOST + 3: Rating(27, 1),  # 24: ties with HOST + 1, the draw decides
    }
    # Draw: Fisher-Yates over [HOST, 1001..1005, -1], from the last position down.
    after = tn.start(HOST, ratings, Dice(0, 0, 0, 0, 0, 0), T0)
    seeding = after.rounds[0].seeding
    assert [p for p, _ in seeding][:2] == [-1, seeding[1][0]]
    assert seeding[0] == (-1, pytest.approx(conservative(Rating(35, 1))))
    assert {p for p, _ in seeding[1:3]} == {HOST + 1, HOST + 3}
    draws = {e.id: e.draw for e in after.entrants}
    first, second = seeding[1][0], seeding[2][0]
    assert draws[first] < draws[second]  # the tie goes by the stored draw
    assert seeding[3][0] == HOST + 2
    assert [r for _, r in seeding[4:]] == [None, None, None]  # the unrated, by the draw
    unrated = [p for p, _ in seeding[4:]]
    assert unrated == sorted(unrated, key=lambda p: draws[p])


def test_snake_order_deals_each_row_of_seeds_to_every_table():
    assert snake(list(range(1, 13)), 3) == [[1, 6, 7, 12], [2, 5, 8, 11], [3, 4, 9, 10]]
    assert snake(list(range(1, 11)), 3) == [[1, 6, 7], [2, 5, 8], [3, 4, 9, 10]]


@pytest.mark.parametrize("size", range(2, 9))
def test_tables_for_every_player_count(size: int):
    for n in range(2, MAX_PLAYERS + 1):
        rnd = form_round(1, tuple((p, None) for p in range(n)), size, 1)
        sizes = [len(tb.seats) for tb in rnd.tables]
        assert len(rnd.tables) == table_count(n, size)
        assert sum(sizes) == n
        assert max(sizes) <= size
        assert max(sizes) - min(sizes) <= 1
        byes = [tb for tb in rnd.tables if tb.status == BYE]
        if size == 2 and n % 2 and n > 2:
            assert len(byes) == 1
            assert byes[0].seats == (0,)
            assert byes[0].advanced == ((0, "bye"),)
        else:
            assert not byes
            assert min(sizes) >= 2


def test_a_round_that_fits_one_table_is_the_final():
    tn = started(4)
    assert tn.rounds[0].final
    assert tn.final is not None
    assert tn.final.advance == 1
    assert tn.events == (Formed(1),)


# --- tables in, players on --------------------------------------------------------------


def test_the_best_of_each_table_go_on_and_the_next_round_forms():
    tn = opened(started(9, size=4, advance=2))
    assert [len(tb.seats) for tb in tn.current.tables] == [3, 3, 3]
    assert all(tb.advance == 2 for tb in tn.current.tables)
    for tb in tn.current.tables:
        a, b, c = tb.seats
        tn = tn.record(1, tb.no, standing((a, 300), (b, 200), (c, 100)), Dice())
        assert tn.table(1, tb.no).advanced == ((a, "place"), (b, "place"))
    assert tn.events[-1] == RoundDone(1)
    assert tn.awaiting_advance
    after = tn.advance_round({}, T0)
    assert len(after.rounds) == 2
    assert [len(tb.seats) for tb in after.current.tables] == [3, 3]  # six go on: two tables
    assert sorted(after.current.seeds) == sorted(
        p for tb in tn.current.tables for p in tb.seats[:2]
    )


def test_a_tie_across_the_last_place_is_settled_by_one_roll_off_throw():
    tn = opened(started(4))
    a, b, c, d = tn.final.seats
    placings = standing((a, 200), (b, 200), (c, 150), (d, 100))
    done = tn.record(1, 1, placings, Dice(1, 1, 1, 1, 1, 6, 6, 6, 6, 6))
    table = done.table(1, 1)
    # The tied players throw in seat order: a throws 5, b throws 30.
    assert dict(table.rolloff) == {a: (1, 1, 1, 1, 1), b: (6, 6, 6, 6, 6)}
    assert table.advanced == ((b, "rolloff"),)
    assert done.advance_round({}, T0).champion == b


def test_an_equal_roll_off_goes_to_the_better_seed():
    tn = opened(started(2))
    a, b = tn.final.seats  # seed order
    done = tn.record(1, 1, standing((b, 90), (a, 90)), Dice(*([3] * 10)))
    assert done.table(1, 1).advanced == ((a, "seed"),)


def test_settlement_decides_between_equal_places_before_any_roll_off():
    tn = opened(started(3, size=3, advance=1))
    a, b, c = tn.final.seats
    # Places as given; settlements differ (the engine never gives this, the rule holds).
    placings = [Placing(a, 1, 100, -5.0), Placing(b, 1, 100, 5.0), Placing(c, 3, 90, 0.0)]
    done = tn.record(1, 1, placings, Dice())
    assert done.table(1, 1).advanced == ((b, "settlement"),)
    assert done.table(1, 1).rolloff == ()


def test_a_result_must_name_exactly_the_players_who_sat_down():
    tn = opened(started(4))
    a, b, c, _ = tn.final.seats
    refused(
        "tournament.bad_action", lambda: tn.record(1, 1, standing((a, 1), (b, 2), (c, 3)), Dice())
    )
    refused("errors.stale", lambda: started(4).record(1, 1, [], Dice()))  # not opened yet


def test_a_forged_roll_off_is_refused_by_the_fold():
    tn = opened(started(4))
    a, b, c, d = tn.final.seats
    placings = tuple(standing((a, 200), (b, 200), (c, 150), (d, 100)))

    for rolloff in ((), ((a, (6, 6, 6, 6, 6)),), ((a, (7, 1, 1, 1, 1)), (b, (1, 1, 1, 1, 1)))):
        refused("tournament.bad_action", lambda r=rolloff: tn.apply(Result(1, 1, placings, r)))
    untied = tuple(standing((a, 300), (b, 200), (c, 150), (d, 100)))
    refused(
        "tournament.bad_action", lambda: tn.apply(Result(1, 1, untied, ((a, (1, 1, 1, 1, 1)),)))
    )


def test_placings_of_a_real_game():
    game = Game.new("classic", ["5", "6"])
    game, _ = game.apply(Leave("6"))
    game, _ = game.apply(Leave("5"))
    assert [(p.player, p.left) for p in placings_of(game)] == [(5, True), (6, True)]


# --- leaving, being removed, empty tables --------------------------------------------------


def test_a_player_who_leaves_is_out_and_their_table_goes_on():
    tn = opened(started(8))
    table = tn.current.tables[0]
    leaver = table.seats[0]
    after = tn.leave(leaver)
    assert after.events == (Out(leaver, "left", table.game_id),)
    assert after.entrant(leaver).out == "left"
    assert not after.still_in(leaver)
    refused("tournament.not_in", lambda: after.leave(leaver))
    # Their game goes on; they left it, so they do not go on even with the best total.
    rows = [(p, 300 if p == leaver else 100 + i) for i, p in enumerate(table.seats)]
    placings = [replace_left(p, leaver) for p in standing(*rows)]
    done = after.record(1, 1, placings, Dice())
    assert leaver not in done.table(1, 1).went_on
    assert done.table(1, 1).went_on == (table.seats[-1],)


def replace_left(p: Placing, leaver: int) -> Placing:
    return Placing(p.player, p.place, p.total, p.settlement, p.player == leaver)


def test_leaving_the_table_game_is_leaving_the_tournament():
    tn = opened(started(4))
    a, b, c, d = tn.final.seats
    placings = [replace_left(p, a) for p in standing((a, 300), (b, 200), (c, 150), (d, 100))]
    done = tn.record(1, 1, placings, Dice())
    assert done.entrant(a).out == "left"
    assert done.table(1, 1).went_on == (b,)


def test_the_host_removes_a_player_in_play():
    tn = opened(started(8))
    target = tn.current.tables[1].seats[0]
    refused("tournament.only_host_remove", lambda: tn.remove(target, HOST))
    after = tn.remove(HOST, target)
    assert after.entrant(target).out == "removed"
    assert after.events == (Out(target, "removed", tn.current.tables[1].game_id),)


def test_a_table_of_computer_players_only_plays_out_and_sends_one_on():
    tn = signup(4, bots=2).start(HOST, {}, random.Random(3), T0)
    tn = opened(tn)
    humans = [e.id for e in tn.entrants if not e.is_bot]
    for h in humans:
        if tn.can_leave(h):
            tn = tn.leave(h)
    placings = engine_game(tn.final, tn, random.Random(4))
    done = tn.record_game(tn.final.game_id, placings, random.Random(5)).advance_round({}, T0)
    assert done.status == FINISHED
    assert done.champion is not None
    assert done.champion < 0


def test_a_table_everyone_left_sends_nobody_on():
    tn = opened(started(8))
    t1, t2 = tn.current.tables
    for p in t1.seats:
        tn = tn.leave(p)
    game = engine_game(tn.table(1, 1), tn, random.Random(1))  # everyone left: finished
    assert game.finished
    tn = tn.record(1, 1, placings_of(game), Dice())
    assert tn.table(1, 1).advanced == ()
    a, b, c, d = t2.seats
    tn = tn.record(1, 2, standing((a, 4), (b, 3), (c, 2), (d, 1)), Dice())
    done = tn.advance_round({}, T0)
    assert done.status == FINISHED
    assert done.champion == a
    assert done.events == (Finished(a),)


def test_everyone_gone_ends_without_a_champion():
    tn = opened(started(3))
    for p in tn.final.seats:
        tn = tn.leave(p)
    game = engine_game(tn.final, tn, random.Random(1))
    done = tn.record(1, 1, placings_of(game), Dice()).advance_round({}, T0)
    assert done.status == FINISHED
    assert done.champion is None


def test_a_waiting_table_whose_players_all_left_is_done_at_once():
    tn = started(8)
    table = tn.current.tables[0]
    for p in table.seats:
        tn = tn.leave(p)
    assert tn.table(1, 1).status == DONE
    assert tn.events[-1] == TableDone(1, 1, ())
    assert [tb.no for tb in tn.to_open] == [2]
    assert tn.seats_for(tn.table(1, 2))[0].user_id == tn.table(1, 2).seats[0]


def test_a_bye_goes_on_at_once():
    tn = started(5, size=2)
    assert [tb.status for tb in tn.current.tables] == [BYE, WAITING, WAITING]
    assert TableDone(1, 1, ((tn.current.seeds[0], "bye"),)) in tn.events


# --- cancel ---------------------------------------------------------------------------------


def test_cancel_closes_every_table_in_play():
    tn = opened(started(8))
    refused("tournament.only_host_cancel", lambda: tn.cancel(HOST + 1, T0))
    after = tn.cancel(HOST + 1, T0, manager=True)
    assert after.status == CANCELLED
    assert after.champion is None
    assert after.events == (Cancelled(tuple(tb.game_id for tb in tn.current.tables)),)
    assert all(tb.status == CANCELLED for tb in after.current.tables)
    refused("errors.stale", lambda: after.cancel(HOST, T0))
    refused("errors.stale", lambda: after.leave(HOST + 1))
    refused("errors.stale", lambda: after.open_table(1, 1, 5))


def test_finished_tables_stay_finished_when_the_tournament_is_cancelled():
    tn = opened(started(8))
    a, b, c, d = tn.current.tables[0].seats
    tn = tn.record(1, 1, standing((a, 4), (b, 3), (c, 2), (d, 1)), Dice())
    after = tn.cancel(HOST, T0)
    assert [tb.status for tb in after.current.tables] == [DONE, CANCELLED]
    assert after.events == (Cancelled((tn.current.tables[1].game_id,)),)


# --- snapshots, the log and the export -----------------------------------------------------


def test_snapshot_replay_and_export_of_a_whole_tournament():
    log: list[TournamentAction] = []
    tn = signup(13, bots=3, log=log)
    final = run(tn, random.Random(8), leave=0.1, engine=True, log=log)
    assert final.status == FINISHED
    state = json.loads(json.dumps(final.to_dict()))
    again = Tournament.from_snapshot(
        state, id=7, channel_id=70, guild_id=700, status=final.status, version=3
    )
    assert again == final.__class__(**{**final.__dict__, "version": 3})
    wire = json.loads(json.dumps([a.to_json() for a in log]))
    assert Tournament.replay(wire, id=7, channel_id=70, guild_id=700) == final
    data = json.loads(json.dumps(export(final, log)))
    assert data["champion"]["id"] == final.champion
    assert [r["round"] for r in data["rounds"]] == list(range(1, len(final.rounds) + 1))
    for rnd in data["rounds"]:
        for table in rnd["tables"]:
            went = [p["id"] for p in table["placings"] if p["advanced"]]
            assert went == [p["id"] for p in table["advanced"]] or table["status"] == BYE
            assert all(p["why"] in (*WHY, "out") for p in table["placings"])
    assert Tournament.replay(data["actions"], id=7, channel_id=70, guild_id=700) == final


@pytest.mark.parametrize(
    "raw",
    [
        {},
        {"join": {}},
        {"nope": {}},
        {"join": {"player": "x", "name": "a"}},
        [],
        "x",
        {"start": {"at": "2026-01-01T00:00:00", "draw": [], "ratings": []}},
    ],
)
def test_a_damaged_log_entry_is_refused_politely(raw: Any):
    refused("tournament.bad_action", lambda: parse_action(raw))


def test_a_log_must_begin_with_the_opening():
    refused(
        "tournament.bad_action",
        lambda: Tournament.replay(
            [{"join": {"player": 1, "name": "a"}}], id=1, channel_id=2, guild_id=3
        ),
    )
    refused("tournament.bad_action", lambda: Tournament.replay([], id=1, channel_id=2, guild_id=3))


# --- properties -------------------------------------------------------------------------------

PROPERTY = settings(
    max_examples=60, deadline=None, suppress_health_check=list(HealthCheck), database=None
)


def check_state(tn: Tournament) -> None:
    """What holds after every change: each player of a round at exactly one of its
    tables; the players of a round those who went on from the one before (or everyone);
    no table sends on more than it may or anyone who is out."""
    assert tn.current is not None
    everyone = {e.id for e in tn.entrants}
    previous: set[int] | None = None
    for rnd in tn.rounds:
        seats = [p for tb in rnd.tables for p in tb.seats]
        assert len(seats) == len(set(seats)) == len(rnd.seeding)
        assert set(seats) == set(rnd.seeds)
        assert set(seats) <= (everyone if previous is None else previous)
        for tb in rnd.tables:
            assert len(tb.advanced) <= tb.advance < max(2, len(tb.seats))
            assert all(
                tn.entrant(p).out is None or tn.entrant(p).out_round >= rnd.no for p in tb.went_on
            )
            assert all(not pl.left for pl in tb.placings if pl.player in tb.went_on)
        previous = {p for tb in rnd.tables for p in tb.went_on}


@PROPERTY
@given(
    st.integers(2, MAX_PLAYERS),
    st.integers(2, 8),
    st.data(),
    st.sampled_from([0.0, 0.0, 0.05, 0.3]),
    st.integers(0, 2**32),
)
def test_every_tournament_ends_with_one_champion_or_nobody_left(players, size, data, leave, seed):
    advance = data.draw(st.integers(1, size - 1))
    bots = data.draw(st.integers(0, players - 1))
    log: list[TournamentAction] = []
    tn = signup(players, size=size, advance=advance, bots=bots, log=log)
    final = run(tn, random.Random(seed), leave=leave, log=log, check=check_state)
    assert final.status == FINISHED
    last = final.rounds[-1]
    going = [p for tb in last.tables for p in tb.went_on if final.entrant(p).out is None]
    if final.champion is None:
        assert not going  # nobody was left
    else:
        assert final.entrant(final.champion).out is None
        assert going == [final.champion]
    # Rounds shrink: every table but a bye knocks someone out.
    sizes = [len(r.seeding) for r in final.rounds]
    assert sizes == sorted(sizes, reverse=True)
    assert len(set(sizes)) == len(sizes)
    # The log rebuilds it, through JSON.
    wire = json.loads(json.dumps([a.to_json() for a in log]))
    assert Tournament.replay(wire, id=7, channel_id=70, guild_id=700) == final
    state = json.loads(json.dumps(final.to_dict()))
    assert (
        Tournament.from_snapshot(
            state, id=7, channel_id=70, guild_id=700, status=final.status, version=0
        )
        == final
    )


@PROPERTY
@given(st.integers(2, MAX_PLAYERS), st.integers(2, 8), st.integers(1, 7))
def test_snake_seeding_balances_the_tables(players: int, size: int, advance: int):
    advance = min(advance, size - 1)
    rnd = form_round(1, tuple((p, None) for p in range(1, players + 1)), size, advance)
    k = len(rnd.tables)
    # Every table takes one seed of each full row of k seeds, in order.
    for tb in rnd.tables:
        rows = [(s - 1) // k for s in tb.seats]
        assert rows == list(range(len(tb.seats)))
    # Tables of the same size are as strong as seeds allow: their seed sums differ by at
    # most k - 1 (one odd row), and not at all after an even number of full rows.
    full = players // k
    for m in {len(tb.seats) for tb in rnd.tables}:
        sums = [sum(tb.seats) for tb in rnd.tables if len(tb.seats) == m]
        assert max(sums) - min(sums) <= k - 1
        if full % 2 == 0 and full == m:
            assert len(set(sums)) == 1


@PROPERTY
@given(st.lists(st.integers(0, 3), min_size=2, max_size=8), st.integers(1, 7), st.integers())
def test_advancing_counts_and_ties(totals: list[int], advance: int, seed: int):
    n = len(totals)
    advance = min(advance, n - 1)
    players = list(range(1, n + 1))
    table = Table(1, 1, tuple(players), advance, OPEN, players=tuple(players))
    placings = standing(*zip(players, totals, strict=True))

    tied = needs_rolloff(table, placings, players)
    rng = random.Random(seed)
    rolloff = {p: tuple(rng.randint(1, 6) for _ in range(5)) for p in tied}
    chosen = decide(table, placings, players, players, rolloff)
    assert chosen is not None
    assert len(chosen) == advance
    went = [p for p, _ in chosen]
    worst_in = max(totals[p - 1] for p in went)
    best_out = max((totals[p - 1] for p in players if p not in went), default=-1)
    assert min(totals[p - 1] for p in went) >= best_out  # nobody better stays behind
    assert worst_in >= best_out
    assert bool(tied) == (any(why in ("rolloff", "seed") for _, why in chosen))


def test_a_table_of_one_is_never_formed_but_a_bye():
    rnd = form_round(1, ((1, None), (2, None), (3, None)), 2, 1)
    assert [tb.status for tb in rnd.tables] == [BYE, WAITING]
    assert rnd.tables[0].advanced == ((1, "bye"),)


def test_the_next_round_is_seeded_afresh_by_the_ratings_given():
    tn = opened(started(16))
    for tb in tn.current.tables:
        rows = [(p, 100 - i) for i, p in enumerate(tb.seats)]
        tn = tn.record(1, tb.no, standing(*rows), Dice())
    going = [tb.seats[0] for tb in tn.current.tables]
    weakest_first = {p: Rating(20 + i, 1) for i, p in enumerate(going)}
    after = tn.advance_round(weakest_first, T0)
    assert after.current.seeds == tuple(reversed(going))
    assert after.events == (Formed(2),)
    refused("errors.stale", lambda: after.advance_round({}, T0))
    assert not after.can_advance()


def test_record_game_finds_the_table_by_its_game():
    tn = opened(started(8))
    table = tn.current.tables[1]
    game = engine_game(table, tn, random.Random(2))
    done = tn.record_game(table.game_id, game, random.Random(3))
    assert done.table(1, 2).status == DONE
    assert len(done.table(1, 2).went_on) == 1
    refused("errors.stale", lambda: tn.record_game(999_999, game, random.Random(3)))
    refused(
        "errors.stale",
        lambda: tn.record_game(table.game_id, Game.new("classic", ["1"]), random.Random(3)),
    )


def test_made_up_standings_rank_like_the_engine():
    tn = opened(started(4))
    rng = random.Random(1)
    placings = made_up(tn.final, tn, rng)
    for p in placings:
        assert p.place == 1 + sum(o.total > p.total for o in placings)


def test_what_a_tournament_counts_for_in_the_league():
    tn = opened(started(8))
    for tb in tn.current.tables:
        a, b, c, d = tb.seats
        tn = tn.record(1, tb.no, standing((a, 4), (b, 3), (c, 2), (d, 1)), Dice())
    assert outcomes(tn) == ()  # not finished yet
    tn = opened(tn.advance_round({}, T0))
    x, y = tn.final.seats
    done = tn.record(2, 1, standing((x, 10), (y, 20)), Dice()).advance_round({}, T0)
    counted = {o.player: o for o in outcomes(done)}
    assert len(counted) == 8
    assert counted[y].champion
    assert (counted[y].final, counted[y].place, counted[y].rounds) == (True, 1, 2)
    assert (counted[x].final, counted[x].place, counted[x].champion) == (True, 2, False)
    others = [o for o in counted.values() if o.player not in (x, y)]
    assert all(not o.final and o.place is None and o.rounds == 1 for o in others)
    assert outcomes(opened(started(8)).cancel(HOST, T0)) == ()  # counts for nobody
