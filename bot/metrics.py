"""Prometheus metrics of the Discord edge (served by `bot/health.py` when METRICS_PORT is
set): interactions by control and outcome, click latency, the store's save time, active
games, overdue deadlines, each shard's latency and connection."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterable
from datetime import datetime

from prometheus_client import Counter, Histogram
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

OUTCOMES = ("applied", "refused", "stale", "failed")

INTERACTIONS = Counter(
    "dicepoker_interactions",
    "Interactions answered, by control (or command) and outcome",
    ["control", "outcome"],
)
CLICK_SECONDS = Histogram(
    "dicepoker_click_seconds",
    "From an interaction's arrival to its answer and the game's message shown",
    ["control"],
    buckets=(0.002, 0.005, 0.01, 0.015, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2.5),
)


@functools.cache  # the labels are bounded: the controls and commands by outcome
def _answered(control: str, outcome: str) -> tuple[Counter, Histogram]:
    return INTERACTIONS.labels(control, outcome), CLICK_SECONDS.labels(control)


def answered(control: str, outcome: str, seconds: float) -> None:
    """An interaction answered: counted and timed (each labelled child looked up once)."""
    count, latency = _answered(control, outcome)
    count.inc()
    latency.observe(seconds)


SAVE_SECONDS = Histogram(
    "dicepoker_store_save_seconds",
    "One change's store transaction (actions, snapshot, deadline, results)",
    buckets=(0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 1),
)


class GameCollector(Collector):
    """Active games and overdue deadlines of this process, read at each scrape."""

    def __init__(self, due_times: Callable[[], Iterable[datetime | None]],
                 clock: Callable[[], datetime]) -> None:  # fmt: skip
        self.due_times = due_times
        self.clock = clock

    def collect(self) -> Iterable[GaugeMetricFamily]:
        now = self.clock()
        due = list(self.due_times())
        yield GaugeMetricFamily(
            "dicepoker_active_games", "Lobbies and games in play held", len(due)
        )
        overdue = sum(1 for d in due if d is not None and d < now)
        yield GaugeMetricFamily(
            "dicepoker_overdue_deadlines", "Active games whose deadline has passed", overdue
        )


class ShardCollector(Collector):
    """Each held shard's gateway latency and whether it is connected."""

    def __init__(self, shards: Callable[[], Iterable[tuple[int, float, bool]]]) -> None:
        self.shards = shards

    def collect(self) -> Iterable[GaugeMetricFamily]:
        latency = GaugeMetricFamily(
            "dicepoker_shard_latency_seconds", "Gateway heartbeat latency", labels=["shard"]
        )
        up = GaugeMetricFamily("dicepoker_shard_connected", "1 when connected", labels=["shard"])
        for shard, seconds, connected in self.shards():
            latency.add_metric([str(shard)], 0.0 if math.isnan(seconds) else seconds)
            up.add_metric([str(shard)], 1.0 if connected else 0.0)
        yield latency
        yield up
