from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest
from redis.asyncio import Redis

from server.store.boards import BoardStore
from server.store.rooms import RoomStore
from tests.support.redis_server import redis_url


@pytest.fixture(scope="session")
def competition_redis_url() -> Iterator[str]:
    with redis_url() as url:
        yield url


@pytest.fixture
async def redis(competition_redis_url: str) -> AsyncIterator[Redis]:
    client = Redis.from_url(competition_redis_url)
    await client.flushdb()
    yield client
    await client.aclose()


@pytest.fixture
def rooms(redis: Redis) -> RoomStore:
    return RoomStore(redis, race_ms=60_000, countdown_ms=0)


@pytest.fixture
def boards(redis: Redis, rooms: RoomStore) -> BoardStore:
    return BoardStore(redis, rooms)
