"""Post-game analysis: each human's mean loss per decision, in the standings and the results."""

from __future__ import annotations

import random
import threading

import pytest

from bot.engine import Action, Game, Roll, Score, parse_action
from bot.service import SolutionCache
from bot.strategy import Hold, Record, choose, compute, loss
from bot.strategy.analysis import analyse, decisions, last_decision
from tests.cogs.drive import (
    add_bot,
    final_embed,
    game_id_of,
    new_lobby,
    open_game,
    play_to_the_end,
    turn_message,
)

TITLE = "Points lost per decision against perfect play"


def _field(channel) -> str:
    embed = final_embed(channel)
    assert embed is not None, "no final standings"
    return {f.name: f.value for f in embed.fields}[TITLE]


async def _stored_log(bot, game_id: int) -> tuple[Game, list[Action]]:
    """The stored game's empty start and its log (the game keeps no history)."""
    record = await bot.store.get_game(game_id)
    players = [c["name"] for c in record.state["game"]["cards"]]
    actions = [parse_action(a) for a in await bot.store.actions(game_id)]
    return Game.new(record.rules, players), actions


async def test_two_humans_see_their_loss_per_decision_in_the_standings(table, classic_table):
    env, channel, ann, bob, _cid = table
    await open_game(channel, ann, [bob])
    game_id = game_id_of(turn_message(channel))
    await play_to_the_end(env, channel, {ann.id: ann, bob.id: bob})

    report = analyse(classic_table, *await _stored_log(env.bot, game_id))
    lines = _field(channel).splitlines()
    expected = sorted(
        ((report[str(m.id)].mean, m) for m in (ann, bob)), key=lambda pair: pair[0]
    )  # the most accurate player first
    assert lines == [
        f"{m.name}: **{r.mean:.2f}** per decision ({r.decisions} decisions, {r.lost:.1f} in all)"
        for _, m in expected
        for r in [report[str(m.id)]]
    ]
    assert all(report[str(m.id)].decisions >= 15 for m in (ann, bob))
    # The helper's simple play is far from perfect: the loss is real, not a constant.
    assert all(report[str(m.id)].mean > 0.1 for m in (ann, bob))
    stored = {r.player_id: r.ev_loss for r in await env.bot.store.results(game_id)}
    assert stored == {
        ann.id: pytest.approx(report[str(ann.id)].mean),
        bob.id: pytest.approx(report[str(bob.id)].mean),
    }


async def test_computer_seats_are_not_analysed(table):
    env, channel, ann, _bob, _cid = table
    lobby = await new_lobby(channel, ann)
    await add_bot(env, ann, lobby, "easy")
    await ann.click(lobby, label="Start")
    game_id = game_id_of(turn_message(channel))
    await play_to_the_end(env, channel, {ann.id: ann})
    lines = _field(channel).splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("ann: **")
    stored = {r.name: r.ev_loss for r in await env.bot.store.results(game_id)}
    assert stored["🤖 Bot 1 (easy)"] is None
    assert stored["ann"] is not None


async def test_banked_games_say_they_are_not_analysed(table):
    env, channel, ann, _bob, _cid = table
    await open_game(channel, ann, [], rules="banked")
    game_id = game_id_of(turn_message(channel))
    await play_to_the_end(env, channel, {ann.id: ann})
    assert _field(channel) == "Not analysed: banked has no exact table."
    assert [r.ev_loss for r in await env.bot.store.results(game_id)] == [None]


async def test_no_table_at_the_end_stores_nothing_and_says_so(table, tmp_path, use_loader):
    env, channel, ann, _bob, _cid = table
    release = threading.Event()

    def never_ready(rules):
        release.wait(30)
        raise RuntimeError("released")

    use_loader(env, never_ready, tmp_path / "none")
    try:
        await open_game(channel, ann, [])
        game_id = game_id_of(turn_message(channel))
        await play_to_the_end(env, channel, {ann.id: ann})
    finally:
        release.set()
    assert _field(channel) == "Not analysed: the perfect-play table was not ready."
    assert [r.ev_loss for r in await env.bot.store.results(game_id)] == [None]


# --- the pure analysis ----------------------------------------------------------------------


def _play(table, levels: dict[str, str], seed: int) -> tuple[Game, list[Action]]:
    """A whole game of computer players: its empty start and its log."""
    rng = random.Random(seed)
    start = game = Game.new("classic", list(levels))
    log: list[Action] = []
    while not game.finished:
        decision = choose(levels[game.player], game, table, rng)  # type: ignore[arg-type]
        action: Action
        if isinstance(decision, Hold):
            hold = tuple(decision.positions) if game.dice else ()
            values = tuple(rng.randint(1, 6) for _ in range(5 - len(hold)))
            action = Roll(game.player, values, hold)
        else:
            assert isinstance(decision, Record)
            action = Score(game.player, decision.row)
        game, _ = game.apply(action)
        log.append(action)
    return start, log


@pytest.mark.parametrize("seed", range(3))
def test_perfect_play_loses_nothing_and_weaker_play_loses_its_losses(classic_table, seed):
    start, log = _play(classic_table, {"p": "perfect", "e": "easy"}, seed)
    report = analyse(classic_table, start, log)
    assert report["p"].lost == pytest.approx(0.0, abs=1e-9)
    # The easy player's loss is the sum of each decision's own loss, recomputed here.
    total = sum(loss(classic_table, b, d) for b, d in decisions(start, log) if b.player == "e")
    assert report["e"].lost == pytest.approx(total)
    assert report["e"].lost > 0
    # Every score and every throw after a turn's first is a decision; nothing else is.
    scores = sum(1 for a in log if a.__class__.__name__ == "Score")
    assert sum(r.decisions for r in report.values()) == scores + sum(
        1 for b, d in decisions(start, log) if isinstance(d, Hold)
    )
    assert scores == 30


def test_decisions_replay_the_log_exactly(classic_table):
    start, log = _play(classic_table, {"a": "normal"}, 11)
    seen = list(decisions(start, log))
    assert all(not before.finished for before, _ in seen)
    records = [d.row for _, d in seen if isinstance(d, Record)]
    assert sorted(records) == sorted(start.rules.rows)
    before, decision = last_decision(start, log, "a")
    assert isinstance(decision, Record)
    assert before.card.rows[decision.row] is None
    assert last_decision(Game.new("classic", ["a"]), [], "a") is None


async def test_table_manager_loads_once_and_never_blocks(tmp_path, classic_table):
    release = threading.Event()
    calls = []

    def loader(rules):
        calls.append(rules)
        release.wait(30)
        return classic_table

    tables = SolutionCache(tmp_path, loader=loader)
    assert tables.loaded("classic") is None
    assert tables.status("classic") == "idle"  # looking starts nothing
    assert tables.get("classic") is None  # answered at once while loading
    assert tables.get("classic") is None
    assert tables.status("classic") == "loading"
    assert tables.get("banked") is None
    assert tables.status("banked") == "none"
    release.set()
    assert await tables.wait("classic") is classic_table
    assert tables.get("classic") is classic_table
    assert tables.loaded("classic") is classic_table
    assert calls == ["classic"]
    assert await tables.wait("banked") is None


async def test_table_manager_reports_a_failure_and_retries(tmp_path, classic_table):
    attempts = []

    def flaky(rules):
        attempts.append(rules)
        if len(attempts) == 1:
            raise OSError("disk full")
        return classic_table

    tables = SolutionCache(tmp_path, loader=flaky)
    assert await tables.wait("classic") is None
    assert tables.status("classic") == "failed"
    assert await tables.wait("classic") is classic_table  # asked again: tried again
    assert attempts == ["classic", "classic"]


async def test_table_manager_caches_on_disk_and_preloads_only_cached_tables(tmp_path):
    tables = SolutionCache(tmp_path)
    tables.preload("classic", "yatzy")  # nothing cached: nothing started
    assert tables.status("classic") == "idle"
    assert not list(tmp_path.iterdir())
    table = await tables.wait("classic")  # computed in the worker, then cached
    assert table is not None
    assert table.optimum == pytest.approx(compute("classic").optimum)
    assert [p.name for p in tmp_path.iterdir()] == ["classic.v1.npz"]
    again = SolutionCache(tmp_path)
    again.preload("classic")
    loaded = await again.wait("classic")
    assert loaded is not None
    assert loaded.seconds == 0.0  # loaded, not computed
