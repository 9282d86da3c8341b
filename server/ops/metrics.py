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

from .aio import Count

REGISTRY = CollectorRegistry(auto_describe=True)


class LoopCounter(Collector):
    """A counter bumped only on the event loop's thread: a plain integer (a
    compiled :class:`~server.ops.aio.Count`, bumped by compiled code without a
    Python call), read when /metrics is rendered (prometheus_client's Counter
    takes a lock and checks its argument on every ``inc``, once per move or
    per Redis batch on the hot path)."""

    def __init__(self, name: str, documentation: str, registry: CollectorRegistry,
                 count: Count | None = None) -> None:
        self.name, self.documentation = name, documentation
        self.count = Count() if count is None else count
        self.created = time.time()
        registry.register(self)

    @property
    def value(self) -> int:
        return self.count.value

    def inc(self) -> None:
        self.count.inc()

    def collect(self) -> Iterator[CounterMetricFamily]:
        yield CounterMetricFamily(self.name, self.documentation, value=self.count.value,
                                  created=self.created)


# the move path bumps these directly (server/rooms/play.py, server/store/rooms.py)
ACCEPTED = Count()
ROUND_TRIPS = Count()
MOVES_ACCEPTED = LoopCounter("patience_moves_accepted", "Moves accepted and stored", REGISTRY,
                             ACCEPTED)
MOVES_REJECTED = Counter("patience_moves_rejected", "Moves refused, by error code", ["code"],
                         registry=REGISTRY)
MOVE_ROUND_TRIPS = LoopCounter("patience_move_redis_round_trips",
                               "Redis round trips spent on the move hot path (one per pipeline)",
                               REGISTRY, ROUND_TRIPS)
API_ANSWERS = Counter("patience_api_answers", "Read API answers (server/api/), by HTTP status",
                      ["status"], registry=REGISTRY)
CONNECTIONS = Gauge("patience_connections", "Open websocket connections", registry=REGISTRY)


def render() -> bytes:
    return generate_latest(REGISTRY)
