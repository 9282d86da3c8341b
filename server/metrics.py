"""Counters for operators and benchmarks, served at /metrics (Prometheus text).

Kept in their own registry so tests and several servers in one process do
not collide on the global one.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

from prometheus_client import CollectorRegistry, Counter, Gauge, generate_latest
from prometheus_client.core import CounterMetricFamily
from prometheus_client.registry import Collector

REGISTRY = CollectorRegistry(auto_describe=True)


class LoopCounter(Collector):
    """A counter bumped only on the event loop's thread: a plain integer, read
    when /metrics is rendered (prometheus_client's Counter takes a lock and
    checks its argument on every ``inc``, once per move on the hot path)."""

    def __init__(self, name: str, documentation: str, registry: CollectorRegistry) -> None:
        self.name, self.documentation = name, documentation
        self.value = 0
        self.created = time.time()
        registry.register(self)

    def inc(self) -> None:
        self.value += 1

    def collect(self) -> Iterator[CounterMetricFamily]:
        yield CounterMetricFamily(self.name, self.documentation, value=self.value,
                                  created=self.created)


MOVES_ACCEPTED = LoopCounter("patience_moves_accepted", "Moves accepted and stored", REGISTRY)
MOVES_REJECTED = Counter("patience_moves_rejected", "Moves refused, by error code", ["code"],
                         registry=REGISTRY)
MOVE_ROUND_TRIPS = Counter("patience_move_redis_round_trips",
                           "Redis round trips spent on the move hot path (one per pipeline)",
                           registry=REGISTRY)
CONNECTIONS = Gauge("patience_connections", "Open websocket connections", registry=REGISTRY)


def render() -> bytes:
    return generate_latest(REGISTRY)
