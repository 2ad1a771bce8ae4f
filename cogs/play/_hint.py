"""The Hint button: perfect play for the player to move, answered only to them.

The answer names the best dice to hold (or the row to record), the expected final score
of the top three choices, and what the player's previous choice cost against perfect play
(read from the game's log in the store). The strategy table comes from the solution cache
without waiting: when it is not loaded yet the hint says so (and loading has started).
`banked` has no exact table: its hint is the computer player's documented policy.
"""

from __future__ import annotations

import asyncio
import random
from typing import Any

import discord

from bot.engine import Game, parse_action
from bot.i18n import t
from bot.match import Match
from bot.render.advice import Previous, banked_hint_embed, hint_embed, hint_not_ready
from bot.strategy import ValueTable, advise, choose, loss
from bot.strategy.analysis import last_decision
from cogs._edge import reply_language, to_discord

from ._controls import Control, PlayDeps, control, custom_id, template


def _previous(
    table: ValueTable, start: Game, log: list[dict[str, Any]], player: str
) -> Previous | None:
    found = last_decision(start, [parse_action(a) for a in log], player)
    if found is None:
        return None
    before, decision = found
    try:
        lost = loss(table, before, decision)
    except ValueError:  # a forced choice the table does not model
        return Previous(before, decision, None)
    better = advise(table, before, top=1).best.decision
    return Previous(before, decision, lost, better)


def answer(table: ValueTable, game: Game, log: list[dict[str, Any]], player: str, lang: str) -> Any:
    """The hint embed (computed in a worker thread: a long log is replayed)."""
    advice = advise(table, game)
    start = Game.new(game.rules, game.players)
    previous = _previous(table, start, log, player)
    choices = [(c.decision, c.expected) for c in advice.choices]
    return hint_embed(game, choices, previous, lang)


@control("hint")
class HintButton(Control, template=template("hint")):
    """Ephemeral perfect-play advice for the player to move."""

    versioned = False  # the hint reads the game as it is now

    async def run(
        self, interaction: discord.Interaction[Any], deps: PlayDeps
    ) -> None:
        match = await deps.read(interaction, self)
        game = match.verify_hint(interaction.user.id, await deps.settings.fresh(match.guild_id))
        lang = reply_language(interaction)
        if game.rules.banked:
            decision = choose("perfect", game, None, random.Random(game.seq))
            embed = banked_hint_embed(game, decision, lang)
        else:
            table = deps.solutions.get(game.rules.name)
            if table is None:
                text = hint_not_ready(game.rules.name, lang)
                await interaction.response.send_message(text, ephemeral=True)
                return
            log = await deps.store.actions(match.id)
            embed = await asyncio.to_thread(answer, table, game, log, game.player, lang)
        await interaction.response.send_message(embed=to_discord(embed), ephemeral=True)


def hint_button(match: Match) -> discord.ui.Item[Any]:
    """The turn message's Hint button (where `Match.hint_offered`)."""
    g, v = match.id, match.version
    button: discord.ui.Button[Any] = discord.ui.Button(
        label=t("hint.button", match.lang),
        emoji="💡",
        style=discord.ButtonStyle.secondary,
        custom_id=custom_id("hint", g, v),
        row=1,
    )
    return button  # drawn only: its clicks reach `HintButton` by the custom_id
