"""The root fixtures on PostgreSQL: `table` and `bot_factory` as every play test uses them,
here through tests/multi/fixtures.py, a whole game with a restart half-way (the process
stops; a new one on the same database takes over; the old turn message still works)."""

from __future__ import annotations

from db import PostgresStore
from tests.cogs.drive import open_game, play_to_the_end, play_turn, standings, turn_message


async def test_a_whole_game_on_postgresql_with_a_restart(table, bot_factory) -> None:
    env, channel, ann, bob, _cid = table
    assert isinstance(env.bot.store, PostgresStore)
    await open_game(channel, ann, [bob])
    members = {ann.id: ann, bob.id: bob}
    for _ in range(5):
        assert await play_turn(env, channel, members)
    before = turn_message(channel)
    await env.bot.close()
    await env.restart_bot(bot_factory())
    assert turn_message(channel).id == before.id  # the same message, clicked after
    assert await play_to_the_end(env, channel, members) > 0
    final = standings(channel)
    assert final is not None
    assert set(final) == {"ann", "bob"}
