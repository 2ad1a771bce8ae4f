"""Playing a daily the way a member does: `/poker daily play`, then clicks on its private
message. Only what Discord shows is read (the message's buttons, labels and custom_ids:
`daily:<action>:<game>:<version>[:<arg>]`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from tests.cogs.drive import fresh, keep

Seen = dict[tuple[int, int, int], int]  # (turn, throw, position) → the face thrown there


def daily_controls(message: Any) -> dict[str, Any]:
    """Raw component dicts of a daily's message by action (`hold`: in position order)."""
    out: dict[str, Any] = {"hold": []}
    for row in message.components:
        children = (
            row.get("components", [])
            if isinstance(row, dict)
            else [c.to_dict() for c in getattr(row, "children", [])]
        )
        for item in children:
            cid = item.get("custom_id") or ""
            if not cid.startswith("daily:"):
                continue
            action = cid.split(":")[1]
            if action == "hold":
                out["hold"].append(item)
            else:
                out[action] = item
    return out


def game_of(message: Any) -> int:
    return int(daily_controls(message)["card"]["custom_id"].split(":")[2])


async def start(member: Any, channel: Any, rules: str = "classic") -> Any:
    """`/poker daily play`: the member's private message of the daily."""
    res = await member.slash(channel, "poker daily play", rules=rules)
    assert res.acknowledged
    assert res.ephemeral
    return res.response


def dice(env: Any, message: Any) -> list[int]:
    return [int(b["label"]) for b in daily_controls(fresh(env, message))["hold"]]


# A policy chooses, after each throw: ("hold", positions) to throw again keeping them,
# ("score", row) or ("pass",). It sees the dice, the throw, the throws left, the options.
Policy = Callable[[list[int], int, bool, list[str], bool], tuple[Any, ...]]


def never_hold(dice: list[int], throw: int, more: bool, options: list[str], can_pass: bool):
    """Throw all five again while throws are left (at most 3), then the first row."""
    if more and throw < 3:
        return ("hold", [])
    return ("score", options[0]) if options else ("pass",)


def keep_most(dice: list[int], throw: int, more: bool, options: list[str], can_pass: bool):
    """Keep the commonest face (drive.keep), then the last row offered."""
    if more and throw < 3:
        return ("hold", keep(dice))
    return ("score", options[-1]) if options else ("pass",)


def pass_early(dice: list[int], throw: int, more: bool, options: list[str], can_pass: bool):
    """banked: pass on the first throw unless it makes a row; else like never_hold."""
    if can_pass and throw == 1 and not options:
        return ("pass",)
    return never_hold(dice, throw, more, options, can_pass)


@dataclass
class Played:
    seen: Seen = field(default_factory=dict)
    turns: int = 0
    passes: int = 0
    clicks: int = 0


async def play_turn(env: Any, member: Any, message: Any, policy: Policy, played: Played) -> bool:
    """One turn of the daily by clicks; False once the daily is over (no Roll button)."""
    c = daily_controls(fresh(env, message))
    if "roll" not in c:
        return False
    held: list[int] = []
    throw = 0
    choice: tuple[Any, ...] = ("hold", [])  # a turn starts with a throw of all five
    while True:
        c = daily_controls(fresh(env, message))
        if not c["roll"].get("disabled") and choice[0] == "hold":
            res = await member.click(message, custom_id=c["roll"]["custom_id"])
            assert res.acknowledged
            played.clicks += 1
            throw += 1
            now = dice(env, message)
            for p in range(5):
                if p not in held:
                    played.seen[played.turns, throw, p] = now[p]
        c = daily_controls(fresh(env, message))
        options = [o["value"] for o in c.get("score", {}).get("options", [])]
        more = not c["roll"].get("disabled")
        choice = policy(dice(env, message), throw, more, options, "pass" in c)
        if choice[0] == "hold" and more:
            wanted = set(choice[1])
            current = {i for i, b in enumerate(c["hold"]) if b.get("style") == 3}  # success
            for p in sorted(wanted ^ current):
                cid = daily_controls(fresh(env, message))["hold"][p]["custom_id"]
                res = await member.click(message, custom_id=cid)
                assert res.acknowledged
                played.clicks += 1
            held = sorted(wanted)
            continue
        if choice[0] == "score" and options:
            res = await member.select(message, [choice[1]], custom_id=c["score"]["custom_id"])
        else:
            res = await member.click(message, custom_id=c["pass"]["custom_id"])
            played.passes += 1
        assert res.acknowledged
        played.clicks += 1
        played.turns += 1
        return True


async def play_daily(
    env: Any, member: Any, message: Any, policy: Policy, *, turns: int | None = None
) -> Played:
    """Play the daily to its end (or `turns` turns)."""
    played = Played()
    while turns is None or played.turns < turns:
        if not await play_turn(env, member, message, policy, played):
            break
        assert played.turns < 200, "the daily does not end"
    return played


def next_day(env: Any) -> None:
    """Jump the simulated clock by a day (no loop ticks in between: a day of 5-second
    timer ticks would take minutes of real time)."""
    env.backend.clock.advance(timedelta(days=1).total_seconds())
