"""What the benchmarks read back from the simulated Discord, checked once here: a
benchmark that meets something else stops with the reason, not a TypeError later."""

from __future__ import annotations

import re
from typing import TypeVar

from simcord import InteractionResult, ResponseMessage

T = TypeVar("T")
MENTION = re.compile(r"<@!?(\d+)>")


def answer(result: InteractionResult) -> ResponseMessage:
    """The message a slash command answered with."""
    if result.response is None:
        raise RuntimeError("the command was not answered with a message")
    return result.response


def mentioned(content: str | None) -> int | None:
    """The id of the member a message mentions (the player to move), if any."""
    found = MENTION.search(content or "")
    return int(found[1]) if found else None


def required(value: T | None, what: str) -> T:
    """`value`, which the benchmark has just made: None means it was not stored."""
    if value is None:
        raise RuntimeError(f"{what}: not found")
    return value
