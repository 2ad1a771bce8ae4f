"""What a tournament shows: its one message in the channel, its tables' thread names and
the line that welcomes a table's players in its thread.

Pure: a `Tournament` in, an `Embed` and strings out. The edge fills in what only it
knows: the link to each table's thread (`links`, by round and table number) and the
mentions of the welcome line. Every embed fits Discord's limits for 64 players with
32-character names whatever the script: names are shortened as far as needed, then the
links of finished tables left out, then every link (`_fitted`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from bot.i18n import rules_name, t
from bot.match.tournament import (
    BYE,
    CANCELLED,
    DONE,
    FINISHED,
    MAX_PLAYERS,
    OPEN,
    SIGNUP,
    SIGNUP_TTL,
    WAITING,
    Placing,
    Round,
    Table,
    Tournament,
)

from .embed import (
    BLURPLE,
    DARK_GREY,
    DESCRIPTION_MAX,
    FIELD_VALUE_MAX,
    GOLD,
    GREEN,
    TOTAL_MAX,
    Embed,
    cut,
    safe,
)
from .text import dice_text, number

Links = Mapping[tuple[int, int], str]  # (round, table) → the URL of the table's thread
Name = Callable[[int], str]  # a player id → their name as shown (escaped, shortened)

STATE = {
    WAITING: "⏳",
    OPEN: "🎲",
    DONE: "✅",
    BYE: "⏩",
    CANCELLED: "✖️",
}
WENT_ON = "⏫"  # beside a player who goes on
THREAD_NAME_MAX = 100  # Discord's limit for a thread's name
# Shorter names (then fewer links) until the whole message fits one embed.
NAME_STEPS = (32, 20, 14, 10, 6)
LINK_STEPS = ("all", "open", "none")


def thread_name(tn: Tournament, table: Table, lang: str) -> str:
    """A table's thread: the tournament and the table, as its thread list shows it."""
    if tn.rounds and tn.rounds[table.round - 1].final:
        text = t("tournament.thread_final", lang, id=tn.id)
    else:
        text = t("tournament.thread", lang, id=tn.id, round=table.round, no=table.no)
    return cut(text, THREAD_NAME_MAX)


def welcome(tn: Tournament, table: Table, mentions: Sequence[str], lang: str) -> str:
    """The first message of a table's thread, pinging its players once (`mentions`, as
    the edge writes them)."""
    final = tn.rounds[table.round - 1].final
    goes_on = (
        t("tournament.welcome_final", lang)
        if final
        else t("tournament.welcome_goes_on", lang, n=table.advance)
    )
    where = (
        t("tournament.final", lang)
        if final
        else t("tournament.round_table", lang, round=table.round, no=table.no)
    )
    return t(
        "tournament.welcome",
        lang,
        mentions=" ".join(mentions),
        where=where,
        id=tn.id,
        rules=rules_name(tn.rules, lang),
        goes_on=goes_on,
    )


# --- the tournament message ------------------------------------------------------------------


def tournament_embed(tn: Tournament, lang: str, links: Links | None = None) -> Embed:
    """The one tournament message: the sign-up, then the round with each table (its
    players, state, thread and who went on), at the end the champion and the final's
    standings."""
    links = links or {}
    embed = Embed()
    for policy in LINK_STEPS:
        for limit in NAME_STEPS:
            embed = _embed(tn, lang, links, limit, policy)
            if _fits(embed):
                return embed
    return embed  # to_dict shortens what is still too long


def _fits(embed: Embed) -> bool:
    fields = sum(len(f.name) + len(f.value) for f in embed.fields)
    total = len(embed.title or "") + len(embed.description or "") + len(embed.footer or "")
    return (
        len(embed.description or "") <= DESCRIPTION_MAX
        and all(len(f.value) <= FIELD_VALUE_MAX for f in embed.fields)
        and total + fields <= TOTAL_MAX
    )


def _embed(tn: Tournament, lang: str, links: Links, limit: int, policy: str) -> Embed:
    rules = rules_name(tn.rules, lang)
    embed = Embed(colour=BLURPLE)
    embed.footer = t("tournament.footer", lang, id=tn.id) + " · " + _format(tn, lang)

    def name(player: int) -> str:
        return safe(cut(tn.name_of(player), limit))

    if tn.status == SIGNUP:
        embed.title = t("tournament.title", lang, rules=rules)
        players = ", ".join(name(e.id) for e in tn.entrants)
        embed.description = "\n\n".join(
            [
                t("tournament.hint", lang),
                t("tournament.host", lang, name=name(tn.host_id)),
                t("tournament.players", lang, count=len(tn.entrants), max=MAX_PLAYERS)
                + "\n"
                + players,
            ]
        )
        return embed
    rnd = tn.current
    if tn.status == CANCELLED:
        embed.colour = DARK_GREY
        embed.title = t("tournament.title_cancelled", lang, rules=rules)
        if tn.cancelled_by is None:
            hours = int(SIGNUP_TTL.total_seconds() // 3600)
            embed.description = t("tournament.expired", lang, n=hours)
        else:
            embed.description = t("tournament.cancelled", lang, name=name(tn.cancelled_by))
    elif tn.status == FINISHED:
        embed.colour = GOLD
        if tn.champion is None:
            embed.title = t("tournament.title_final", lang, rules=rules)
            embed.description = t("tournament.no_champion", lang)
        else:
            embed.title = t("tournament.title_won", lang, name=name(tn.champion), rules=rules)
            embed.description = t("tournament.champion", lang, name=name(tn.champion))
    else:
        embed.colour = GREEN
        assert rnd is not None  # started: a round exists
        embed.title = (
            t("tournament.title_final", lang, rules=rules)
            if rnd.final
            else t("tournament.title_round", lang, rules=rules, round=rnd.no)
        )
        now = "tournament.round_over" if rnd.done else "tournament.round_now"
        tables = _tables(len(rnd.tables), lang)
        embed.description = t(now, lang, round=rnd.no, tables=tables, players=len(rnd.seeding))
    history = [_summary(r, lang) for r in tn.rounds[:-1]]  # the current one has the fields
    if history:
        embed.description = (embed.description or "") + "\n\n" + "\n".join(history)
    if rnd is not None:
        _table_fields(embed, tn, rnd, lang, links, name, policy)
    return embed


def _format(tn: Tournament, lang: str) -> str:
    return t("tournament.format", lang, size=tn.table_size, n=tn.advance)


def _tables(count: int, lang: str) -> str:
    return t("tournament.tables", lang, n=count)


def _summary(rnd: Round, lang: str) -> str:
    """A past round in a line (the final is always the current one)."""
    went = sum(len(tb.advanced) for tb in rnd.tables)
    return t("tournament.summary", lang, round=rnd.no, tables=_tables(len(rnd.tables), lang),
             went_on=t("tournament.went_on", lang, n=went))  # fmt: skip


def _table_fields(  # noqa: PLR0913 - each part of a table's fields
    embed: Embed,
    tn: Tournament,
    rnd: Round,
    lang: str,
    links: Links,
    name: Name,
    policy: str,
) -> None:
    """The round's tables, as many to a field as fit its 1,024 characters."""
    blocks = [_block(tn, rnd, tb, lang, links, name, policy) for tb in rnd.tables]
    if rnd.final:
        embed.add_field(t("tournament.final", lang), blocks[0])
        return
    start = 0
    while start < len(blocks):
        end = start + 1
        size = len(blocks[start])
        while end < len(blocks) and size + 2 + len(blocks[end]) <= FIELD_VALUE_MAX:
            size += 2 + len(blocks[end])
            end += 1
        label = t("tournament.tables_range", lang, round=rnd.no, first=start + 1, last=end)
        embed.add_field(label, "\n\n".join(blocks[start:end]))
        start = end


def _block(  # noqa: PLR0913 - each part of a table's block
    tn: Tournament,
    rnd: Round,
    tb: Table,
    lang: str,
    links: Links,
    name: Name,
    policy: str,
) -> str:
    """One table: its name (linked to its thread), state, players, who went on."""
    label = (
        t("tournament.final_table", lang) if rnd.final else t("tournament.table", lang, no=tb.no)
    )
    link = links.get((tb.round, tb.no))
    show_link = link and (policy == "all" or (policy == "open" and tb.status == OPEN))
    head = f"[{label}]({link})" if show_link else label
    lines = [f"**{head}** · {STATE[tb.status]} {t(f'tournament.state_{tb.status}', lang)}"]
    if tb.status == BYE:
        lines.append(t("tournament.bye", lang, name=name(tb.seats[0])))
    elif tb.placings:
        order = tb.by_place(rnd.seeds)
        if rnd.final:  # the final's standings, a line each
            lines += [_final_line(tn, tb, p, lang, name) for p in order]
        else:
            lines.append(" · ".join(_placed(tn, tb, p, lang, name) for p in order))
        if tb.rolloff:
            throws = " · ".join(
                t("tournament.rolloff_throw", lang, name=name(p), dice=dice_text(d), sum=sum(d))
                for p, d in tb.rolloff
            )
            lines.append(t("tournament.rolloff", lang, throws=throws))
    else:
        seats = []
        for p in tb.seats:
            word = _out_word(tn, p, lang)
            seats.append(f"~~{name(p)}~~ ({word})" if word else name(p))
        lines.append(" · ".join(seats))
    return "\n".join(lines)


def _placed(tn: Tournament, tb: Table, p: Placing, lang: str, name: Name) -> str:
    """A player of a finished table: name and total, who went on marked."""
    text = f"{name(p.player)} {number(p.total, lang)}"
    if tb.why(p.player) is not None:
        text = f"{WENT_ON} **{text}**"
    return text + _note(tn, tb, p.player, lang)


def _final_line(tn: Tournament, tb: Table, p: Placing, lang: str, name: Name) -> str:
    line = t(
        "tournament.final_line",
        lang,
        rank=p.place,
        name=name(p.player),
        total=number(p.total, lang),
        settlement=number(p.settlement, lang, sign=True),
    )
    if tb.why(p.player) is not None:
        line = f"🏆 {line}"
    return line + _note(tn, tb, p.player, lang)


def _note(tn: Tournament, tb: Table, player: int, lang: str) -> str:
    """Why a player went on when it was more than their place (settlement, the
    roll-off), or why they are out (left, removed); else nothing."""
    why = tb.why(player)
    if why in ("settlement", "rolloff", "seed"):
        return f" ({t(f'tournament.why_{why}', lang)})"
    word = _out_word(tn, player, lang) if why is None else None
    return f" ({word})" if word else ""


def _out_word(tn: Tournament, player: int, lang: str) -> str | None:
    """The word for why `player` is out (left, removed); None if they are not."""
    e = tn.entrant(player)
    return t(f"tournament.out_{e.out}", lang) if e is not None and e.out else None
