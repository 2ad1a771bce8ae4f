"""A table's pictures through the picture workers, driven by clicks (simcord): drawn in a
worker; late ones follow the text by an edit; a killed worker's picture drawn again.
Nothing here times anything: the pool is made slow by a gate the test opens."""

from __future__ import annotations

import asyncio
import functools
import os
import random
import signal
from typing import Any

from bot.service import Pictures
from tests.cogs.drive import fresh, open_game, play_turn
from tests.picture_jobs import killed_first, where
from tests.service.test_pictures import file_appears

CARD = "Scorecard"


async def pictures_on(table):
    env, channel, ann, bob, _ = table
    await env.bot.store.update_settings(channel.guild.id, {"images": True})
    await open_game(channel, ann, [bob])
    return env, channel, {m.id: m for m in (ann, bob)}


def summary(channel: Any) -> Any:
    """The last finished turn's message (the one before the live turn message)."""
    return channel.history()[-2]


def pictures_of(env: Any, message: Any) -> list[str]:
    stored = fresh(env, message)
    return [e["image"]["url"] for e in stored.embeds if e.get("image")]


def late_edits(env: Any) -> list[asyncio.Task[None]]:
    return env.bot.play.service.publisher.late


async def test_a_turns_pictures_are_drawn_in_a_worker(table):
    env, channel, players = await pictures_on(table)
    assert await play_turn(env, channel, players, rolls=1)
    message = summary(channel)
    assert pictures_of(env, message) == ["attachment://scorecard.png"]
    assert fresh(env, message).attachments
    assert not late_edits(env)
    pictures: Pictures = env.bot.services.pictures
    assert await pictures.draw(where) != os.getpid()  # the pool the publisher drew in


async def test_a_turns_pictures_start_drawing_before_its_end_is_saved(table, monkeypatch):
    env, channel, players = await pictures_on(table)
    pictures: Pictures = env.bot.services.pictures
    store = env.bot.store
    started: list[str] = []
    at_save: list[int] = []  # pictures started when each save began
    start, save = pictures.start, store.save

    def counted(fn: Any, *args: Any, **kwargs: Any) -> Any:
        started.append(fn.__name__)
        return start(fn, *args, **kwargs)

    async def saving(*args: Any, **kwargs: Any) -> Any:
        at_save.append(len(started))
        return await save(*args, **kwargs)

    monkeypatch.setattr(pictures, "start", counted)
    monkeypatch.setattr(store, "save", saving)
    assert await play_turn(env, channel, players, rolls=1)
    assert started == ["game_pngs"]  # drawn once: the one started early is the one shown
    *turn, last = at_save
    assert set(turn) == {0}  # the throw's and the holds' saves draw nothing …
    assert last == 1  # … the row's save began with its picture already drawing
    assert pictures_of(env, summary(channel)) == ["attachment://scorecard.png"]
    assert not late_edits(env)


async def test_pictures_of_a_decision_left_unsaved_are_cancelled(table, monkeypatch):
    """A lost race: the pictures `prepare` started for a turn's end that was not saved are
    dropped when the game's next decision is prepared; that one's are the ones shown."""
    env, channel, _ = await pictures_on(table)
    pictures: Pictures = env.bot.services.pictures
    service = env.bot.play.service
    started: list[asyncio.Task[Any]] = []
    start = pictures.start

    def kept(fn: Any, *args: Any, **kwargs: Any) -> Any:
        started.append(start(fn, *args, **kwargs))
        return started[-1]

    monkeypatch.setattr(pictures, "start", kept)
    [match] = service.cached()
    player = match.current_id
    rolled = await service.apply(match.id, lambda m: m.roll(player, random.Random(1)))
    first, second = (o.row for o in rolled.require_game().options()[:2])
    await service.publisher.prepare(rolled, rolled.score(player, first))  # its save failed
    lost = started[-1]
    scored = await service.apply(match.id, lambda m: m.score(player, second))
    await asyncio.sleep(0)
    assert lost.cancelled()
    assert len(started) == 2  # the saved row's, drawn once …
    assert not started[-1].cancelled()  # … and shown
    assert pictures_of(env, summary(channel)) == ["attachment://scorecard.png"]
    assert scored.version == rolled.version + 1


async def test_pictures_late_the_text_goes_out_and_the_pictures_follow(table, monkeypatch):
    env, channel, players = await pictures_on(table)
    pictures: Pictures = env.bot.services.pictures
    gate = asyncio.Event()
    draw = pictures.draw

    async def slow(*args: Any, **kwargs: Any) -> Any:  # a queue longer than any budget
        await env.external_wait(gate.wait(), reason="the picture workers' queue")
        return await draw(*args, **kwargs)

    monkeypatch.setattr(pictures, "draw", slow)
    monkeypatch.setattr(pictures, "budget", 0.01)
    assert await play_turn(env, channel, players, rolls=1)  # every click acknowledged
    message = summary(channel)
    shown = fresh(env, message)
    assert not pictures_of(env, message)
    assert not shown.attachments
    card = [e for e in shown.embeds if e.get("title") == CARD]
    assert card  # the text table, in the card's own embed
    assert "```" in str(card[0].get("fields") or card[0].get("description"))
    content = shown.content
    assert len(late_edits(env)) == 1
    gate.set()
    await asyncio.gather(*late_edits(env))
    shown = fresh(env, message)
    assert pictures_of(env, message) == ["attachment://scorecard.png"]
    assert [e["title"] for e in shown.embeds] == [CARD]
    assert shown.attachments
    assert shown.content == content  # the summary line kept
    assert not late_edits(env)


async def test_the_last_turn_and_the_standings_get_their_pictures_late(table, monkeypatch):
    env, channel, ann, _, _ = table
    await env.bot.store.update_settings(channel.guild.id, {"images": True})
    await open_game(channel, ann, [])  # one player: the game ends after 11 turns
    pictures: Pictures = env.bot.services.pictures
    gate = asyncio.Event()
    draw = pictures.draw

    async def slow(*args: Any, **kwargs: Any) -> Any:
        await env.external_wait(gate.wait(), reason="the picture workers' queue")
        return await draw(*args, **kwargs)

    monkeypatch.setattr(pictures, "draw", slow)
    monkeypatch.setattr(pictures, "budget", 0.01)
    for _ in range(30):
        gate.clear()
        assert await play_turn(env, channel, {ann.id: ann}, rolls=1)
        last = channel.history()[-1]
        if last.embeds and (last.embeds[0].title or "").startswith("🏁"):
            break
        gate.set()  # this turn's pictures follow; the next turn is late again
        await asyncio.gather(*late_edits(env))
    else:
        raise AssertionError("the game does not end")
    final = channel.history()[-1]
    shown = fresh(env, final)
    assert not shown.attachments  # the standings went out with the text table
    assert [e["title"] for e in shown.embeds][1:] == [CARD]
    assert len(late_edits(env)) == 1  # the standings' pictures (the last turn shows none)
    gate.set()
    await asyncio.gather(*late_edits(env))
    shown = fresh(env, final)
    assert shown.embeds[0]["title"].startswith("🏁")
    assert shown.embeds[0]["image"]["url"] == "attachment://scorecard.png"
    assert shown.attachments


async def test_a_worker_killed_while_drawing_a_turns_picture(table, monkeypatch, tmp_path):
    """SIGKILL of the worker drawing the picture: a new worker draws it again."""
    env, channel, players = await pictures_on(table)
    pictures: Pictures = env.bot.services.pictures
    draw = pictures.draw
    flag, pid_file = tmp_path / "drawn-once", tmp_path / "pid"

    async def dies_first(fn: Any, *args: Any, **kwargs: Any) -> Any:
        # The first picture's worker waits to be killed; drawn again, it draws the picture.
        picture = functools.partial(fn, *args, **kwargs)
        job = draw(killed_first, str(flag), str(pid_file), picture)
        return await env.external_wait(job, reason="a worker the test kills")

    monkeypatch.setattr(pictures, "draw", dies_first)
    turn = asyncio.create_task(play_turn(env, channel, players, rolls=1))
    victim = int(await file_appears(pid_file))
    os.kill(victim, signal.SIGKILL)
    assert await turn
    await asyncio.gather(*late_edits(env))
    message = summary(channel)
    assert pictures_of(env, message) == ["attachment://scorecard.png"]
    assert fresh(env, message).attachments
    assert pictures.replaced == 1
    assert await draw(where) not in (victim, os.getpid())
