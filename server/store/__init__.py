"""Redis-backed storage for rooms and races."""

from server.store.embedded import (
    EmbeddedRedis,
    EmbeddedRedisError,
    RedisServerNotFound,
    find_redis_server,
    resolve_redis_url,
)

__all__ = [
    "EmbeddedRedis",
    "EmbeddedRedisError",
    "RedisServerNotFound",
    "find_redis_server",
    "resolve_redis_url",
]
