"""A roll-off through simcord: four members at tables of two, every throw of the games the
same five dice, so the two players of each table fill the same rows with the same dice and
tie in total (a tie in place: settlement cannot break it; each game's opening throw is
scripted apart, else it would tie for ever). At table 1 the roll-off's dice
are scripted (the first thrower 1s, the second 6s): the second goes on, "won the
roll-off"; the other ties throw equal dice and the better seed goes on. The tournament's
message shows the throws, the export says why each went on."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from bot.app import DicePokerBot
from bot.engine import RULESETS
from bot.i18n import t
from bot.match.tournament import FINISHED
from tests.cogs.drive import controls, fresh, turn_message
from tests.conftest import settings_for_tests

from .play import four_at_tables_of_two, play_round, stored

SAME = (6, 6, 6, 6, 6)


class Scripted:
    """Dice: the `queue` first, then `SAME` again and again; any other draw (the draw of
    seats, who starts) its lowest value."""

    def __init__(self) -> None:
        self.queue: list[int] = []
        self.n = 0

    def randint(self, a: int, b: int) -> int:
        if (a, b) != (1, 6):
            return a
        if self.queue:
            return self.queue.pop(0)
        self.n += 1
        return SAME[(self.n - 1) % len(SAME)]


@pytest.fixture
def dice() -> Scripted:
    return Scripted()


@pytest.fixture
def bot_factory(tmp_path: Path, dice: Scripted) -> Callable[[], DicePokerBot]:
    def build() -> DicePokerBot:
        settings = settings_for_tests(tmp_path).model_copy(update={"bot_pause": 0.0})
        return DicePokerBot(settings, dice=dice)

    return build


def text_of(message) -> str:
    """The embed's description and fields, as one text."""
    embed = message.embeds[0]
    embed = embed if isinstance(embed, dict) else embed.to_dict()
    fields = [f"{f['name']}\n{f['value']}" for f in embed.get("fields", [])]
    return "\n".join([embed.get("description") or "", *fields])


OPENING = [6] * 5 + [1] * 5  # a game's opening throw: one player 30, the other 5


async def test_a_tie_for_the_place_that_goes_on_is_thrown_off(table, dice):
    env, channel, ann, *_ = table
    humans, tid, message = await four_at_tables_of_two(table)
    members = {m.id: m for m in humans}
    dice.queue = OPENING * 2  # both tables' opening throws
    assert (await ann.click(message, label=t("lobby.start"))).acknowledged
    await env.settle()
    assert dice.queue == []
    tn = await stored(env, tid)
    first, second = tn.rounds[0].tables
    record = await env.bot.store.get_game(first.game_id)
    turns = 2 * len(RULESETS[record.rules].rows)

    async def last_turn(game_id: int, thread_id: int, after: list[int]) -> None:
        """Play on until game `game_id`'s last turn; its player throws, and `after` is
        what the dice give next (the roll-off, then the next table's opening)."""

        async def there(tn) -> bool:
            actions = await env.bot.store.actions(game_id)
            return sum("score" in a for a in actions) == turns - 1

        await play_round(env, channel, members, 1, tid, until=there)
        thread = next(h for h in channel.threads if h.id == thread_id)
        turn = turn_message(thread)
        c = controls(fresh(env, turn))
        player = next(m for m in humans if str(m.id) in (turn.content or ""))
        assert (await player.click(turn, custom_id=c["roll"]["custom_id"])).acknowledged
        c = controls(fresh(env, turn))
        dice.queue = list(after)
        res = await player.select(turn, [c["score"]["options"][0]["value"]],
                                  custom_id=c["score"]["custom_id"])  # fmt: skip
        assert res.acknowledged
        await env.settle()
        assert dice.queue == []

    # Table 1's roll-off: the first thrower 1s, the second 6s.
    await last_turn(first.game_id, first.thread_id, [1] * 5 + [6] * 5)
    tn = await stored(env, tid)
    done = tn.rounds[0].tables[0]
    assert done.placings[0].total == done.placings[1].total
    assert len(done.rolloff) == 2
    (low, low_dice), (high, high_dice) = done.rolloff
    assert (low_dice, high_dice) == ((1, 1, 1, 1, 1), (6, 6, 6, 6, 6))
    assert done.went_on == (high,)
    assert done.why(high) == "rolloff"
    _the_message_shows_the_throws(fresh(env, message), tn, low, high)

    # Table 2's roll-off throws equal sums (the better seed goes on), then the final opens.
    await last_turn(second.game_id, second.thread_id, [3] * 10 + OPENING)
    tn = await play_round(env, channel, members, 2, tid)
    await env.settle()
    tn = await stored(env, tid)
    assert tn.status == FINISHED
    assert high in tn.rounds[1].tables[0].seats
    assert low not in tn.rounds[1].tables[0].seats

    await _the_export_says_why(ann, channel, tid, high)


def _the_message_shows_the_throws(message, tn, low: int, high: int) -> None:
    shown = text_of(message)
    (line,) = [x for x in shown.split("\n") if x.startswith(t("tournament.rolloff", throws=""))]
    names = {tn.name_of(low): 5, tn.name_of(high): 30}
    for name, total in names.items():  # each throw shown: name, dice, sum
        assert f"{name} " in line
        assert line.index(name) < line.index(f"= {total}")
    assert t("tournament.why_rolloff") in shown


async def _the_export_says_why(ann, channel, tid: int, high: int) -> None:
    res = await ann.slash(channel, "poker tournament export", number=tid)
    doc = json.loads(await res.response.attachments[0].read())
    table_1, table_2 = doc["rounds"][0]["tables"]
    assert [(a["id"], a["why"]) for a in table_1["advanced"]] == [(high, "rolloff")]
    assert [(r["dice"], r["sum"]) for r in table_1["rolloff"]] == [([1] * 5, 5), ([6] * 5, 30)]
    assert [a["why"] for a in table_2["advanced"]] == ["seed"]
    assert [r["sum"] for r in table_2["rolloff"]] == [15, 15]
