"""Whole games, driven only by slash commands, clicks and menu choices, checked by replay."""

import pytest

from tests.cogs.drive import (
    game_id_of,
    open_game,
    play_to_the_end,
    replay_cli,
    standings,
    stored_document,
    turn_message,
)


@pytest.mark.parametrize(("rules", "count"), [("classic", 3), ("yatzy", 2), ("banked", 2)])
async def test_full_game_matches_replay(table, rules, count):
    env, channel, ann, bob, cid = table
    players = [ann, bob, cid][:count]
    lobby = await open_game(channel, ann, players[1:], rules=rules)
    assert lobby.response.embeds[0].footer.text.startswith("Game #")
    game_id = game_id_of(turn_message(channel))
    turns = await play_to_the_end(env, channel, {p.id: p for p in players})
    assert turns >= 13 * count if rules != "banked" else turns >= count

    shown = standings(channel)
    assert shown is not None, "no final standings were posted"
    result = replay_cli(await stored_document(env.bot, game_id))
    assert result["finished"] is True
    names = {str(p.id): p.name for p in players}
    assert shown == {names[p["name"]]: p["total"] for p in result["players"]}
    record = await env.bot.store.get_game(game_id)
    assert record.status == "finished"
