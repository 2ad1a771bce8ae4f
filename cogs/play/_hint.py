"""The Hint button: perfect play for the player to move, answered only to them.

The answer names the best dice to hold (or the row to record), the expected final score of
the top three choices, and what the player's previous choice cost against perfect play.
The strategy table comes from the service's `TableManager` without waiting: when it is not
loaded yet the hint says so (and loading has started). `banked` has no exact table: its hint
is the computer player's documented policy, without expected scores.
"""

from __future__ import annotations

import asyncio
import random
from typing import TYPE_CHECKING, Any

import discord

from bot.engine import Game
from bot.i18n import t
from bot.i18n.translator import reply_language
from bot.strategy import Decision, Hold, PassTurn, Record, advise, choose, loss
from bot.strategy.analysis import last_decision

from ._table import Refusal, Table
from ._views import Control, control, custom_id, template

if TYPE_CHECKING:
    from bot.strategy.tables import TableManager

    from ._service import GameService

HINT_COLOUR = discord.Colour.yellow()
BEST = 0.005  # a loss below this is rounding: the choice was the best one


async def hints_allowed(service: GameService, guild_id: int | None) -> bool:
    """The server's `hints` setting (on when the server never changed it)."""
    store = getattr(service.bot, "store", None)
    if store is None or guild_id is None:
        return True
    settings = await store.guild_settings(guild_id)
    return bool(getattr(settings, "hints_allowed", True))


async def follow_setting(service: GameService, settings: Any | None = None) -> None:
    """Make the Hint button of the games in play follow the server's current setting.

    The service keeps one flag per game (set at its start) so that drawing a turn message
    reads no setting; this refreshes the flags at start-up (hints turned off while the bot
    was down) and after `/poker settings hints:` (`settings`: that server's new settings).
    Each message follows at its next redraw: the next click, or `/poker resume`."""
    allowed: dict[int | None, bool] = {}
    if settings is not None:
        allowed[settings.guild_id] = bool(getattr(settings, "hints_allowed", True))
    for table in service.active_tables():
        if table.status != "playing":
            continue
        if settings is not None and table.guild_id != settings.guild_id:
            continue
        if table.guild_id not in allowed:  # one read per server
            allowed[table.guild_id] = await hints_allowed(service, table.guild_id)
        service._hints[table.id] = allowed[table.guild_id]


def describe(decision: Decision, game: Game, lang: str) -> str:
    """A decision in words, for the dice `game` shows."""
    if isinstance(decision, Record):
        return t("hint.record", lang, row=t(f"rows.{decision.row}", lang))
    if isinstance(decision, PassTurn):
        return t("hint.pass", lang)
    if not game.dice:
        return t("hint.throw", lang)
    assert isinstance(decision, Hold)
    if not decision.positions:
        return t("hint.reroll_all", lang)
    dice = " ".join(str(game.dice[p]) for p in sorted(decision.positions))
    if len(decision.positions) == len(game.dice):
        return t("hint.hold_all", lang, dice=dice)
    return t("hint.hold", lang, dice=dice)


def hint_embed(tables: TableManager, game: Game, player: str, lang: str) -> discord.Embed | str:
    """The hint for `player` (who is to move), or a line saying why there is none yet."""
    name = game.rules.name
    if game.rules.banked:
        decision = choose("perfect", game, None, random.Random(game.version))
        embed = discord.Embed(
            title=t("hint.title", lang), description=describe(decision, game, lang)
        )
        embed.colour = HINT_COLOUR
        embed.set_footer(text=t("hint.banked", lang))
        return embed
    table = tables.get(name)
    if table is None:
        return t("hint.not_ready", lang, rules=t(f"commands.choices.{name}", lang))
    advice = advise(table, game)
    best = advice.best
    embed = discord.Embed(
        title=t("hint.title", lang),
        description=t("hint.best", lang, choice=describe(best.decision, game, lang)),
        colour=HINT_COLOUR,
    )
    lines = [
        t(
            "hint.choice",
            lang,
            n=i,
            choice=describe(c.decision, game, lang),
            expected=f"{c.expected:.1f}",
        )
        for i, c in enumerate(advice.choices, 1)
    ]
    embed.add_field(name=t("hint.top", lang), value="\n".join(lines)[:1024], inline=False)
    embed.add_field(
        name=t("hint.previous", lang), value=_previous(table, game, player, lang), inline=False
    )
    embed.set_footer(text=t("hint.footer", lang))
    return embed


def _previous(table: Any, game: Game, player: str, lang: str) -> str:
    found = last_decision(game, player)
    if found is None:
        return t("hint.no_previous", lang)
    before, decision = found
    choice = describe(decision, before, lang)
    try:
        lost = loss(table, before, decision)
    except ValueError:  # a forced choice the table does not model
        return t("hint.previous_unjudged", lang, choice=choice)
    if lost < BEST:
        return t("hint.previous_best", lang, choice=choice)
    better = describe(advise(table, before, top=1).best.decision, before, lang)
    return t("hint.previous_cost", lang, choice=choice, points=f"{lost:.2f}", best=better)


@control("hint")
class HintButton(Control, template=template("hint")):
    """Ephemeral perfect-play advice for the player to move."""

    versioned = False  # the hint reads the game as it is now

    async def run(self, interaction: discord.Interaction, service: GameService) -> None:
        table = await service.get(self.game)
        if table is None or table.status != "playing" or table.game is None:
            raise Refusal("errors.stale")
        game = table.game
        player = str(interaction.user.id)
        if player != game.player:
            raise Refusal("hint.not_your_turn", name=table.name_of(game.player))
        if not await hints_allowed(service, table.guild_id):
            raise Refusal("hint.not_allowed")
        # A long game's log is replayed for the previous choice (~30 ms with 8 players).
        lang = reply_language(interaction)
        answer = await asyncio.to_thread(hint_embed, service.tables, game, player, lang)
        if isinstance(answer, str):
            await interaction.response.send_message(answer, ephemeral=True)
        else:
            await interaction.response.send_message(embed=answer, ephemeral=True)


def hint_button(table: Table) -> discord.ui.Item[Any] | None:
    """The turn message's Hint button (none on a computer seat's turn)."""
    if table.status != "playing" or table.current_id is None:
        return None
    seat = table.seat(table.current_id)
    if seat is not None and seat.is_bot:
        return None
    g, v = table.id, table.version
    button: discord.ui.Button[Any] = discord.ui.Button(
        label=t("hint.button", table.lang),
        emoji="💡",
        style=discord.ButtonStyle.secondary,
        custom_id=custom_id("hint", g, v),
        row=1,
    )
    return HintButton(button, g, v)
