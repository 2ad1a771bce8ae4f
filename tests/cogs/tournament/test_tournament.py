"""Tournaments through simcord, with real threads: a whole tournament of nine members and
three computer players at tables of four, one going on from each (three tables, then the
final); its one message; the threads pinged once, archived and locked; a leaver; the
league and the export afterwards; the start refused where threads cannot be made."""

from __future__ import annotations

import discord

from bot.i18n import t
from bot.match.tournament import DONE, FINISHED
from tests.cogs.drive import fresh, replay_cli, stored_document

from .play import ours, play_round, sign_up, stored, tournament_id_of

EPHEMERAL = 64


def public(channel) -> list:
    """The channel's lasting messages (not Discord's own "started a thread" notes)."""
    return [m for m in channel.history()
            if not m.flags.ephemeral and m.type != discord.MessageType.thread_created]  # fmt: skip


async def test_a_whole_tournament_of_nine_members_and_three_computers(table):
    env, channel, ann, bob, cid = table
    guild = channel.guild
    more = [guild.add_member(env.create_user(f"m{i}")) for i in range(6)]
    humans = [ann, bob, cid, *more]
    members = {m.id: m for m in humans}
    message = await sign_up(env, channel, ann, humans[1:], computers=3, rules="classic")
    tid = tournament_id_of(env, message)
    assert len((await stored(env, tid)).entrants) == 12

    started = await ann.click(message, label=t("lobby.start"))
    assert started.acknowledged
    await env.settle()
    tn = await stored(env, tid)
    assert tn.status == "playing"
    first = tn.rounds[0]
    assert [len(tb.seats) for tb in first.tables] == [4, 4, 4]
    threads = {h.id: h for h in channel.threads}
    assert sorted(threads) == sorted(tb.thread_id for tb in first.tables)
    for tb in first.tables:
        await _a_thread_of_its_own(env, threads[tb.thread_id], tid, tb)

    # A member leaves during the round: out of the tournament, their table goes on.
    leaver = members[next(p for p in first.tables[0].seats if p > 0)]
    left = await leaver.click(message, custom_id=ours(env, message)["leave"]["custom_id"])
    assert left.acknowledged
    tn = await stored(env, tid)
    assert tn.entrant(leaver.id).out == "left"

    tn = await play_round(env, channel, members, 1, tid)
    await env.settle()
    tn = await stored(env, tid)
    assert [tb.status for tb in tn.rounds[0].tables] == [DONE] * 3
    assert leaver.id not in tn.rounds[0].tables[0].went_on
    for tb in tn.rounds[0].tables:  # the finished tables' threads are closed
        meta = env.backend.channels[tb.thread_id].thread_metadata
        assert (meta.archived, meta.locked) == (True, True)
        assert len(tb.went_on) == 1
    final = tn.rounds[1]
    assert final.final
    assert len(final.tables[0].seats) == 3

    tn = await play_round(env, channel, members, 2, tid)
    await env.settle()
    tn = await stored(env, tid)
    assert tn.status == FINISHED
    assert tn.champion == tn.rounds[1].tables[0].went_on[0]
    assert len(channel.threads) == 4
    shown = fresh(env, message)
    lasting = public(channel)  # the channel keeps one lasting message: this one
    assert [m.id for m in lasting] == [message.id], [(m.type, m.content) for m in lasting]
    notes = [m for m in channel.history() if m.type == discord.MessageType.thread_created]
    assert len(notes) <= 4  # (Discord's note of each thread, where it writes one)
    assert t("tournament.title_won", name=tn.name_of(tn.champion), rules="Classic")[:4] in (
        shown.embeds[0]["title"] if isinstance(shown.embeds[0], dict) else shown.embeds[0].title
    )

    await _the_league_and_the_export_count_it(env, channel, ann, members, tid)


async def _a_thread_of_its_own(env, thread, tid, tb) -> None:
    """Named after the tournament and the table, its members pinged there once."""
    assert thread.name == f"🏆 #{tid} · round 1 · table {tb.no}"
    welcome = thread.history()[0]
    humans_here = [p for p in tb.seats if p > 0]
    assert sorted(int(u.id) for u in welcome.mentions) == sorted(humans_here)
    assert sum(bool(m.mentions) for m in thread.history()) >= 1
    assert (await env.bot.store.get_game(tb.game_id)).channel_id == thread.id


async def _the_league_and_the_export_count_it(env, channel, ann, members, tid) -> None:
    tn = await stored(env, tid)
    guild = channel.guild
    # Each table's game replays as any game does.
    for rnd in tn.rounds:
        for tb in rnd.tables:
            result = replay_cli(await stored_document(env.bot, tb.game_id))
            assert result["finished"] is True

    # The league: the champion's win and final counted.
    if tn.champion > 0:
        champion = members[tn.champion]
        board = await env.bot.store.leaderboard(guild.id, metric="tournaments")
        assert (board.lines[0].player_id, board.lines[0].value) == (champion.id, 1)
        res = await champion.slash(channel, "poker stats")
        fields = [f.name for f in res.response.embeds[0].fields]
        assert t("stats.tournaments_title") in fields
    res = await ann.slash(channel, "poker leaderboard", metric="tournaments")
    assert res.acknowledged

    # The export: its tables, rounds, who went on and why, and its log.
    res = await ann.slash(channel, "poker tournament export", number=tid)
    assert res.ephemeral
    data = res.response.attachments[0]
    assert data.filename == f"dicepoker-tournament-{tid}.json"
    doc = __import__("json").loads(await data.read())
    assert [len(r["tables"]) for r in doc["rounds"]] == [3, 1]
    assert doc["champion"]["id"] == tn.champion
    assert any(p.get("out") == "left" for p in doc["players"])
    assert all(a["why"] in ("place", "settlement", "rolloff", "seed", "bye")
               for r in doc["rounds"] for tb in r["tables"] for a in tb["advanced"])  # fmt: skip


async def test_the_start_is_refused_where_threads_cannot_be_made(table):
    env, _channel, ann, bob, _cid = table
    guild = _channel.guild
    closed = guild.create_text_channel("nothreads", overwrites={
        guild.me: discord.PermissionOverwrite(create_public_threads=False, manage_threads=False)})
    message = await sign_up(env, closed, ann, [bob])
    tid = tournament_id_of(env, message)
    res = await ann.click(message, label=t("lobby.start"))
    assert res.acknowledged
    text = res.response.content if res.ephemeral else res.followups[-1].content
    assert "Create Public Threads" in text
    assert "Manage Threads" in text
    tn = await stored(env, tid)
    assert (tn.status, tn.rounds) == ("signup", ())
    assert closed.threads == []


async def test_only_the_host_or_a_manager_starts_and_a_stranger_cannot_cancel(table):
    env, channel, ann, bob, cid = table
    message = await sign_up(env, channel, ann, [bob])
    tid = tournament_id_of(env, message)
    for who, label in ((bob, "lobby.start"), (cid, "lobby.cancel")):
        res = await who.click(message, label=t(label))
        assert res.acknowledged
        assert res.ephemeral
        assert "ann" in res.response.content
    assert (await stored(env, tid)).status == "signup"

