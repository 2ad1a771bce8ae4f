"""/poker leaderboard, stats, history and export, end to end through simcord.

Finished games are written through the store (as the play cog writes them); the answers are
compared with numbers computed here, independently of the store's SQL. (The /poker settings
tests are in tests/cogs/admin/test_settings.py.)
"""

from __future__ import annotations

import io
import json
import random
import re
import subprocess
import sys
from datetime import UTC, datetime, timedelta

import discord
import pytest
import simcord
from PIL import Image

from bot.engine import Action, Game
from bot.engine.replay import result, run
from bot.i18n import t
from bot.match import Match, Seat
from bot.render import chart
from bot.service import seat_results
from cogs.league import unique_names
from tests.cogs.drive import as_shown, open_game, play_to_the_end
from tests.engine.play import play

T0 = datetime(2025, 5, 1, 18, 0, tzinfo=UTC)
# ARCH.md "Leaderboard lines show member NAMES (the name they last played under), not
# <@id> mentions": a line is "rank. name — value · n games" (the name escaped as shown; the
# count in its plural form: "1 game", "5 games").
LINE = re.compile(r"^\**(\d+)\. (.+?) — (\S+) · (\d+) games?\**$")


def play_log(rules: str, players: list[str], seed: int) -> tuple[Game, list[Action]]:
    """A legal random game to its end (the engine tests' generator) and its log."""
    return play(rules, players, random.Random(seed), greed=0.8)


def play_out(rules: str, players: list[str], seed: int) -> Game:
    """A legal random game to its end (the engine tests' generator)."""
    return play_log(rules, players, seed)[0]


async def store_game(
    env,
    guild,
    channel,
    members: list[tuple[int, str]],
    *,
    totals: list[int] | None = None,
    rules: str = "classic",
    seed: int = 1,
    at: datetime = T0,
    losses: dict[str, float] | None = None,
    bots: tuple[int, ...] = (),
) -> int:
    """A finished game as the play cog stores it: snapshot, actions, results, one save;
    then the analysis, when the test gives one (`losses`: engine player → mean loss), as
    the play cog's analysis observer records it after the finish."""
    store = env.bot.store
    seats = tuple(Seat(uid, name, is_bot=uid in bots) for uid, name in members)
    record = await store.create_game(
        guild_id=guild.id,
        channel_id=channel.id,
        host_id=members[0][0],
        rules=rules,
        state={},
        now=at,
    )
    game, log = play_log(rules, [s.player for s in seats], seed)
    match = Match(
        id=record.id,
        channel_id=channel.id,
        guild_id=guild.id,
        host_id=members[0][0],
        rules=rules,
        status="finished",
        seats=seats,
        game=game,
        turn_message_id=900 + record.id,
    )
    results = seat_results(match)  # ev_loss None: the analysis comes after the finish
    if totals is not None:  # chosen totals: the ranks and settlements follow from them
        avg = sum(totals) / len(totals)
        results = [
            type(r)(
                **{
                    **r.__dict__,
                    "total": t,
                    "rank": 1 + sum(o > t for o in totals),
                    "settlement": t - avg,
                }
            )
            for r, t in zip(results, totals, strict=True)
        ]
    await store.save(
        record.id,
        expect_version=0,
        state=match.to_dict(),
        status="finished",
        actions=[(i, a.to_json()) for i, a in enumerate(log)],
        results=results,
        now=at + timedelta(minutes=7),
    )
    if losses:  # the analysis observer: humans only, by seat
        humans = {s.player for s in seats if not s.is_bot}
        by_seat = {game.players.index(p): v for p, v in losses.items() if p in humans}
        await store.record_analysis(record.id, by_seat)
    return record.id


def board_lines(res) -> list[tuple[int, str, str, int]]:
    """(rank, name as shown, value, games) of each leaderboard line."""
    return board_lines_of(res.response)


def by_id(*members) -> list[str]:
    """The members' names in member id order (the board's order among equals)."""
    return [m.name for m in sorted(members, key=lambda m: m.id)]


def custom_ids(message) -> list[dict]:
    return [c for row in message.components for c in row["components"]]


# --- results from a table ---------------------------------------------------------------------


def test_seat_results_follow_the_engine() -> None:
    game = play_out("classic", ["11", "22", "33"], 4)
    seats = (Seat(11, "Ann"), Seat(22, "Bob"), Seat(33, "Robot", is_bot=True))
    match = Match(
        id=1,
        channel_id=1,
        guild_id=1,
        host_id=11,
        rules="classic",
        status="finished",
        seats=seats,
        game=game,
    )
    got = seat_results(match)
    out = result(game)["players"]
    assert [(r.seat, r.player_id, r.name, r.is_bot) for r in got] == [
        (i, None if s.is_bot else int(s.player), s.name, s.is_bot)
        for i, s in enumerate(sorted(seats, key=lambda s: game.players.index(s.player)))
    ]
    by_name = {p["name"]: p for p in out}
    for r in got:
        engine = by_name[game.players[r.seat]]
        assert (r.total, r.rank) == (engine["total"], engine["rank"])
        assert r.settlement == pytest.approx(engine["settlement"])
    # ARCH.md "The post-game analysis is ... stored with record_analysis": the results of
    # the finish carry no loss (was: the given loss for the human seat 11, None for others);
    # the analysis observer fills it in later (tests/cogs/league/test_skill.py).
    assert all(r.ev_loss is None for r in got)
    with pytest.raises(ValueError, match="finished"):
        seat_results(Match(id=1, channel_id=1, guild_id=1, host_id=1, rules="classic"))


# --- /poker leaderboard -------------------------------------------------------------------------


async def test_leaderboard_empty_server(league) -> None:
    _env, _guild, channel, (ann, *_rest) = league
    res = await ann.slash(channel, "poker leaderboard")
    assert res.acknowledged
    embed = res.response.embeds[0]
    assert "No finished games" in embed.description
    assert embed.footer.text.startswith("Page 1/1")
    assert not res.ephemeral
    buttons = custom_ids(res.response)
    assert all(b.get("disabled") for b in buttons)  # nowhere to go


async def test_leaderboard_orders_each_metric_with_fair_ties(league) -> None:
    env, guild, channel, (ann, bob, cid, dan) = league
    a, b, c, d = ((u.id, u.name) for u in (ann, bob, cid, dan))
    await store_game(env, guild, channel, [a, b, c], totals=[200, 200, 100], seed=1)
    await store_game(env, guild, channel, [c, d], totals=[300, 150], seed=2, rules="yatzy")
    await store_game(env, guild, channel, [a, d], totals=[120, 180], seed=3)
    # independent numbers: ann 200,120 · bob 200 · cid 100,300 · dan 150,180
    # wins: ann 1, bob 1, cid 1, dan 1 → all tied at rank 1
    res = await bob.slash(channel, "poker leaderboard", metric="wins")
    assert [(r, v) for r, _, v, _ in board_lines(res)] == [(1, "1")] * 4
    # Lines name members (ARCH.md: names, not mentions); ties are ordered by member id.
    # best: cid 300, ann 200 = bob 200, dan 180
    res = await bob.slash(channel, "poker leaderboard", metric="best")
    assert [(r, name, v) for r, name, v, _ in board_lines(res)] == [
        (1, cid.name, "300"),
        (2, by_id(ann, bob)[0], "200"),
        (2, by_id(ann, bob)[1], "200"),
        (4, dan.name, "180"),
    ]
    # average: cid 200, bob 200, dan 165, ann 160
    res = await bob.slash(channel, "poker leaderboard", metric="average")
    assert [(r, name, v) for r, name, v, _ in board_lines(res)] == [
        (1, by_id(cid, bob)[0], "200.00"),
        (1, by_id(cid, bob)[1], "200.00"),
        (3, dan.name, "165.00"),
        (4, ann.name, "160.00"),
    ]
    # net: game 1 avg 166.67 → ann +33.33, bob +33.33, cid −66.67; game 2 avg 225 → cid +75,
    # dan −75; game 3 avg 150 → ann −30, dan +30.  ann +3.33, bob +33.33, cid +8.33, dan −45
    res = await bob.slash(channel, "poker leaderboard", metric="net")
    assert [(r, name, v, g) for r, name, v, g in board_lines(res)] == [
        (1, bob.name, "+33.33", 1),
        (2, cid.name, "+8.33", 2),
        (3, ann.name, "+3.33", 2),
        (4, dan.name, "-45.00", 2),
    ]
    # rules filter: yatzy has only cid and dan
    res = await bob.slash(channel, "poker leaderboard", metric="best", rules="yatzy")
    assert [(r, name) for r, name, _, _ in board_lines(res)] == [(1, cid.name), (2, dan.name)]
    assert "yatzy" in res.response.embeds[0].title
    # bob is not on the yatzy board: told so
    assert "not on this board" in res.response.embeds[0].description


async def test_skill_needs_five_analysed_games(league) -> None:
    env, guild, channel, (ann, bob, _cid, _dan) = league
    a, b = (ann.id, ann.name), (bob.id, bob.name)
    for i in range(5):
        losses = {str(ann.id): 0.5 + i / 10}  # ann analysed in all five, bob never
        if i < 4:
            losses[str(bob.id)] = 0.1
        await store_game(
            env, guild, channel, [a, b], seed=10 + i, losses=losses, at=T0 + timedelta(hours=i)
        )
    res = await ann.slash(channel, "poker leaderboard", metric="skill")
    assert [(r, name, v) for r, name, v, _ in board_lines(res)] == [(1, ann.name, "0.70")]
    assert "at least 5 analysed games" in res.response.embeds[0].footer.text


async def test_leaderboard_pages_buttons_and_own_line(league) -> None:
    env, guild, channel, (_ann, _bob, _cid, dan) = league
    users = [guild.add_member(env.create_user(f"p{i:02}")) for i in range(23)]
    for i, user in enumerate(users):  # p00 scores 100, p01 110, … p22 320
        await store_game(env, guild, channel, [(user.id, user.name)], totals=[100 + 10 * i], seed=i)
    await store_game(env, guild, channel, [(dan.id, dan.name)], totals=[5], seed=99)
    res = await dan.slash(channel, "poker leaderboard", metric="best")
    lines = board_lines(res)
    assert [name for _, name, _, _ in lines[:10]] == [u.name for u in reversed(users)][:10]
    # dan (last, 24th) sees his own line under the page
    assert lines[-1] == (24, dan.name, "5", 1)
    assert res.response.embeds[0].footer.text.startswith("Page 1/3 · 24 ranked")
    nxt = next(c for c in custom_ids(res.response) if c["custom_id"].endswith(":n"))
    page2 = await dan.click(res.response, custom_id=nxt["custom_id"])
    assert page2.acknowledged
    assert not page2.followups
    edited = message_now(channel, res.response.id)  # the same message, turned to page 2
    lines = board_lines_of(edited)
    assert [name for _, name, _, _ in lines[:10]] == [u.name for u in reversed(users)][10:20]
    assert lines[-1] == (24, dan.name, "5", 1)
    assert edited.embeds[0].footer.text.startswith("Page 2/3")
    # someone else's click: the next page for them, privately, with their own line
    ids = [c.custom_id for row in edited.components for c in row.children]
    other = next(i for i in ids if i.endswith(":n"))
    peek = await users[0].click(edited, custom_id=other)
    assert peek.ephemeral
    peek_lines = board_lines(peek)
    assert [r for r, *_ in peek_lines] == [21, 22, 23, 24]  # page 3
    assert (23, users[0].name, "100", 1) in peek_lines
    assert message_now(channel, res.response.id).embeds[0].footer.text.startswith("Page 2/3")
    # on the last page "Next" is disabled; "Previous" goes back
    last = {c["custom_id"][-1]: c for c in custom_ids(peek.response)}
    assert last["n"].get("disabled")
    assert not last["p"].get("disabled")
    with pytest.raises(simcord.SetupError):
        await users[0].click(peek.response, custom_id=last["n"]["custom_id"])
    back = await users[0].click(peek.response, custom_id=last["p"]["custom_id"])
    assert [r for r, *_ in board_lines(back)][:1] == [11]


def message_now(channel, message_id: int):
    """A channel message as it is now (after edits)."""
    return next(m for m in channel.history() if m.id == message_id)


def board_lines_of(message) -> list[tuple[int, str, str, int]]:
    lines = message.embeds[0].description.splitlines()
    assert not any("<@" in line for line in lines)  # names, never mentions (ARCH.md)
    return [(int(m[1]), as_shown(m[2]), m[3], int(m[4])) for m in map(LINE.match, lines) if m]


# --- /poker stats -------------------------------------------------------------------------------


async def test_stats_of_a_member_with_chart(league) -> None:
    env, guild, channel, (ann, bob, _cid, _dan) = league
    a, b = (ann.id, ann.name), (bob.id, bob.name)
    scores = []
    for i in range(22):  # ann wins when her total is higher; bob gets the rest
        totals = [150 + (i * 37) % 100, 160]
        scores.append(totals[0])
        await store_game(
            env,
            guild,
            channel,
            [a, b],
            totals=totals,
            seed=i,
            rules="classic" if i % 2 else "yatzy",
            at=T0 + timedelta(hours=i),
        )
    res = await bob.slash(channel, "poker stats", member=ann)
    assert res.acknowledged
    assert not res.ephemeral
    embed = res.response.embeds[0]
    assert "ann" in embed.title
    fields = {f.name: f.value for f in embed.fields}
    assert list(fields) == ["All rule sets", "classic", "yatzy"]
    wins = sum(s > 160 for s in scores)
    net = sum(s - (s + 160) / 2 for s in scores)
    overall = fields["All rule sets"]
    assert f"Games: 22 · Wins: {wins} · Win rate: {100 * wins / 22:.1f}%" in overall
    assert f"Average: {sum(scores) / 22:.2f} · Best: {max(scores)}" in overall
    assert f"Net settlement: {net:+.2f}" in overall
    assert "no analysed games" in overall
    classic = [s for i, s in enumerate(scores) if i % 2]
    assert f"Games: {len(classic)} · " in fields["classic"]
    assert f"Best: {max(classic)}" in fields["classic"]
    # the chart of the last 20 scores is attached and shown in the embed
    [attachment] = res.response.attachments
    assert attachment.filename == "scores.png"
    assert embed.image.url.endswith("scores.png")
    png = await attachment.read()
    # Was (560, 220): the chart is drawn for a phone since the 'pictures' merge (commit
    # 9843127, "Stats chart for a phone: 800 × 460"), not a change listed in ARCH.md.
    assert Image.open(io.BytesIO(png)).size == (chart.WIDTH, chart.HEIGHT) == (730, 575)


async def test_stats_default_member_is_the_caller(league) -> None:
    env, guild, channel, (_ann, _bob, cid, _dan) = league
    await store_game(
        env, guild, channel, [(cid.id, cid.name)], totals=[77], seed=5, losses={str(cid.id): 1.25}
    )
    res = await cid.slash(channel, "poker stats")
    overall = res.response.embeds[0].fields[0].value
    assert "Games: 1 · Wins: 1 · Win rate: 100%" in overall
    assert "1.25 points lost per decision · 1 analysed game" in overall


@pytest.mark.parametrize(
    ("lang", "numbers"),
    [
        ("ru", ["Доля побед: 100\xa0%", "Средний счёт: 77,00", "Итог расчёта: +25,00",
                "1,25 очка потеряно за решение"]),
        ("ro", ["Rata victoriilor: 50\xa0%", "Medie: 77,00", "Decontare netă: -0,50",
                "1,25 puncte pierdute pe decizie"]),
    ],
)  # fmt: skip
async def test_stats_write_numbers_as_the_servers_language_does(league, lang, numbers) -> None:
    env, guild, channel, (ann, _bob, cid, _dan) = league
    await ann.slash(channel, "poker settings", language=lang)
    members = [(cid.id, cid.name), (ann.id, ann.name)]
    wins = "ru" in lang  # ru: cid wins both; ro: one each
    await store_game(env, guild, channel, members, totals=[77, 52], seed=5,
                     losses={str(cid.id): 1.25})  # fmt: skip
    await store_game(env, guild, channel, members, totals=[77, 52] if wins else [77, 103],
                     seed=6)  # fmt: skip
    res = await cid.slash(channel, "poker stats")
    overall = res.response.embeds[0].fields[0].value
    for text in numbers:
        assert text in overall, (text, overall)
    assert "." not in overall.replace("...", "")  # no English decimal point anywhere


async def test_stats_member_without_games(league) -> None:
    env, guild, channel, (ann, _bob, _cid, dan) = league
    await store_game(env, guild, channel, [(ann.id, ann.name)], totals=[10], seed=1)
    res = await ann.slash(channel, "poker stats", member=dan)
    assert res.acknowledged
    assert res.ephemeral
    assert res.response.content == "dan has not finished a game in this server yet."
    assert not res.response.attachments


# --- /poker history -----------------------------------------------------------------------------


async def test_history_recent_games_with_links(league) -> None:
    env, guild, channel, (ann, bob, cid, dan) = league
    a, b, c = ((u.id, u.name) for u in (ann, bob, cid))
    first = await store_game(env, guild, channel, [a, b], totals=[100, 90], seed=1)
    second = await store_game(
        env,
        guild,
        channel,
        [b, c],
        totals=[80, 80],
        seed=2,
        rules="yatzy",
        at=T0 + timedelta(days=1),
    )
    # a cancelled game is not history
    cancelled = await env.bot.store.create_game(
        guild_id=guild.id, channel_id=channel.id, host_id=ann.id, rules="classic", state={}
    )
    await env.bot.store.save(cancelled.id, expect_version=0, state={}, status="cancelled")
    res = await dan.slash(channel, "poker history")
    assert res.acknowledged
    fields = res.response.embeds[0].fields
    assert [f.name for f in fields] == [f"Game #{second} · yatzy", f"Game #{first} · classic"]
    newest, oldest = fields[0].value, fields[1].value
    finished = int((T0 + timedelta(days=1, minutes=7)).timestamp())
    assert newest.startswith(f"<t:{finished}:f> · winner: bob, cid\n")
    assert "bob 80, cid 80" in newest
    assert "winner: ann\n" in oldest
    assert "ann 100, bob 90" in oldest
    link = f"https://discord.com/channels/{guild.id}/{channel.id}/{900 + first}"
    assert f"({link})" in oldest


async def test_history_empty_server_and_pages(league) -> None:
    env, guild, channel, (ann, _bob, _cid, _dan) = league
    res = await ann.slash(channel, "poker history")
    assert res.response.embeds[0].description == "No finished games in this server yet."
    ids = [
        await store_game(
            env,
            guild,
            channel,
            [(ann.id, ann.name)],
            totals=[i],
            seed=i,
            at=T0 + timedelta(hours=i),
        )
        for i in range(12)
    ]
    res = await ann.slash(channel, "poker history", page=2)
    embed = res.response.embeds[0]
    assert [f.name for f in embed.fields] == [f"Game #{i} · classic" for i in ids[1::-1]]
    assert embed.footer.text == "Page 2/2"
    res = await ann.slash(channel, "poker history", page=9)  # past the end: the last page
    assert res.response.embeds[0].footer.text == "Page 2/2"


# --- /poker export ------------------------------------------------------------------------------


def replay_file(path) -> dict:
    """`python -m bot replay FILE`, as a subprocess."""
    done = subprocess.run(
        [sys.executable, "-m", "bot", "replay", str(path)], capture_output=True, check=True
    )
    return json.loads(done.stdout)


async def test_export_replays_to_the_stored_results(league, tmp_path) -> None:
    env, guild, channel, (ann, bob, cid, dan) = league
    members = [(ann.id, "Ann"), (bob.id, "Ann"), (cid.id, "Сид")]  # two display names alike
    game_id = await store_game(env, guild, channel, members, seed=8, rules="yatzy")
    res = await dan.slash(channel, "poker export", game=game_id)
    assert res.acknowledged
    assert res.ephemeral
    [attachment] = res.response.attachments
    assert attachment.filename == f"dicepoker-game-{game_id}.json"
    data = await attachment.read()
    doc = json.loads(data)
    assert set(doc) == {"rules", "players", "actions"}
    assert doc["rules"] == "yatzy"
    assert sorted(doc["players"]) == ["Ann", "Ann (2)", "Сид"]
    # the file as downloaded is what `python -m bot replay FILE` checks
    path = tmp_path / attachment.filename
    path.write_bytes(data)
    cli = {p["name"]: p["total"] for p in replay_file(path)["players"]}
    assert len(doc["actions"]) == len(await env.bot.store.actions(game_id))
    game = run(doc)
    assert game.finished
    replayed = {p["name"]: p for p in result(game)["players"]}
    for r in await env.bot.store.results(game_id):
        name = doc["players"][r.seat]
        assert (replayed[name]["total"], replayed[name]["rank"]) == (r.total, r.rank)
        assert cli[name] == r.total


async def test_export_refuses_other_servers_and_unstarted_games(league) -> None:
    env, guild, channel, (ann, _bob, _cid, _dan) = league
    other = env.create_guild("Elsewhere")
    there = other.create_text_channel("dice")
    elsewhere = await env.bot.store.create_game(
        guild_id=other.id, channel_id=there.id, host_id=ann.id, rules="classic", state={}
    )
    lobby = await env.bot.store.create_game(
        guild_id=guild.id, channel_id=channel.id, host_id=ann.id, rules="classic", state={}
    )
    res = await ann.slash(channel, "poker export", game=elsewhere.id)
    assert res.ephemeral
    assert res.response.content == f"There is no game #{elsewhere.id} in this server."
    res = await ann.slash(channel, "poker export", game=999)
    assert res.response.content == "There is no game #999 in this server."
    res = await ann.slash(channel, "poker export", game=lobby.id)
    assert res.response.content == f"Game #{lobby.id} never started: there is nothing to replay."
    assert not res.response.attachments


def test_unique_names() -> None:
    assert unique_names(["a", "b", "a", "a", " "]) == ["a", "b", "a (2)", "a (3)", "player"]


# --- restarts -----------------------------------------------------------------------------------


async def test_leaderboard_buttons_work_after_a_restart(league, bot_factory) -> None:
    env, guild, channel, users = league
    for i, user in enumerate(users):
        await store_game(env, guild, channel, [(user.id, user.name)], totals=[10 * i], seed=i)
    extra = [guild.add_member(env.create_user(f"q{i}")) for i in range(8)]
    for i, user in enumerate(extra):
        await store_game(env, guild, channel, [(user.id, user.name)], totals=[100 + i], seed=i)
    ann = users[0]
    res = await ann.slash(channel, "poker leaderboard", metric="best")
    nxt = next(c["custom_id"] for c in custom_ids(res.response) if c["custom_id"].endswith(":n"))
    await env.bot.close()
    await env.restart_bot(bot_factory())
    page2 = await ann.click(res.response, custom_id=nxt)
    assert page2.acknowledged
    lines = board_lines_of(message_now(channel, res.response.id))
    assert [r for r, *_ in lines] == [11, 12]
    assert lines[-1][1] == ann.name  # ann scored 0: last


# --- a game played through the bot -------------------------------------------------------------


async def play_through(env, channel, players) -> None:
    """Start a game with `players` (the first hosts) and play it to its end by clicks
    (the play tests' own helpers, so the clicks follow the play cog's controls)."""
    await open_game(channel, players[0], players[1:])
    await play_to_the_end(env, channel, {p.id: p for p in players})


async def test_a_finished_game_stores_its_results_and_shows_up(league) -> None:
    env, guild, channel, (ann, bob, _cid, _dan) = league
    await play_through(env, channel, [ann, bob])
    final = channel.last_message  # the game's last message: the final standings
    [entry] = await env.bot.store.history(guild.id)
    assert entry.game.status == "finished"
    results = entry.results
    assert sorted(r.player_id for r in results) == sorted([ann.id, bob.id])
    # the stored results are the engine's own standings of the stored actions
    exported = await ann.slash(channel, "poker export", game=entry.game.id)
    doc = json.loads(await exported.response.attachments[0].read())
    standings = {p["name"]: p for p in result(run(doc))["players"]}
    for r in results:
        assert standings[doc["players"][r.seat]]["total"] == r.total
        assert standings[doc["players"][r.seat]]["rank"] == r.rank
    assert sorted(doc["players"]) == ["ann", "bob"]
    # and the league sees it
    board = await bob.slash(channel, "poker leaderboard", metric="best")
    assert sorted((name, int(v)) for _, name, v, _ in board_lines(board)) == sorted(
        (r.name, r.total) for r in results
    )
    hist = await bob.slash(channel, "poker history")
    assert hist.response.embeds[0].fields[0].name == f"Game #{entry.game.id} · classic"
    link = f"https://discord.com/channels/{guild.id}/{channel.id}/{final.id}"
    assert f"({link})" in hist.response.embeds[0].fields[0].value


async def test_a_cancelled_game_stores_no_results(league) -> None:
    env, guild, channel, (ann, bob, _cid, _dan) = league
    lobby = await ann.slash(channel, "poker new", rules="classic")
    await bob.click(lobby.response, label="Join")
    await ann.click(lobby.response, label="Start")
    await ann.slash(channel, "poker cancel")
    record = await env.bot.store.get_game(1)
    assert record is not None
    assert record.status == "cancelled"
    assert await env.bot.store.results(record.id) == []
    assert (await env.bot.store.leaderboard(guild.id)).ranked == 0


async def test_an_unknown_pager_id_is_refused_politely(league) -> None:
    env, guild, channel, (ann, _bob, _cid, _dan) = league
    await store_game(env, guild, channel, [(ann.id, ann.name)], totals=[50], seed=1)
    # an old message whose buttons name a metric and a rule set this version does not know
    view = discord.ui.View(timeout=None)
    for forged in (f"league:board:luck:all:0:{ann.id}:n", f"league:board:wins:dice:0:{ann.id}:p"):
        view.add_item(discord.ui.Button(label=forged[13:17], custom_id=forged))
    old = await env.bot.get_channel(channel.id).send("an old board", view=view)
    for label in ("luck", "wins"):
        answer = await ann.click(old, label=label)
        assert answer.acknowledged
        assert answer.ephemeral
        assert "out of date" in answer.response.content
    assert message_now(channel, old.id).content == "an old board"  # untouched


async def test_the_servers_language_speaks_on_the_public_boards(league) -> None:
    env, guild, channel, (ann, bob, _cid, _dan) = league
    await store_game(env, guild, channel, [(bob.id, bob.name)], totals=[50], seed=1)
    await ann.slash(channel, "poker settings", language="ru")
    res = await bob.slash(channel, "poker leaderboard")
    wins, every = t("leaderboard.metric_wins", "ru"), t("leaderboard.all_rules", "ru")
    assert res.response.embeds[0].title == t("leaderboard.title", "ru", metric=wins, scope=every)
    assert any("а" <= ch <= "я" for ch in res.response.embeds[0].title)  # Russian indeed
    res = await bob.slash(channel, "poker history")
    assert res.response.embeds[0].title == t("history.title", "ru")
