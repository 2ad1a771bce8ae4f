"""Buttons and the select: `DynamicItem`s whose custom_id carries the game and version.

`poker:<action>:<game>:<version>[:<arg>]` — a click on any old message (even after a
restart) reaches the right game; a click whose version is not the table's is refused as
out of date. One class per action, kept in `CONTROLS` (register new ones with
`@control("hint")`: the cog registers everything in the registry in `cog_load`).
"""

from __future__ import annotations

import logging
import re
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

import discord
from discord.ext import commands

from bot import render
from bot.i18n import t
from bot.i18n.translator import reply_language

from ._table import Refusal, Table

if TYPE_CHECKING:
    from ._service import GameService

log = logging.getLogger(__name__)

PREFIX = "poker"
DIE_STYLE = discord.ButtonStyle.secondary
HELD_STYLE = discord.ButtonStyle.success
HELD_MARK = "🔒"


def template(action: str) -> str:
    return rf"{PREFIX}:{action}:(?P<game>\d+):(?P<v>\d+)(?::(?P<arg>\w+))?"


def custom_id(action: str, game: int, version: int, arg: object | None = None) -> str:
    tail = "" if arg is None else f":{arg}"
    return f"{PREFIX}:{action}:{game}:{version}{tail}"


def version_shown(message: Any, game: int) -> int | None:
    """The state version a game message's controls carry (None: no controls of `game`)."""
    for row in getattr(message, "components", None) or ():
        for item in getattr(row, "children", ()):
            parts = (getattr(item, "custom_id", None) or "").split(":")
            if len(parts) >= 4 and parts[0] == PREFIX and parts[2] == str(game):
                return int(parts[3]) if parts[3].isascii() and parts[3].isdigit() else None
    return None


def unstored(view: discord.ui.View) -> discord.ui.View:
    """A view discord.py will not keep per message: the registered DynamicItems answer
    its clicks, so a stored copy per turn message would only grow memory forever."""
    view.stop()
    return view


CONTROLS: dict[str, type[Control]] = {}
C = TypeVar("C", bound="type[Control]")


def control(action: str) -> Callable[[C], C]:
    """Register a control class under its action name."""

    def register(cls: C) -> C:
        cls.action = action
        CONTROLS[action] = cls
        return cls

    return register


def service_of(client: discord.Client) -> GameService:
    cog = client.get_cog("Play") if isinstance(client, commands.Bot) else None
    if cog is None:
        raise RuntimeError("the play cog is not loaded")
    service: GameService = cog.service  # type: ignore[attr-defined]
    return service


async def reply(interaction: discord.Interaction, text: str, **kwargs: Any) -> None:
    """An ephemeral answer, whether or not the interaction was already answered."""
    if interaction.response.is_done():
        await interaction.followup.send(text, ephemeral=True, **kwargs)
    else:
        await interaction.response.send_message(text, ephemeral=True, **kwargs)


@asynccontextmanager
async def guard(interaction: discord.Interaction, lang: str, context: str) -> AsyncIterator[None]:
    """Turn refusals and failures into an ephemeral answer: never "interaction failed"."""
    from ._service import MissingPermissions  # noqa: PLC0415 - the service imports us

    try:
        yield
    except Refusal as refusal:
        await reply(interaction, t(refusal.key, lang, **refusal.values))
    except MissingPermissions as missing:
        names = ", ".join(t(f"permissions.{p}", lang) for p in missing.permissions)
        await reply(interaction, t("errors.missing_permissions", lang, permissions=names))
    except Exception:
        log.exception(
            "%s failed (user %s, channel %s)",
            context,
            interaction.user.id,
            interaction.channel_id,
        )
        try:
            await reply(interaction, t("errors.internal", lang))
        except discord.HTTPException:
            log.exception("could not tell the user about the failure of %s", context)
    else:
        if not interaction.response.is_done():
            await interaction.response.defer()


def check_permissions(interaction: discord.Interaction) -> None:
    """Refuse before changing anything when the bot could not post the result."""
    from ._service import MissingPermissions, missing_permissions  # noqa: PLC0415

    missing = missing_permissions(interaction.app_permissions, interaction.channel)
    if missing:
        raise MissingPermissions(missing)


class Control(discord.ui.DynamicItem[Any], template=r"poker:(?!)"):
    """The base of every poker control; subclasses set `action` and implement `run`."""

    action: ClassVar[str] = ""
    versioned: ClassVar[bool] = True  # False: valid as long as the game is active

    def __init__(self, item: Any, game: int, version: int, arg: str | None = None) -> None:
        super().__init__(item)
        self.game = game
        self.version = version
        self.arg = arg

    @classmethod
    async def from_custom_id(
        cls, _interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> Control:
        return cls(item, int(match["game"]), int(match["v"]), match["arg"])

    async def callback(self, interaction: discord.Interaction) -> None:
        service = service_of(interaction.client)
        # Refusals are ephemeral: in the clicker's language, not the game's.
        async with guard(interaction, reply_language(interaction), self.custom_id):
            await self.run(interaction, service)

    async def run(self, interaction: discord.Interaction, service: GameService) -> None:
        raise NotImplementedError

    async def apply(
        self,
        interaction: discord.Interaction,
        service: GameService,
        change: Callable[[Table], Table],
    ) -> Table:
        return await service.apply(
            self.game,
            change,
            version=self.version if self.versioned else None,
            interaction=interaction,
        )


# --- the lobby ------------------------------------------------------------------------
# Lobby controls are not versioned: two people pressing Join at once should both get in.
# Once the lobby has started or closed, its buttons are out of date.


@control("join")
class Join(Control, template=template("join")):
    versioned = False

    async def run(self, interaction: discord.Interaction, service: GameService) -> None:
        user = interaction.user
        await self.apply(interaction, service, lambda tb: tb.join(user.id, shown_name(user)))


@control("leave")
class LeaveLobby(Control, template=template("leave")):
    versioned = False

    async def run(self, interaction: discord.Interaction, service: GameService) -> None:
        user_id = interaction.user.id
        await self.apply(interaction, service, lambda tb: tb.leave_lobby(user_id))


@control("start")
class Start(Control, template=template("start")):
    versioned = False

    async def run(self, interaction: discord.Interaction, service: GameService) -> None:
        check_permissions(interaction)
        user_id, dice = interaction.user.id, service.bot.dice
        now = discord.utils.utcnow().isoformat()
        await self.apply(interaction, service, lambda tb: tb.start(user_id, dice, now))


@control("cancel")
class Cancel(Control, template=template("cancel")):
    versioned = False

    async def run(self, interaction: discord.Interaction, service: GameService) -> None:
        user_id, manager = interaction.user.id, is_manager(interaction)
        await self.apply(interaction, service, lambda tb: tb.cancel(user_id, manager=manager))


def shown_name(user: discord.abc.User) -> str:
    """A member's name as the game shows it: markdown in names must not restyle embeds."""
    return discord.utils.escape_markdown(user.display_name)


def is_manager(interaction: discord.Interaction) -> bool:
    user = interaction.user
    return isinstance(user, discord.Member) and user.guild_permissions.manage_guild


# --- the turn -------------------------------------------------------------------------


@control("hold")
class Hold(Control, template=template("hold")):
    async def run(self, interaction: discord.Interaction, service: GameService) -> None:
        if self.arg is None or not (self.arg.isascii() and self.arg.isdigit()):
            raise Refusal("errors.stale")
        user_id, position = interaction.user.id, int(self.arg)
        await self.apply(interaction, service, lambda tb: tb.toggle_hold(user_id, position))


@control("roll")
class Roll(Control, template=template("roll")):
    async def run(self, interaction: discord.Interaction, service: GameService) -> None:
        user_id, dice = interaction.user.id, service.bot.dice
        await self.apply(interaction, service, lambda tb: tb.roll(user_id, dice))


@control("score")
class ScoreSelect(Control, template=template("score")):
    async def run(self, interaction: discord.Interaction, service: GameService) -> None:
        values = getattr(self.item, "values", None) or []
        if len(values) != 1:
            raise Refusal("errors.stale")
        check_permissions(interaction)
        user_id, row = interaction.user.id, values[0]
        await self.apply(interaction, service, lambda tb: tb.score(user_id, row))


@control("pass")
class PassTurn(Control, template=template("pass")):
    async def run(self, interaction: discord.Interaction, service: GameService) -> None:
        check_permissions(interaction)
        user_id = interaction.user.id
        await self.apply(interaction, service, lambda tb: tb.pass_turn(user_id))


@control("card")
class CardButton(Control, template=template("card")):
    """Read-only: the clicker's full card (or the current player's), ephemeral."""

    versioned = False

    async def run(self, interaction: discord.Interaction, service: GameService) -> None:
        table = await service.get(self.game)
        if table is None or table.game is None:
            raise Refusal("errors.stale")
        game = table.game
        player = str(interaction.user.id)
        if player not in game.players:
            player = game.player if not game.finished else game.players[0]
        lang = reply_language(interaction)
        embed = render.card_embed(game, player, table.names, table.id, lang)
        await interaction.response.send_message(embed=embed, ephemeral=True)


# --- builders ---------------------------------------------------------------------------


def lobby_view(table: Table) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    lang, g, v = table.lang, table.id, table.version
    for cls, key, style in (
        (Join, "join", discord.ButtonStyle.success),
        (LeaveLobby, "leave", discord.ButtonStyle.secondary),
        (Start, "start", discord.ButtonStyle.primary),
        (Cancel, "cancel", discord.ButtonStyle.danger),
    ):
        button: discord.ui.Button[Any] = discord.ui.Button(
            label=t(f"lobby.{key}", lang), style=style, custom_id=custom_id(key, g, v), row=0
        )
        view.add_item(cls(button, g, v))
    from ._bots import add_bot_select  # noqa: PLC0415 - _bots builds on this module

    add = add_bot_select(table)
    if add is not None:
        view.add_item(add)
    return unstored(view)


def turn_view(table: Table, *, hints: bool = True) -> discord.ui.View:
    """Five dice (hold toggles), Roll, [Pass], Scorecard, [Hint], and the select of rows."""
    game = table.require_game()
    lang, g, v = table.lang, table.id, table.version
    view = discord.ui.View(timeout=None)
    can_hold = bool(game.dice) and game.throws_left() > 0
    for pos in range(5):
        held = pos in game.held
        label = str(game.dice[pos]) if game.dice else t("turn.die_unthrown", lang)
        die: discord.ui.Button[Any] = discord.ui.Button(
            label=label,
            emoji=HELD_MARK if held else None,
            style=HELD_STYLE if held else DIE_STYLE,
            custom_id=custom_id("hold", g, v, pos),
            disabled=not can_hold,
            row=0,
        )
        view.add_item(Hold(die, g, v, str(pos)))
    left = game.throws_left()
    roll: discord.ui.Button[Any] = discord.ui.Button(
        label=t("turn.roll", lang, left=left) if left else t("turn.roll_none", lang),
        style=discord.ButtonStyle.primary,
        custom_id=custom_id("roll", g, v),
        disabled=left == 0,
        row=1,
    )
    view.add_item(Roll(roll, g, v))
    if game.rules.banked:
        passing: discord.ui.Button[Any] = discord.ui.Button(
            label=t("turn.pass", lang),
            style=discord.ButtonStyle.danger,
            custom_id=custom_id("pass", g, v),
            row=1,
        )
        view.add_item(PassTurn(passing, g, v))
    card: discord.ui.Button[Any] = discord.ui.Button(
        label=t("turn.card", lang),
        style=discord.ButtonStyle.secondary,
        custom_id=custom_id("card", g, v),
        row=1,
    )
    view.add_item(CardButton(card, g, v))
    if hints:
        from ._hint import hint_button  # noqa: PLC0415 - _hint builds on this module

        hint = hint_button(table)
        if hint is not None:
            view.add_item(hint)
    options = game.options()
    if options:
        select: discord.ui.Select[Any] = discord.ui.Select(
            placeholder=t("turn.select", lang),
            custom_id=custom_id("score", g, v),
            options=[
                discord.SelectOption(label=render.option_label(o, game.rules, lang), value=o.row)
                for o in options[:25]
            ],
            row=2,
        )
        view.add_item(ScoreSelect(select, g, v))
    return unstored(view)
