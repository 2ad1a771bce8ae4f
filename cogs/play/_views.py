"""The lobby's and the turn's controls (`…Button`, `…Select`) and the views that hold them.

Each control asks the table (`Match`) for the change and the service for the rest: the
rules live in the match and the engine, and a button is enabled from what the engine
says can be done (`can_hold`, `can_roll`, `can_pass`), never from raw state.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import discord

from bot.engine import GameError
from bot.i18n import t
from bot.match import COMPUTER_LEVELS, MAX_SEATS, Match
from bot.render import card_embed, option_label
from cogs._edge import (
    check_permissions,
    is_manager,
    reply_language,
    shown_name,
    to_discord,
)
from cogs._ids import VERSION_MAX, small_int

from ._controls import (
    Control,
    PlayDeps,
    control,
    custom_id,
    template,
    unstored,
)

DIE_STYLE = discord.ButtonStyle.secondary
HELD_STYLE = discord.ButtonStyle.success
HELD_MARK = "🔒"
REMOVE = "remove"  # the computer-seat select's value prefix that removes a seat


# --- the lobby ------------------------------------------------------------------------
# Lobby controls are not versioned: two people pressing Join at once should both get in.
# Once the lobby has started or closed, its buttons are out of date.


@control("join")
class JoinButton(Control, template=template("join")):
    versioned = False

    async def run(
        self, interaction: discord.Interaction[Any], deps: PlayDeps, match: Match
    ) -> None:
        user = interaction.user
        await self.apply(interaction, deps, lambda m: m.join(user.id, shown_name(user)))


@control("leave")
class LeaveLobbyButton(Control, template=template("leave")):
    versioned = False

    async def run(
        self, interaction: discord.Interaction[Any], deps: PlayDeps, match: Match
    ) -> None:
        user_id = interaction.user.id
        await self.apply(interaction, deps, lambda m: m.leave_lobby(user_id))


@control("start")
class StartButton(Control, template=template("start")):
    versioned = False

    async def run(
        self, interaction: discord.Interaction[Any], deps: PlayDeps, match: Match
    ) -> None:
        check_permissions(interaction)
        user_id, dice, now = interaction.user.id, deps.dice, deps.service.clock()
        await self.apply(interaction, deps, lambda m: m.start(user_id, dice, now))


@control("cancel")
class CancelButton(Control, template=template("cancel")):
    versioned = False

    async def run(
        self, interaction: discord.Interaction[Any], deps: PlayDeps, match: Match
    ) -> None:
        user_id, manager = interaction.user.id, is_manager(interaction, match.guild_id)
        await self.apply(interaction, deps, lambda m: m.cancel(user_id, manager=manager))


@control("addbot")
class ComputerSelect(Control, template=template("addbot")):
    """The host's select: add a computer player of the chosen level, or remove one."""

    versioned = False  # like Join: lobby controls stay valid while the lobby is open

    async def run(
        self, interaction: discord.Interaction[Any], deps: PlayDeps, match: Match
    ) -> None:
        choice = self.chosen() or ""
        user_id = interaction.user.id
        if choice in COMPUTER_LEVELS:
            if (
                match.guild_id is not None
                and not (await deps.store.guild_settings(match.guild_id)).bots_allowed
            ):
                raise GameError("bots.not_allowed")
            check_permissions(interaction)
            await self.apply(interaction, deps, lambda m: m.add_computer(user_id, choice))
            if choice == "perfect":  # start loading its table while the lobby fills
                deps.solutions.get(match.rules)
            return
        seat = (
            small_int(choice.removeprefix(REMOVE), 1, VERSION_MAX)  # ids only grow: one per add
            if choice.startswith(REMOVE)
            else None
        )
        if seat is None:
            raise GameError("errors.stale")
        await self.apply(interaction, deps, lambda m: m.remove_computer(user_id, -seat))


def computer_select(match: Match) -> discord.ui.Item[Any] | None:
    """A level to add (while a seat is free), a computer seat to remove (value
    `remove<n>` for seat -n); None when it would be empty."""
    lang, g, v = match.lang, match.id, match.version
    options = []
    if len(match.seats) < MAX_SEATS:
        options += [
            discord.SelectOption(
                label=t(f"bots.level_{level}", lang),
                value=level,
                description=t(f"bots.describe_{level}", lang)[:100],
            )
            for level in COMPUTER_LEVELS
        ]
    options += [
        discord.SelectOption(
            label=t("bots.remove", lang, name=s.name)[:100], value=f"{REMOVE}{-s.user_id}"
        )
        for s in match.seats
        if s.is_bot
    ]
    if not options:
        return None
    select: discord.ui.Select[Any] = discord.ui.Select(
        placeholder=t("bots.add", lang),
        custom_id=custom_id("addbot", g, v),
        options=options,  # at most 3 levels + 7 computer seats: under Discord's 25
        row=1,
    )
    return ComputerSelect(select, g, v)


def lobby_view(match: Match, *, computers: bool = True) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    lang, g, v = match.lang, match.id, match.version
    for cls, key, style in (
        (JoinButton, "join", discord.ButtonStyle.success),
        (LeaveLobbyButton, "leave", discord.ButtonStyle.secondary),
        (StartButton, "start", discord.ButtonStyle.primary),
        (CancelButton, "cancel", discord.ButtonStyle.danger),
    ):
        button: discord.ui.Button[Any] = discord.ui.Button(
            label=t(f"lobby.{key}", lang), style=style, custom_id=custom_id(key, g, v), row=0
        )
        view.add_item(cls(button, g, v))
    select = computer_select(match) if computers else None
    if select is not None:
        view.add_item(select)
    return unstored(view)


# --- the turn -------------------------------------------------------------------------


@control("hold")
class HoldButton(Control, template=template("hold")):
    async def run(
        self, interaction: discord.Interaction[Any], deps: PlayDeps, match: Match
    ) -> None:
        user_id, position = interaction.user.id, self.die()
        await self.apply(interaction, deps, lambda m: m.toggle_hold(user_id, position))


@control("roll")
class RollButton(Control, template=template("roll")):
    async def run(
        self, interaction: discord.Interaction[Any], deps: PlayDeps, match: Match
    ) -> None:
        user_id, dice = interaction.user.id, deps.dice
        await self.apply(interaction, deps, lambda m: m.roll(user_id, dice))


@control("score")
class ScoreSelect(Control, template=template("score")):
    async def run(
        self, interaction: discord.Interaction[Any], deps: PlayDeps, match: Match
    ) -> None:
        row = self.chosen()
        if row is None:
            raise GameError("errors.stale")
        check_permissions(interaction)
        user_id = interaction.user.id
        await self.apply(interaction, deps, lambda m: m.score(user_id, row))


@control("pass")
class PassButton(Control, template=template("pass")):
    async def run(
        self, interaction: discord.Interaction[Any], deps: PlayDeps, match: Match
    ) -> None:
        check_permissions(interaction)
        user_id = interaction.user.id
        await self.apply(interaction, deps, lambda m: m.pass_turn(user_id))


@control("card")
class CardButton(Control, template=template("card")):
    """Read-only: the clicker's full card (or the current player's), privately."""

    versioned = False

    async def run(
        self, interaction: discord.Interaction[Any], deps: PlayDeps, match: Match
    ) -> None:
        game = match.require_game()
        player = str(interaction.user.id)
        if player not in game.players:
            player = game.player if not game.finished else game.players[0]
        lang = reply_language(interaction)
        embed = card_embed(game, player, match.names, match.id, lang)
        await interaction.response.send_message(embed=to_discord(embed), ephemeral=True)


@dataclass(frozen=True)
class TurnControls:
    """The ids and control classes of a turn's message: a table's, or a daily's (which
    has its own namespace and no Hint); each class is built as `(item, game, version[, arg])`."""

    custom_id: Callable[..., str]
    hold: Callable[..., discord.ui.Item[Any]]
    roll: Callable[..., discord.ui.Item[Any]]
    passing: Callable[..., discord.ui.Item[Any]]
    card: Callable[..., discord.ui.Item[Any]]
    score: Callable[..., discord.ui.Item[Any]]


TABLE_TURN = TurnControls(custom_id, HoldButton, RollButton, PassButton, CardButton, ScoreSelect)


def turn_view(match: Match, *, hint: discord.ui.Item[Any] | None = None) -> discord.ui.View:
    """A table's turn: its controls in the game's language, with the Hint when given."""
    return turn_controls(match, match.lang, TABLE_TURN, hint=hint)


def turn_controls(
    match: Match, lang: str, kinds: TurnControls, *, hint: discord.ui.Item[Any] | None = None
) -> discord.ui.View:
    """Five dice (tap to hold), Roll, [Pass], Scorecard, [Hint], and the select of rows,
    each enabled from what the engine says the player can do now."""
    game = match.require_game()
    g, v, ids = match.id, match.version, kinds.custom_id
    player = game.player
    view = discord.ui.View(timeout=None)
    for pos in range(5):
        held = pos in game.held
        die: discord.ui.Button[Any] = discord.ui.Button(
            label=str(game.dice[pos]) if game.dice else t("turn.die_unthrown", lang),
            emoji=HELD_MARK if held else None,
            style=HELD_STYLE if held else DIE_STYLE,
            custom_id=ids("hold", g, v, pos),
            disabled=not game.can_hold(player, pos),
            row=0,
        )
        view.add_item(kinds.hold(die, g, v, str(pos)))
    roll: discord.ui.Button[Any] = discord.ui.Button(
        label=t("turn.roll", lang),
        style=discord.ButtonStyle.primary,
        custom_id=ids("roll", g, v),
        disabled=not game.can_roll(player),
        row=1,
    )
    view.add_item(kinds.roll(roll, g, v))
    if game.can_pass(player):
        passing: discord.ui.Button[Any] = discord.ui.Button(
            label=t("turn.pass", lang),
            style=discord.ButtonStyle.danger,
            custom_id=ids("pass", g, v),
            row=1,
        )
        view.add_item(kinds.passing(passing, g, v))
    card: discord.ui.Button[Any] = discord.ui.Button(
        label=t("turn.card", lang),
        style=discord.ButtonStyle.secondary,
        custom_id=ids("card", g, v),
        row=1,
    )
    view.add_item(kinds.card(card, g, v))
    if hint is not None:
        view.add_item(hint)
    options = game.options()
    if options:
        select: discord.ui.Select[Any] = discord.ui.Select(
            placeholder=t("turn.select", lang),
            custom_id=ids("score", g, v),
            options=[
                discord.SelectOption(label=option_label(o, game.rules, lang), value=o.row)
                for o in options[:25]
            ],
            row=2,
        )
        view.add_item(kinds.score(select, g, v))
    return unstored(view)
