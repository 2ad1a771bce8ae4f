"""`METRICS_PORT`: Prometheus metrics at /metrics and readiness at /healthz, on loopback.

/healthz answers 200 when every shard this process holds is connected and the database
answers, else 503 with what is wrong (an orchestrator waits for it in a rolling deploy
before stopping the old process). /metrics serves the process-wide counters and histograms
(`bot.metrics`) and this bot's gauges, read at each scrape; the gauges live in a
registry of the server's own, so two bots in one interpreter (tests) never clash.
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import Callable, Iterable
from datetime import datetime

import discord
from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, CollectorRegistry, generate_latest

from bot.metrics import GameCollector, ShardCollector
from bot.service import Services
from db import GameStore

log = logging.getLogger(__name__)

HOST = "127.0.0.1"  # the default (METRICS_HOST): never reachable from outside the machine
DB_TIMEOUT = 2.0


def shard_states(client: discord.Client) -> Iterable[tuple[int, float, bool]]:
    """(shard id, heartbeat latency or NaN, connected) of every shard the client should
    hold: one it has not connected yet counts as not connected."""
    if isinstance(client, discord.AutoShardedClient):
        held = client.shards
        wanted = client.shard_ids if client.shard_ids is not None else sorted(held)
        for shard_id in wanted:
            shard = held.get(shard_id)
            if shard is None:
                yield shard_id, float("nan"), False
            else:
                yield shard_id, _seconds(shard.latency), not shard.is_closed()
        return
    yield 0, _seconds(client.latency), client.is_ready() and not client.is_closed()


def _seconds(latency: float) -> float:
    return latency if math.isfinite(latency) else float("nan")  # inf before a heartbeat


def table_deadlines(services: Services) -> Callable[[], Iterable[datetime | None]]:
    """The deadlines of the table games this process holds (a daily has none)."""

    def due() -> Iterable[datetime | None]:
        for service in services.games:
            if service.kind == "table":
                yield from (m.due_at() for m in service.cached())

    return due


class HealthServer:
    def __init__(self, client: discord.Client, store: GameStore, services: Services) -> None:
        self.client = client
        self.store = store
        self._runner: web.AppRunner | None = None
        self._registry = CollectorRegistry(auto_describe=True)
        self._registry.register(GameCollector(table_deadlines(services), services.clock))
        self._registry.register(ShardCollector(lambda: shard_states(client)))

    async def start(self, port: int, host: str = HOST) -> None:
        app = web.Application()
        app.router.add_get("/metrics", self._metrics)
        app.router.add_get("/healthz", self._healthz)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        await web.TCPSite(self._runner, host, port).start()
        log.info("metrics on http://%s:%s/metrics, health on /healthz", host, port)

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def _metrics(self, _request: web.Request) -> web.Response:
        body = generate_latest(REGISTRY) + generate_latest(self._registry)
        return web.Response(body=body, headers={"Content-Type": CONTENT_TYPE_LATEST})

    async def _healthz(self, _request: web.Request) -> web.Response:
        problems = [
            f"shard {s} is not connected" for s, _, up in shard_states(self.client) if not up
        ]
        try:
            await asyncio.wait_for(self.store.schema_version(), DB_TIMEOUT)
        except Exception as exc:  # any failure means: not ready
            problems.append(f"the database does not answer ({type(exc).__name__})")
        if problems:
            return web.Response(status=503, text="; ".join(problems) + "\n")
        return web.Response(text="ok\n")
