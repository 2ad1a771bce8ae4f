"""A click's edit carries only what changed: a throw or a hold does not send the turn
message's content (the mention, the deadline) again, a turn's summary no empty
attachments, and the message Discord shows is still the whole turn after each."""

from __future__ import annotations

from typing import Any

import pytest
import simcord.http.router

from tests.cogs.drive import MENTION, controls, fresh, open_game, turn_message


@pytest.fixture
def callbacks(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """The data of every interaction callback the bot sends (what Discord processes)."""
    sent: list[dict[str, Any]] = []
    dispatch = simcord.http.router.dispatch

    def recorded(*args: Any, **kwargs: Any) -> Any:
        if args[2].endswith("/callback") and kwargs.get("json"):
            sent.append(kwargs["json"].get("data") or {})
        return dispatch(*args, **kwargs)

    monkeypatch.setattr(simcord.http.router, "dispatch", recorded)
    return sent


async def test_throw_and_hold_resend_neither_content_nor_mentions(table, callbacks):
    env, channel, ann, bob, _cid = table
    await open_game(channel, ann, [bob])
    turn = turn_message(channel)
    content = fresh(env, turn).content
    player = {ann.id: ann, bob.id: bob}[int(MENTION.search(content)[1])]

    callbacks.clear()
    await player.click(turn, custom_id=controls(fresh(env, turn))["roll"]["custom_id"])
    await player.click(turn, custom_id=controls(fresh(env, turn))["hold"][1]["custom_id"])
    assert len(callbacks) == 2
    for data in callbacks:
        assert "content" not in data
        assert "allowed_mentions" not in data or data["allowed_mentions"] == {"parse": []}
        assert data["components"]  # what did change: sent
        assert data["embeds"]

    shown = fresh(env, turn)
    assert shown.content == content  # still the mention and the deadline
    holds = controls(shown)["hold"]
    assert [b.get("emoji", {}).get("name") for b in holds][1] == "🔒"
    assert "🔒" in shown.embeds[0]["description"]
    assert not shown.attachments


async def test_summary_edit_sends_no_empty_attachments(table, callbacks):
    env, channel, ann, bob, _cid = table
    await open_game(channel, ann, [bob])
    turn = turn_message(channel)
    player = {ann.id: ann, bob.id: bob}[int(MENTION.search(fresh(env, turn).content)[1])]
    await player.click(turn, custom_id=controls(fresh(env, turn))["roll"]["custom_id"])

    callbacks.clear()
    select = controls(fresh(env, turn))["score"]
    await player.select(turn, [select["options"][0]["value"]], custom_id=select["custom_id"])
    (data,) = callbacks
    assert "attachments" not in data
    assert data["components"] == []
    summary = fresh(env, turn)
    assert summary.content == data["content"]  # the summary line replaced the mention
    assert not summary.components
    assert turn_message(channel).id != turn.id  # the next turn was posted
