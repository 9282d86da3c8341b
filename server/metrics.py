"""Counters for operators and benchmarks, served at /metrics (Prometheus text).

Kept in their own registry so tests and several servers in one process do
not collide on the global one.
"""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, generate_latest

REGISTRY = CollectorRegistry(auto_describe=True)

MOVES_ACCEPTED = Counter("patience_moves_accepted", "Moves accepted and stored", registry=REGISTRY)
MOVES_REJECTED = Counter("patience_moves_rejected", "Moves refused, by error code", ["code"],
                         registry=REGISTRY)
MOVE_ROUND_TRIPS = Counter("patience_move_redis_round_trips",
                           "Redis round trips spent on the move hot path (one per pipeline)",
                           registry=REGISTRY)
CONNECTIONS = Gauge("patience_connections", "Open websocket connections", registry=REGISTRY)


def render() -> bytes:
    return generate_latest(REGISTRY)
