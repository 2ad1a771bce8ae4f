"""Hostile input: generated custom_ids, select values, slash options and replay files.

Every one is answered politely (acknowledged, ephemeral, never the "something went
wrong" message) and changes no game. Hypothesis generates the inputs; each is played
through the real discord.py dispatch: the bot posts a message carrying the hostile
component over plain HTTP (so no view of its own claims it) and a member clicks it.

A custom_id outside the `poker:` namespace is answered too: every component on the bot's
messages is the bot's, and one no control claims gets the bot-wide polite answer
(`cogs._ids.answer_unclaimed`; tests/cogs/test_forged_ids.py forges every prefix).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import discord
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.i18n import t
from cogs.play import CONTROLS
from tests.cogs.drive import MENTION, controls, fresh, game_id_of, open_game, turn_message

ROOT = Path(__file__).resolve().parents[2]
INTERNAL = t("errors.internal")


def examples(strategy: st.SearchStrategy[Any], count: int) -> list[Any]:
    """`count` generated values (drawn outside the event loop's tests, played inside)."""
    found: list[Any] = []

    @settings(
        max_examples=count,
        database=None,
        suppress_health_check=list(HealthCheck),
        deadline=None,
    )
    @given(strategy)
    def collect(value: Any) -> None:
        found.append(value)

    collect()
    return found


# --- custom_ids --------------------------------------------------------------------------

NUMBERS = st.one_of(
    st.integers(min_value=0, max_value=10**30),
    st.sampled_from([0, 1, 2, 2**63 - 1, 2**63, 2**64]),
).map(str)
ODD_TEXT = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=0, max_size=30
)
ARGS = st.one_of(st.none(), NUMBERS, ODD_TEXT, st.sampled_from(["²", "٣", "-1", "5", "99"]))


def structured_ids(game: int) -> st.SearchStrategy[str]:
    actions = st.sampled_from([*CONTROLS, "", "roll2", "ROLL", "kick "])
    games = st.one_of(NUMBERS, st.just(str(game)), ODD_TEXT)
    versions = st.one_of(NUMBERS, ODD_TEXT)

    def build(action: str, g: str, v: str, arg: str | None) -> str:
        tail = "" if arg is None else f":{arg}"
        return f"poker:{action}:{g}:{v}{tail}"

    return st.builds(build, actions, games, versions, ARGS)


def custom_ids(game: int) -> st.SearchStrategy[str]:
    return st.one_of(
        structured_ids(game),
        ODD_TEXT.map(lambda s: "poker:" + s),
        ODD_TEXT,
    ).filter(lambda s: 1 <= len(s) <= 100)


async def post_component(bot: Any, channel_id: int, item: discord.ui.Item[Any]) -> None:
    """Post `item` without registering a view: only the bot's dynamic items can claim it."""
    view = discord.ui.View(timeout=None)
    view.add_item(item)
    with discord.http.handle_message_parameters(content="hostile", view=view) as params:
        await bot.http.send_message(channel_id, params=params)


async def state_of(env: Any, game_id: int) -> tuple[int, list[dict[str, Any]]]:
    store = env.bot.store
    return (await store.get_game(game_id)).version, await store.actions(game_id)


def assert_polite(res: Any) -> None:
    assert res.acknowledged
    assert res.ephemeral
    text = res.response.content if res.response else res.followups[0].content
    assert text != INTERNAL


async def hostile_game(table: Any) -> tuple[Any, Any, Any, Any, int]:
    env, channel, ann, bob, _cid = table
    await open_game(channel, ann, [bob])
    turn = turn_message(channel)
    current = {ann.id: ann, bob.id: bob}[int(MENTION.search(turn.content)[1])]
    return env, channel, turn, current, game_id_of(turn)


async def test_generated_custom_ids_are_answered_and_change_nothing(table):
    env, channel, turn, current, game_id = await hostile_game(table)
    _, _, _, _, cid = table
    await current.click(turn, custom_id=controls(fresh(env, turn))["roll"]["custom_id"])
    live = {c["custom_id"] for c in controls(fresh(env, turn)).pop("hold")} | {
        c["custom_id"] for k, c in controls(fresh(env, turn)).items() if k != "hold"
    }
    before = await state_of(env, game_id)
    for custom_id in examples(custom_ids(game_id), 60):
        if custom_id in live:  # a real control of the game: not hostile
            continue
        for member in (current, cid):  # the player to move, and a stranger
            await post_component(
                env.bot, channel.id, discord.ui.Button(label="x", custom_id=custom_id)
            )
            res = await member.click(channel.last_message, custom_id=custom_id)
            assert_polite(res)
            assert await state_of(env, game_id) == before, custom_id


async def test_generated_select_values_are_refused(table):
    env, channel, turn, current, game_id = await hostile_game(table)
    await current.click(turn, custom_id=controls(fresh(env, turn))["roll"]["custom_id"])
    version = (await env.bot.store.get_game(game_id)).version
    table_version = int(controls(fresh(env, turn))["score"]["custom_id"].split(":")[3])
    custom_id = f"poker:score:{game_id}:{table_version}"
    values = examples(
        st.text(min_size=1, max_size=100).filter(
            lambda v: v not in {o["value"] for o in controls(fresh(env, turn))["score"]["options"]}
        ),
        25,
    )
    for value in values:
        select: discord.ui.Select[Any] = discord.ui.Select(
            custom_id=custom_id, options=[discord.SelectOption(label="x", value=value)]
        )
        await post_component(env.bot, channel.id, select)
        res = await current.select(channel.last_message, [value], custom_id=custom_id)
        assert_polite(res)
        assert (await env.bot.store.get_game(game_id)).version == version


# --- slash options -----------------------------------------------------------------------

TIMEOUTS = st.one_of(
    st.text(max_size=40),
    st.text(alphabet="0123456789smhd .,:-+e١٢٣", max_size=12),
    st.sampled_from(["", " ", "0s", "29s", "24h1s", "1e9s", "-5m", "∞", "NaN", "5m" * 20]),
).filter(lambda s: 1 <= len(s) <= 100 and s.strip() == s and "\x00" not in s)


async def test_generated_slash_options_get_a_polite_answer(table):
    env, channel, _turn, _current, game_id = await hostile_game(table)
    _, _, ann, bob, cid = table
    guild = channel.guild
    before = await state_of(env, game_id)
    members = [ann, bob, cid, guild.add_member(env.create_user("Ωmega \u202eevil"))]
    cases = examples(
        st.one_of(
            st.tuples(st.just("poker kick"), st.sampled_from(range(len(members)))),
            st.tuples(st.just("poker scorecard"), st.sampled_from(range(len(members)))),
            st.tuples(st.just("poker export"), st.integers(1, 2**53 - 1)),
            st.tuples(st.just("poker settings"), TIMEOUTS),
            st.tuples(st.just("poker rules"), st.sampled_from(["classic", "banked"])),
            st.tuples(st.just("poker new"), st.sampled_from(["classic", "yatzy"])),
        ),
        60,
    )
    for command, value in cases:
        asker = cid if command == "poker new" else bob
        options: dict[str, Any] = {}
        if command in ("poker kick", "poker scorecard"):
            options["member"] = members[value]
        elif command == "poker export":
            options["game"] = value
        elif command == "poker settings":
            options["turn_timeout"] = value
        elif command == "poker rules":
            options["rules"] = value
        else:
            options["rules"] = value
        res = await asker.slash(channel, command, **options)
        assert res.acknowledged, (command, value)
        announced = any(not m.flags.ephemeral for m in res.followups)
        if command == "poker settings" and (announced or not res.ephemeral):
            # a valid timeout from a member without Manage Server is refused below
            pytest.fail(f"settings changed by a member without permission: {value!r}")
        assert_polite(res)
        assert await state_of(env, game_id) == before, (command, value)


# --- replay files --------------------------------------------------------------------------

VALID = {
    "rules": "classic",
    "players": ["ann", "bob"],
    "actions": [
        {"player": "ann", "roll": [2, 3, 6, 2, 1]},
        {"player": "ann", "hold": [0, 3], "roll": [2, 5, 4]},
        {"player": "ann", "score": "twos"},
    ],
}
JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False)
    | st.text(max_size=10),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


def mutated(doc: dict[str, Any]) -> st.SearchStrategy[Any]:
    """The valid document with one field replaced by anything."""

    def swap(path: tuple[Any, ...], value: Any) -> Any:
        out = json.loads(json.dumps(doc))
        target = out
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
        return out

    paths = st.sampled_from(
        [
            ("rules",),
            ("players",),
            ("actions",),
            ("players", 0),
            ("actions", 0),
            ("actions", 1, "hold"),
            ("actions", 1, "roll"),
            ("actions", 2, "score"),
            ("actions", 0, "player"),
        ]
    )
    return st.builds(swap, paths, JSON)


def replay(text: bytes) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "bot", "replay", "-"],
        input=text,
        capture_output=True,
        cwd=ROOT,
        check=False,
        timeout=120,
    )


def test_generated_replay_files_exit_cleanly():
    documents = examples(
        st.one_of(
            mutated(VALID).map(lambda d: json.dumps(d).encode()),
            JSON.map(lambda d: json.dumps(d).encode()),
            st.binary(max_size=60),
        ),
        16,
    )
    for raw in documents:
        proc = replay(raw)
        err = proc.stderr.decode("utf-8", "replace")
        assert proc.returncode in (0, 2), (raw, err)
        assert "Traceback" not in err
        if proc.returncode == 2:
            assert proc.stdout == b"", raw
            assert err.count("\n") == 1, (raw, err)
        else:
            assert isinstance(json.loads(proc.stdout), dict)
