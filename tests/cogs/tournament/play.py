"""Driving tournaments through simcord: the sign-up, the tables in their threads, a
member's turns played by clicks (one throw, then the first row offered)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from bot.i18n import t
from bot.match.tournament import Tournament
from bot.service import tournament_of
from tests.cogs.drive import MENTION, controls, fresh, turn_message
from tests.cogs.play.hostile import walk


async def sign_up(env: Any, channel: Any, host: Any, others: list[Any], computers: int = 0,
                  **options: Any) -> Any:  # fmt: skip
    """`/poker tournament new`, everyone joins, the host adds easy computer players."""
    res = await host.slash(channel, "poker tournament new", **options)
    assert res.acknowledged
    assert not res.ephemeral
    message = res.response
    for member in others:
        joined = await member.click(message, label=t("lobby.join"))
        assert joined.acknowledged
        assert not joined.followups, joined.followups[0].content
    for _ in range(computers):
        select = ours(env, message)["addbot"]
        added = await host.select(message, ["easy"], custom_id=select["custom_id"])
        assert added.acknowledged
        assert not added.followups, added.followups[0].content
    return message


async def stored(env: Any, tournament_id: int) -> Tournament:
    record = await env.bot.store.get_tournament(tournament_id)
    return tournament_of(record)


def ours(env: Any, message: Any) -> dict[str, Any]:
    """The tournament message's controls by action (`tourn:<action>:…`)."""
    items = walk(fresh(env, message).components)
    return {i["custom_id"].split(":")[1]: i for i in items
            if i.get("custom_id", "").startswith("tourn:")}  # fmt: skip


def tournament_id_of(env: Any, message: Any) -> int:
    return int(ours(env, message)["leave"]["custom_id"].split(":")[2])


async def play_one_turn(env: Any, thread: Any, members: dict[int, Any]) -> bool:
    """The member to move at `thread`'s table throws once and records the first row
    offered; False when no member is to move there (over, or a computer's turn)."""
    message = turn_message(thread)
    if message is None:
        return False
    mention = MENTION.search(message.content or "")
    if mention is None or int(mention[1]) not in members:
        return False
    player = members[int(mention[1])]
    c = controls(fresh(env, message))
    if not c["roll"].get("disabled"):
        res = await player.click(message, custom_id=c["roll"]["custom_id"])
        assert res.acknowledged
        c = controls(fresh(env, message))
    select = c.get("score")
    if select is not None and select.get("options"):
        res = await player.select(message, [select["options"][0]["value"]],
                                  custom_id=select["custom_id"])  # fmt: skip
    else:
        res = await player.click(message, custom_id=c["pass"]["custom_id"])
    assert res.acknowledged
    return True


Until = Callable[[Tournament], Awaitable[bool]]


async def play_round(env: Any, channel: Any, members: dict[int, Any], round_no: int,
                     tournament_id: int, *, until: Until | None = None,
                     limit: int = 2000) -> Tournament:  # fmt: skip
    """Members play their turns at every table of round `round_no` until it is over (the
    computer players play theirs themselves), or until `until` holds."""
    for _ in range(limit):
        tn = await stored(env, tournament_id)
        if until is not None and await until(tn):
            return tn
        rnd = tn.rounds[round_no - 1]
        if rnd.done:
            return tn
        moved = False
        for table in rnd.tables:
            if table.thread_id is not None and not table.over:
                thread = next(h for h in channel.threads if h.id == table.thread_id)
                moved |= await play_one_turn(env, thread, members)
        if not moved:
            await env.settle()
    raise AssertionError(f"round {round_no} does not end")


async def four_at_tables_of_two(table: Any) -> tuple[list[Any], int, Any]:
    """The `table` fixture's three members and a fourth signed up for tables of two, not
    started: (the four, the tournament's id, its message)."""
    env, channel, ann, bob, cid = table
    humans = [ann, bob, cid, channel.guild.add_member(env.create_user("dan"))]
    message = await sign_up(env, channel, ann, humans[1:], table_size=2)
    return humans, tournament_id_of(env, message), message
