"""A daily's buttons and menu: the controls of a table's turn (hold, Roll, the record
menu, Pass in banked, Scorecard), in the daily's namespace; no Hint, no computer players.
Enabled from what the engine says can be done, as at a table."""

from __future__ import annotations

from typing import Any

import discord

from bot.engine import GameError
from bot.match import Match
from bot.render import card_embed
from cogs._edge import reply_language, to_discord
from cogs.play._views import TurnControls, turn_controls

from ._controls import DailyControl, DailyDeps, control, custom_id, template


@control("hold")
class HoldButton(DailyControl, template=template("hold")):
    async def run(
        self, interaction: discord.Interaction[Any], deps: DailyDeps, match: Match
    ) -> None:
        user_id, position = interaction.user.id, self.die()
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
        row = self.chosen()
        if row is None:
            raise GameError("errors.stale")
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


DAILY_TURN = TurnControls(custom_id, HoldButton, RollButton, PassButton, CardButton, ScoreSelect)


def daily_view(match: Match, lang: str) -> discord.ui.View:
    """A table turn's controls in the daily's namespace, without the Hint."""
    return turn_controls(match, lang, DAILY_TURN)
