"""A game keeps its channel readable: one message per finished turn stays in view.

The turn message becomes the turn's summary and carries the table's scorecard (every turn,
every round, or only at the end: the server's `scorecards` setting); the final standings
come once, with the table, not after a second copy of it. Each fact is said once on a turn
message, dice are shown with their digits, and one minus sign is used everywhere.
"""

from __future__ import annotations

import pytest

from bot.i18n import LANGUAGES, catalog
from bot.match import SCORECARD_ROUNDS_FROM
from bot.render import image
from tests.cogs.drive import controls, fresh, open_game, play_to_the_end, play_turn, turn_message

CARD = "Scorecard"


def cards_in(message) -> int:
    return sum(1 for e in message.embeds if (e.title or "") == CARD)


async def game_of_three(table, scorecards: str):
    env, channel, ann, bob, cid = table
    await env.bot.store.update_settings(channel.guild.id, {"scorecards": scorecards})
    players = {m.id: m for m in (ann, bob, cid)}
    await open_game(channel, ann, [bob, cid])
    return env, channel, players


@pytest.mark.parametrize("scorecards", ["turn", "round", "end"])
async def test_one_message_per_finished_turn_and_the_table_once_at_the_end(table, scorecards):
    env, channel, players = await game_of_three(table, scorecards)
    before = len(channel.history())  # the lobby and the first turn message
    assert before == 2
    turns = await play_to_the_end(env, channel, players)
    history = channel.history()
    # Each finished turn left exactly one message (its summary); then the standings.
    assert len(history) == before + turns
    summaries = history[1:-1]
    assert all(not controls(m).get("roll") for m in summaries)  # nothing live but the last
    final = history[-1]
    assert final.embeds[0].title.startswith("🏁")
    assert cards_in(final) == 1  # the table comes with the standings…
    assert cards_in(summaries[-1]) == 0  # …and not a moment before it as well
    shown = [cards_in(m) for m in summaries[:-1]]
    if scorecards == "turn":
        assert all(n == 1 for n in shown)
    elif scorecards == "round":  # three players: a card when a round ends
        assert [i for i, n in enumerate(shown) if n] == list(range(2, len(shown), 3))
    else:
        assert not any(shown)


async def test_the_opening_throw_is_on_the_first_turn_with_digits(table):
    _env, channel, _players = await game_of_three(table, "turn")
    first = turn_message(channel)
    opening = first.embeds[0]
    assert opening.title == "Opening throw"
    lines = [line for line in opening.description.splitlines() if " = " in line]
    assert lines
    for line in lines:  # "ann: ⚃ 4  ⚁ 2 … = 17": each face with its digit
        faces = line.split(": ", 1)[1].split(" = ")[0].split("  ")
        assert all(len(face.split()) == 2 and face.split()[1].isdigit() for face in faces)


async def test_a_turn_message_says_each_fact_once(table):
    env, channel, players = await game_of_three(table, "turn")
    turn = turn_message(channel)
    player = players[int(turn.content.split("<@")[1].split(">")[0])]
    await player.click(turn, custom_id=controls(fresh(env, turn))["roll"]["custom_id"])
    shown = fresh(env, turn)
    embed = shown.embeds[-1]
    assert embed["title"].endswith("throw 1 of 3")
    assert all("Throws left" not in f["name"] for f in embed.get("fields", []))
    assert controls(shown)["roll"]["label"] == "Roll"


async def test_a_scratch_reads_as_one(table):
    env, channel, players = await game_of_three(table, "turn")
    # Through the upper rows first (classic), then a lower row the dice do not make.
    for _ in range(3 * 6):
        await play_turn(env, channel, players, rolls=1)
    turn = turn_message(channel)
    player = players[int(turn.content.split("<@")[1].split(">")[0])]
    await player.click(turn, custom_id=controls(fresh(env, turn))["roll"]["custom_id"])
    labels = [o["label"] for o in controls(fresh(env, turn))["score"]["options"]]
    scratches = [label for label in labels if "scratch" in label]
    assert scratches
    assert all(label.endswith("— scratch, 0") for label in scratches)
    assert not any("— —" in label for label in labels)


def test_one_minus_sign_everywhere():
    for lang in LANGUAGES:
        for key, text in catalog(lang).items():
            assert "−" not in text, (lang, key)  # U+2212: the plain "-" is the one used


@pytest.mark.parametrize("images", [False, True], ids=["text", "pictures"])
@pytest.mark.parametrize("scorecards", ["turn", "round"])
async def test_a_turns_scorecard_names_the_round_just_played(
    table, monkeypatch, scorecards, images
):
    """The card that closes round 1 says round 1 (the game is already in round 2), in its
    footer and, as a picture, in the picture's own title."""
    titles: list[str] = []
    drawn = image.scorecard_pngs

    def spy(*args, **kwargs):
        titles.append(kwargs["title"])
        return drawn(*args, **kwargs)

    monkeypatch.setattr(image, "scorecard_pngs", spy)
    env, channel, players = await game_of_three(table, scorecards)
    # Drawn in a thread of this process, where the spy is (a worker process has none).
    monkeypatch.setattr(env.bot.services.pictures, "workers", 0)
    await env.bot.store.update_settings(channel.guild.id, {"images": images})
    for _ in range(7):  # two rounds of three, and the first turn of the third
        await play_turn(env, channel, players, rolls=1)
    summaries = channel.history()[1:-1]
    assert len(summaries) == 7
    rounds = []
    for turn, message in enumerate(summaries):
        cards = [e for e in message.embeds if e.title == CARD]
        if cards:
            assert cards[0].footer.text.endswith(f"· round {turn // 3 + 1}")
            rounds.append(turn // 3 + 1)
    assert rounds == ([1, 1, 1, 2, 2, 2, 3] if scorecards == "turn" else [1, 2])
    if images:
        assert titles == [f"Scorecard · classic · game #1 · round {r}" for r in rounds]
    else:
        assert titles == []


@pytest.mark.parametrize("seats", [4, 5])
async def test_by_default_a_big_table_shows_its_scorecard_every_round(table, seats):
    """Five or more players: a card per round, not per turn (eight pictures a round would
    be screens of channel); up to four, every turn."""
    env, channel, ann, bob, cid = table
    more = [channel.guild.add_member(env.create_user(n)) for n in ("dan", "eve")][: seats - 3]
    players = {m.id: m for m in (ann, bob, cid, *more)}
    await open_game(channel, ann, [bob, cid, *more])
    for _ in range(2 * seats):
        await play_turn(env, channel, players, rolls=1)
    shown = [cards_in(m) for m in channel.history()[1:-1]]
    assert len(shown) == 2 * seats
    if seats < SCORECARD_ROUNDS_FROM:
        assert shown == [1] * len(shown)
    else:
        assert shown == ([0] * (seats - 1) + [1]) * 2  # the card closing each round
