"""The tournament message's controls: the `tourn:` custom_id scheme, the feature's
dependencies, the Join / Leave / Start / Cancel buttons and the host's computer-player
select, and the view that carries them.

`tourn:<action>:<tournament>:<version>[:<arg>]`, like a lobby's: not versioned (two members
pressing Join at once both get in); every number is range-checked (`cogs._ids`), the
tournament must be this server's and channel's, and an id no control understands gets a
polite "out of date" (`unknown_control`). A click is acknowledged at once (opening a
round's threads and games takes longer than Discord waits), so a refusal comes after it,
privately.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import discord

from bot.engine import DiceSource, GameError
from bot.i18n import t
from bot.match import COMPUTER_LEVELS
from bot.match.tournament import MAX_PLAYERS, PLAYING, SIGNUP, Tournament
from bot.service import ServerSettings, Services, TournamentService, valid_id
from cogs._edge import check_permissions, guard, is_manager, reply_language, shown_name
from cogs._ids import VERSION_MAX, GameControl, IdScheme, registrar, small_int
from cogs._turn import unstored

PREFIX = "tourn"
FEATURE = "tournament"
REMOVE = "remove"  # the select's value prefix that removes a computer player


@dataclass(frozen=True)
class TournamentDeps:
    service: TournamentService
    settings: ServerSettings
    dice: DiceSource

    @staticmethod
    def of(client: discord.Client) -> TournamentDeps:
        return Services.of(client).feature(FEATURE, TournamentDeps)


IDS = IdScheme(PREFIX)
template = IDS.template
unknown_control = IDS.fallback
CONTROLS: dict[str, type[GameControl]] = {}
control = registrar(CONTROLS)


class Control(GameControl, template=r"tourn:(?!)"):
    """A control of one tournament's message; subclasses implement `run`."""

    versioned = False

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        deps = TournamentDeps.of(interaction.client)
        lang = reply_language(interaction)
        async with guard(interaction, lang, self.custom_id, control=f"tourn_{self.action}"):
            if not valid_id(self.game):
                raise GameError("errors.stale")
            tn = await deps.service.get(self.game)
            if (
                tn is None
                or tn.guild_id != interaction.guild_id
                or tn.channel_id != interaction.channel_id
            ):
                raise GameError("errors.stale")
            await self.run(interaction, deps, tn)

    async def run(
        self, interaction: discord.Interaction[Any], deps: TournamentDeps, tn: Tournament
    ) -> None:
        raise NotImplementedError

    async def change(
        self, interaction: discord.Interaction[Any], deps: TournamentDeps, change: Any
    ) -> Tournament:
        await interaction.response.defer()
        return await deps.service.apply(self.game, change)


def _manager(interaction: discord.Interaction[Any], tn: Tournament) -> bool:
    return is_manager(interaction, tn.guild_id)


@control("join")
class JoinButton(Control, template=template("join")):
    async def run(
        self, interaction: discord.Interaction[Any], deps: TournamentDeps, tn: Tournament
    ) -> None:
        user = interaction.user
        tn.verify_join(user.id)
        await self.change(interaction, deps, lambda x: x.join(user.id, shown_name(user)))


@control("leave")
class LeaveButton(Control, template=template("leave")):
    async def run(
        self, interaction: discord.Interaction[Any], deps: TournamentDeps, tn: Tournament
    ) -> None:
        user_id = interaction.user.id
        tn.verify_leave(user_id)
        await self.change(interaction, deps, lambda x: x.leave(user_id))


@control("start")
class StartButton(Control, template=template("start")):
    async def run(
        self, interaction: discord.Interaction[Any], deps: TournamentDeps, tn: Tournament
    ) -> None:
        by, manager = interaction.user.id, _manager(interaction, tn)
        tn.verify_start(by, manager=manager)
        check_permissions(interaction, threads=True)  # before anything changes
        await interaction.response.defer()
        await deps.service.start(self.game, by, manager=manager)


@control("cancel")
class CancelButton(Control, template=template("cancel")):
    async def run(
        self, interaction: discord.Interaction[Any], deps: TournamentDeps, tn: Tournament
    ) -> None:
        by, manager, now = interaction.user.id, _manager(interaction, tn), deps.service.clock()
        tn.verify_cancel(by, manager=manager)
        await self.change(interaction, deps, lambda x: x.cancel(by, now, manager=manager))


@control("addbot")
class ComputerSelect(Control, template=template("addbot")):
    """The host's select: add a computer player of the chosen level, or remove one."""

    async def run(
        self, interaction: discord.Interaction[Any], deps: TournamentDeps, tn: Tournament
    ) -> None:
        choice = self.chosen() or ""
        by = interaction.user.id
        if choice in COMPUTER_LEVELS:
            settings = await deps.settings.fresh(interaction.guild_id)
            allowed = tn.guild_id is None or settings.bots_allowed
            tn.verify_add_computer(by, choice, allowed=allowed)
            await self.change(interaction, deps,
                              lambda x: x.add_computer(by, choice, allowed=allowed))  # fmt: skip
            return
        seat = small_int(choice.removeprefix(REMOVE), 1, VERSION_MAX)
        entrant = tn.entrant(-seat) if seat is not None and choice.startswith(REMOVE) else None
        if entrant is None or not entrant.is_bot:
            raise GameError("errors.stale")
        manager = _manager(interaction, tn)
        tn.verify_remove(by, entrant.id, manager=manager)
        await self.change(interaction, deps,
                          lambda x: x.remove(by, entrant.id, manager=manager))  # fmt: skip


def _select(tn: Tournament) -> discord.ui.Item[Any] | None:
    lang = tn.lang
    options = []
    if len(tn.entrants) < MAX_PLAYERS:
        options += [
            discord.SelectOption(label=t(f"bots.level_{level}", lang), value=level,
                                 description=t(f"bots.describe_{level}", lang)[:100])
            for level in COMPUTER_LEVELS
        ]  # fmt: skip
    computers = [e for e in tn.entrants if e.is_bot]
    options += [
        discord.SelectOption(label=t("bots.remove", lang, name=e.name)[:100],
                             value=f"{REMOVE}{-e.id}")
        for e in computers[: 25 - len(options)]  # Discord's limit: 25 options
    ]  # fmt: skip
    if not options:
        return None
    select: discord.ui.Select[Any] = discord.ui.Select(
        placeholder=t("bots.add", lang), custom_id=IDS.custom_id("addbot", tn.id, tn.version),
        options=options, row=1,
    )  # fmt: skip
    return ComputerSelect(select, tn.id, tn.version)


def tournament_view(tn: Tournament, *, computers: bool = True) -> discord.ui.View | None:
    """The sign-up's buttons and select; once it plays, Leave and Cancel; then none."""
    if tn.status not in (SIGNUP, PLAYING):
        return None
    view = discord.ui.View(timeout=None)
    keys = ("join", "leave", "start", "cancel") if tn.status == SIGNUP else ("leave", "cancel")
    styles = {"join": discord.ButtonStyle.success, "leave": discord.ButtonStyle.secondary,
              "start": discord.ButtonStyle.primary, "cancel": discord.ButtonStyle.danger}
    for key in keys:
        button: discord.ui.Button[Any] = discord.ui.Button(
            label=t(f"lobby.{key}", tn.lang), style=styles[key], row=0,
            custom_id=IDS.custom_id(key, tn.id, tn.version),
        )  # fmt: skip
        view.add_item(CONTROLS[key](button, tn.id, tn.version))
    select = _select(tn) if computers and tn.status == SIGNUP else None
    if select is not None:
        view.add_item(select)
    return unstored(view)
