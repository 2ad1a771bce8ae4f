"""A daily's buttons and menu: the controls of a table's turn (hold, Roll, the record
menu, Pass in banked, Scorecard), in the daily's namespace; no Hint, no computer players.
Enabled from what the engine says can be done, as at a table."""

from __future__ import annotations

from typing import Any

import discord

from bot.engine import GameError
from bot.i18n import t
from bot.match import Match
from bot.render import card_embed, option_label
from cogs._edge import reply_language, to_discord
from cogs.play._controls import small_int, unstored
from cogs.play._views import DIE_STYLE, HELD_MARK, HELD_STYLE

from ._controls import DailyControl, DailyDeps, control, custom_id, template


@control("hold")
class HoldButton(DailyControl, template=template("hold")):
    async def run(
        self, interaction: discord.Interaction[Any], deps: DailyDeps, match: Match
    ) -> None:
        position = small_int(self.arg, 0, 4)
        if position is None:
            raise GameError("errors.stale")
        user_id = interaction.user.id
        await self.apply(interaction, deps, lambda m: m.toggle_hold(user_id, position))


@control("roll")
class RollButton(DailyControl, template=template("roll")):
    async def run(
        self, interaction: discord.Interaction[Any], deps: DailyDeps, match: Match
    ) -> None:
        assert match.day is not None
        dice = await deps.dailies.dice(match.day, match.rules)
        user_id = interaction.user.id
        await self.apply(interaction, deps, lambda m: m.roll(user_id, dice))


@control("score")
class ScoreSelect(DailyControl, template=template("score")):
    async def run(
        self, interaction: discord.Interaction[Any], deps: DailyDeps, match: Match
    ) -> None:
        values = getattr(self.item, "values", None) or []
        if len(values) != 1:
            raise GameError("errors.stale")
        row = values[0]
        user_id = interaction.user.id
        await self.apply(interaction, deps, lambda m: m.score(user_id, row))


@control("pass")
class PassButton(DailyControl, template=template("pass")):
    async def run(
        self, interaction: discord.Interaction[Any], deps: DailyDeps, match: Match
    ) -> None:
        user_id = interaction.user.id
        await self.apply(interaction, deps, lambda m: m.pass_turn(user_id))


@control("card")
class CardButton(DailyControl, template=template("card")):
    """Read-only: the member's full card, privately."""

    versioned = False

    async def run(
        self, interaction: discord.Interaction[Any], deps: DailyDeps, match: Match
    ) -> None:
        game = match.require_game()
        lang = reply_language(interaction)
        embed = card_embed(game, game.players[0], match.names, match.id, lang)
        await interaction.response.send_message(embed=to_discord(embed), ephemeral=True)


def daily_view(match: Match, lang: str) -> discord.ui.View:
    """Five dice (tap to hold), Roll, [Pass], Scorecard, and the menu of rows."""
    game = match.require_game()
    g, v = match.id, match.version
    player = game.player
    view = discord.ui.View(timeout=None)
    for pos in range(5):
        held = pos in game.held
        die: discord.ui.Button[Any] = discord.ui.Button(
            label=str(game.dice[pos]) if game.dice else t("turn.die_unthrown", lang),
            emoji=HELD_MARK if held else None,
            style=HELD_STYLE if held else DIE_STYLE,
            custom_id=custom_id("hold", g, v, pos),
            disabled=not game.can_hold(player, pos),
            row=0,
        )
        view.add_item(HoldButton(die, g, v, str(pos)))
    roll: discord.ui.Button[Any] = discord.ui.Button(
        label=t("turn.roll", lang),
        style=discord.ButtonStyle.primary,
        custom_id=custom_id("roll", g, v),
        disabled=not game.can_roll(player),
        row=1,
    )
    view.add_item(RollButton(roll, g, v))
    if game.can_pass(player):
        passing: discord.ui.Button[Any] = discord.ui.Button(
            label=t("turn.pass", lang),
            style=discord.ButtonStyle.danger,
            custom_id=custom_id("pass", g, v),
            row=1,
        )
        view.add_item(PassButton(passing, g, v))
    card: discord.ui.Button[Any] = discord.ui.Button(
        label=t("turn.card", lang),
        style=discord.ButtonStyle.secondary,
        custom_id=custom_id("card", g, v),
        row=1,
    )
    view.add_item(CardButton(card, g, v))
    options = game.options()
    if options:
        select: discord.ui.Select[Any] = discord.ui.Select(
            placeholder=t("turn.select", lang),
            custom_id=custom_id("score", g, v),
            options=[
                discord.SelectOption(label=option_label(o, game.rules, lang), value=o.row)
                for o in options[:25]
            ],
            row=2,
        )
        view.add_item(ScoreSelect(select, g, v))
    return unstored(view)
