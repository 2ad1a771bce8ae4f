"""What the league shows: leaderboard pages, member stats, history, server settings.

Pure: the store's records (`bot.records`) in, `Embed`s out (the Discord edge attaches the
pager buttons).
Members are shown by name (the name they last played under): a mention inside an embed
renders only for members the reader's client happens to have cached.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from bot.i18n import decimal, percent, rules_name, t
from bot.records import (
    OVERALL,
    SKILL_MIN_GAMES,
    BoardLine,
    BoardPage,
    DailyStats,
    FinishedGame,
    GuildSettings,
    MemberStats,
    StoredRating,
    TournamentStats,
)
from bot.strategy.rating import SCALE

from .embed import BLURPLE, DARK_GREY, DARK_TEAL, GOLD, Embed, Field, cut, length, safe
from .text import MINUS, number

NAME_MAX = 24  # names in history fields: keeps ten games inside one embed


def value_text(metric: str, value: float, lang: str) -> str:
    """A metric's value as `lang` writes it: counts and scores whole, the others with two
    decimals (132,00 in ru and ro; one minus sign everywhere, as render's `number`)."""
    if metric in ("wins", "best", "daily", "rating", "tournaments"):
        return number(round(value), lang)
    text = decimal(abs(value), lang, 2)
    if text.strip("0.,") == "":
        return text
    if value < 0:
        return MINUS + text
    return ("+" if metric == "net" else "") + text


def metric_name(metric: str, lang: str) -> str:
    return t(f"leaderboard.metric_{metric}", lang)


def scope_name(rules: str | None, lang: str) -> str:
    return rules_name(rules, lang) if rules else t("leaderboard.all_rules", lang)


def spread(sigma: float, lang: str) -> str:
    """One standard deviation of a rating on the shown scale."""
    return number(round(SCALE * sigma), lang)


def _line(row: BoardLine, metric: str, lang: str, *, me: bool = False) -> str:
    common = {
        "rank": row.rank,
        "member": safe(row.name),
        "value": value_text(metric, row.value, lang),
        "n": row.games,
    }
    if metric == "daily":
        text = t("leaderboard.line_daily", lang, streak=round(row.extra or 0), **common)
    elif metric == "rating":
        text = t("leaderboard.line_rating", lang, spread=spread(row.extra or 0.0, lang), **common)
    elif metric == "tournaments":
        text = t("leaderboard.line_tournaments", lang, finals=round(row.extra or 0), **common)
    else:
        text = t("leaderboard.line", lang, **common)
    return f"**{text}**" if me else text


def board_embed(
    board: BoardPage, member_id: int, lang: str, *, season: str | None = None
) -> Embed:
    """A leaderboard page; its lines carry the names as shown (a computer level's too).
    `season`: the season it is of, as named (None: seasons are off)."""
    embed = Embed(
        title=t(
            "leaderboard.title",
            lang,
            metric=metric_name(board.metric, lang),
            scope=scope_name(board.rules, lang),
        ),
        colour=GOLD,
    )
    if not board.lines and board.metric == "skill" and board.has_games:
        embed.description = t("leaderboard.empty_skill", lang, n=SKILL_MIN_GAMES)
    elif not board.lines:
        embed.description = t("leaderboard.empty", lang)
    else:
        lines = [_line(x, board.metric, lang, me=x.player_id == member_id) for x in board.lines]
        if board.me is not None and all(x.player_id != member_id for x in board.lines):
            lines += ["…", _line(board.me, board.metric, lang, me=True)]
        elif board.me is None:
            lines += ["", t("leaderboard.not_ranked", lang)]
        embed.description = "\n".join(lines)
    footer = t("leaderboard.footer", lang, page=board.page + 1, pages=board.pages, n=board.ranked)
    if board.metric == "skill":
        footer += " · " + t("leaderboard.skill_note", lang, n=SKILL_MIN_GAMES)
    elif board.metric in ("daily", "rating", "tournaments"):
        footer += " · " + t(f"leaderboard.{board.metric}_note", lang)
    embed.footer = f"{season} · {footer}" if season else footer
    return embed


# --- stats --------------------------------------------------------------------------------


def stats_block(s: MemberStats, rating: StoredRating | None, lang: str) -> str:
    skill = (
        t("stats.skill_value", lang, value=decimal(s.skill, lang, 2), n=s.analysed)
        if s.skill is not None
        else t("stats.skill_none", lang)
    )
    text = t(
        "stats.block",
        lang,
        games=s.games,
        wins=s.wins,
        rate=percent(s.wins / s.games if s.games else 0, lang),
        average=value_text("average", s.average, lang),
        best=number(s.best, lang),
        net=value_text("net", s.net, lang),
        skill=skill,
    )
    return text + "\n" + rating_text(rating, lang)


def rating_text(rating: StoredRating | None, lang: str) -> str:
    if rating is None:
        return t("stats.rating_none", lang)
    return t("stats.rating", lang, value=value_text("rating", rating.ordinal, lang),
             spread=spread(rating.sigma, lang), n=rating.games)  # fmt: skip


def daily_text(blocks: Sequence[DailyStats], lang: str) -> str:
    lines = []
    for b in blocks:
        label = t("stats.overall", lang) if b.rules is None else rules_name(b.rules, lang)
        numbers = t("stats.daily_block", lang, played=b.played, wins=b.wins,
                    streak=b.best_streak, best=number(b.best, lang))  # fmt: skip
        lines.append(f"**{label}** · {numbers}")
    return "\n".join(lines)


def stats_embed(  # noqa: PLR0913 - each part of a member's stats, by kind
    name: str,
    blocks: Sequence[MemberStats],
    lang: str,
    daily: Sequence[DailyStats] = (),
    ratings: Mapping[str, StoredRating] | None = None,
    tournaments: TournamentStats | None = None,
) -> Embed:
    """The member's table games (overall, then per rule set) with their rating in each
    scope (`ratings`: by rule set, OVERALL for every rule set) and a daily dice line."""
    embed = Embed(title=t("stats.title", lang, name=safe(name)), colour=BLURPLE)
    rated = ratings or {}
    for s in blocks:
        label = t("stats.overall", lang) if s.rules is None else rules_name(s.rules, lang)
        embed.add_field(label, stats_block(s, rated.get(s.rules or OVERALL), lang))
    if daily:
        embed.add_field(t("stats.daily_title", lang), daily_text(daily, lang))
    if tournaments is not None and tournaments.played:
        best = "—" if tournaments.best_place is None else number(tournaments.best_place, lang)
        embed.add_field(t("stats.tournaments_title", lang), t(
            "stats.tournaments_block", lang, played=number(tournaments.played, lang),
            wins=number(tournaments.wins, lang), finals=number(tournaments.finals, lang),
            best=best))
    return embed


# --- history ------------------------------------------------------------------------------


NAME_STEPS = (NAME_MAX, 16, 10, 6)  # shorter names until a page of games fits one embed


def _short(name: str, limit: int) -> str:
    return safe(cut(name, limit))


def history_embed(
    entries: Sequence[tuple[FinishedGame, str]], page: int, pages: int, lang: str
) -> Embed:
    """A page of finished games (each with its jump link), every game of the page shown:
    names are shortened as far as needed (ten 8-way ties of 32-character names fit
    Discord's 6,000 characters)."""
    embed = Embed(title=t("history.title", lang), colour=DARK_TEAL)
    if not entries:
        embed.description = t("history.empty", lang)
        return embed
    embed.footer = t("history.footer", lang, page=page + 1, pages=pages)
    for limit in NAME_STEPS:
        embed.fields = [_history_field(entry, link, limit, lang) for entry, link in entries]
        if length(embed.to_dict()) >= _raw_length(embed):  # nothing had to be cut
            break
    return embed


def _history_field(entry: FinishedGame, link: str, limit: int, lang: str) -> Field:
    seats = [(r.name, r.total, r.rank) for r in entry.results]  # seat order
    ranked = sorted(enumerate(seats), key=lambda x: (x[1][2], x[0]))
    winners = ", ".join(_short(n, limit) for n, _, rank in seats if rank == 1) or "—"
    scores = ", ".join(f"{_short(n, limit)} {number(total, lang)}" for _, (n, total, _) in ranked)
    return Field(
        t("history.game", lang, id=entry.game.id, rules=rules_name(entry.game.rules, lang)),
        t(
            "history.entry",
            lang,
            date=f"<t:{int(entry.finished_at.timestamp())}:f>",
            winner=winners,
            scores=scores or "—",
            link=link,
        ),
    )


def _raw_length(embed: Embed) -> int:
    """The embed's length before `to_dict` shortens anything."""
    fields = sum(len(f.name) + len(f.value) for f in embed.fields)
    return len(embed.title or "") + len(embed.footer or "") + fields


# --- settings -----------------------------------------------------------------------------


def duration_text(seconds: int, lang: str) -> str:
    """"1 hour 30 minutes", "5 минут": each unit in the language's own plural form."""
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    parts = [
        t(f"duration.{unit}", lang, n=count)
        for unit, count in (("hours", hours), ("minutes", minutes), ("seconds", secs))
        if count
    ]
    return " ".join(parts) or t("duration.seconds", lang, n=0)


def scorecards_key(value: str) -> str:
    """The catalog key naming a value of the `scorecards` setting, on the card and in the
    command's choices: "turn", the default, is every turn but every round at a big table
    (`Match.shows_scorecard`), said so."""
    return "scorecards.turn" if value == "turn" else f"settings.scorecards_{value}"


def settings_rows(settings: GuildSettings, lang: str) -> list[tuple[str, str, str]]:
    """(key, label, value) of every setting, as `lang` names them."""

    def yes_no(key: str, flag: bool) -> str:  # each its own words: agreement (ro permiși)
        return t(f"settings.{key}_{'yes' if flag else 'no'}", lang)

    rules = settings.default_rules
    language = settings.language
    rows = [
        ("default_rules", rules_name(rules, lang) if rules else t("settings.rules_default", lang)),
        ("turn_timeout", duration_text(settings.turn_timeout, lang)),
        ("bots", yes_no("bots", settings.bots_allowed)),
        ("hints", yes_no("hints", settings.hints_allowed)),
        ("images", yes_no("images", settings.images)),
        ("scorecards", t(scorecards_key(settings.scorecards), lang)),
        ("season", t(f"season.mode_{settings.season}", lang)),
        (
            "season_channel",
            f"<#{settings.season_channel}>"
            if settings.season_channel
            else t("settings.season_channel_none", lang),
        ),
        (
            "language",
            t(f"commands.choices.{language}", lang)
            if language
            else t("settings.language_auto", lang),
        ),
    ]
    return [(key, t(f"settings.{key}", lang), value) for key, value in rows]


def settings_embed(settings: GuildSettings, lang: str, *, changed_by: str | None = None) -> Embed:
    title = t(
        "settings.changed" if changed_by else "settings.title",
        lang,
        name=safe(changed_by or ""),
    )
    embed = Embed(title=title, colour=DARK_GREY)
    for _, label, value in settings_rows(settings, lang):
        embed.add_field(label, value, inline=True)
    return embed


def settings_line(settings: GuildSettings, changed: Iterable[str], by: str, lang: str) -> str:
    """The one public line a change of settings leaves in the channel: who changed what
    (`changed`: keys of `settings_rows`), and to what. `by` is a name as typed."""
    keys = set(changed)
    said = [f"{label}: {value}" for key, label, value in settings_rows(settings, lang)
            if key in keys]  # fmt: skip
    return t("settings.public.line", lang, name=safe(by), changes="; ".join(said))
