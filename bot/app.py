"""The wiring: opens the store, builds the services every feature shares, loads the
features (discord.py extensions, by name: nothing here imports a cog), syncs commands.
Nothing else lives here."""

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
from bot.metrics import SAVE_SECONDS
from bot.service import Pictures, ServerSettings, Services, SolutionCache
from bot.settings import Settings
from db import GameStore, open_store

log = logging.getLogger(__name__)

# The features, loaded by name in this order (each package's `setup(bot)` builds it on
# `bot.services` and adds its cog and its `/poker` subcommands), then the command tree's
# shared parts: the translator and the one error handler.
EXTENSIONS = (
    "cogs.play", "cogs.league", "cogs.admin", "cogs.daily", "cogs.tournament", "cogs._tree",
)
TREE_COG = "Commands"  # the edge's cog (cogs._tree) that answers the command tree's errors


class PokerTree(app_commands.CommandTree["DicePokerBot"]):
    """The command tree's one error handler: the Discord edge answers (the `cogs._tree`
    extension's cog); until it is loaded, discord.py logs."""

    async def on_error(
        self, interaction: discord.Interaction[DicePokerBot], error: app_commands.AppCommandError
    ) -> None:
        answer = getattr(self.client.get_cog(TREE_COG), "on_tree_error", None)
        if answer is None:
            await super().on_error(interaction, error)
            return
        await answer(interaction, error)


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
        self.services: Services | None = None  # what every feature is built on
        self.health: HealthServer | None = None
        self.collections: FullCollections | None = None
        self._controls: set[type[discord.ui.DynamicItem[Any]]] = set()

    # The features' controls, known here so that a click none of them answers is answered
    # (by the edge: cogs._tree listens to every interaction).
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

    @property
    def play(self) -> object:
        """The play feature's dependencies (`cogs.play.PlayDeps`: tests and tools read
        `bot.play.service`), once its extension is loaded."""
        return self.services.features.get("play") if self.services else None

    @property
    def daily(self) -> object:
        """The daily feature's dependencies (`cogs.daily.DailyDeps`), once loaded."""
        return self.services.features.get("daily") if self.services else None

    async def setup_hook(self) -> None:
        settings = self.settings
        store = self.store = self.store or await open_store(settings.store_url)
        services = self.services = Services(
            store,
            ServerSettings(store),
            SolutionCache(settings.strategy_dir),
            self.dice,
            discord.utils.utcnow,
            shards=settings.shards,
            on_save=SAVE_SECONDS.observe,
            bot_pause=settings.bot_pause,
            daily_secret=settings.daily_secret_bytes,
            pictures=Pictures(settings.picture_workers),
        )
        for name in EXTENSIONS:
            await self.load_extension(name)
        # The picture workers now (their forkserver loads the fonts, about a second once
        # per process): the first picture then waits for no start-up.
        services.pictures.prestart()
        if settings.metrics_port:
            self.health = HealthServer(self, store, services)
            await self.health.start(settings.metrics_port, settings.metrics_host)
        if settings.precompute_tables:
            # Hints, perfect computer players, the timer and the analysis then find their
            # table without anyone asking first (a worker process computes the missing ones).
            services.solutions.precompute()
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

    async def close(self) -> None:
        try:
            await super().close()  # removes the cogs: their observers and timers stop
        finally:
            if self.health is not None:
                await self.health.stop()
            if self.collections is not None:
                self.collections.stop()
            if self.services is not None:
                self.services.solutions.close()
                await self.services.pictures.close()
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
