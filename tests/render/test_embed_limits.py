"""Every embed the bot builds fits every Discord limit, for generated worst cases: 8 players
with 32-character names in every script (markdown that doubles when escaped, mentions,
Devanagari, emoji), every language, long histories of 8-way ties, long opening throws.
Nothing raises: what is too long is shortened (or paged by the command)."""

from __future__ import annotations

import random
from datetime import UTC, datetime

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.engine import RULESETS, Game, Leave, Pass, Score, get_rules
from bot.i18n import LANGUAGES
from bot.records import (
    BoardLine,
    BoardPage,
    FinishedGame,
    GameRecord,
    GuildSettings,
    MemberStats,
    StoredRating,
    StoredResult,
)
from bot.render import (
    card_embed,
    lobby_embed,
    opening_embed,
    rules_embed,
    scorecard_embed,
    standings_embed,
    turn_embed,
)
from bot.render.advice import analysis_lines, banked_hint_embed, hint_embed
from bot.render.embed import (
    DESCRIPTION_MAX,
    FIELD_NAME_MAX,
    FIELD_VALUE_MAX,
    FIELDS_MAX,
    FOOTER_MAX,
    TITLE_MAX,
    TOTAL_MAX,
    Embed,
    length,
)
from bot.render.league import board_embed, history_embed, settings_embed, stats_embed
from bot.strategy import Hold, PassTurn, Record
from bot.strategy.analysis import Proficiency

SCRIPTS = st.sampled_from(
    [
        "*_~`|>#[]()<@:-.\\",  # every character `safe` escapes: doubles in length
        "абвгдежзийклмнопрстуфхцчшщъыьэюя",
        "कखगघङचछजझञटठडढणतथदधनपफबभमयरलवशसह्िीुूेैोौं",
        "🎲😀👩‍👩‍👧‍👦🇷🇴",
        "ABCxyz0123456789 ",
        "\u202e\u200b\u0301",
    ]
)
NAMES = SCRIPTS.flatmap(lambda alphabet: st.text(alphabet, min_size=32, max_size=32))
PLAYERS = st.lists(NAMES, min_size=8, max_size=8)
LANGS = st.sampled_from(LANGUAGES)
RULES = st.sampled_from(sorted(RULESETS))


def fits(embed: Embed) -> None:
    data = embed.to_dict()
    assert len(data.get("title", "")) <= TITLE_MAX
    assert len(data.get("description", "")) <= DESCRIPTION_MAX
    assert len(data.get("footer", {}).get("text", "")) <= FOOTER_MAX
    fields = data.get("fields", [])
    assert len(fields) <= FIELDS_MAX
    for field in fields:
        assert 1 <= len(field["name"]) <= FIELD_NAME_MAX
        assert 1 <= len(field["value"]) <= FIELD_VALUE_MAX
        # A code block cut short is closed again (else the rest would show as code).
        assert field["value"].count("```") % 2 == 0, field["value"]
    assert length(data) <= TOTAL_MAX


def played(rules: str, seed: int, moves: int) -> Game:
    """A game of 8 players some way in (and with a leaver)."""
    rng = random.Random(seed)
    game = Game.new(rules, [str(i) for i in range(8)])
    for _ in range(moves):
        if game.finished:
            break
        who = game.player
        options = game.options()
        if game.can_roll(who) and (not options or rng.random() < 0.6):
            game, _ = game.apply(game.draw(who, rng))
        elif options:
            game, _ = game.apply(Score(who, rng.choice(options).row))
        else:
            game, _ = game.apply(Pass(who))
    if not game.finished and not game.card_of("7").left:
        game, _ = game.apply(Leave("7"))
    return game


def finished(rules: str) -> Game:
    game = Game.new(rules, [str(i) for i in range(8)])
    for i in range(8):
        game, _ = game.apply(Leave(str(i)))
    return game


EXAMPLES = settings(
    max_examples=40, deadline=None, suppress_health_check=list(HealthCheck), database=None
)


@EXAMPLES
@given(PLAYERS, LANGS, RULES, st.integers(0, 2**16), st.integers(0, 400))
def test_game_embeds_fit(players: list[str], lang: str, rules: str, seed: int, moves: int):
    names = {str(i): name for i, name in enumerate(players)}
    game = played(rules, seed, moves)
    fits(lobby_embed(game_id=2**63 - 1, rules=rules, host=players[0], players=players,
                     max_players=8, lang=lang))  # fmt: skip
    fits(lobby_embed(game_id=1, rules=rules, host=players[0], players=players, max_players=8,
                     lang=lang, status="cancelled", cancelled_by=players[1]))  # fmt: skip
    ties = [[(name, (1, 1, 1, 1, 1)) for name in players] for _ in range(40)]
    fits(opening_embed(ties, players[0], players, lang))
    fits(turn_embed(game, names, 2**63 - 1, lang))
    fits(scorecard_embed(game, names, 2**63 - 1, lang))
    for player in game.players:
        fits(card_embed(game, player, names, 2**63 - 1, lang))
    done = finished(rules)
    standings = standings_embed(done, names, 2**63 - 1, lang)
    report = {p: Proficiency(decisions=999, lost=99999.0) for p in done.players}
    analysis = analysis_lines(list(done.players), report, names, rules, lang)
    assert analysis is not None
    standings.add_field(*analysis)  # the analysis is added to the standings later
    fits(standings)
    fits(rules_embed(rules, lang, full=True))
    choices = [(Hold((0, 1, 2)), 250.0), (Record("chance"), 249.9), (PassTurn(), 1.0)] * 3
    fits(hint_embed(game, choices, None, lang))
    fits(banked_hint_embed(game, Hold((0,)), lang))


@EXAMPLES
@given(st.lists(PLAYERS, min_size=10, max_size=10), LANGS, RULES)
def test_a_history_page_of_ten_eight_way_ties_fits(games: list[list[str]], lang: str, rules: str):
    when = datetime(2026, 1, 1, tzinfo=UTC)
    link = f"https://discord.com/channels/{2**63 - 1}/{2**63 - 1}/{2**63 - 1}"
    entries = []
    for i, names in enumerate(games):
        game_id = 2**63 - 1 - i
        record = GameRecord(game_id, 1, 2, rules, "finished", 9, {}, when, when)
        results = [StoredResult(game_id, seat, 1, rules, seat + 1, n, False, -99999, 1, 0.0, None,
                                60.0, when) for seat, n in enumerate(names)]  # fmt: skip
        entries.append((FinishedGame(record, results), link))
    embed = history_embed(entries, 9_999, 10_000, lang)
    fits(embed)
    data = embed.to_dict()
    assert len(data["fields"]) == 10  # every game of the page, names shortened instead
    assert all(link in f["value"] for f in data["fields"])  # … each with its jump link


@EXAMPLES
@given(PLAYERS, LANGS, st.sampled_from(["wins", "net", "average", "best", "skill"]))
def test_league_embeds_fit(players: list[str], lang: str, metric: str):
    rows = [BoardLine(i + 1, i + 1, 2**63 - 1 - i, -99999.99, 10**9, name) for i, name in
            enumerate(players + players[:2])]  # fmt: skip
    board = BoardPage(metric, "scandinavian", 99_999, 100_000, 10**9, rows, rows[0], True)
    fits(board_embed(board, 0, lang))
    blocks = [MemberStats(r, 10**9, 10**9, -99999.99, -99999, -99999.99, 99.99, 10**9)
              for r in [None, *sorted(RULESETS)]]  # fmt: skip
    ratings = {r: StoredRating(r, 1, -999.0, 99.0, -99999.99, 10**9)
               for r in ["*", *sorted(RULESETS)]}  # fmt: skip
    fits(stats_embed(players[0], blocks, lang, ratings=ratings))
    view = GuildSettings(1, "banked", 86_399, True, True, True, "hi", "round")
    fits(settings_embed(view, lang, changed_by=players[0]))


def test_every_rule_set_is_covered():
    assert {get_rules(r).name for r in RULESETS} == set(RULESETS)


def test_a_code_block_cut_short_is_closed_again():
    table = "```\n" + "\n".join("x" * 30 for _ in range(60)) + "\n```"
    embed = Embed(title="t").add_field("a", table).add_field("b", table)
    for _ in range(5):
        embed.add_field("c" * 300, table)
    fits(embed)
