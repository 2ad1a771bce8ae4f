"""METRICS_PORT: each process serves Prometheus metrics and /healthz on loopback.

Two processes (each holding half the shards, in one interpreter here) serve their own
gauges on their own ports: active games, overdue deadlines, each shard's latency and
connection; the counters and histograms (interactions by control and outcome, click
latency, store transaction seconds) are the interpreter's. /healthz is ready only while
every shard the process holds is connected and the database answers.
"""

from __future__ import annotations

import socket
from typing import Any

import aiohttp
from prometheus_client.parser import text_string_to_metric_families

from tests.cogs.drive import click_snapshot, controls, open_game, snapshot, turn_message
from tests.multi.worlds import World, layout


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def get(port: int, path: str) -> tuple[int, str]:
    async with aiohttp.ClientSession() as http, http.get(f"http://127.0.0.1:{port}{path}") as r:
        return r.status, await r.text()


async def scrape(port: int) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    status, text = await get(port, "/metrics")
    assert status == 200
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def value(samples: dict[Any, float], name: str, **labels: str) -> float:
    """A sample's value; a labelled counter never incremented has no sample: 0."""
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


async def test_each_process_serves_its_metrics_and_health(bot_factory) -> None:
    ports = free_port(), free_port()
    where = layout(1, 3)
    async with (
        World.open(bot_factory("0-1", metrics_port=ports[0]), where, name="a") as a,
        World.open(bot_factory("2-3", metrics_port=ports[1]), where, name="b") as b,
    ):
        before = await scrape(ports[0])

        async def play(w: World) -> None:
            table = w.tables[0]
            await open_game(table.channel, table.ann, [table.bob])
            turn = turn_message(table.channel)
            old = snapshot(w.env, turn)
            roll = controls(old)["roll"]["custom_id"]
            player = next(m for m in table.members.values() if str(m.id) in turn.content)
            await click_snapshot(player, old, roll)  # applied
            await click_snapshot(player, old, roll)  # the same message again: stale
            w.env.bot.get_cog("Play").timers.stop()  # nothing plays the turn: it stays due

        await a.do(play)
        await a.advance(301)
        after = await scrape(ports[0])
        for outcome in ("applied", "stale"):
            name, labels = "dicepoker_interactions_total", {"control": "roll", "outcome": outcome}
            assert value(after, name, **labels) == value(before, name, **labels) + 1
        assert value(after, "dicepoker_click_seconds_count", control="roll") >= 2
        assert value(after, "dicepoker_store_save_seconds_count") > 0
        assert value(after, "dicepoker_active_games") == 1
        assert value(after, "dicepoker_overdue_deadlines") == 1
        for shard in ("0", "1"):
            assert value(after, "dicepoker_shard_connected", shard=shard) == 1
            assert value(after, "dicepoker_shard_latency_seconds", shard=shard) >= 0
        # The other process reports its own shards and games, on its own port.
        other = await scrape(ports[1])
        assert value(other, "dicepoker_active_games") == 0
        assert {labels for name, labels in other if name == "dicepoker_shard_connected"} == {
            (("shard", "2"),),
            (("shard", "3"),),
        }

        assert await get(ports[0], "/healthz") == (200, "ok\n")
        await a.do(lambda w: w.env.bot.get_shard(1).disconnect())
        status, text = await get(ports[0], "/healthz")
        assert (status, text) == (503, "shard 1 is not connected\n")
        assert value(await scrape(ports[0]), "dicepoker_shard_connected", shard="1") == 0
        await a.do(lambda w: w.env.bot.get_shard(1).reconnect())
        assert await get(ports[0], "/healthz") == (200, "ok\n")

        async def unanswered() -> int:
            raise OSError("connection refused")

        store = b.env.bot.store
        store.schema_version = unanswered  # the database stops answering b
        status, text = await get(ports[1], "/healthz")
        assert status == 503
        assert text == "the database does not answer (OSError)\n"
        del store.schema_version
        assert await get(ports[1], "/healthz") == (200, "ok\n")
    # Stopped with its process: nothing listens any more.
    for port in ports:
        with socket.socket() as s:
            assert s.connect_ex(("127.0.0.1", port)) != 0
