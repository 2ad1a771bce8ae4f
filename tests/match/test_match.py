"""The table's rules (`bot.match.Match`), without Discord, a store or a clock.

A match is immutable: each change returns a new one and says what it did (`events`, and
the engine `actions` it applied, which the store appends to the game's log). The service
calls `schedule` after every change (the turn's deadline, the strikes); the tests here do
the same where they need a deadline.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.engine import RULESETS, Action, Game, GameError, Leave, Left, Pass, Roll, Score
from bot.match import AWAY_AFTER, LOBBY_TTL, MAX_SEATS, SCORECARD_ROUNDS_FROM, Match, Seat
from bot.records import GameRecord

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
TIMEOUT = timedelta(minutes=5)
GRACE = timedelta(minutes=1)
HOST, ANN, BOB, CID = 11, 22, 33, 44


def lobby(*others: int, rules: str = "classic", host: int = HOST) -> Match:
    """A lobby opened by `host` at T0, with `others` joined in that order."""
    match = Match(
        id=1,
        channel_id=5,
        guild_id=7,
        host_id=host,
        rules=rules,
        created_at=T0,
        seats=(Seat(host, f"p{host}"),),
    )
    for user_id in others:
        match = match.join(user_id, f"p{user_id}")
    return match


def scheduled(before: Match, change: Callable[[Match], Match], now: datetime = T0) -> Match:
    """A change as the service commits it: then its deadline and strikes."""
    return change(before).schedule(before, now, TIMEOUT)


def started(*others: int, seed: int = 1, rules: str = "classic") -> Match:
    before = lobby(*others, rules=rules)
    return scheduled(before, lambda m: m.start(HOST, random.Random(seed), T0))


def refused(code: str, change: Callable[[], Any]) -> GameError:
    with pytest.raises(GameError) as info:
        change()
    assert info.value.code == code
    return info.value


def absent(dice: random.Random) -> Callable[[Game], Action]:
    """The timer's stand-in: throw once, record the first row offered (or pass)."""

    def decide(game: Game) -> Action:
        options = game.options()
        if options:
            return Score(game.player, options[0].row)
        if game.can_roll(game.player):
            return game.draw(game.player, dice)
        return Pass(game.player)

    return decide


def play_turn(match: Match, now: datetime, dice: random.Random) -> Match:
    """The player to move throws once and records the first row offered (as they click)."""
    player = match.current_id
    assert player is not None
    after = scheduled(match, lambda m: m.roll(player, dice), now)
    game = after.require_game()
    options = game.options()
    if options:
        return scheduled(after, lambda m: m.score(player, options[0].row), now)
    return scheduled(after, lambda m: m.pass_turn(player), now)


# --- the lobby ------------------------------------------------------------------------------


def test_join_and_leave_the_lobby() -> None:
    opened = lobby()
    joined = opened.join(ANN, "ann")
    assert [s.user_id for s in joined.seats] == [HOST, ANN]
    assert joined.seat(ANN) == Seat(ANN, "ann")
    assert (joined.events, joined.actions) == ((), ())
    assert opened.seats == (Seat(HOST, f"p{HOST}"),)  # a change never alters the match
    refused("errors.already_joined", lambda: joined.join(ANN, "ann again"))
    both = joined.join(BOB, "bob")
    left = both.leave_lobby(ANN)
    assert [s.user_id for s in left.seats] == [HOST, BOB]
    refused("errors.not_in_lobby", lambda: left.leave_lobby(ANN))
    refused("errors.host_cannot_leave", lambda: left.leave_lobby(HOST))
    # Once started, the lobby's changes are out of date.
    game = started(ANN)
    refused("errors.stale", lambda: game.join(BOB, "bob"))
    refused("errors.stale", lambda: game.leave_lobby(ANN))


def test_a_full_lobby_has_eight_seats() -> None:
    full = lobby(*range(21, 21 + MAX_SEATS - 1))
    assert len(full.seats) == MAX_SEATS == 8
    error = refused("errors.lobby_full", lambda: full.join(99, "late"))
    assert error.params == {"n": MAX_SEATS}  # the count: "8 players", in its plural form
    refused("errors.lobby_full", lambda: full.add_computer(HOST, "easy"))
    # A seat freed is a seat taken again; computer seats count like any other.
    seven = full.leave_lobby(21).add_computer(HOST, "normal")
    assert len(seven.seats) == MAX_SEATS
    refused("errors.lobby_full", lambda: seven.join(21, "back"))
    room = seven.remove_computer(HOST, -1)
    assert len(room.join(21, "back").seats) == MAX_SEATS


def test_only_the_host_adds_and_removes_computer_seats() -> None:
    opened = lobby(ANN)
    error = refused("bots.only_host", lambda: opened.add_computer(ANN, "easy"))
    assert error.params == {"name": f"p{HOST}"}
    one = opened.add_computer(HOST, "easy")
    two = one.add_computer(HOST, "perfect")
    computers = [s for s in two.seats if s.is_bot]
    assert [(s.user_id, s.name, s.level) for s in computers] == [
        (-1, "🤖 Bot 1 (easy)", "easy"),
        (-2, "🤖 Bot 2 (perfect)", "perfect"),
    ]
    refused("errors.stale", lambda: two.add_computer(HOST, "grandmaster"))
    refused("bots.only_host", lambda: two.remove_computer(ANN, -1))
    refused("errors.stale", lambda: two.remove_computer(HOST, ANN))  # members are not seats
    refused("errors.stale", lambda: two.remove_computer(HOST, -5))
    fewer = two.remove_computer(HOST, -1)
    assert [s.user_id for s in fewer.seats] == [HOST, ANN, -2]
    # The computer seats keep their numbers 1, 2, … in the order they joined: "Bot 2" alone
    # is "Bot 1" now, and the next one "Bot 2", on a fresh seat id.
    assert fewer.seats[-1].name == "🤖 Bot 1 (perfect)"
    again = fewer.add_computer(HOST, "normal")
    assert [(s.user_id, s.name) for s in again.seats if s.is_bot] == [
        (-2, "🤖 Bot 1 (perfect)"),
        (-3, "🤖 Bot 2 (normal)"),
    ]
    russian = replace(again, lang="ru").remove_computer(HOST, -2)
    assert [s.name for s in russian.seats if s.is_bot] == ["🤖 Бот 1 (средний)"]


def test_computer_seats_added_and_removed_many_times_stay_removable() -> None:
    opened = lobby(ANN)
    for _ in range(20):
        opened = opened.add_computer(HOST, "easy")
        seat = opened.seats[-1]
        assert seat.name == "🤖 Bot 1 (easy)"
        opened = opened.remove_computer(HOST, seat.user_id)
    assert [s.user_id for s in opened.seats] == [HOST, ANN]


def test_only_the_host_starts() -> None:
    opened = lobby(ANN, BOB).add_computer(HOST, "easy")
    error = refused("errors.only_host_start", lambda: opened.start(ANN, random.Random(1), T0))
    assert error.params == {"name": f"p{HOST}"}
    game = opened.start(HOST, random.Random(1), T0)
    assert game.status == "playing"
    assert game.started_at == T0
    assert (game.events, game.actions) == ((), ())  # the opening throw is no engine action
    assert game.game == Game.new("classic", game.require_game().players)
    # Everyone seated plays; the opening throw's winner starts, join order after them.
    players = [int(p) for p in game.require_game().players]
    assert sorted(players) == sorted(s.user_id for s in opened.seats)
    assert game.opening is not None
    assert players[0] == game.opening.starter == game.current_id
    order = [s.user_id for s in opened.seats]
    at = order.index(players[0])
    assert players == order[at:] + order[:at]
    refused("errors.stale", lambda: game.start(HOST, random.Random(1), T0))


def test_the_host_or_a_manager_cancels() -> None:
    opened = lobby(ANN)
    error = refused("errors.only_host_cancel", lambda: opened.cancel(ANN, manager=False))
    assert error.params == {"name": f"p{HOST}"}
    assert opened.cancel(HOST, manager=False).status == "cancelled"
    assert opened.cancel(ANN, manager=True).status == "cancelled"  # Manage Server
    assert opened.cancel(BOB, manager=True).status == "cancelled"  # even when not seated
    game = started(ANN)
    refused("errors.only_host_cancel", lambda: game.cancel(ANN, manager=False))
    cancelled = game.cancel(ANN, manager=True)
    assert cancelled.status == "cancelled"
    assert cancelled.actions == ()
    refused("errors.stale", lambda: cancelled.cancel(HOST, manager=True))


# --- removing a player ---------------------------------------------------------------------


def test_kick_rules_in_the_lobby() -> None:
    opened = lobby(ANN, BOB)
    error = refused("kick.only_host", lambda: opened.kick(ANN, BOB))
    assert error.params == {"name": f"p{HOST}"}
    refused("kick.self", lambda: opened.kick(HOST, HOST))
    refused("kick.not_seated", lambda: opened.kick(HOST, CID))
    kicked = opened.kick(HOST, BOB)
    assert [s.user_id for s in kicked.seats] == [HOST, ANN]
    assert kicked.actions == ()
    refused("kick.not_seated", lambda: kicked.kick(HOST, BOB))
    opened.check_kick(HOST, ANN)  # may: nothing raised, nothing changed


def test_kick_rules_in_a_game() -> None:
    game = started(ANN, BOB)
    refused("kick.only_host", lambda: game.kick(ANN, BOB))
    refused("kick.self", lambda: game.kick(HOST, HOST))
    refused("kick.not_seated", lambda: game.kick(HOST, CID))
    kicked = game.kick(HOST, BOB)
    assert kicked.actions == (Leave(str(BOB)),)  # the engine's leave: the log says so
    assert [type(e) for e in kicked.events] == [Left]
    assert not kicked.plays(BOB)
    assert kicked.seat(BOB) is not None  # still seated: their card stays in the game
    refused("kick.not_seated", lambda: kicked.kick(HOST, BOB))
    refused("errors.stale", lambda: kicked.cancel(HOST, manager=False).kick(HOST, ANN))


def test_the_host_who_leaves_passes_host_powers_to_the_next_human_seat() -> None:
    opened = lobby(ANN, BOB).add_computer(HOST, "easy")
    game = _host_first(opened)  # seats: host, ann, bob, computer; the host to move
    assert [int(p) for p in game.require_game().players] == [HOST, ANN, BOB, -1]
    after = game.leave_game(HOST)
    assert after.host_id == ANN
    assert after.actions == (Leave(str(HOST)),)
    # A member who is not the host leaves: the host stays.
    assert after.leave_game(BOB).host_id == ANN
    # The next human seat after ann is bob (the computer seat never hosts) …
    assert after.leave_game(ANN).host_id == BOB
    two = after.leave_game(ANN)
    alone = two.leave_game(BOB)  # no other human plays: the host keeps the game
    assert alone.host_id == BOB
    refused("errors.not_playing", lambda: alone.leave_game(ANN))
    # Around the table: after bob's seat comes the computer's (skipped), then the first.
    bob_hosts = replace(game, host_id=BOB)
    assert bob_hosts.leave_game(BOB).host_id == HOST


def test_a_host_marked_away_passes_host_powers_too() -> None:
    dice = random.Random(3)
    match = _host_first(lobby(ANN))
    now = T0
    for strike in range(1, AWAY_AFTER + 1):
        now = match.deadline
        match = scheduled(match, lambda m, n=now: m.play_absent(n, absent(dice)), now)
        assert match.strikes_of(HOST) == strike
        if strike < AWAY_AFTER:
            assert match.host_id == HOST
            match = play_turn(match, now, dice)  # ann plays hers
    assert not match.plays(HOST)
    assert match.host_id == ANN


def _host_first(opened: Match) -> Match:
    """`opened` started (and scheduled) with dice that let the host throw first."""
    return next(
        g
        for seed in range(100)
        if (g := scheduled(opened, lambda m, s=seed: m.start(HOST, random.Random(s), T0)))
        .current_id == HOST
    )  # fmt: skip


# --- the turn timer ------------------------------------------------------------------------


def test_schedule_sets_a_deadline_exactly_when_a_new_turn_begins() -> None:
    dice = random.Random(5)
    opened = lobby(ANN)
    assert opened.schedule(opened, T0, TIMEOUT).deadline is None  # a lobby has no turn
    assert opened.due_at() == T0 + LOBBY_TTL
    game = _host_first(opened)
    assert game.deadline == T0 + TIMEOUT  # the start begins the first turn
    assert game.due_at() == game.deadline
    later = T0 + timedelta(minutes=1)
    rolled = scheduled(game, lambda m: m.roll(HOST, dice), later)
    assert rolled.deadline == T0 + TIMEOUT  # the same turn: the same deadline
    held = scheduled(rolled, lambda m: m.toggle_hold(HOST, 0), later)
    assert held.deadline == T0 + TIMEOUT
    again = scheduled(held, lambda m: m.roll(HOST, dice), later)
    assert again.deadline == T0 + TIMEOUT
    row = again.require_game().options()[0].row
    scored = scheduled(again, lambda m: m.score(HOST, row), later)
    assert scored.current_id == ANN
    assert scored.deadline == later + TIMEOUT  # ann's turn begins now
    # Someone leaving on another's turn changes no deadline; the mover leaving does.
    left = scheduled(scored, lambda m: m.leave_game(HOST), later + timedelta(seconds=5))
    assert left.deadline == later + TIMEOUT
    # Past the end, no deadline.
    solo = started(seed=2)
    now = T0
    while solo.status == "playing":
        now += timedelta(seconds=10)
        solo = play_turn(solo, now, dice)
    assert solo.deadline is None
    assert solo.due_at() is None


def test_the_mover_leaving_starts_the_next_turns_deadline() -> None:
    game = _host_first(lobby(ANN))
    later = T0 + timedelta(minutes=2)
    left = scheduled(game, lambda m: m.leave_game(HOST), later)
    assert left.current_id == ANN
    assert left.deadline == later + TIMEOUT


def test_computer_seats_have_no_deadline() -> None:
    opened = lobby().add_computer(HOST, "easy")
    dice = random.Random(7)
    game = _host_first(opened)
    after = play_turn(game, T0, dice)
    assert after.computer_to_move == after.seat(-1)
    assert after.deadline is not None  # scheduled like any turn …
    assert after.due_at() is None  # … but the timer leaves a computer seat alone


def test_schedule_clears_a_returning_players_strikes() -> None:
    dice = random.Random(11)
    game = _host_first(lobby(ANN))
    timed_out = scheduled(game, lambda m: m.play_absent(T0 + TIMEOUT, absent(dice)))
    assert timed_out.strikes_of(HOST) == 1  # the timer's own change keeps its strike
    assert timed_out.current_id == ANN
    ann_played = play_turn(timed_out, T0 + TIMEOUT, dice)
    # Someone else playing, a new turn begun for the host: not the host's own action.
    assert ann_played.current_id == HOST
    assert ann_played.strikes_of(HOST) == 1
    back = scheduled(ann_played, lambda m: m.roll(HOST, dice))
    assert back.strikes_of(HOST) == 0
    assert back.strikes == ()
    # Not back: the next time-out is the second in a row.
    due = ann_played.deadline
    timed_again = scheduled(ann_played, lambda m: m.play_absent(due, absent(dice)), due)
    assert timed_again.strikes_of(HOST) == 2


def test_a_hold_counts_as_acting_too() -> None:
    dice = random.Random(13)
    thrown = scheduled(_host_first(lobby(ANN)), lambda m: m.roll(HOST, dice))
    struck = replace(thrown, strikes=((HOST, 2),))  # as a snapshot could hold it
    held = scheduled(struck, lambda m: m.toggle_hold(HOST, 0))
    assert held.actions == ()
    assert held.strikes_of(HOST) == 0
    other = replace(thrown, strikes=((ANN, 2),))  # only the player who acted is back
    assert scheduled(other, lambda m: m.toggle_hold(HOST, 0)).strikes_of(ANN) == 2


def test_play_absent_plays_exactly_one_turn() -> None:
    dice = random.Random(17)
    game = _host_first(lobby(ANN, BOB))
    deadline = game.deadline
    assert deadline == T0 + TIMEOUT
    refused("errors.stale", lambda: game.play_absent(deadline - timedelta(seconds=1), absent(dice)))
    after = scheduled(game, lambda m: m.play_absent(deadline, absent(dice)), deadline)
    before_game, after_game = game.require_game(), after.require_game()
    assert after_game.turn == before_game.turn + 1
    assert after.current_id == int(before_game.players[1])
    assert after.actions  # the throws and the record, all the host's
    assert all(a.player == str(HOST) for a in after.actions)
    assert isinstance(after.actions[-1], Score)
    assert after_game.seq == before_game.seq + len(after.actions)
    assert after.strikes_of(HOST) == 1
    assert not after.away(HOST)
    assert after.turn_ended
    # Its events and actions are the engine's own.
    folded, events = before_game, []
    for action in after.actions:
        folded, event = folded.apply(action)
        events.append(event)
    assert folded == after_game
    assert tuple(events) == after.events
    # Not playing, not due: nothing to do.
    refused("errors.stale", lambda: lobby(ANN).play_absent(T0 + LOBBY_TTL, absent(dice)))
    assert after.deadline == deadline + TIMEOUT  # the next player's turn: their own time
    refused("errors.stale", lambda: after.play_absent(deadline, absent(dice)))  # not due yet


def test_three_time_outs_in_a_row_mark_a_player_away() -> None:
    dice = random.Random(19)
    match = _host_first(lobby(ANN, BOB))
    now = T0
    for strike in range(1, AWAY_AFTER + 1):
        now = match.deadline
        match = scheduled(match, lambda m, n=now: m.play_absent(n, absent(dice)), now)
        assert match.strikes_of(HOST) == strike
        away = strike == AWAY_AFTER
        assert match.away(HOST) is away
        assert match.plays(HOST) is not away
        if away:
            assert match.actions[-1] == Leave(str(HOST))
            assert isinstance(match.events[-1], Left)
            assert sum(isinstance(a, Score) for a in match.actions) == 1  # still one turn
        while match.current_id != HOST and match.status == "playing" and not away:
            match = play_turn(match, now, dice)  # ann and bob play theirs
    assert match.host_id == ANN  # the host was marked away: powers passed on
    assert match.current_id == ANN


def test_a_player_who_plays_between_time_outs_starts_counting_again() -> None:
    dice = random.Random(23)
    match = _host_first(lobby(ANN))
    for _ in range(2):
        now = match.deadline
        match = scheduled(match, lambda m, n=now: m.play_absent(n, absent(dice)), now)
        match = play_turn(match, now, dice)
    assert match.strikes_of(HOST) == 2
    match = play_turn(match, now, dice)  # the host plays: back
    assert match.strikes_of(HOST) == 0
    match = play_turn(match, now, dice)
    for _ in range(2):
        now = match.deadline
        match = scheduled(match, lambda m, n=now: m.play_absent(n, absent(dice)), now)
        assert match.plays(HOST)
        match = play_turn(match, now, dice)
    assert match.strikes_of(HOST) == 2


def test_with_grace_gives_an_overdue_turn_more_time() -> None:
    dice = random.Random(29)
    game = _host_first(lobby(ANN))
    rolled = scheduled(game, lambda m: m.roll(HOST, dice))
    overdue = T0 + TIMEOUT + timedelta(hours=3)  # the bot was down
    graced = rolled.with_grace(overdue, GRACE)
    assert graced.deadline == overdue + GRACE
    assert graced.game == rolled.game
    assert graced.strikes == rolled.strikes
    assert (graced.events, graced.actions) == ((), ())  # a change that plays nothing
    # The service keeps it: the same turn, so schedule leaves the new deadline.
    assert graced.schedule(rolled, overdue, TIMEOUT).deadline == overdue + GRACE
    early = T0 + timedelta(minutes=1)
    assert rolled.with_grace(early, GRACE).deadline == T0 + TIMEOUT  # not overdue
    assert rolled.with_grace(early, GRACE).actions == ()
    assert lobby(ANN).with_grace(T0 + LOBBY_TTL * 2, GRACE).deadline is None  # lobbies expire


def test_expire_closes_a_lobby_nobody_started() -> None:
    opened = lobby(ANN)
    refused("errors.stale", lambda: opened.expire(T0 + LOBBY_TTL - timedelta(seconds=1)))
    expired = opened.expire(T0 + LOBBY_TTL)
    assert expired.status == "cancelled"
    assert not expired.active
    assert expired.due_at() is None
    refused("errors.stale", lambda: expired.expire(T0 + LOBBY_TTL))
    game = started(ANN)
    refused("errors.stale", lambda: game.expire(T0 + LOBBY_TTL * 10))
    undated = replace(opened, created_at=None)
    refused("errors.stale", lambda: undated.expire(T0 + LOBBY_TTL * 10))


# --- snapshots -------------------------------------------------------------------------------


def _record(match: Match, state: dict) -> GameRecord:
    """A stored game holding `state` (the store keeps JSON; the host only in it)."""
    return GameRecord(
        id=match.id, guild_id=match.guild_id, channel_id=match.channel_id,
        rules=match.rules, status=match.status, version=match.version, state=state,
        created_at=T0, updated_at=T0,
    )  # fmt: skip


def _round_trip(match: Match) -> Match:
    return Match.from_record(_record(match, json.loads(json.dumps(match.to_dict()))))


def test_snapshots_round_trip() -> None:
    dice = random.Random(31)
    opened = replace(lobby(ANN).add_computer(HOST, "perfect"), lang="ru", version=3)
    assert _round_trip(opened) == opened
    game = _host_first(lobby(ANN, BOB).add_computer(HOST, "easy"))
    game = scheduled(game, lambda m: m.play_absent(T0 + TIMEOUT, absent(dice)), T0 + TIMEOUT)
    game = scheduled(game, lambda m: m.roll(ANN, dice), T0 + TIMEOUT)
    game = scheduled(game, lambda m: m.toggle_hold(ANN, 2), T0 + TIMEOUT)
    game = replace(
        game,
        version=9,
        lobby_message_id=1001,
        turn_message_id=1002,
        final_message_id=None,
    )
    assert game.strikes == ((HOST, 1),)
    assert game.opening is not None
    assert game.require_game().held == frozenset({2})
    back = _round_trip(game)
    # The opening throw is shown with the first turn only: not kept once a throw is made.
    assert back.opening is None
    assert back == replace(game, opening=None)
    assert back.deadline == game.deadline == T0 + 2 * TIMEOUT
    assert back.created_at == T0
    assert back.started_at == T0
    assert back.deadline.tzinfo is not None
    assert (back.events, back.actions) == ((), ())  # what a change did is not stored
    # The host is the snapshot's: host powers move in a game.
    moved = game.leave_game(HOST)
    assert moved.host_id == ANN
    assert Match.from_record(_record(moved, moved.to_dict())).host_id == ANN


# --- random legal sequences ---------------------------------------------------------------

USERS = (HOST, 21, 22, 23, 24, 25, 26, 27, 28)
LOBBY_OPS = ("join", "join", "join", "leave_lobby", "add_computer", "remove_computer", "kick")
PLAY_OPS = (
    "roll", "roll", "roll", "hold", "hold", "score", "score", "score", "pass",
    "leave_game", "kick", "timeout", "timeout", "cancel",
)  # fmt: skip


def _attempt(match: Match, op: str, arg: int, dice: random.Random, now: datetime) -> Match:  # noqa: PLR0911 - one change per operation
    """One change chosen by (op, arg): mostly legal, sometimes not (then GameError)."""
    seats = [s.user_id for s in match.seats]
    anyone = USERS[arg % len(USERS)]
    mover = match.current_id if match.current_id is not None and arg % 10 else anyone
    host = match.host_id if arg % 8 else anyone
    game = match.game
    if op == "join":
        return match.join(anyone, f"p{anyone}")
    if op == "leave_lobby":
        return match.leave_lobby(anyone)
    if op == "add_computer":
        return match.add_computer(host, ("easy", "normal", "perfect")[arg % 3])
    if op == "remove_computer":
        computers = [u for u in seats if u < 0] or [-1]
        return match.remove_computer(host, computers[arg % len(computers)])
    if op == "start":
        return match.start(host, dice, now)
    if op == "cancel":
        return match.cancel(anyone, manager=arg % 3 == 0)
    if op == "kick":
        return match.kick(host, seats[arg % len(seats)])
    if op == "roll":
        return match.roll(mover, dice)
    if op == "hold":
        return match.toggle_hold(mover, arg % 5)
    if op == "score":
        options = game.options() if game is not None else []
        row = options[arg % len(options)].row if options else "chance"
        return match.score(mover, row)
    if op == "pass":
        return match.pass_turn(mover)
    if op == "leave_game":
        return match.leave_game(seats[arg % len(seats)])
    assert op == "timeout"
    due = match.due_at()
    return match.play_absent(due if due is not None else now, absent(dice))


def _check(before: Match, after: Match) -> None:
    """A change's result agrees with the engine and keeps the table's limits."""
    assert len(after.seats) <= MAX_SEATS
    assert len({s.user_id for s in after.seats}) == len(after.seats)
    host = after.seat(after.host_id)
    assert host is not None
    assert not host.is_bot
    game = after.game
    if game is not None:
        assert len(game.players) <= MAX_SEATS
        assert set(game.players) == {s.player for s in after.seats}
        if after.status != "cancelled":
            assert (after.status == "finished") == game.finished
    if before.game is None:
        assert (after.events, after.actions) == ((), ())
        if game is not None:  # the start: a new engine game of everyone seated
            assert game == Game.new(after.rules, game.players)
        return
    assert game is not None
    folded, events = before.game, []
    for action in after.actions:
        folded, event = folded.apply(action)
        events.append(event)
    assert tuple(events) == after.events
    if after.actions:
        assert folded == game
    else:  # a hold marks dice (interface state, not a replay action); else nothing moved
        assert replace(folded, held=game.held) == game
    assert game.seq == before.game.seq + len(after.actions)
    assert after.turn_ended == (
        any(e.ends_turn for e in after.events) or (game.finished and bool(after.events))
    )


class Driven:
    """A match driven as the service drives it: each change checked, then scheduled."""

    def __init__(self, rules: str, seed: int) -> None:
        self.dice = random.Random(seed)
        self.match = lobby(rules=rules)
        self.log: list[Action] = []
        self.now = T0
        self.done: list[str] = []

    def attempt(self, op: str, arg: int) -> bool:
        self.now += timedelta(seconds=arg % 400)
        try:
            after = _attempt(self.match, op, arg, self.dice, self.now)
        except GameError:
            return False  # refused: the match is unchanged (it is immutable)
        after = after.schedule(self.match, self.now, TIMEOUT)
        _check(self.match, after)
        game = after.game
        if game is not None and after.status == "playing":
            assert after.deadline is not None
            if game.turn != (self.match.game.turn if self.match.game else -1):
                assert after.deadline == self.now + TIMEOUT  # a new turn: its own time
        self.log.extend(after.actions)
        self.match = after
        self.done.append(op)
        return True


@settings(max_examples=120, deadline=None)
@given(
    rules=st.sampled_from(sorted(RULESETS)),
    seed=st.integers(0, 2**16),
    crowd=st.integers(0, 10),
    before=st.lists(st.tuples(st.sampled_from(LOBBY_OPS), st.integers(0, 1000)), max_size=24),
    during=st.lists(st.tuples(st.sampled_from(PLAY_OPS), st.integers(0, 1000)), max_size=200),
    finish=st.booleans(),
)
def test_random_sequences_keep_eight_seats_and_agree_with_the_engine(
    rules: str,
    seed: int,
    crowd: int,
    before: list[tuple[str, int]],
    during: list[tuple[str, int]],
    finish: bool,
) -> None:
    table = Driven(rules, seed)
    for n in range(crowd):  # members and computers sit down: past eight, they are refused
        assert table.attempt("join" if n % 3 else "add_computer", n + 1) == (n < MAX_SEATS - 1)
    for op, arg in before:
        table.attempt(op, arg)
    assert table.match.status == "lobby"
    assert table.attempt("start", 1)  # the host starts
    for op, arg in during:
        if not table.match.active:
            break
        table.attempt(op, arg)
    if finish:  # the timer plays the members to the end (they end up away), the computers
        for i in range(5000):  # play their own turns, holding some dice now and then
            if not table.match.active:
                break
            if table.match.computer_to_move is None:
                assert table.attempt("timeout", 1)
            elif i % 2 and table.attempt("hold", i):
                assert table.attempt("roll", 1)  # the held dice stay, the others are thrown
            else:
                assert any(table.attempt(op, 1) for op in ("score", "roll", "pass"))
        assert table.match.status in ("finished", "cancelled")
        assert table.match.deadline is None or table.match.status == "cancelled"
    match = table.match
    game = match.require_game()
    replayed = Game.replay(match.rules, game.players, table.log)  # the log is the game
    assert replace(replayed, held=game.held) == game
    assert all(isinstance(a, Roll | Score | Pass | Leave) for a in table.log)


def test_the_default_shows_a_big_tables_scorecard_every_round() -> None:
    four = _host_first(lobby(ANN, BOB, CID))
    assert four.shows_scorecard("turn", round_over=False)
    five = _host_first(lobby(ANN, BOB, CID, 99))
    assert len(five.seats) == SCORECARD_ROUNDS_FROM
    assert not five.shows_scorecard("turn", round_over=False)
    assert five.shows_scorecard("turn", round_over=True)
    assert not five.shows_scorecard("end", round_over=True)  # only with the standings
    assert five.shows_scorecard("round", round_over=True)
    assert not four.shows_scorecard("round", round_over=False)
    # A player who left no longer counts: four still playing see every turn again.
    left = five.kick(HOST, 99)
    assert left.shows_scorecard("turn", round_over=False)
