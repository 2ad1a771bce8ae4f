"""The wiring: opens the store, builds the game service and its publisher, adds the cogs,
syncs commands. Nothing else lives here."""

from __future__ import annotations

import logging
import secrets
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.engine import DiceSource
from bot.health import HealthServer
from bot.housekeeping import FullCollections
from bot.i18n import t
from bot.render.image import warm_up
from bot.settings import Settings
from cogs import admin, daily, league, play
from cogs._edge import reply, reply_language
from cogs._group import install, poker_group
from cogs._ids import answer_unclaimed
from cogs._metrics import SAVE_SECONDS
from cogs._translator import CatalogTranslator
from db import GameStore, open_store

log = logging.getLogger(__name__)


class PokerTree(app_commands.CommandTree["DicePokerBot"]):
    """The command tree's one error handler: log with context, answer ephemerally."""

    async def on_error(
        self, interaction: discord.Interaction[DicePokerBot], error: app_commands.AppCommandError
    ) -> None:
        command = interaction.command.qualified_name if interaction.command else "?"
        lang = reply_language(interaction)
        if isinstance(error, app_commands.BotMissingPermissions):
            names = ", ".join(_permission_name(p, lang) for p in error.missing_permissions)
            text = t(
                "errors.missing_permissions",
                lang,
                permissions=names,
                n=len(error.missing_permissions),
            )
        elif isinstance(error, app_commands.NoPrivateMessage):
            text = t("errors.dm_only", lang)
        else:
            log.error(
                "/%s failed (user %s, guild %s, channel %s)",
                command,
                interaction.user.id,
                interaction.guild_id,
                interaction.channel_id,
                exc_info=error,
            )
            text = t("errors.internal", lang)
        try:
            await reply(interaction, text)
        except discord.HTTPException:
            log.exception("could not answer the failed /%s", command)


def _permission_name(permission: str, lang: str) -> str:
    try:
        return t(f"permissions.{permission}", lang)
    except KeyError:
        return permission.replace("_", " ").title()


class DicePokerBot(commands.Bot):
    def __init__(
        self,
        settings: Settings,
        *,
        dice: DiceSource | None = None,
        store: GameStore | None = None,
        sync_globally: bool | None = None,
        **options: Any,
    ) -> None:
        # The bot has no voice: discord.py's warnings about voice libraries are noise.
        discord.VoiceClient.warn_nacl = False
        discord.VoiceClient.warn_dave = False
        # Game messages are edited by id and a click carries its message: the bot never
        # reads discord.py's message cache, which would hold the last 1,000 messages.
        options.setdefault("max_messages", None)
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=discord.Intents.default(),
            tree_cls=PokerTree,
            # Nobody is pinged unless a message names exactly whom it means to ping (the
            # player to move): user text can never mention anyone.
            allowed_mentions=discord.AllowedMentions.none(),
            help_command=None,
            **options,
        )
        self.settings = settings
        self.dice: DiceSource = dice if dice is not None else secrets.SystemRandom()
        # Production syncs to DEV_GUILD_ID here, globally only through `python -m bot sync`.
        # A bot built without a token runs in an offline harness (simcord, the tests, the
        # benchmark), which needs a synced tree to invoke commands: it syncs where it runs.
        if sync_globally is None:
            sync_globally = settings.discord_token is None and not settings.dev_guild_id
        self.sync_globally = sync_globally
        self.store: GameStore | None = store  # opened in setup_hook unless given
        self.play: play.PlayDeps | None = None
        self.daily: daily.DailyDeps | None = None
        self.health: HealthServer | None = None
        self.collections: FullCollections | None = None
        self._controls: set[type[discord.ui.DynamicItem[Any]]] = set()

    # The features' controls, known here so that a click none of them answers is answered.
    def add_dynamic_items(self, *items: type[discord.ui.DynamicItem[Any]]) -> None:
        super().add_dynamic_items(*items)
        self._controls.update(items)

    def remove_dynamic_items(self, *items: type[discord.ui.DynamicItem[Any]]) -> None:
        super().remove_dynamic_items(*items)
        self._controls.difference_update(items)

    @property
    def controls(self) -> frozenset[type[discord.ui.DynamicItem[Any]]]:
        """Every registered control class (each feature's, and its fallback)."""
        return frozenset(self._controls)

    async def on_interaction(self, interaction: discord.Interaction[Any]) -> None:
        await answer_unclaimed(interaction, self._controls)

    async def setup_hook(self) -> None:
        settings = self.settings
        store = self.store = self.store or await open_store(settings.store_url)
        solutions = play.SolutionCache(settings.strategy_dir)
        publisher = play.DiscordPublisher(self, store)
        service = play.GameService(
            store,
            dice=self.dice,
            clock=discord.utils.utcnow,
            settings=store,
            publisher=publisher,
            shards=settings.shards,
            on_save=SAVE_SECONDS.observe,
        )
        self.play = play.PlayDeps(
            service, store, solutions, self.dice, publisher, bot_pause=settings.bot_pause
        )
        self.daily = self._dailies(store, solutions)
        install(*play.COMMANDS, *league.COMMANDS, *admin.COMMANDS, *daily.COMMANDS)
        await self.add_cog(play.PlayCog(self, self.play, publisher))
        await self.add_cog(league.LeagueCog(self))
        await self.add_cog(admin.AdminCog(self))
        await self.add_cog(daily.DailyCog(self, self.daily))
        if self.tree.get_command(poker_group.name) is None:
            self.tree.add_command(poker_group)
        # Command names and descriptions in every catalog language, sent with each sync.
        await self.tree.set_translator(CatalogTranslator())
        # Load the picture fonts now: the first scorecard picture then takes no longer
        # than the others (once per process; later bots find them loaded).
        warm_up()
        if settings.metrics_port:
            self.health = HealthServer(self, store, service)
            await self.health.start(settings.metrics_port, settings.metrics_host)
        if settings.precompute_tables:
            # Hints, perfect computer players, the timer and the analysis then find their
            # table without anyone asking first (a worker process computes the missing ones).
            solutions.precompute()
        if settings.collect_between_clicks:
            self.collections = FullCollections()
            self.collections.start()  # last: what start-up made is frozen out of the GC
        if self.sync_globally:
            await self.tree.sync()
        elif settings.dev_guild_id:
            guild = discord.Object(settings.dev_guild_id)
            self.tree.copy_global_to(guild=guild)
            await self.tree.sync(guild=guild)
            log.info("commands synced to guild %s", settings.dev_guild_id)

    def _dailies(self, store: GameStore, solutions: play.SolutionCache) -> daily.DailyDeps:
        """The daily dice: a game service of their own kind, with its ephemeral publisher."""
        service = play.GameService(
            store,
            dice=self.dice,  # never thrown: a daily's dice are its day's (Match.roll)
            clock=discord.utils.utcnow,
            settings=store,
            publisher=daily.DailyPublisher(self),
            shards=self.settings.shards,
            on_save=SAVE_SECONDS.observe,
            kind="daily",
        )
        dailies = daily.Dailies(
            service, store, clock=discord.utils.utcnow, secret=self.settings.daily_secret_bytes
        )
        best = daily.BestScores(dailies, store)
        finisher = daily.DailyFinish(self, dailies, best, store, solutions)
        service.subscribe(finisher)
        return daily.DailyDeps(dailies, best, store, solutions, finisher)

    async def close(self) -> None:
        try:
            await super().close()  # removes the cogs: their observers and timers stop
        finally:
            if self.health is not None:
                await self.health.stop()
            if self.collections is not None:
                self.collections.stop()
            if self.play is not None:
                self.play.solutions.close()
            if self.store is not None:
                store, self.store = self.store, None
                await store.close()


class ShardedDicePokerBot(DicePokerBot, commands.AutoShardedBot):
    """The bot holding some of Discord's shards (SHARD_COUNT, SHARD_IDS or CLUSTER_*)."""


def create_bot(settings: Settings, **options: Any) -> DicePokerBot:
    """The bot the settings ask for: one shard, or the shards this process holds."""
    shards = settings.shards
    if shards is None:
        return DicePokerBot(settings, **options)
    return ShardedDicePokerBot(
        settings, shard_count=shards.count, shard_ids=sorted(shards.ids), **options
    )
