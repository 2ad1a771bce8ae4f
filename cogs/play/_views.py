"""The lobby's controls (`…Button`, `…Select`) and the views of a table's lobby and turn.

Each control asks the table (`Match`) for the change and the service for the rest: the
rules live in the match and the engine, and a button is enabled from what the engine
says can be done (`can_hold`, `can_roll`, `can_pass`), never from raw state. The turn's
controls are the family a table shares with the dailies (`cogs._turn`).
"""

from __future__ import annotations

from typing import Any

import discord

from bot.engine import GameError
from bot.i18n import t
from bot.match import COMPUTER_LEVELS, MAX_SEATS, Match
from cogs._edge import check_permissions, is_manager, shown_name
from cogs._ids import VERSION_MAX, small_int
from cogs._turn import family_view, unstored

from ._controls import TABLE_TURN, Control, PlayDeps, control, custom_id, template

REMOVE = "remove"  # the computer-seat select's value prefix that removes a seat


# --- the lobby ------------------------------------------------------------------------
# Lobby controls are not versioned: two people pressing Join at once should both get in.
# Once the lobby has started or closed, its buttons are out of date.


@control("join")
class JoinButton(Control, template=template("join")):
    versioned = False

    async def run(
        self, interaction: discord.Interaction[Any], deps: PlayDeps
    ) -> None:
        user = interaction.user
        await deps.change(interaction, self, lambda m: m.join(user.id, shown_name(user)))


@control("leave")
class LeaveLobbyButton(Control, template=template("leave")):
    versioned = False

    async def run(
        self, interaction: discord.Interaction[Any], deps: PlayDeps
    ) -> None:
        user_id = interaction.user.id
        await deps.change(interaction, self, lambda m: m.leave_lobby(user_id))


@control("start")
class StartButton(Control, template=template("start")):
    versioned = False

    async def run(
        self, interaction: discord.Interaction[Any], deps: PlayDeps
    ) -> None:
        user_id, dice, now = interaction.user.id, deps.dice, deps.service.clock()
        await deps.change(
            interaction, self, lambda m: m.start(user_id, dice, now), posts=True
        )


@control("cancel")
class CancelButton(Control, template=template("cancel")):
    versioned = False

    async def run(
        self, interaction: discord.Interaction[Any], deps: PlayDeps
    ) -> None:
        # Judged in the clicker's server, which the service checks is the game's.
        user_id, manager = interaction.user.id, is_manager(interaction, interaction.guild_id)
        await deps.change(
            interaction, self, lambda m: m.cancel(user_id, manager=manager)
        )


@control("addbot")
class ComputerSelect(Control, template=template("addbot")):
    """The host's select: add a computer player of the chosen level, or remove one."""

    versioned = False  # like Join: lobby controls stay valid while the lobby is open

    async def run(
        self, interaction: discord.Interaction[Any], deps: PlayDeps
    ) -> None:
        choice = self.chosen() or ""
        user_id = interaction.user.id
        if choice in COMPUTER_LEVELS:
            settings = await deps.settings.fresh(interaction.guild_id)

            def add(m: Match) -> Match:
                m.verify_computers(settings)  # the server's setting first
                check_permissions(interaction)
                return m.add_computer(user_id, choice)

            after = await deps.change(interaction, self, add)
            if choice == "perfect":  # start loading its table while the lobby fills
                deps.solutions.get(after.rules)
            return
        seat = (
            small_int(choice.removeprefix(REMOVE), 1, VERSION_MAX)  # ids only grow: one per add
            if choice.startswith(REMOVE)
            else None
        )
        if seat is None:
            raise GameError("errors.stale")
        await deps.change(interaction, self, lambda m: m.remove_computer(user_id, -seat))


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


def turn_view(match: Match, *, hint: discord.ui.Item[Any] | None = None) -> discord.ui.View:
    """A table's turn: its controls in the game's language, with the Hint when given."""
    return family_view(match, match.lang, TABLE_TURN, hint=hint)
