"""A private Redis, emptied before each test, so a test may compare the whole
store before and after a refusal; the moderation service built on it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from redis.asyncio import Redis

from server.ops.config import Settings
from server.rooms.moderation import Moderation
from server.rooms.service import RoomService
from tests.support.redis_server import redis_url
from tests.support.servers import txt
from tests.support.storeview import on_their_clock


class Clock:
    def __init__(self) -> None:
        self.now = 1_790_000_000_000  # 2026-09-21, mid-month: no season turns under a test

    def __call__(self) -> int:
        return self.now


@pytest.fixture(scope="session")
def moderation_redis_url() -> Iterator[str]:
    with redis_url() as url:
        yield url


@pytest.fixture
async def redis(moderation_redis_url: str) -> AsyncIterator[Redis]:
    client = Redis.from_url(moderation_redis_url)
    await client.flushdb()
    yield client
    await client.aclose()


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def service(redis: Redis, clock: Clock) -> RoomService:
    return RoomService(Settings(secret="s3cret"), redis, clock)


@pytest.fixture
def mod(service: RoomService) -> Moderation:
    return service.moderation


async def snapshot(redis: Redis) -> dict[bytes, Any]:
    """Every key with its value (streams entry by entry) and whether it expires."""
    out: dict[bytes, Any] = {}
    async for key in redis.scan_iter(count=1000):
        kind = txt(await redis.type(key))
        if kind == "none" or on_their_clock(txt(key)):  # gone meanwhile, or written on a clock
            continue
        read = {"string": redis.get, "hash": redis.hgetall, "set": redis.smembers,
                "list": lambda k: redis.lrange(k, 0, -1),
                "zset": lambda k: redis.zrange(k, 0, -1, withscores=True),
                "stream": lambda k: redis.xrange(k)}
        out[key] = (kind, await read[kind](key), await redis.ttl(key) > 0)
    return out


async def claim(service: RoomService, name: str) -> str:
    """Claim ``name``; returns its key."""
    made = await service.competition.identity.claim(name, None, 30)
    assert made is not None
    return made[0]
