"""The replay format of RULES.md: parse a game's JSON, fold it, report the result."""

from __future__ import annotations

from typing import Any

from .errors import GameError
from .game import Game, parse_action
from .rules import get_rules


class ReplayError(ValueError):
    """Malformed or illegal input; the message is the one line shown on stderr."""


def run(data: Any) -> Game:
    """Fold a parsed replay document into its game, or raise ReplayError."""
    if not isinstance(data, dict):
        raise ReplayError("input: the replay must be a JSON object")
    unknown = set(data) - {"rules", "players", "actions"}
    if unknown:
        raise ReplayError(f"input: unknown field {sorted(unknown)[0]!r}")
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


def result(game: Game) -> dict[str, Any]:
    """The output JSON of RULES.md (also for unfinished games)."""
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


def document(game: Game) -> dict[str, Any]:
    """A game's actions as a replay input document (what `/poker export` writes)."""
    return {
        "rules": game.rules.name,
        "players": list(game.players),
        "actions": [a.to_json() for a in game.history],
    }
