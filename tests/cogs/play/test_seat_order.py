"""Who plays after whom stays in view the whole game: the seat order on every turn
message (the player to move in bold), and the lobby listing the seats in that order once
the game has started."""

from __future__ import annotations

from typing import Any

from tests.cogs.drive import (
    MENTION,
    fresh,
    lobby_players,
    open_game,
    play_turn,
    turn_message,
)

SEATS = "Seat order"


def seat_field(embed: Any) -> str | None:
    data = embed if isinstance(embed, dict) else embed.to_dict()
    return next((f["value"] for f in data.get("fields", ()) if f["name"] == SEATS), None)


async def test_every_turn_message_shows_the_seat_order_with_the_player_to_move(table):
    env, channel, ann, bob, cid = table
    members = {m.id: m for m in (ann, bob, cid)}
    res = await open_game(channel, ann, [bob, cid])
    game = (await env.bot.store.active_game(channel.id)).state["game"]
    order = [members[int(c["name"])].name for c in game["cards"]]  # the opening throw's
    assert sorted(order) == ["ann", "bob", "cid"]
    # The lobby, once started, lists the seats in that order, not the order they joined.
    assert lobby_players(env, res.response).splitlines()[1:] == [  # after the host
        f"{i}\\. {name}" for i, name in enumerate(order, 1)
    ]
    for turn in range(7):  # past the first turn and the first round
        message = turn_message(channel)
        mover = members[int(MENTION.search(message.content)[1])].name
        assert mover == order[turn % 3]
        shown = seat_field(fresh(env, message).embeds[-1])
        assert shown == " → ".join(f"**{n}**" if n == mover else n for n in order)
        await play_turn(env, channel, members, rolls=1)


async def test_a_player_who_left_leaves_the_seat_order(table):
    env, channel, ann, bob, cid = table
    members = {m.id: m for m in (ann, bob, cid)}
    await open_game(channel, ann, [bob, cid])
    message = turn_message(channel)
    mover = members[int(MENTION.search(message.content)[1])]
    gone = next(m for m in (ann, bob, cid) if m is not mover and m is not ann)
    assert (await gone.slash(channel, "poker leave")).acknowledged
    shown = seat_field(fresh(env, turn_message(channel)).embeds[-1])
    assert gone.name not in shown
    assert f"**{mover.name}**" in shown
    await gone.slash(channel, "poker leave")  # (already out: changes nothing)
    # Alone at the table, there is no order to show.
    other = next(m for m in (ann, bob, cid) if m is not mover and m is not gone)
    assert (await other.slash(channel, "poker leave")).acknowledged
    assert seat_field(fresh(env, turn_message(channel)).embeds[-1]) is None
