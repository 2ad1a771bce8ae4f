"""The one family of turn controls that a table's turn and a daily share: five dice (tap
to hold), Roll, Pass (banked), Scorecard and the menu of rows.

Each is written once here (`Hold`, `Roll`, `Pass`, `Card`, `Score`); a feature makes its
own family with `turn_family`, which gives each control the feature's custom_id prefix
and base (`FeatureControl`: how a click finds the feature's `Door`, the service and the
dice it plays with). A click asks the door once: the service loads the match, checks who
may reach it, its version, then applies the change; a read-only Scorecard reads it once.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, Protocol, TypeVar

import discord

from bot.engine import DiceSource, GameError
from bot.engine.daily import DailyDice
from bot.i18n import t
from bot.match import Match
from bot.render import card_embed, option_label
from bot.service import Change, valid_id

from ._edge import guard, reply_language, to_discord
from ._ids import GameControl, IdScheme

DIE_STYLE = discord.ButtonStyle.secondary
HELD_STYLE = discord.ButtonStyle.success
HELD_MARK = "🔒"


class Door(Protocol):
    """What a feature's controls ask of it (its dependencies implement it)."""

    async def change(
        self,
        interaction: discord.Interaction[Any],
        control: GameControl,
        change: Change,
        *,
        posts: bool = False,
    ) -> Match:
        """Apply `change` to the control's game at the control's version, as
        `interaction`'s member; `posts`: the change may post a message (the bot must be
        able to). Marks the control's `outcome` once stored."""
        ...

    async def read(self, interaction: discord.Interaction[Any], control: GameControl) -> Match:
        """The control's game, for a read-only control (refused like a change)."""
        ...

    def dice_of(self, match: Match) -> DiceSource | DailyDice:
        """What the match is thrown with (a table: the bot's dice; a daily: its day's)."""
        ...


D = TypeVar("D", bound=Door)


class FeatureControl(GameControl, Generic[D], template=r"(?!)"):
    """A control of one feature: finds the feature's door, guards the click, runs."""

    metric_prefix: ClassVar[str] = ""  # the feature's label prefix for the metrics

    @classmethod
    def door(cls, client: discord.Client) -> D:
        raise NotImplementedError

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        door = self.door(interaction.client)
        # Refusals are ephemeral: in the clicker's language, not the game's.
        lang = reply_language(interaction)
        label = f"{self.metric_prefix}{self.action}"
        async with guard(interaction, lang, self.custom_id, control=label) as self.outcome:
            if not valid_id(self.game) or self.version < 0:
                raise GameError("errors.stale")
            await self.run(interaction, door)

    async def run(self, interaction: discord.Interaction[Any], door: D) -> None:
        raise NotImplementedError


class Hold(FeatureControl[Door], template=r"(?!)"):
    async def run(
        self, interaction: discord.Interaction[Any], door: Door
    ) -> None:
        user_id, position = interaction.user.id, self.die()
        await door.change(interaction, self, lambda m: m.toggle_hold(user_id, position))


class Roll(FeatureControl[Door], template=r"(?!)"):
    async def run(
        self, interaction: discord.Interaction[Any], door: Door
    ) -> None:
        user_id = interaction.user.id
        await door.change(interaction, self, lambda m: m.roll(user_id, door.dice_of(m)))


class Score(FeatureControl[Door], template=r"(?!)"):
    async def run(
        self, interaction: discord.Interaction[Any], door: Door
    ) -> None:
        row = self.chosen()
        if row is None:
            raise GameError("errors.stale")
        user_id = interaction.user.id
        await door.change(interaction, self, lambda m: m.score(user_id, row), posts=True)


class Pass(FeatureControl[Door], template=r"(?!)"):
    async def run(
        self, interaction: discord.Interaction[Any], door: Door
    ) -> None:
        user_id = interaction.user.id
        await door.change(interaction, self, lambda m: m.pass_turn(user_id), posts=True)


class Card(FeatureControl[Door], template=r"(?!)"):
    """Read-only: the clicker's full card (or the player to move's), privately."""

    versioned = False

    async def run(
        self, interaction: discord.Interaction[Any], door: Door
    ) -> None:
        match = await door.read(interaction, self)
        game = match.require_game()
        lang = reply_language(interaction)
        embed = card_embed(game, match.card_player(interaction.user.id), match.names, match.id,
                           lang)  # fmt: skip
        await interaction.response.send_message(embed=to_discord(embed), ephemeral=True)


Make = Callable[..., discord.ui.Item[Any]]  # a control class, built as (item, game, version[, arg])


@dataclass(frozen=True)
class TurnControls:
    """A feature's family: its ids and its five control classes."""

    ids: IdScheme
    hold: Make
    roll: Make
    passing: Make
    card: Make
    score: Make


def turn_family(
    ids: IdScheme,
    base: type[FeatureControl[Any]],
    register: Callable[[str], Callable[[Any], Any]],
) -> TurnControls:
    """The five turn controls in `ids`' namespace on the feature's `base`, registered."""
    made: dict[str, Any] = {}
    for action, behaviour in (
        ("hold", Hold), ("roll", Roll), ("pass", Pass), ("card", Card), ("score", Score)
    ):  # fmt: skip
        name = f"{ids.prefix.title()}{behaviour.__name__}"
        kinds = {"template": ids.template(action)}
        made[action] = register(action)(types.new_class(name, (behaviour, base), kinds))
    return TurnControls(ids, made["hold"], made["roll"], made["pass"], made["card"], made["score"])


def unstored(view: discord.ui.View) -> discord.ui.View:
    """A view discord.py will not keep per message: the registered DynamicItems answer its
    clicks, so a stored copy per message would only grow memory."""
    view.stop()
    return view


def family_view(
    match: Match, lang: str, kinds: TurnControls, *, hint: discord.ui.Item[Any] | None = None
) -> discord.ui.View:
    """Five dice (tap to hold), Roll, [Pass], Scorecard, [Hint], and the select of rows,
    each enabled from what the engine says the player can do now. Plain items, not the
    feature's DynamicItems: the view is only drawn (`unstored`), its clicks reach the
    registered controls by their custom_id."""
    game = match.require_game()
    g, v, ids = match.id, match.version, kinds.ids.custom_id
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
        view.add_item(die)
    roll: discord.ui.Button[Any] = discord.ui.Button(
        label=t("turn.roll", lang),
        style=discord.ButtonStyle.primary,
        custom_id=ids("roll", g, v),
        disabled=not game.can_roll(player),
        row=1,
    )
    view.add_item(roll)
    if game.can_pass(player):
        passing: discord.ui.Button[Any] = discord.ui.Button(
            label=t("turn.pass", lang),
            style=discord.ButtonStyle.danger,
            custom_id=ids("pass", g, v),
            row=1,
        )
        view.add_item(passing)
    card: discord.ui.Button[Any] = discord.ui.Button(
        label=t("turn.card", lang),
        style=discord.ButtonStyle.secondary,
        custom_id=ids("card", g, v),
        row=1,
    )
    view.add_item(card)
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
        view.add_item(select)
    return unstored(view)
