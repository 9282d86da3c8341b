"""What one claimed name's friends, presence and challenge keys take in Redis
at their bounds (docs/design/friends.md, docs/reference/storage.md).

    python -m bench.friends_keys

Fills each key of one name to its bound through the store's own scripts (the
followers set directly: one follow per follower would be a thousand names'
writes), with names as long as a name may be, and prints what Redis says each
key takes (``MEMORY USAGE ... SAMPLES 0``). Runs on an embedded Redis of its
own, or ``$REDIS_URL``.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
from collections.abc import Awaitable
from pathlib import Path
from typing import Any

import redis.asyncio as aioredis

from server.store.embedded import EmbeddedRedis
from server.store.friends import (
    MAX_BLOCKS,
    MAX_FOLLOWERS,
    MAX_FOLLOWING,
    FriendStore,
    block_key,
    followers_key,
    following_key,
)
from server.store.presence import (
    MAX_CHALLENGES,
    MAX_CONNECTIONS,
    Challenge,
    PresenceStore,
    challenge_key,
    presence_key,
)

NAME_LEN = 24  # MAX_NAME_CHARS: every name as long as it may be


def long(prefix: str, i: int) -> str:
    return f"{prefix}{i:06d}".ljust(NAME_LEN, "x")


async def same(call: Awaitable[Any]) -> Any:
    return await call


async def measure(url: str) -> dict[str, int]:
    redis = aioredis.Redis.from_url(url)
    friends, presence = FriendStore(redis, same, 30 * 86_400), PresenceStore(redis, same)
    name, now = long("name", 0), 10**12
    try:
        for i in range(MAX_FOLLOWING):
            await friends.follow(name, long("followed", i), long("Followed", i))
        await redis.sadd(followers_key(name), *(long("follower", i) for i in range(MAX_FOLLOWERS)))
        for i in range(MAX_BLOCKS):
            await friends.block(name, long("blocked", i), long("Blocked", i))
        for i in range(MAX_CONNECTIONS):
            await presence.arrive(name, f"{i:016x}", "K7QX2M", now, 60_000)
        for i in range(MAX_CHALLENGES):
            variant = "les-quatre-coins-pysol"  # a long variant id
            c = Challenge(long("challenger", i), long("Challenger", i), variant, now + 120_000)
            await presence.challenge(name, c, now, 120_000)
        keys = [following_key(name), followers_key(name), block_key(name), presence_key(name),
                challenge_key(name)]
        return {k: int(await redis.memory_usage(k, samples=0) or 0) for k in keys}
    finally:
        await redis.aclose()


def main() -> None:
    with tempfile.TemporaryDirectory() as data:
        url = os.environ.get("REDIS_URL")
        store = None if url else EmbeddedRedis(Path(data) / "redis").start()
        try:
            sizes = asyncio.run(measure(store.url if store is not None else str(url)))
        finally:
            if store is not None:
                store.stop()
    for key, size in sizes.items():
        print(f"{key:<60} {size:>8,} bytes")
    print(f"{'one name at every bound':<60} {sum(sizes.values()):>8,} bytes")


if __name__ == "__main__":
    main()
