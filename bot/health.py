"""`METRICS_PORT`: Prometheus metrics at /metrics and readiness at /healthz, on loopback.

/healthz answers 200 when every shard this process holds is connected and the database
answers, else 503 with what is wrong (a load balancer or an orchestrator waits for it).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
from collections.abc import Iterable

import discord
from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, generate_latest

from cogs._metrics import GameCollector, ShardCollector
from cogs.play import GameService
from db import GameStore

log = logging.getLogger(__name__)

HOST = "127.0.0.1"  # never reachable from outside the machine (or the container)
DB_TIMEOUT = 2.0


def shard_states(client: discord.Client) -> Iterable[tuple[int, float, bool]]:
    if isinstance(client, discord.AutoShardedClient):
        for shard_id, shard in client.shards.items():
            yield shard_id, shard.latency, not shard.is_closed()
        return
    latency = client.latency
    yield 0, latency if not math.isinf(latency) else float("nan"), client.is_ready()


class HealthServer:
    def __init__(self, client: discord.Client, store: GameStore, service: GameService) -> None:
        self.client = client
        self.store = store
        self.service = service
        self._runner: web.AppRunner | None = None
        self._collectors = [
            GameCollector(lambda: (m.due_at() for m in service.cached()), service.clock),
            ShardCollector(lambda: shard_states(client)),
        ]

    async def start(self, port: int) -> None:
        for collector in self._collectors:
            REGISTRY.register(collector)
        app = web.Application()
        app.router.add_get("/metrics", self._metrics)
        app.router.add_get("/healthz", self._healthz)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        await web.TCPSite(self._runner, HOST, port).start()
        log.info("metrics on http://%s:%s/metrics, health on /healthz", HOST, port)

    async def stop(self) -> None:
        for collector in self._collectors:
            with contextlib.suppress(KeyError):  # never registered: start() failed early
                REGISTRY.unregister(collector)
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def _metrics(self, _request: web.Request) -> web.Response:
        return web.Response(
            body=generate_latest(REGISTRY), headers={"Content-Type": CONTENT_TYPE_LATEST}
        )

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
