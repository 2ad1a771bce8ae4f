"""The replay format of docs/rules.md: parse a game's JSON, fold it, report the result.

Input: ``{"rules": NAME, "players": [...], "actions": [...]}`` and nothing else (an
unknown key at the top level or in an action is malformed). ``players`` is the seat
order, first player first; 1 to 8 distinct, non-empty names (more is malformed).
Actions are those of docs/rules.md plus the bot's extension ``{"player": p, "leave": true}``
(see `game.py` for what leaving does). The fold keeps no history, so its time grows
linearly with the number of actions; a reason quotes at most 80 characters of the input.

`cli` is the whole of ``python -m bot replay FILE``: exit 0 with the result JSON on
stdout, or exit 2 with exactly one line on stderr (``action N: reason`` with N the
0-based index in ``actions``, or ``input: reason``) and nothing on stdout. It never
lets an exception escape: the command line is an edge, and a traceback is a bug report
nobody can act on.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, BinaryIO, TextIO

from .errors import GameError, quote
from .game import Action, Game, parse_action
from .rules import get_rules


class ReplayError(ValueError):
    """Malformed or illegal input; the message is the one line shown on stderr."""


def run(data: Any) -> Game:
    """Fold a parsed replay document into its game, or raise ReplayError."""
    if not isinstance(data, dict):
        raise ReplayError("input: the replay must be a JSON object")
    unknown = set(data) - {"rules", "players", "actions"}
    if unknown:
        raise ReplayError(f"input: unknown field {quote(repr(sorted(unknown)[0]))}")
    rules, players, actions = data.get("rules"), data.get("players"), data.get("actions")
    if not isinstance(rules, str):
        raise ReplayError("input: rules must be a rule set name")
    if not isinstance(players, list) or not all(isinstance(p, str) and p for p in players):
        raise ReplayError("input: players must be a list of names")
    if not isinstance(actions, list):
        raise ReplayError("input: actions must be a list")
    try:
        game = Game.new(get_rules(rules), players)
    except GameError as exc:
        raise ReplayError(f"input: {exc}") from None
    for index, raw in enumerate(actions):
        try:
            game, _ = game.apply(parse_action(raw))
        except GameError as exc:
            raise ReplayError(f"action {index}: {exc}") from None
    return game


def fold(rules: str, players: Sequence[str], actions: Iterable[dict[str, Any]]) -> Game:
    """The game of stored actions (the store's log); GameError if one does not apply."""
    game = Game.new(rules, players)
    for raw in actions:
        game, _ = game.apply(parse_action(raw))
    return game


def result(game: Game) -> dict[str, Any]:
    """The output JSON of docs/rules.md (also for unfinished games)."""
    return {
        "rules": game.rules.name,
        "finished": game.finished,
        "players": [
            {
                "name": s.name,
                "rows": dict(game.card_of(s.name).rows),
                "upper": s.totals.upper,
                "bonus": s.totals.bonus,
                "lower": s.totals.lower,
                "extra": s.totals.extra,
                "banked": s.totals.banked,
                "total": s.totals.total,
                "settlement": float(s.settlement),
                "rank": s.rank,
            }
            for s in game.standings()
        ],
    }


def document(rules: str, players: Sequence[str], actions: Iterable[Action]) -> dict[str, Any]:
    """A game's actions as a replay input document (what `/poker export` writes)."""
    return {"rules": rules, "players": list(players), "actions": [a.to_json() for a in actions]}


def read_document(path: str, stdin: BinaryIO | None) -> Any:
    """The parsed JSON of FILE (``-`` = `stdin`), or ReplayError with one line."""
    if path == "-" and stdin is None:  # started with standard input closed
        raise ReplayError("input: there is no standard input to read")
    try:
        raw = stdin.read() if path == "-" and stdin is not None else Path(path).read_bytes()
    except OSError as exc:
        reason = exc.strerror or exc
        raise ReplayError(f"input: cannot read {quote(path)}: {reason}") from None
    try:
        # utf-8-sig: a byte order mark from a Windows editor is not worth refusing.
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ReplayError(f"input: not UTF-8 text (byte {exc.start})") from None
    try:
        return json.loads(text, parse_constant=_not_json)
    except RecursionError:
        raise ReplayError("input: not valid JSON: nested too deeply") from None
    except json.JSONDecodeError as exc:
        raise ReplayError(f"input: not valid JSON: {exc}") from None
    except ValueError as exc:  # NaN/Infinity, or an int past Python's digit limit
        reason = "a number has too many digits" if "digits" in str(exc) else str(exc)
        raise ReplayError(f"input: not valid JSON: {reason}") from None


def _not_json(name: str) -> Any:
    # Python's json reads NaN and Infinity; RFC 8259 has no such numbers.
    raise ValueError(f"{name} is not a JSON number")


def one_line(message: str) -> str:
    """`message` with every control or unprintable character escaped: one line, always."""
    return "".join(
        ch if ch.isprintable() else ch.encode("unicode_escape", "backslashreplace").decode()
        for ch in message
    )


def render(game: Game) -> bytes:
    """The result JSON as UTF-8; names that cannot be encoded (lone surrogates) are escaped."""
    data = result(game)
    try:
        return (json.dumps(data, ensure_ascii=False) + "\n").encode("utf-8")
    except UnicodeEncodeError:
        return (json.dumps(data) + "\n").encode("ascii")


def cli(path: str, stdin: BinaryIO | None, stdout: BinaryIO, stderr: TextIO) -> int:
    """``python -m bot replay FILE``: 0 and the result, or 2 and one line on stderr."""
    try:
        out = render(run(read_document(path, stdin)))
    except ReplayError as exc:
        message = str(exc)
    except RecursionError:
        message = "input: nested too deeply"
    except Exception as exc:  # the edge: one line, never a traceback
        message = f"replay: internal error: {type(exc).__name__}: {exc}"
    else:
        try:
            stdout.write(out)
            stdout.flush()
        except OSError:  # a closed pipe: nothing more can be said on stdout
            return 2
        return 0
    try:
        stderr.write(one_line(message) + "\n")
        stderr.flush()
    except (OSError, ValueError):
        pass
    return 2
