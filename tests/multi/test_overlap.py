"""Two processes holding the same shard at once (a rolling deploy: the new process is up
before the old one is gone), both receiving what Discord sends for it.

The same click delivered to both applies once, and the other process answers it politely;
a turn's deadline fires once; a computer player's step is taken once; a save that meets a
newer version reloads and tries again instead of refusing the member; a settings change in
one process is obeyed by the other at its next turn. "The same click": both worlds are one
Discord built twice (same ids), and the message clicked in one is posted, as it is, in the
other (`post_copy`), so both clicks carry the same custom_id.
"""

from __future__ import annotations

import asyncio
import threading
from datetime import timedelta
from typing import Any

from bot.i18n import t
from tests.cogs.drive import (
    MENTION,
    add_bot,
    controls,
    fresh,
    game_id_of,
    new_lobby,
    open_game,
    turn_message,
)
from tests.multi.play import Player, Rendezvous, post_copy, watch
from tests.multi.worlds import World, layout

STALE = t("errors.stale")
TIMEOUT = 301
WAIT = 30.0  # real seconds a world waits for the other process to act (never reached)


def both(bot_factory: Any) -> tuple[Any, Any]:
    """Two processes holding shard 1 (of 4), each with other shards besides."""
    return bot_factory("0-1"), bot_factory("1-2")


def answer(res: Any) -> str:
    message = res.response or (res.followups[0] if res.followups else None)
    return message.content if message is not None else ""


def live(world: World) -> Any:
    """The world's live turn message (to click; `fresh` reads it as it is now)."""
    return turn_message(world.channel)


async def test_the_same_click_delivered_to_both_applies_once(bot_factory) -> None:
    where = layout(1)
    bot_a, bot_b = both(bot_factory)
    async with World.open(bot_a, where, name="a") as a, World.open(bot_b, where, name="b") as b:
        await a.do(lambda w: open_game(w.channel, w.ann, [w.bob]))
        game = game_id_of(turn_message(a.channel))
        truth, wins = a, {"a": 0, "b": 0}
        for round_ in range(9):
            # The world that applied the last click shows the game as it is; the other
            # gets a copy of that message: one message, seen by both processes.
            other = b if truth is a else a
            shown = live(truth)
            now = fresh(truth.env, shown)
            copy = await other.do(lambda w, m=now: post_copy(w, w.table, m))
            on = {truth.name: shown, other.name: copy}
            c = controls(now)
            member = int(MENTION.search(now.content)[1])
            records = round_ % 3 == 2  # Roll, Roll, then record a row

            def click(
                w: World,
                records: bool = records,
                c: dict[str, Any] = c,
                member: int = member,
                on: dict[str, Any] = on,
            ) -> Any:
                player = w.table.by_id()[member]
                if records:
                    value = c["score"]["options"][0]["value"]
                    return player.select(on[w.name], [value], custom_id=c["score"]["custom_id"])
                return player.click(on[w.name], custom_id=c["roll"]["custom_id"])

            before = len(await a.do(lambda w: w.store.actions(game)))
            res_a, res_b = await asyncio.gather(a.do(click), b.do(click))
            assert res_a.acknowledged
            assert res_b.acknowledged
            applied = [w for w, r in ((a, res_a), (b, res_b)) if not r.ephemeral]
            assert len(applied) == 1, (answer(res_a), answer(res_b))
            lost = res_b if applied[0] is a else res_a
            assert answer(lost) == STALE  # the other process told its member, privately
            assert len(await a.do(lambda w: w.store.actions(game))) == before + 1
            truth = applied[0]
            wins[truth.name] += 1
        assert sum(wins.values()) == 9


async def test_a_deadline_fires_once(bot_factory) -> None:
    where = layout(1)
    bot_a, bot_b = both(bot_factory)
    async with World.open(bot_a, where, name="a") as a, World.open(bot_b, where, name="b") as b:
        await a.do(lambda w: open_game(w.channel, w.ann, [w.bob]))
        game = game_id_of(turn_message(a.channel))
        await b.do(lambda w: w.service.reconcile())  # b holds the game in its cache too
        assert [m.id for m in b.service.cached()] == [game]
        fired: list[str] = []
        for world in (a, b):
            timers = world.env.bot.get_cog("Play").timers
            go = timers.fire

            async def fire(game_id: int, now: Any, name: str = world.name, go: Any = go) -> Any:
                fired.append(name)
                return await go(game_id, now)

            timers.fire = fire
        version = (await a.do(lambda w: w.store.get_game(game))).version
        # Both clocks pass the deadline and a store scan: both timers find the game due.
        await asyncio.gather(a.advance(TIMEOUT + 120), b.advance(TIMEOUT + 120))
        assert len(fired) == 1  # one process claimed it and acted; the other never tried
        record = await a.do(lambda w: w.store.get_game(game))
        actions = await a.do(lambda w: w.store.actions(game))
        assert record.version == version + 1  # one change: the absent player's turn, once
        assert sum("score" in action for action in actions) == 1
        shown = [
            w.name
            for w in (a, b)
            if any("ran out of time" in (m.content or "") for m in w.channel.history())
        ]
        assert shown == fired


async def test_a_computer_player_s_step_is_taken_once(bot_factory) -> None:
    where = layout(1)
    bot_a, bot_b = both(bot_factory)
    async with World.open(bot_a, where, name="a") as a, World.open(bot_b, where, name="b") as b:
        commits = [watch(a, "a"), watch(b, "b")]
        # Both processes decide each of the computer's first steps on the same version
        # before either stores it: the race a rolling deploy makes, here every time.
        meet = Rendezvous(rounds=4)
        for n, world in enumerate((a, b)):
            computers = world.env.bot.get_cog("Play").computers
            computers._decide = meet.wrap(n, computers._decide)
        lobby = await a.do(lambda w: new_lobby(w.channel, w.ann))
        await a.do(lambda w: add_bot(w.env, w.ann, lobby, "easy"))
        game = int(controls(fresh(a.env, lobby))["start"]["custom_id"].split(":")[2])
        player = Player()

        def follow(done: threading.Event) -> Any:
            """b, as its timer's reconcile would, hears that the computer is to move and
            drives it too; returns when it has (True) or when a is done without (False)."""

            async def job(w: World) -> bool:
                computers = w.env.bot.get_cog("Play").computers
                for _ in range(int(WAIT / 0.01)):
                    await w.service.reconcile()
                    task = computers._tasks.get(game)
                    if task is not None:
                        await task
                        return True
                    if done.is_set():
                        return False
                    await asyncio.sleep(0.01)
                raise AssertionError("b never heard of the computer's turn")

            return job

        async def act(w: World, first: bool, done: threading.Event) -> None:
            try:
                if first:
                    await w.ann.click(lobby, label="Start")
                else:
                    await player.turn(w, w.table)
            finally:
                done.set()

        raced = False
        for turn in range(3):
            done = threading.Event()
            _, raced = await asyncio.gather(
                a.do(lambda w, f=turn == 0, d=done: act(w, f, d)), b.do(follow(done))
            )
            if raced:
                break
        assert raced
        made = [c.made for c in commits]
        versions = sorted(v for g, v in made[0] + made[1] if g == game)
        # Every version was made once, by one process, and none is missing ...
        assert versions == list(range(1, versions[-1] + 1))
        # ... though in the rounds they met, both processes tried to make it.
        both_tried = {v for g, v in commits[0].tried if g == game} & {
            v for g, v in commits[1].tried if g == game
        }
        assert len(both_tried) >= meet.rounds
        record = await a.do(lambda w: w.store.get_game(game))
        actions = await a.do(lambda w: w.store.actions(game))
        assert record.state["game"]["seq"] == len(actions)
        computer = next(s for s in record.state["seats"] if s.get("is_bot"))
        card = next(
            c for c in record.state["game"]["cards"] if c["name"] == str(computer["user_id"])
        )
        assert sum(v is not None for v in card["rows"]) == 1  # one turn, once (rows in order)


async def test_a_save_that_meets_a_newer_version_tries_again(bot_factory) -> None:
    where = layout(1)
    bot_a, bot_b = both(bot_factory)
    async with World.open(bot_a, where, name="a") as a, World.open(bot_b, where, name="b") as b:
        lobby = await a.do(lambda w: new_lobby(w.channel, w.ann))
        copy = await b.do(lambda w: post_copy(w, w.table, fresh(a.env, lobby)))
        await b.do(lambda w: w.service.reconcile())  # b caches the lobby as it is now
        joined = await a.do(lambda w: w.bob.click(lobby, label="Join"))  # a moves it on
        assert not joined.ephemeral
        # cid joins through b, whose copy of the lobby is one change behind: its save meets
        # the newer version, it reads the lobby again and joins cid to that one.
        res = await b.do(lambda w: w.cid.click(copy, label="Join"))
        assert res.acknowledged
        assert not res.ephemeral, answer(res)
        game = int(controls(fresh(a.env, lobby))["join"]["custom_id"].split(":")[2])
        record = await a.do(lambda w: w.store.get_game(game))
        assert [s["name"] for s in record.state["seats"]] == ["ann", "bob", "cid"]

        # A click drawn at a newer version than b's copy of the game: b reads it again
        # rather than refusing it as out of date.
        await a.do(lambda w: w.ann.click(lobby, label="Start"))
        await b.do(lambda w: w.service.reconcile())
        turn = live(a)
        player = int(MENTION.search(turn.content)[1])
        roll = controls(fresh(a.env, turn))["roll"]["custom_id"]
        rolled = await a.do(lambda w: w.table.by_id()[player].click(turn, custom_id=roll))
        assert not rolled.ephemeral
        shown = fresh(a.env, live(a))
        copy = await b.do(lambda w: post_copy(w, w.table, shown))
        hold = controls(shown)["hold"][0]["custom_id"]
        res = await b.do(lambda w: w.table.by_id()[player].click(copy, custom_id=hold))
        assert not res.ephemeral, answer(res)
        record = await a.do(lambda w: w.store.get_game(game))
        assert record.state["game"]["held"] == [0]


async def test_a_settings_change_in_one_process_is_obeyed_by_the_other(bot_factory) -> None:
    where = layout(1)
    bot_a, bot_b = both(bot_factory)
    async with World.open(bot_a, where, name="a") as a, World.open(bot_b, where, name="b") as b:
        await a.do(lambda w: open_game(w.channel, w.ann, [w.bob]))
        game = game_id_of(turn_message(a.channel))

        # b plays a turn first, under the old settings (and reads them).
        player = Player()
        copy = await b.do(lambda w: post_copy(w, w.table, fresh(a.env, live(a))))
        assert "hint" in controls(fresh(b.env, copy))
        await b.do(lambda w: player.turn(w, w.table))
        assert "hint" in controls(fresh(b.env, live(b)))
        # In a, the manager changes two settings.
        res = await a.do(
            lambda w: w.ann.slash(w.channel, "poker settings", turn_timeout="45s", hints=False)
        )
        assert res.acknowledged
        # The card for the manager, one public line for the channel.
        public = [m.content for m in res.followups if not m.flags.ephemeral]
        assert len(public) == 1
        assert "45" in public[0]
        # b's next turn obeys them: no Hint button, a 45-second deadline.
        await b.do(lambda w: player.turn(w, w.table))
        assert "hint" not in controls(fresh(b.env, live(b)))
        record = await b.do(lambda w: w.store.get_game(game))
        assert record.deadline == b.env.now() + timedelta(seconds=45)
