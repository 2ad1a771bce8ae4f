"""Embeds and text: turn, scorecard, lobby, opening throw, standings, rule cards.

Discord limits respected here (DESIGN.md): a field ≤ 1024 characters, an embed
≤ 6000; scorecard tables are code blocks at most ~30 columns wide (a phone), so
5–8 players are split over several fields of four columns each.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import discord

from bot.engine import FACE, Game, Option, RuleSet, Scored, get_rules
from bot.engine.game import Card, Event, Left, Passed
from bot.i18n import t
from bot.i18n.translator import rules_name

FACES = "⚀⚁⚂⚃⚄⚅"
COLUMNS_PER_FIELD = 4  # 4 + 5 × 5 = 29 columns: fits a phone
NAME_WIDTH = 5

LOBBY_COLOUR = discord.Colour.blurple()
TURN_COLOUR = discord.Colour.green()
CARD_COLOUR = discord.Colour.dark_teal()
FINAL_COLOUR = discord.Colour.gold()
CANCEL_COLOUR = discord.Colour.dark_grey()


def dice_text(dice: Sequence[int]) -> str:
    return " ".join(FACES[d - 1] for d in dice)


def _name(names: Mapping[str, str], player: str) -> str:
    return names.get(player, player)


def _points(value: int) -> str:
    return str(value)


# --- lobby and opening throw --------------------------------------------------------------


def lobby_embed(
    *,
    game_id: int,
    rules: str,
    host: str,
    players: Sequence[str],
    max_players: int,
    lang: str,
    status: str = "lobby",
    cancelled_by: str | None = None,
) -> discord.Embed:
    colour = CANCEL_COLOUR if status == "cancelled" else LOBBY_COLOUR
    embed = discord.Embed(
        title=t("lobby.title", lang, rules=rules_name(rules, lang)), colour=colour
    )
    if status == "lobby":
        embed.description = t("lobby.hint", lang)
    elif status == "cancelled":
        embed.description = t("lobby.cancelled", lang, name=cancelled_by or host)
    else:
        embed.description = t("lobby.started", lang)
    embed.add_field(name=t("lobby.host", lang), value=host, inline=True)
    listing = "\n".join(f"{i}. {p}" for i, p in enumerate(players, 1)) or t("lobby.nobody", lang)
    embed.add_field(
        name=t("lobby.players", lang, count=len(players), max=max_players),
        value=listing[:1024],
        inline=True,
    )
    embed.set_footer(text=t("lobby.footer", lang, game=game_id))
    return embed


def opening_embed(
    rounds: Sequence[Sequence[tuple[str, Sequence[int]]]],
    starter: str,
    order: Sequence[str],
    lang: str,
) -> discord.Embed:
    """`rounds` holds display names already; each round is (name, dice) pairs."""
    lines: list[str] = []
    for i, throws in enumerate(rounds):
        if i:
            lines.append(t("opening.round", lang))
        lines.extend(
            t("opening.line", lang, name=n, dice=dice_text(d), sum=sum(d)) for n, d in throws
        )
    lines.append("")
    lines.append(t("opening.starter", lang, name=starter, order=" → ".join(order)))
    return discord.Embed(
        title=t("opening.title", lang), description="\n".join(lines)[:4096], colour=LOBBY_COLOUR
    )


# --- the turn ---------------------------------------------------------------------------


def turn_embed(game: Game, names: Mapping[str, str], game_id: int, lang: str) -> discord.Embed:
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
    embed = discord.Embed(title=title, description=description, colour=TURN_COLOUR)
    embed.add_field(name=t("turn.throws_left", lang), value=str(game.throws_left()), inline=True)
    if game.rules.banked:
        embed.add_field(name=t("turn.bank", lang), value=str(game.card.bank), inline=True)
    embed.add_field(name=t("turn.round", lang), value=str(game.round), inline=True)
    embed.set_footer(
        text=t("turn.footer", lang, rules=rules_name(game.rules.name, lang), game=game_id)
    )
    return embed


def option_label(option: Option, rules: RuleSet, lang: str) -> str:
    """ "Full house — 24 (×2 first throw)", "Two pairs — — (scratch)", joker marked."""
    row = t(f"rows.{option.row}", lang)
    if not option.made and option.points == 0 and option.row not in FACE:
        return t("turn.option_scratch", lang, row=row)[:100]
    label = t("turn.option", lang, row=row, points=_points(option.points))
    if option.doubled:
        label += t("turn.doubled", lang)
    premium = rules.premiums.get(option.row, 0)
    if premium and option.made:
        label += t("turn.premium", lang, premium=premium)
    if option.joker_bonus:
        label += t("turn.joker_bonus", lang, bonus=option.joker_bonus)
    elif option.joker:
        label += t("turn.joker", lang)
    return label[:100]


def summary_line(event: Event, names: Mapping[str, str], lang: str) -> str:
    """The one line a finished turn message is edited into."""
    if isinstance(event, Scored):
        name = _name(names, event.player)
        row = t(f"rows.{event.row}", lang)
        if not event.made and event.points <= 0 and event.row not in FACE:
            return t("summary.scratched", lang, name=name, row=row, points=event.points)
        extra = t("turn.doubled", lang) if event.doubled else ""
        if event.joker_bonus:
            extra += t("turn.joker_bonus", lang, bonus=event.joker_bonus)
        return t(
            "summary.scored",
            lang,
            name=name,
            row=row,
            points=_points(event.points),
            extra=extra,
            throw=event.throws,
        )
    if isinstance(event, Passed):
        extra = t("summary.passed_spent", lang, spent=event.spent) if event.spent else ""
        return t("summary.passed", lang, name=_name(names, event.player), extra=extra)
    if isinstance(event, Left):
        return t("summary.left", lang, name=_name(names, event.player))
    return ""


# --- scorecards ---------------------------------------------------------------------------


def _cell(rules: RuleSet, row: str, value: int | None, lang: str) -> str:
    if value is None:
        return t("card.free", lang)
    if value == 0 and row in FACE and (rules.upper_first or rules.banked):
        return t("card.check", lang)  # classic "exactly three", banked "made"
    if value == 0 and row not in FACE:
        return t("card.scratch", lang)
    return str(value)


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
    return int(getattr(totals, key))


def scorecard_table(game: Game, cards: Sequence[Card], names: Mapping[str, str], lang: str) -> str:
    """A code-block table: one row per scorecard row, one 5-wide column per player."""
    rules = game.rules
    label_w = 4
    header = " " * label_w + "".join(
        f"{_name(names, c.name)[:NAME_WIDTH]:>{NAME_WIDTH + 1}}" for c in cards
    )
    lines = [header]
    for row in rules.rows:
        label = t(f"rows_short.{row}", lang)[:label_w]
        cells = "".join(f"{_cell(rules, row, c.rows[row], lang):>{NAME_WIDTH + 1}}" for c in cards)
        lines.append(f"{label:<{label_w}}{cells}")
        if row == rules.upper[-1]:
            lines.append("─" * (label_w + (NAME_WIDTH + 1) * len(cards)))
    lines.append("─" * (label_w + (NAME_WIDTH + 1) * len(cards)))
    for key in _summary_rows(rules):
        label = t(f"rows_short.{key}", lang)[:label_w]
        cells = "".join(f"{_summary_value(game, c, key):>{NAME_WIDTH + 1}}" for c in cards)
        lines.append(f"{label:<{label_w}}{cells}")
    return "```\n" + "\n".join(lines) + "\n```"


def scorecard_embed(game: Game, names: Mapping[str, str], game_id: int, lang: str) -> discord.Embed:
    """Every player's card, four columns per field (narrow enough for a phone)."""
    embed = discord.Embed(title=t("card.title", lang), colour=CARD_COLOUR)
    cards = list(game.cards)
    for i in range(0, len(cards), COLUMNS_PER_FIELD):
        group = cards[i : i + COLUMNS_PER_FIELD]
        title = " · ".join(
            _name(names, c.name) + (" " + t("card.left", lang) if c.left else "") for c in group
        )
        embed.add_field(
            name=title[:256], value=scorecard_table(game, group, names, lang), inline=False
        )
    embed.set_footer(
        text=t(
            "card.footer",
            lang,
            rules=rules_name(game.rules.name, lang),
            game=game_id,
            round=game.round,
        )
    )
    return embed


def card_embed(
    game: Game, player: str, names: Mapping[str, str], game_id: int, lang: str
) -> discord.Embed:
    """One player's full card, with row names in full."""
    rules, card = game.rules, game.card_of(player)
    totals = game.totals(player)
    embed = discord.Embed(
        title=t("card.title_of", lang, name=_name(names, player)), colour=CARD_COLOUR
    )

    def block(rows: Sequence[str]) -> str:
        width = max(len(t(f"rows.{r}", lang)) for r in rows)
        lines = [
            f"{t(f'rows.{r}', lang):<{width}} {_cell(rules, r, card.rows[r], lang):>5}"
            for r in rows
        ]
        return "```\n" + "\n".join(lines) + "\n```"

    embed.add_field(
        name=f"{t('card.upper', lang)}: {totals.upper}", value=block(rules.upper), inline=False
    )
    embed.add_field(
        name=f"{t('card.lower', lang)}: {totals.lower}", value=block(rules.lower), inline=False
    )
    if rules.bonus:
        embed.add_field(name=t("card.bonus", lang), value=str(totals.bonus), inline=True)
    if rules.joker_bonus:
        embed.add_field(name=t("card.extra", lang), value=str(card.extra), inline=True)
    if rules.banked:
        embed.add_field(
            name=t("card.banked", lang, count=totals.banked),
            value=str(3 * totals.banked),
            inline=True,
        )
    embed.add_field(name=t("card.total", lang), value=f"**{totals.total}**", inline=True)
    embed.set_footer(
        text=t(
            "card.footer", lang, rules=rules_name(rules.name, lang), game=game_id, round=game.round
        )
    )
    return embed


def standings_embed(game: Game, names: Mapping[str, str], game_id: int, lang: str) -> discord.Embed:
    standings = sorted(game.standings(), key=lambda s: (s.rank, game.players.index(s.name)))
    lines = [
        t(
            "final.line",
            lang,
            rank=s.rank,
            name=_name(names, s.name),
            total=s.totals.total,
            settlement=f"{s.settlement:+g}",
        )
        for s in standings
    ]
    average = sum(s.totals.total for s in standings) / len(standings)
    embed = discord.Embed(
        title=t("final.title", lang, rules=rules_name(game.rules.name, lang)),
        description="\n".join(lines)[:4096],
        colour=FINAL_COLOUR,
    )
    embed.set_footer(text=t("final.footer", lang, game=game_id, average=f"{average:g}"))
    return embed


def rules_embed(rules: str, lang: str) -> discord.Embed:
    rs = get_rules(rules)
    return discord.Embed(
        title=t("rules_card.title", lang, rules=rules_name(rs.name, lang)),
        description=t(f"rules_card.{rs.name}", lang).strip(),
        colour=LOBBY_COLOUR,
    )
