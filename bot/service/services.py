"""What the wiring (`bot/app.py`) hands every feature: the store, the servers' settings,
the strategy tables, the pictures' workers, the dice and the clock, and a `GameService`
for each feature's kind of game, built on them with the feature's own publisher.

The features are discord.py extensions loaded by name; each one's `setup(bot)` finds these
on the bot (`Services.of(bot)`), so the wiring never imports a feature.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TypeVar

from bot.engine import DiceSource
from bot.records import Shards
from db import GameStore

from .games import GameService, Publisher, V
from .pictures import Pictures
from .settings import ServerSettings
from .solutions import SolutionCache

F = TypeVar("F")


@dataclass
class Services:
    store: GameStore
    settings: ServerSettings
    solutions: SolutionCache
    dice: DiceSource  # the tables' (a daily is thrown with its day's own dice)
    clock: Callable[[], datetime]
    shards: Shards | None = None
    on_save: Callable[[float], None] = lambda _seconds: None  # each save's seconds (metrics)
    bot_pause: float = 0.8  # seconds between a computer seat's visible steps
    daily_secret: bytes | None = None  # DAILY_SECRET, else the store keeps one
    # Where every picture is drawn (worker processes); the wiring closes it at stop.
    pictures: Pictures = field(default_factory=lambda: Pictures(0))
    games: list[GameService[Any]] = field(default_factory=list)  # every service built
    # Each feature's own dependencies, by name, where its controls find them.
    features: dict[str, object] = field(default_factory=dict)

    def game_service(self, publisher: Publisher[V], *, kind: str = "table") -> GameService[V]:
        """The service of one kind of game ("table", "daily"), showing through `publisher`."""
        service = GameService(
            self.store,
            publisher=publisher,
            clock=self.clock,
            settings=self.settings,
            shards=self.shards,
            on_save=self.on_save,
            kind=kind,
        )
        self.games.append(service)
        return service

    def table_games(self) -> GameService[Any]:
        """The table games' service (the play feature's, loaded first): a tournament's
        tables are its games."""
        found = next((s for s in self.games if s.kind == "table"), None)
        if found is None:
            raise RuntimeError("the table games' service is not built yet")
        return found

    def feature(self, name: str, kind: type[F]) -> F:
        """The dependencies the feature `name` put here (its controls' `Deps.of`)."""
        deps = self.features.get(name)
        if not isinstance(deps, kind):
            raise RuntimeError(f"the {name} feature is not wired into this client")
        return deps

    @staticmethod
    def of(client: object) -> Services:
        """The services the wiring put on `client` (a feature's `setup` reads them)."""
        found = getattr(client, "services", None)
        if not isinstance(found, Services):
            raise RuntimeError("the bot's services are not wired")
        return found
