"""No English inside another language's message.

Every message the bot can send is rendered in ru, ro and hi — every catalog entry with its
placeholders filled in (each plural form), every engine refusal through the edge's
`refusal_text`, and the embeds of a game, a scorecard, the standings, the hint, the
league and the settings — and none may contain a piece of English catalog text.

A piece of English is a literal run of an English catalog value (the text between its
placeholders) holding a word of three letters or more, found as whole words. What is the
same in both languages by nature is listed in `SAME`, each with its reason.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from bot.engine import RULESETS, Game, GameError, Leave, Score
from bot.i18n import DEFAULT, catalog, categories
from bot.records import (
    BoardLine,
    BoardPage,
    FinishedGame,
    GameRecord,
    GuildSettings,
    MemberStats,
    StoredResult,
)
from bot.render import (
    card_embed,
    lobby_embed,
    opening_embed,
    option_label,
    rules_embed,
    scorecard_embed,
    standings_embed,
    summary_line,
    turn_embed,
)
from bot.render.advice import analysis_lines, describe, hint_embed, previous_text
from bot.render.embed import Embed
from bot.render.league import board_embed, history_embed, settings_embed, stats_embed
from bot.strategy import Hold, PassTurn, Record
from cogs._edge import refusal_text

OTHERS = ("ru", "ro", "hi")

# English catalog text that is the same in another language by nature (a short list, each
# with its reason), matched as whole words. In every language:
SAME: dict[str, str] = {
    "Poker": "the game's own name where it is a proper noun (Poker Dice)",
    "Discord": "the service's name",
    "/poker": "a command as it is typed (/poker new, /poker resume …)",
    "python -m bot replay": "a shell command, typed as it is",
    "roll": "a field of the replay file format (an identifier)",
    "hold": "a field of the replay file format (an identifier)",
    "score": "a field of the replay file format (an identifier)",
    "pass": "a field of the replay file format (an identifier)",
    "leave": "a field of the replay file format (an identifier)",
    "true": "a JSON literal",
    "UTC": "the time zone's name (days of the daily dice run from 00:00 UTC)",
    "English": "a language's name for itself (the language menu lists each so)",
    "Română": "a language's name for itself (the language menu lists each so)",
}
# … and in one language only: words Romanian shares with English.
SAME_IN: dict[str, dict[str, str]] = {
    "ro": {
        "Bonus": "Romanian word (bonus)",
        "Bon": "its short form in the table",
        "Total": "Romanian word (total)",
        "Tot": "its short form in the table",
        "Bot": "Romanian word (bot)",
        "Full house": "the figure's name in Romanian dice games",
        "yahtzee": "the game's own name (Romanian keeps it)",
        "yatzy": "the game's own name (Romanian keeps it)",
        "poker": "Romanian word (pocher, poker) for the figure",
        "joker": "Romanian word (joker)",
        "normal": "Romanian word (normal)",
        "perfect": "Romanian word (perfect)",
        "incl": "Romanian abbreviation (inclusiv)",
        "auto": "Romanian word (auto, automat)",
        "minute": "Romanian plural of minut",
        "rating": "Romanian word (a player's rating, as in chess: rating ELO)",
        "exact": "Romanian word (exact)",
    },
}
WORD = re.compile(r"[A-Za-z]{3,}")


def literals(template: str) -> Iterator[str]:
    """The literal runs of a template, cut at placeholders, line breaks and markup."""
    for literal, *_ in string.Formatter().parse(template):
        for raw in re.split(r"[\n•*`“”\"«»()\[\]{}·—:;,.!?…|/]+", literal):
            piece = raw.strip(" -–'")
            if WORD.search(piece):
                yield piece


def english_pieces() -> list[str]:
    pieces = {p for value in catalog(DEFAULT).values() for p in literals(value)}
    return sorted(pieces - set(SAME), key=len, reverse=True)


PIECES = english_pieces()


def english_in(text: str, lang: str) -> list[str]:
    text = re.sub(r"/poker(?: [a-z_]+){0,2}", " ", text)  # a command (or a subgroup's), as typed
    same = sorted({**SAME, **SAME_IN.get(lang, {})}, key=len, reverse=True)
    text = re.sub("|".join(rf"(?<!\w){re.escape(w)}(?!\w)" for w in same), " ", text, flags=re.I)
    return [p for p in PIECES if re.search(rf"(?<![\w/]){re.escape(p)}(?!\w)", text)]


def filled(key: str, lang: str) -> Iterator[str]:
    """The message `key` in `lang` with its placeholders filled (each plural form)."""
    template = catalog(lang).get(key) or ""
    names = {n for _, n, _, _ in string.Formatter().parse(template) if n}
    values = dict.fromkeys(names, 7)
    if key.rsplit(".", 1)[-1] in categories(lang) | {"zero", "two"}:
        yield template.format(**{**values, "n": 7})
        return
    yield template.format(**values)


def embed_text(embed: Embed) -> str:
    data = embed.to_dict()
    parts = [data.get("title", ""), data.get("description", "")]
    parts.append(data.get("footer", {}).get("text", ""))
    parts += [f"{f['name']}\n{f['value']}" for f in data.get("fields", ())]
    return "\n".join(parts)


@pytest.mark.parametrize("lang", OTHERS)
def test_no_catalog_message_holds_english(lang: str):
    leaks = {}
    for key in catalog(lang):
        if key.startswith("commands.names."):
            continue  # a command's name is what members type (tests/i18n/test_translator)
        for text in filled(key, lang):
            found = english_in(text, lang)
            if found:
                leaks[key] = found
    assert not leaks, f"English in {lang}: {leaks}"


REFUSALS = [
    GameError("not_your_turn", player="Ωx"),
    GameError("no_such_row", row="bogus", rules="classic"),
    GameError("row_filled", row="twos"),
    GameError("not_made", row="full_house"),
    GameError("pass_banked_only", rules="classic"),
    GameError("joker_rows", rows="fours"),
    GameError("upper_first"),
    GameError("dice_count", expected=5, got=3),
    GameError("too_many_players", max=8),
    GameError("unknown_rules", rules="nope", known=", ".join(RULESETS)),
    GameError("pass_banked_only", rules="banked"),
    GameError("errors.lobby_full", n=8),
    GameError("errors.only_host_start", name="Ωx"),
    GameError("errors.missing_permissions", permissions=("send_messages", "embed_links")),
    GameError("errors.not_shown_permissions", permissions=("view_channel",)),
    GameError("errors.not_shown"),
    GameError("errors.done_not_shown"),
    GameError("errors.stale"),
]


SAMPLE = {"player": "Ωx", "row": "twos", "rules": "Ωx", "field": "x", "max": 8,
          "expected": 5, "got": 3, "rows": "x", "known": "classic, banked"}  # fmt: skip


@pytest.mark.parametrize("lang", OTHERS)
def test_no_refusal_holds_english(lang: str):
    refusals = list(REFUSALS)
    for key, template in catalog(DEFAULT).items():
        if key.startswith("refusal."):
            names = {n for _, n, _, _ in string.Formatter().parse(template) if n}
            refusals.append(GameError(key.split(".", 1)[1], **{n: SAMPLE[n] for n in names}))
    leaks = {e.code: english_in(refusal_text(e, lang), lang) for e in refusals}
    assert not {k: v for k, v in leaks.items() if v}, leaks


def _game(rules: str) -> Game:
    game = Game.new(rules, ["1", "2"])
    game, _ = game.apply(game.draw("1", _Dice([5, 5, 5, 2, 2])))
    game, _ = game.apply(Score("1", game.options()[0].row))
    game, _ = game.apply(game.draw("2", _Dice([1, 2, 3, 4, 5])))
    return game


class _Dice:
    def __init__(self, values: list[int]) -> None:
        self.values = list(values)

    def randint(self, a: int, b: int) -> int:
        return self.values.pop(0) if self.values else a


@pytest.mark.parametrize("lang", OTHERS)
@pytest.mark.parametrize("rules", sorted(RULESETS))
def test_no_embed_of_a_game_holds_english(lang: str, rules: str):
    game = _game(rules)
    names = {"1": "Ωx", "2": "Ψy"}
    embeds = [
        lobby_embed(game_id=3, rules=rules, host="Ωx", players=["Ωx", "Ψy"], max_players=8,
                    lang=lang),
        lobby_embed(game_id=3, rules=rules, host="Ωx", players=[], max_players=8, lang=lang,
                    status="cancelled", cancelled_by="Ψy"),
        opening_embed([[("Ωx", (6, 6, 1, 1, 2)), ("Ψy", (1, 1, 1, 1, 1))]], "Ωx",
                      ["Ωx", "Ψy"], lang),
        turn_embed(game, names, 3, lang),
        turn_embed(Game.new(rules, ["1", "2"]), names, 3, lang),
        scorecard_embed(game, names, 3, lang),
        card_embed(game, "1", names, 3, lang),
        rules_embed(rules, lang, full=True),
        hint_embed(game, [(Hold((0, 1)), 190.0), (Record("chance"), 180.5)], None, lang),
    ]
    texts = [embed_text(e) for e in embeds]
    texts += [option_label(o, game.rules, lang) for o in game.options()]
    texts += [describe(d, game, lang) for d in (Hold(()), Hold((0,)), Record("pair"), PassTurn())]
    texts.append(previous_text(None, lang))
    scored = Game.new(rules, ["1", "2"])
    scored, _ = scored.apply(scored.draw("1", _Dice([6, 6, 6, 6, 6])))
    for option in scored.options()[:3]:
        texts.append(summary_line(scored.apply(Score("1", option.row))[1], names, lang))
    finished, left = game.apply(Leave("2"))
    texts.append(summary_line(left, names, lang))
    finished, _ = finished.apply(Leave("1"))
    assert finished.finished
    texts.append(embed_text(standings_embed(finished, names, 3, lang)))
    leaks = [(text, english_in(text, lang)) for text in texts if english_in(text, lang)]
    assert not leaks, leaks


@pytest.mark.parametrize("lang", OTHERS)
def test_no_league_embed_holds_english(lang: str):
    rows = [BoardLine(1, 1, 10, 3.0, 5, "Ωx"), BoardLine(2, 2, 11, 1.0, 1, "Ψy")]
    texts = []
    for metric in ("wins", "net", "average", "best", "skill"):
        board = BoardPage(metric, None, 0, 2, 21, rows, rows[0], True)
        texts.append(embed_text(board_embed(board, 10, lang)))
        texts.append(embed_text(board_embed(BoardPage(metric, "banked", 0, 1, 0, [], None, True),
                                            10, lang)))  # fmt: skip
    texts.append(embed_text(stats_embed("Ωx", [
        MemberStats(None, 3, 1, 150.5, 200, -3.25, 1.5, 2),
        MemberStats("classic", 1, 0, 10.0, 10, 0.0, None, 0),
    ], lang)))  # fmt: skip
    when = datetime(2026, 1, 1, tzinfo=UTC)
    record = GameRecord(4, 1, 2, "yatzy", "finished", 9, {}, when, when)
    results = [StoredResult(4, i, 1, "yatzy", 10 + i, n, False, total, rank, 0.0, None, 60.0, when)
               for i, (n, total, rank) in enumerate([("Ωx", 200, 1), ("Ψy", 190, 2)])]  # fmt: skip
    entry = (FinishedGame(record, results), "https://x")
    texts.append(embed_text(history_embed([entry], 0, 3, lang)))
    texts.append(embed_text(history_embed([], 0, 1, lang)))
    view = GuildSettings(1, "banked", 5400, True, False, True, "ru", "round")
    texts.append(embed_text(settings_embed(view, lang, changed_by="Ωx")))
    texts.append(embed_text(settings_embed(GuildSettings(1, None, 61, False, True, False, None,
                                                         "turn"), lang)))  # fmt: skip
    report = analysis_lines(["1"], None, {"1": "Ωx"}, "classic", lang)
    assert report is not None
    texts += list(report)
    leaks = [(text, english_in(text, lang)) for text in texts if english_in(text, lang)]
    assert not leaks, leaks


def test_the_allow_list_is_short_and_each_entry_is_english_catalog_text():
    assert len(SAME) + sum(map(len, SAME_IN.values())) <= 40
    english = "\n".join(catalog(DEFAULT).values())
    for same in [*SAME, *(w for words in SAME_IN.values() for w in words)]:
        assert same.lower() in english.lower(), same
