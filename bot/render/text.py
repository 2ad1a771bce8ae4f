"""Embeds and text of a game: lobby, opening throw, turn, scorecards, standings, rule cards.

Pure: engine objects, a display-name mapping (engine player name → the name shown, raw as
the member typed it) and a language in; `Embed`s and strings out. Names are escaped here,
once (`safe` in markdown, `plain` in code blocks). Scorecard tables are code blocks at
most ~30 columns wide (a phone), so 5–8 players are split over fields of four columns.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache

from bot.engine import (
    Card,
    Event,
    Game,
    Left,
    Option,
    Passed,
    RuleSet,
    Scored,
    Totals,
    get_rules,
)
from bot.i18n import decimal, rules_name, t

from .embed import BLURPLE, DARK_GREY, DARK_TEAL, GOLD, GREEN, Embed, cut, plain, safe

FACES = "⚀⚁⚂⚃⚄⚅"
COLUMNS_PER_FIELD = 4  # 4 + 5 × 5 = 29 columns: fits a phone
NAME_WIDTH = 5
MINUS = "-"  # one minus sign everywhere: the plain one, easy to copy (the pictures too)


def number(value: float, lang: str, *, sign: bool = False, places: int = 2) -> str:
    """A number as `lang` writes it (132,50 in ru and ro): the one minus sign, `+` when
    asked, `places` decimals only when it is not whole."""
    text = decimal(abs(value), lang, 0 if float(value).is_integer() else places)
    if text.strip("0.,") == "":
        return text
    if value < 0:
        return MINUS + text
    return ("+" if sign and value > 0 else "") + text


def dice_text(dice: Sequence[int]) -> str:
    """Dice as faces with their digits beside them (⚀ and ⚅ are hard to tell apart)."""
    return "  ".join(f"{FACES[d - 1]} {d}" for d in dice)


def _name(names: Mapping[str, str], player: str) -> str:
    return safe(names.get(player, player))


# --- lobby and opening throw --------------------------------------------------------------


def lobby_embed(  # noqa: PLR0913 - keyword-only: each part of the lobby's embed
    *,
    game_id: int,
    rules: str,
    host: str,
    players: Sequence[str],
    max_players: int,
    lang: str,
    status: str = "lobby",
    cancelled_by: str | None = None,
) -> Embed:
    """`host`, `players` and `cancelled_by` are names as typed (escaped here)."""
    embed = Embed(
        title=t("lobby.title", lang, rules=rules_name(rules, lang)),
        colour=DARK_GREY if status == "cancelled" else BLURPLE,
    )
    if status == "lobby":
        embed.description = t("lobby.hint", lang)
    elif status == "cancelled":
        embed.description = t("lobby.cancelled", lang, name=safe(cancelled_by or host))
    else:
        embed.description = t("lobby.started", lang)
    embed.add_field(t("lobby.host", lang), safe(host), inline=True)
    listing = "\n".join(f"{i}\\. {safe(p)}" for i, p in enumerate(players, 1))
    embed.add_field(
        t("lobby.players", lang, count=len(players), max=max_players),
        listing or t("lobby.nobody", lang),
        inline=True,
    )
    embed.footer = t("lobby.footer", lang, game=game_id)
    return embed


def opening_text(
    rounds: Sequence[Sequence[tuple[str, Sequence[int]]]],
    starter: str,
    order: Sequence[str],
    lang: str,
) -> str:
    """The opening throw in lines; `rounds` holds names as typed, each round (name, dice)."""
    lines: list[str] = []
    for i, throws in enumerate(rounds):
        if i:
            lines.append(t("opening.round", lang))
        lines.extend(
            t("opening.line", lang, name=safe(n), dice=dice_text(d), sum=sum(d)) for n, d in throws
        )
    lines.append("")
    lines.append(t("opening.starter", lang, name=safe(starter), order=" → ".join(map(safe, order))))
    return "\n".join(lines)


def opening_embed(
    rounds: Sequence[Sequence[tuple[str, Sequence[int]]]],
    starter: str,
    order: Sequence[str],
    lang: str,
) -> Embed:
    return Embed(
        title=t("opening.title", lang),
        description=opening_text(rounds, starter, order, lang),
        colour=BLURPLE,
    )


# --- the turn ---------------------------------------------------------------------------


def turn_embed(
    game: Game, names: Mapping[str, str], game_id: int, lang: str, *, computer: bool = False
) -> Embed:
    """The player to move, the throw (each fact once: the title counts the throws), the
    dice with their digits and holds, the bank in banked, and the seat order with the
    player to move in bold. `computer`: a computer player moves (nobody is told to press
    anything)."""
    name = _name(names, game.player)
    if game.dice:
        title = t("turn.title", lang, name=name, throw=game.throws, limit=game.throw_limit())
        faces = "  ".join(
            f"{FACES[d - 1]}🔒" if i in game.held else FACES[d - 1] for i, d in enumerate(game.dice)
        )
        values = "  ".join(
            f"**{d}**" if i in game.held else str(d) for i, d in enumerate(game.dice)
        )
        description = f"# {faces}\n{values}"
        if game.throws_left() and not computer:
            description += "\n" + t("turn.held_hint", lang)
    elif computer:
        title = t("turn.computer.title", lang, name=name)
        description = t("turn.computer.waits", lang)
    else:
        title = t("turn.title_first", lang, name=name)
        description = t("turn.not_thrown", lang)
    embed = Embed(title=title, description=description, colour=GREEN)
    if game.rules.banked:
        embed.add_field(t("turn.bank", lang), str(game.card.bank), inline=True)
    embed.add_field(t("turn.round", lang), str(game.round), inline=True)
    order = seat_order(game, names)
    if order:
        embed.add_field(t("turn.seats.title", lang), order)
    embed.footer = t("turn.footer", lang, rules=rules_name(game.rules.name, lang), game=game_id)
    return embed


def seat_order(game: Game, names: Mapping[str, str]) -> str:
    """ "Ann → **Bob** → Cid": who plays after whom, the player to move in bold; players
    who left are out of it. Empty with one player left (nothing to order)."""
    seated = [c.name for c in game.cards if not c.left]
    if len(seated) < 2:
        return ""
    return " → ".join(
        f"**{_name(names, p)}**" if p == game.player else _name(names, p) for p in seated
    )


def option_label(option: Option, rules: RuleSet, lang: str) -> str:
    """ "Full house — 24 (×2 first throw)", "Two pairs — scratch, 0", joker marked."""
    return _option_label(option, rules.premiums.get(option.row, 0), lang)


@lru_cache(maxsize=4096)
def _option_label(option: Option, premium: int, lang: str) -> str:
    # The row menu is drawn again at every click, mostly with the same options (bounded:
    # rows × points × languages).
    row = t(f"rows.{option.row}", lang)
    if not option.made:
        return cut(t("turn.option_scratch", lang, row=row, points=number(option.points, lang)), 100)
    label = t("turn.option", lang, row=row, points=number(option.points, lang))
    if option.doubled:
        label += t("turn.doubled", lang)
    if premium:
        label += t("turn.premium", lang, premium=premium)
    if option.joker_bonus:
        label += t("turn.joker_bonus", lang, bonus=option.joker_bonus)
    elif option.joker:
        label += t("turn.joker", lang)
    return cut(label, 100)


def summary_line(event: Event, names: Mapping[str, str], lang: str) -> str:
    """The line a finished turn's message becomes."""
    if isinstance(event, Scored):
        name = _name(names, event.player)
        row = t(f"rows.{event.row}", lang)
        if not event.made:
            points = number(event.points, lang)
            return t("summary.scratched", lang, name=name, row=row, points=points)
        extra = t("turn.joker_bonus", lang, bonus=event.joker_bonus) if event.joker_bonus else ""
        # Doubled says "first throw" itself: no "(throw 1)" after it.
        return t(
            "summary.scored_doubled" if event.doubled else "summary.scored",
            lang,
            name=name,
            row=row,
            points=number(event.points, lang),
            extra=extra,
            throw=event.throws,
        )
    if isinstance(event, Passed):
        extra = t("summary.passed_spent", lang, n=event.spent) if event.spent else ""
        return t("summary.passed", lang, name=_name(names, event.player), extra=extra)
    if isinstance(event, Left):
        if event.scratched:
            return t("summary.left", lang, name=_name(names, event.player))
        extra = t("summary.passed_spent", lang, n=event.spent) if event.spent else ""
        return t("summary.left_banked", lang, name=_name(names, event.player), extra=extra)
    return ""


# --- scorecards ---------------------------------------------------------------------------


def cell(card: Card, row: str, lang: str) -> str:
    """A row's entry: free, ✓ (a made figure worth 0), — (not made, 0) or the points."""
    value = card.rows[row]
    if value is None:
        return t("card.free", lang)
    if value == 0:
        return t("card.check", lang) if card.made(row) else t("card.scratch", lang)
    return number(value, lang)


def _summary_rows(rules: RuleSet) -> list[str]:
    rows = ["upper"]
    if rules.bonus:
        rows.append("bonus")
    rows.append("lower")
    if rules.joker_bonus:
        rows.append("extra")
    if rules.banked:
        rows.append("banked")
    rows.append("total")
    return rows


def _summary_value(totals: Totals, card: Card, key: str) -> int:
    if key == "banked":
        return totals.bank_points
    if key == "extra":
        return card.extra
    return int(getattr(totals, key))


def scorecard_table(game: Game, cards: Sequence[Card], names: Mapping[str, str], lang: str) -> str:
    """A code-block table: one row per scorecard row, one 5-wide column per player."""
    rules = game.rules
    label_w = 4
    header = " " * label_w + "".join(
        f"{plain(names.get(c.name, c.name))[:NAME_WIDTH]:>{NAME_WIDTH + 1}}" for c in cards
    )
    rule = "─" * (label_w + (NAME_WIDTH + 1) * len(cards))
    lines = [header]
    for row in rules.rows:
        label = t(f"rows_short.{row}", lang)[:label_w]
        cells = "".join(f"{cell(c, row, lang):>{NAME_WIDTH + 1}}" for c in cards)
        lines.append(f"{label:<{label_w}}{cells}")
        if row == rules.upper[-1]:
            lines.append(rule)
    lines.append(rule)
    totals = [game.totals(c.name) for c in cards]
    for key in _summary_rows(rules):
        label = t(f"rows_short.{key}", lang)[:label_w]
        cells = "".join(
            f"{number(_summary_value(s, c, key), lang):>{NAME_WIDTH + 1}}"
            for s, c in zip(totals, cards, strict=True)
        )
        lines.append(f"{label:<{label_w}}{cells}")
    return "```\n" + "\n".join(lines) + "\n```"


def scorecard_embed(  # noqa: PLR0913 - the card, and what frames it
    game: Game,
    names: Mapping[str, str],
    game_id: int,
    lang: str,
    *,
    round_no: int | None = None,
    tables: bool = True,
) -> Embed:
    """Every player's card, four columns per field (narrow enough for a phone); its footer
    names `round_no` (default: the game's current round; a turn's summary names the round
    just played, which the round's last turn has already closed). `tables=False`: the
    title and footer only (pictures show the cards)."""
    embed = Embed(title=t("card.title", lang), colour=DARK_TEAL)
    cards = list(game.cards) if tables else []
    for i in range(0, len(cards), COLUMNS_PER_FIELD):
        group = cards[i : i + COLUMNS_PER_FIELD]
        title = " · ".join(
            _name(names, c.name) + (" " + t("card.left", lang) if c.left else "") for c in group
        )
        embed.add_field(title, scorecard_table(game, group, names, lang))
    embed.footer = t(
        "card.footer",
        lang,
        rules=rules_name(game.rules.name, lang),
        game=game_id,
        round=game.round if round_no is None else round_no,
    )
    return embed


def card_embed(game: Game, player: str, names: Mapping[str, str], game_id: int, lang: str) -> Embed:
    """One player's full card, with row names in full."""
    rules, card = game.rules, game.card_of(player)
    totals = game.totals(player)
    embed = Embed(title=t("card.title_of", lang, name=_name(names, player)), colour=DARK_TEAL)

    def block(rows: Sequence[str]) -> str:
        width = max(len(t(f"rows.{r}", lang)) for r in rows)
        lines = [f"{t(f'rows.{r}', lang):<{width}} {cell(card, r, lang):>5}" for r in rows]
        return "```\n" + "\n".join(lines) + "\n```"

    embed.add_field(f"{t('card.upper', lang)}: {number(totals.upper, lang)}", block(rules.upper))
    embed.add_field(f"{t('card.lower', lang)}: {number(totals.lower, lang)}", block(rules.lower))
    if rules.bonus:
        embed.add_field(t("card.bonus", lang), number(totals.bonus, lang), inline=True)
    if rules.joker_bonus:
        embed.add_field(t("card.extra", lang), number(card.extra, lang), inline=True)
    if rules.banked:
        banked = t("card.banked", lang, count=totals.banked)
        embed.add_field(banked, number(totals.bank_points, lang), inline=True)
    embed.add_field(t("card.total", lang), f"**{number(totals.total, lang)}**", inline=True)
    embed.footer = t(
        "card.footer", lang, rules=rules_name(rules.name, lang), game=game_id, round=game.round
    )
    return embed


def standings_embed(game: Game, names: Mapping[str, str], game_id: int, lang: str) -> Embed:
    standings = sorted(game.standings(), key=lambda s: (s.rank, game.players.index(s.name)))
    title = t("final.title", lang, rules=rules_name(game.rules.name, lang))
    if len(standings) == 1:  # alone at the end: nobody's average to be measured against
        (s,) = standings
        total = number(s.totals.total, lang)
        line = t("final.solo_line", lang, name=_name(names, s.name), total=total)
        footer = t("final.solo_footer", lang, game=game_id)
        return Embed(title=title, description=line, colour=GOLD, footer=footer)
    lines = [
        t(
            "final.line",
            lang,
            rank=s.rank,
            name=_name(names, s.name),
            total=number(s.totals.total, lang),
            settlement=number(s.settlement, lang, sign=True),
        )
        for s in standings
    ]
    average = sum(s.totals.total for s in standings) / len(standings)
    return Embed(
        title=title,
        description="\n".join(lines),
        colour=GOLD,
        footer=t("final.footer", lang, game=game_id, average=number(average, lang)),
    )


# Each rule set's card: its lines in order, catalog keys `rules_card.<line>`. A card states
# every rule and every decision of docs/rules.md that changes what a player does
# (tests/i18n/test_rules_cards.py holds the list, each with the rule book's words).
CARDS: dict[str, tuple[str, ...]] = {
    "classic": (
        "throws", "upper_first", "classic_upper", "classic_bonus", "figure_sum", "patterns",
        "classic_double", "classic_premium", "classic_scratch",
    ),
    "yatzy": (
        "throws", "any_order", "upper_sum", "upper_bonus", "yatzy_lower", "patterns_joker",
        "zero", "no_doubling", "yatzy_joker", "joker_order",
    ),
    "banked": (
        "banked_throws", "banked_end", "upper_first", "banked_upper", "figure_sum", "patterns",
        "banked_premiums", "no_doubling", "banked_round", "banked_cap", "banked_score",
        "banked_penalties", "banked_unfinished_upper",
    ),
    "yahtzee": (
        "throws", "any_order", "upper_sum", "upper_bonus", "yahtzee_lower", "patterns_yahtzee",
        "zero", "no_doubling", "yahtzee_joker", "joker_order",
    ),
    "scandinavian": (
        "throws", "any_order", "upper_sum", "upper_bonus", "scandinavian_lower", "patterns",
        "zero", "no_doubling", "no_joker",
    ),
}  # fmt: skip


def card_values(rs: RuleSet, lang: str) -> dict[str, object]:
    """What a card's lines fill in: the engine's own numbers, rows named in `lang`."""
    penalties = ", ".join(
        f"{t(f'rows.{row}', lang)} {number(value, lang)}"
        for row, value in rs.penalties.items()
        if value
    )
    return {
        "rows": len(rs.rows),
        "throws": rs.throws,
        "bonus": rs.bonus,
        "threshold": rs.bonus_threshold,
        "premium": rs.premiums.get("poker", 0),
        "four_premium": rs.premiums.get("four_of_a_kind", 0),
        "joker_bonus": rs.joker_bonus,
        "bank_value": rs.bank_value,
        "n": rs.max_rounds or 0,
        "penalties": penalties,
    }


def card_lines(rs: RuleSet, lang: str) -> list[str]:
    """The lines of the rule set's card in `lang`."""
    values = card_values(rs, lang)
    return [t(f"rules_card.{line}", lang, **values) for line in CARDS[rs.name]]


def rules_embed(rules: str, lang: str, *, full: bool = False) -> Embed:
    """A rule set's card; `full`: the full rules document comes with it (a file)."""
    rs = get_rules(rules)
    text = "\n".join(card_lines(rs, lang))
    if full:
        text += "\n\n" + t("rules_card.more", lang)
    return Embed(
        title=t("rules_card.title", lang, rules=rules_name(rs.name, lang)),
        description=text,
        colour=BLURPLE,
    )
