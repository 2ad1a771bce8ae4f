"""The game service on its own: a real store (SQLite in memory), a recording publisher, no
Discord. What every click, timer and computer move relies on: a change is decided, saved
in one transaction, shown, and only then heard of; a stale one changes nothing; a lost race
with another process is read again and decided once more."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta

import pytest

from bot.engine import GameError
from bot.match import Caller, Match
from bot.service import GameService, NotShown, ServerSettings
from db import GameStore, open_store

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
GUILD, CHANNEL = 7, 70
ANN, BOB = 101, 202
HERE = Caller(ANN, GUILD, CHANNEL)


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> datetime:
        return self.now


@dataclass
class Recorder:
    """A publisher that shows nothing and remembers everything (`log`: the order of what
    happened, shared with the observers)."""

    log: list[str] = field(default_factory=list)
    published: list[tuple[Match, Match, str | None]] = field(default_factory=list)
    refreshed: list[tuple[int, str]] = field(default_factory=list)
    prepared: list[tuple[Match, Match]] = field(default_factory=list)
    store: GameStore | None = None  # when set, `stored`: the version saved at each prepare
    stored: list[int] = field(default_factory=list)
    fail: BaseException | None = None
    posts: int | None = None  # a message id each publish "posts" as the turn's

    async def publish(self, before: Match, after: Match, via: str | None) -> Match:
        self.log.append(f"publish v{after.version}")
        self.published.append((before, after, via))
        if self.fail is not None:
            raise self.fail
        return after if self.posts is None else replace(after, turn_message_id=self.posts)

    async def prepare(self, before: Match, after: Match) -> None:
        self.log.append(f"prepare v{before.version}")
        self.prepared.append((before, after))
        if self.store is not None:
            record = await self.store.get_game(after.id)
            self.stored.append(record.version if record is not None else -1)

    async def refresh(self, match: Match, via: str) -> None:
        self.refreshed.append((match.version, via))

    def adopt(self, match: Match, via: str | None) -> Match:
        return match

    async def repost(self, match: Match) -> Match:
        return match


@dataclass
class Heard:
    """An observer: what it heard, in the shared log."""

    log: list[str]
    seen: list[tuple[int, int]] = field(default_factory=list)

    def committed(self, before: Match, after: Match) -> None:
        self.log.append(f"heard v{after.version}")
        self.seen.append((before.version, after.version))


@pytest.fixture
async def store() -> AsyncIterator[GameStore]:
    opened = await open_store("sqlite:///:memory:")
    yield opened
    await opened.close()


def service_on(store: GameStore, publisher: Recorder, clock: Clock) -> GameService[str]:
    return GameService(
        store, publisher=publisher, clock=clock, settings=ServerSettings(store)
    )


async def started(service: GameService[str], clock: Clock) -> Match:
    """Ann's table game with Bob, started (Ann throws first: she is alone at the start)."""
    lobby = await service.open(
        Match.lobby(HERE, "Ann", rules="classic", lang="en", now=clock())
    )
    await service.apply(lobby.id, lambda m: m.join(BOB, "Bob"))
    dice = random.Random(5)
    return await service.apply(lobby.id, lambda m: m.start(ANN, dice, clock()))


def to_move(match: Match) -> int:
    assert match.current_id is not None
    return match.current_id


async def test_a_change_is_saved_shown_then_heard(store: GameStore) -> None:
    clock, publisher = Clock(), Recorder()
    service = service_on(store, publisher, clock)
    heard = Heard(publisher.log)
    service.subscribe(heard)
    game = await started(service, clock)
    publisher.log.clear()
    player = to_move(game)
    after = await service.apply(
        game.id, lambda m: m.roll(player, random.Random(1)), version=game.version, via="click",
        caller=Caller(player, GUILD, CHANNEL),
    )  # fmt: skip
    assert after.version == game.version + 1
    assert publisher.log == [
        f"prepare v{game.version}", f"publish v{after.version}", f"heard v{after.version}"
    ]
    assert publisher.published[-1][2] == "click"
    assert heard.seen[-1] == (game.version, after.version)
    record = await store.get_game(game.id)
    assert record is not None
    assert record.version == after.version
    assert record.state["game"]["dice"] == list(after.require_game().dice)
    assert len(await store.actions(game.id)) == 1  # the throw: one action, in the log
    assert (await service.get(game.id)) == after  # the cache holds what was saved


async def test_a_change_is_prepared_for_showing_before_it_is_saved(store: GameStore) -> None:
    clock, publisher = Clock(), Recorder(store=store)
    service = service_on(store, publisher, clock)
    game = await started(service, clock)
    publisher.prepared.clear()
    publisher.stored.clear()
    player = to_move(game)
    after = await service.apply(game.id, lambda m: m.roll(player, random.Random(1)))
    [(before, decided)] = publisher.prepared
    assert before.version == game.version
    assert decided.require_game() is after.require_game()  # the very state then shown
    assert publisher.stored == [game.version]  # not saved yet when the publisher heard


async def test_a_stale_click_changes_nothing_and_redraws_its_message(store: GameStore) -> None:
    clock, publisher = Clock(), Recorder()
    service = service_on(store, publisher, clock)
    heard = Heard(publisher.log)
    service.subscribe(heard)
    game = await started(service, clock)
    player = to_move(game)
    seen = len(heard.seen)
    with pytest.raises(GameError) as refused:
        await service.apply(
            game.id, lambda m: m.roll(player, random.Random(1)), version=game.version - 1,
            via="old click", caller=Caller(player, GUILD, CHANNEL),
        )  # fmt: skip
    assert refused.value.code == "errors.stale"
    assert publisher.refreshed == [(game.version, "old click")]
    assert len(heard.seen) == seen  # nothing committed, nothing heard
    record = await store.get_game(game.id)
    assert record is not None
    assert record.version == game.version
    assert await store.actions(game.id) == []


async def test_a_refused_change_saves_nothing(store: GameStore) -> None:
    clock, publisher = Clock(), Recorder()
    service = service_on(store, publisher, clock)
    game = await started(service, clock)
    other = BOB if to_move(game) == ANN else ANN
    shown = len(publisher.published)
    with pytest.raises(GameError) as refused:
        await service.apply(game.id, lambda m: m.roll(other, random.Random(1)))
    assert refused.value.code == "errors.not_your_turn"
    assert len(publisher.published) == shown
    assert (await service.get(game.id)) == game


async def test_a_click_from_elsewhere_reaches_nothing(store: GameStore) -> None:
    clock, publisher = Clock(), Recorder()
    service = service_on(store, publisher, clock)
    game = await started(service, clock)
    player = to_move(game)
    for caller in (Caller(player, GUILD, CHANNEL + 1), Caller(player, GUILD + 1, CHANNEL)):
        with pytest.raises(GameError) as refused:
            await service.apply(
                game.id, lambda m: m.roll(player, random.Random(1)), version=game.version,
                via="forged", caller=caller,
            )  # fmt: skip
        assert refused.value.code == "errors.stale"
        with pytest.raises(GameError):
            await service.reach(game.id, caller)
    assert publisher.refreshed == []  # a forged click does not even redraw its message
    assert (await service.reach(game.id, Caller(player, GUILD, CHANNEL))) == game


async def test_a_lost_race_is_read_again_and_decided_once_more(store: GameStore) -> None:
    """Two processes on one database (a rolling deploy): each has its own cache."""
    clock = Clock()
    first, second = Recorder(), Recorder()
    here = service_on(store, first, clock)
    there = service_on(store, second, clock)
    game = await started(here, clock)
    player = to_move(game)
    assert (await there.get(game.id)) == game
    moved = await there.apply(game.id, lambda m: m.roll(player, random.Random(1)))  # elsewhere
    assert moved.version == game.version + 1
    # A timer here (no version: it acts on the game as it is) decides on its older copy,
    # meets the newer save, reads the game again and decides once more: a second throw.
    after = await here.apply(game.id, lambda m: m.roll(player, random.Random(2)))
    assert after.version == moved.version + 1
    assert first.published[-1][0].version == moved.version  # decided on the fresh game
    # Each decision was prepared; the one whose save failed is left unused.
    assert [b.version for b, _ in first.prepared[-2:]] == [game.version, moved.version]
    assert first.prepared[-1][1].require_game() is after.require_game()
    assert after.require_game().throws == 2
    # A click drawn before the other process's change is refused: out of date.
    with pytest.raises(GameError) as refused:
        await there.apply(
            game.id, lambda m: m.toggle_hold(player, 1), version=moved.version, via="click"
        )
    assert refused.value.code == "errors.stale"
    assert second.refreshed == []  # refused by the save: its message is not this one's
    # A click drawn after this process's copy (another process moved the game) reads the
    # game first, then applies.
    record = await store.get_game(game.id)
    assert record is not None
    later = await there.apply(
        game.id, lambda m: m.toggle_hold(player, 1), version=record.version, via="click"
    )
    assert later.version == record.version + 1


async def test_a_failed_publish_after_the_commit_says_so_and_is_heard(store: GameStore) -> None:
    clock, publisher = Clock(), Recorder()
    service = service_on(store, publisher, clock)
    heard = Heard(publisher.log)
    service.subscribe(heard)
    game = await started(service, clock)
    player = to_move(game)
    for failure in (NotShown(("send_messages",)), RuntimeError("a bug in the drawing")):
        publisher.fail = failure
        before = (await service.get(game.id)) or game
        with pytest.raises(NotShown) as told:
            await service.apply(game.id, lambda m: m.roll(player, random.Random(4)), via="click")
        assert told.value.closed is False  # stored, and the game goes on
        record = await store.get_game(game.id)
        assert record is not None
        assert record.version == before.version + 1
        assert heard.seen[-1] == (before.version, before.version + 1)  # and heard
    assert isinstance(told.value.__cause__, RuntimeError)  # a bug is not a refusal


async def test_a_finish_stores_results_and_ratings_with_its_last_action(store: GameStore) -> None:
    clock, publisher = Clock(), Recorder()
    service = service_on(store, publisher, clock)
    game = await started(service, clock)
    leaver = to_move(game)
    finished = await service.apply(game.id, lambda m: m.leave_game(leaver))
    stayer = BOB if leaver == ANN else ANN
    dice = random.Random(6)
    while finished.status == "playing":
        await service.apply(game.id, lambda m: m.roll(stayer, dice))
        finished = await service.apply(game.id, lambda m: m.score(stayer, _any_row(m)))
    assert finished.status == "finished"
    results = await store.results(game.id)
    assert sorted(r.player_id for r in results) == sorted([ANN, BOB])
    ratings = await store.ratings(GUILD, [ANN, BOB])
    assert {(r.rules, r.games) for r in ratings} == {("*", 1), ("classic", 1)}
    assert (await service.get(game.id)).status == "finished"  # type: ignore[union-attr]
    assert service.cached() == []  # an ended game leaves the cache


def _any_row(match: Match) -> str:
    game = match.require_game()
    if not game.dice:
        raise AssertionError("scored before a throw")
    return game.options()[0].row


async def test_the_turns_settings_are_read_when_it_begins(store: GameStore) -> None:
    clock, publisher = Clock(), Recorder()
    service = service_on(store, publisher, clock)
    game = await started(service, clock)
    assert game.deadline == T0 + timedelta(seconds=300)
    await store.update_settings(GUILD, {"turn_timeout": 45})  # another process, say
    player = to_move(game)
    rolled = await service.apply(game.id, lambda m: m.roll(player, random.Random(3)))
    held = await service.apply(game.id, lambda m: m.toggle_hold(player, 0))
    assert rolled.deadline == held.deadline == game.deadline  # the same turn: as it began
    assert (await service.settings.get(GUILD)).turn_timeout == 300  # … without a read
    done = await service.apply(game.id, lambda m: m.score(player, _any_row(m)))
    assert done.deadline == clock() + timedelta(seconds=45)  # the next turn: read again
    assert (await service.settings.get(GUILD)).turn_timeout == 45


async def test_the_games_locks_go_with_their_last_user(store: GameStore) -> None:
    clock, publisher = Clock(), Recorder()
    service = service_on(store, publisher, clock)
    game = await started(service, clock)
    async with service.locked(game.id) as held:
        assert held == game
        assert len(service._locks) == 1
    assert len(service._locks) == 0  # nobody holds or awaits it any more
