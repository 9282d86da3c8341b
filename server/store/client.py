"""The redis-py client for every path but the two hot ones: one server, or a
Redis Cluster from seed URLs (``REDIS_CLUSTER=1``)."""

from __future__ import annotations

from typing import cast
from urllib.parse import urlsplit

from redis.asyncio import BlockingConnectionPool, Redis
from redis.asyncio.cluster import ClusterNode, RedisCluster


def seed_nodes(urls: str) -> list[ClusterNode]:
    """``redis://host:port`` seeds, comma-separated; any one reachable node will do."""
    nodes = []
    for url in (u.strip() for u in urls.split(",")):
        if url:
            parts = urlsplit(url)
            nodes.append(ClusterNode(parts.hostname or "localhost", parts.port or 6379))
    if not nodes:
        raise ValueError("REDIS_CLUSTER=1 needs at least one redis://host:port in REDIS_URL")
    return nodes


def open_client(url: str, cluster: bool = False) -> Redis:
    if not cluster:
        pool = BlockingConnectionPool.from_url(url, max_connections=64, timeout=5,
                                               socket_timeout=5, socket_connect_timeout=2)
        return Redis(connection_pool=pool)
    first = urlsplit(url.split(",")[0].strip())
    client = RedisCluster(startup_nodes=seed_nodes(url), username=first.username,
                          password=first.password, socket_timeout=5, socket_connect_timeout=2,
                          max_connections=64)
    # The cluster client answers every command the store sends (single-slot scripts,
    # per-key pipelines, PUBLISH, INFO); the store is typed against the plain client,
    # and the hot paths tell the two apart at run time (server/store/router.py).
    return cast(Redis, client)
