"""The daily dice through Discord: the same dice for everyone, the report, the public line,
one attempt a day, a restart in the middle."""

from __future__ import annotations

import pytest

from bot.engine import RULESETS, Game
from bot.engine.daily import DailyDice
from bot.strategy.hindsight import hindsight
from tests.cogs.drive import fresh

from .drive import (
    daily_controls,
    game_of,
    keep_most,
    never_hold,
    pass_early,
    play_daily,
    start,
)


async def the_dice(env, rules: str) -> DailyDice:
    dailies = env.bot.daily.dailies
    return DailyDice(await dailies.secret(), dailies.today(), rules)


def check_seen(seen, dice: DailyDice) -> None:
    for (turn, throw, position), face in seen.items():
        assert face == dice.die(turn, throw, position), (turn, throw, position)


async def final_game(env, game_id: int) -> Game:
    record = await env.bot.store.get_game(game_id)
    assert record.status == "finished"
    return Game.from_dict(record.state["game"])


def total_of(game: Game) -> int:
    return game.totals(game.players[0]).total


@pytest.mark.parametrize("rules", sorted(RULESETS))
async def test_two_members_who_hold_differently_see_the_same_dice(casino, rules):
    env, _, channel, (ann, bob, _) = casino
    ann_msg = await start(ann, channel, rules)
    bob_msg = await start(bob, channel, rules)
    banked = RULESETS[rules].banked
    a = await play_daily(env, ann, ann_msg, pass_early if banked else never_hold)
    b = await play_daily(env, bob, bob_msg, keep_most)
    rows = len(RULESETS[rules].rows)
    assert a.turns >= rows
    assert b.turns >= rows
    dice = await the_dice(env, rules)
    check_seen(a.seen, dice)  # every face either saw is the day's (t, k, p) face
    check_seen(b.seen, dice)
    both = a.seen.keys() & b.seen.keys()
    # The first throw of every turn both played is the same for both, every position.
    for turn in range(min(a.turns, b.turns)):
        first = [(turn, 1, p) for p in range(5)]
        assert set(first) <= both
        assert [a.seen[k] for k in first] == [b.seen[k] for k in first]
    # A position both re-threw at the same throw of the same turn showed the same face;
    # what one kept the other threw, so each saw faces the other did not.
    assert any(k[1] > 1 for k in both)
    assert all(a.seen[k] == b.seen[k] for k in both)
    assert a.seen.keys() - b.seen.keys()
    if banked:
        assert a.passes  # a pass is a turn: the next dice are the next turn's
    # Both finished: one short public line each, giving no dice away.
    lines = [m.content for m in channel.history() if m.content.startswith("🎲")]
    assert [x.split(" finished")[0] for x in lines] == ["🎲 ann", "🎲 bob"]
    assert not any(face in x for x in lines for face in "⚀⚁⚂⚃⚄⚅")


async def test_the_report_and_the_public_line(casino):
    env, _, channel, (ann, _, _) = casino
    message = await start(ann, channel)
    assert message.content.startswith("🎲 **Daily dice** · classic · 2026-01-01")
    assert message.embeds[0].footer.text.startswith("classic · daily of 2026-01-01 · game #")
    game_id = game_of(message)
    played = await play_daily(env, ann, message, keep_most)
    assert played.turns == 15
    shown = fresh(env, message)
    assert daily_controls(shown) == {"hold": []}  # no controls left
    report, card = shown.embeds
    assert report["title"] == "🏁 Your daily dice — classic — 2026-01-01"
    total = total_of(await final_game(env, game_id))
    best = hindsight(await the_dice(env, "classic")).score
    assert best >= total
    text = report["description"]
    assert f"Your score: **{total}**" in text
    assert "Place so far today in this server: **1** of 1" in text
    assert f"allowed: **{best}** (exact: every hold and every row choice" in text
    if best > total:
        assert f"you were **{best - total}** below it" in text
    assert "Not analysed: the perfect-play table was not loaded." in text
    assert card["title"] == "Scorecard — ann"
    public = channel.last_message
    assert public.content == (
        f"🎲 ann finished the daily dice (classic): **{total}** — place 1 of 1 so far today"
    )
    assert not public.embeds
    assert not public.components


async def test_the_analysis_when_the_table_is_loaded(casino):
    from bot.strategy import compute

    env, _, channel, (ann, bob, _) = casino
    env.bot.play.solutions.put(compute("classic"))
    message = await start(ann, channel)
    await play_daily(env, ann, message, keep_most)
    today = env.bot.daily.dailies.today()
    board = await env.bot.store.daily_board(channel.guild.id, "classic", today, member_id=ann.id)
    mean = board.me.ev_loss
    assert mean is not None
    assert mean > 0
    assert f"Points lost per decision against perfect play: **{mean:.2f}**" in (
        fresh(env, message).embeds[0]["description"]
    )
    assert channel.last_message.content.endswith(f" · {mean:.2f} points lost per decision")
    # The second to finish is second so far (or first: a better score takes the place).
    other = await start(bob, channel)
    await play_daily(env, bob, other, never_hold)
    assert " of 2 so far today" in channel.last_message.content


async def test_a_restart_in_the_middle_of_a_daily(casino, bot_factory):
    env, _, channel, (ann, _, _) = casino
    message = await start(ann, channel, "yatzy")
    game_id = game_of(message)
    before = await play_daily(env, ann, message, keep_most, turns=5)
    secret = await env.bot.daily.dailies.secret()
    old = env.bot
    await old.close()
    await env.restart_bot(bot_factory())
    assert await env.bot.daily.dailies.secret() == secret  # kept in the database
    # The old private message's buttons still work, and the game goes on where it was.
    rest = await play_daily(env, ann, message, keep_most)
    assert before.turns + rest.turns == 15
    dice = await the_dice(env, "yatzy")
    shifted = {(t + before.turns, k, p): v for (t, k, p), v in rest.seen.items()}
    check_seen({**before.seen, **shifted}, dice)
    game = await final_game(env, game_id)
    assert total_of(game) == int(
        fresh(env, message).embeds[0]["description"].split("**")[1]
    )


async def test_the_command_again_reposts_the_game_where_it_was(casino):
    env, _, channel, (ann, _, _) = casino
    first = await start(ann, channel)
    await play_daily(env, ann, first, never_hold, turns=2)
    again = await start(ann, channel)  # ephemeral messages vanish when Discord reloads
    assert "Your daily, where you left it." in again.content
    assert game_of(again) == game_of(first)
    assert again.embeds[0].fields[-1].value == "3"  # round 3: two turns played
    # The new copy plays on; the old one is out of date (and shows the game as it is).
    rest = await play_daily(env, ann, again, never_hold)
    assert rest.turns == 13


async def test_a_second_attempt_is_refused_politely(casino):
    env, _, channel, (ann, _, _) = casino
    message = await start(ann, channel)
    game_id = game_of(message)
    await play_daily(env, ann, message, never_hold)
    total = total_of(await final_game(env, game_id))
    res = await ann.slash(channel, "poker daily play", rules="classic")
    assert res.acknowledged
    assert res.ephemeral
    assert res.response.content.startswith(
        f"You have played today's classic daily: **{total}**. One attempt a day:"
    )
    assert res.response.embeds[0].title == "🏁 Your daily dice — classic — 2026-01-01"
    assert not res.response.components
    today = env.bot.daily.dailies.today()
    assert (await env.bot.store.daily_game(ann.id, "classic", today)).id == game_id
    lines = [m for m in channel.history() if m.content.startswith("🎲")]
    assert len(lines) == 1  # no second public line
    # Another rule set is another daily.
    assert game_of(await start(ann, channel, "yatzy")) != game_id
