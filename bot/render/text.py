"""Embeds and text of a game: lobby, opening throw, turn, scorecards, standings, rule cards.

Pure: engine objects, a display-name mapping (engine player name → the name shown, raw as
the member typed it) and a language in; `Embed`s and strings out. Names are escaped here,
once (`safe` in markdown, `plain` in code blocks). Scorecard tables are code blocks at
most ~30 columns wide (a phone), so 5–8 players are split over fields of four columns.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from bot.engine import Card, Event, Game, Left, Option, Passed, RuleSet, Scored, get_rules
from bot.i18n import rules_name, t

from .embed import BLURPLE, DARK_GREY, DARK_TEAL, GOLD, GREEN, Embed, cut, plain, safe

FACES = "⚀⚁⚂⚃⚄⚅"
COLUMNS_PER_FIELD = 4  # 4 + 5 × 5 = 29 columns: fits a phone
NAME_WIDTH = 5
MINUS = "-"  # one minus sign everywhere: the plain one, easy to copy (the pictures too)


def number(value: float, *, sign: bool = False) -> str:
    """A score as shown: a true minus sign, `+` when asked, one decimal only when needed."""
    text = f"{abs(value):.0f}" if float(value).is_integer() else f"{abs(value):.2f}"
    if value < 0 and text.strip("0.") != "":
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


def turn_embed(game: Game, names: Mapping[str, str], game_id: int, lang: str) -> Embed:
    """The player to move, the throw (each fact once: the title counts the throws), the
    dice with their digits and holds, the bank in banked."""
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
        if game.throws_left():
            description += "\n" + t("turn.held_hint", lang)
    else:
        title = t("turn.title_first", lang, name=name)
        description = t("turn.not_thrown", lang)
    embed = Embed(title=title, description=description, colour=GREEN)
    if game.rules.banked:
        embed.add_field(t("turn.bank", lang), str(game.card.bank), inline=True)
    embed.add_field(t("turn.round", lang), str(game.round), inline=True)
    embed.footer = t("turn.footer", lang, rules=rules_name(game.rules.name, lang), game=game_id)
    return embed


def option_label(option: Option, rules: RuleSet, lang: str) -> str:
    """ "Full house — 24 (×2 first throw)", "Two pairs — scratch, 0", joker marked."""
    row = t(f"rows.{option.row}", lang)
    if not option.made:
        return cut(t("turn.option_scratch", lang, row=row, points=number(option.points)), 100)
    label = t("turn.option", lang, row=row, points=number(option.points))
    if option.doubled:
        label += t("turn.doubled", lang)
    premium = rules.premiums.get(option.row, 0)
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
            return t("summary.scratched", lang, name=name, row=row, points=number(event.points))
        extra = t("turn.doubled", lang) if event.doubled else ""
        if event.joker_bonus:
            extra += t("turn.joker_bonus", lang, bonus=event.joker_bonus)
        return t(
            "summary.scored",
            lang,
            name=name,
            row=row,
            points=number(event.points),
            extra=extra,
            throw=event.throws,
        )
    if isinstance(event, Passed):
        extra = t("summary.passed_spent", lang, n=event.spent) if event.spent else ""
        return t("summary.passed", lang, name=_name(names, event.player), extra=extra)
    if isinstance(event, Left):
        return t("summary.left", lang, name=_name(names, event.player))
    return ""


# --- scorecards ---------------------------------------------------------------------------


def cell(card: Card, row: str, lang: str) -> str:
    """A row's entry: free, ✓ (a made figure worth 0), — (not made, 0) or the points."""
    value = card.rows[row]
    if value is None:
        return t("card.free", lang)
    if value == 0:
        return t("card.check", lang) if card.made(row) else t("card.scratch", lang)
    return number(value)


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


def _summary_value(game: Game, card: Card, key: str) -> int:
    totals = game.totals(card.name)
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
    for key in _summary_rows(rules):
        label = t(f"rows_short.{key}", lang)[:label_w]
        cells = "".join(f"{number(_summary_value(game, c, key)):>{NAME_WIDTH + 1}}" for c in cards)
        lines.append(f"{label:<{label_w}}{cells}")
    return "```\n" + "\n".join(lines) + "\n```"


def scorecard_embed(game: Game, names: Mapping[str, str], game_id: int, lang: str) -> Embed:
    """Every player's card, four columns per field (narrow enough for a phone)."""
    embed = Embed(title=t("card.title", lang), colour=DARK_TEAL)
    cards = list(game.cards)
    for i in range(0, len(cards), COLUMNS_PER_FIELD):
        group = cards[i : i + COLUMNS_PER_FIELD]
        title = " · ".join(
            _name(names, c.name) + (" " + t("card.left", lang) if c.left else "") for c in group
        )
        embed.add_field(title, scorecard_table(game, group, names, lang))
    embed.footer = t(
        "card.footer", lang, rules=rules_name(game.rules.name, lang), game=game_id, round=game.round
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

    embed.add_field(f"{t('card.upper', lang)}: {number(totals.upper)}", block(rules.upper))
    embed.add_field(f"{t('card.lower', lang)}: {number(totals.lower)}", block(rules.lower))
    if rules.bonus:
        embed.add_field(t("card.bonus", lang), number(totals.bonus), inline=True)
    if rules.joker_bonus:
        embed.add_field(t("card.extra", lang), number(card.extra), inline=True)
    if rules.banked:
        embed.add_field(
            t("card.banked", lang, count=totals.banked), number(totals.bank_points), inline=True
        )
    embed.add_field(t("card.total", lang), f"**{number(totals.total)}**", inline=True)
    embed.footer = t(
        "card.footer", lang, rules=rules_name(rules.name, lang), game=game_id, round=game.round
    )
    return embed


def standings_embed(game: Game, names: Mapping[str, str], game_id: int, lang: str) -> Embed:
    standings = sorted(game.standings(), key=lambda s: (s.rank, game.players.index(s.name)))
    lines = [
        t(
            "final.line",
            lang,
            rank=s.rank,
            name=_name(names, s.name),
            total=number(s.totals.total),
            settlement=number(s.settlement, sign=True),
        )
        for s in standings
    ]
    average = sum(s.totals.total for s in standings) / len(standings)
    return Embed(
        title=t("final.title", lang, rules=rules_name(game.rules.name, lang)),
        description="\n".join(lines),
        colour=GOLD,
        footer=t("final.footer", lang, game=game_id, average=number(average)),
    )


# The decisions docs/rules.md makes where the source texts are silent or contradict
# themselves, stated on the rule set's card (catalog keys `rules_card.decision_<name>`).
DECISIONS: dict[str, tuple[str, ...]] = {
    "classic": ("premium",),
    "banked": ("round", "cap", "penalties", "upper"),
}


def decision_lines(rs: RuleSet, lang: str) -> list[str]:
    """The rule set's documented decisions in `lang`, with the engine's own numbers."""
    penalties = ", ".join(
        f"{t(f'rows.{row}', lang)} {number(value)}"
        for row, value in rs.penalties.items()
        if value
    )
    values = {"n": rs.max_rounds or 0, "penalties": penalties}
    return [t(f"rules_card.decision_{d}", lang, **values) for d in DECISIONS.get(rs.name, ())]


def rules_embed(rules: str, lang: str, *, full: bool = False) -> Embed:
    """A rule set's card and its decisions; `full`: the full rules document comes with it
    (a file)."""
    rs = get_rules(rules)
    text = "\n".join([t(f"rules_card.{rs.name}", lang).strip(), *decision_lines(rs, lang)])
    if full:
        text += "\n\n" + t("rules_card.more", lang)
    return Embed(
        title=t("rules_card.title", lang, rules=rules_name(rs.name, lang)),
        description=text,
        colour=BLURPLE,
    )
