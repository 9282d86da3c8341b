"""A name's kept games and figures in a real Redis: the retention's bounds, a
write counted once, the keys living as long as the name, a claim's own history."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from dataclasses import replace
from typing import Any

import pytest
from redis.asyncio import Redis

from server.race.history import CASUAL_KEPT_MS, DAILY_KEPT, GameEntry
from server.store.history import HistoryStore, history_keys
from server.store.rooms import RoomStore
from tests.support.redis_server import redis_url

DAY_MS = 86_400_000
NOW = 1_765_000_000_000


@pytest.fixture(scope="module")
def history_redis_url() -> Iterator[str]:
    with redis_url() as url:  # a Redis of this module's own: each test starts it empty
        yield url


@pytest.fixture
async def redis(history_redis_url: str) -> AsyncIterator[Redis]:
    client = Redis.from_url(history_redis_url)
    await client.flushdb()
    yield client
    await client.aclose()


@pytest.fixture
def store(redis: Redis) -> HistoryStore:
    return HistoryStore(redis, RoomStore(redis, race_ms=60_000, countdown_ms=0)._guard, kept=5)


async def claim(redis: Redis, name: str, created: int = 1, ttl_s: int | None = 30 * 86_400) -> None:
    key = history_keys(name)[0]
    await redis.hset(key, mapping={"name": name, "key": "k", "created": created})
    if ttl_s:
        await redis.expire(key, ttl_s)


def game(code: str, at: int, **kw: Any) -> GameEntry:
    base = GameEntry(code, at, "four-seasons", "24", "race", False, None, None, 1, "ann", ("ann", "bob"), 1,
                     True, "won", 52, 52, 61_000, 90, False, None, ((100, "draw"),))
    return replace(base, **kw)


async def codes(store: HistoryStore, name: str = "ann", now: int = NOW) -> list[str]:
    entries, total = await store.page(name, 0, 50, now)
    assert total == len(entries)
    return [e.code for e in entries]


async def test_a_game_is_kept_once_and_read_back(store: HistoryStore, redis: Redis) -> None:
    await claim(redis, "Ann")
    entry = game("AAAAAA", NOW - 1000)
    assert await store.record("Ann", entry, NOW) == 1
    assert await store.record("ann", entry, NOW) == 2  # a retried write: nothing counted twice
    assert await store.game("ANN", "AAAAAA", NOW) == entry
    assert (await store.stats("ann"))["n:race"] == "1"
    assert await codes(store) == ["AAAAAA"]


async def test_an_unclaimed_name_keeps_nothing(store: HistoryStore, redis: Redis) -> None:
    assert await store.record("nobody", game("AAAAAA", NOW), NOW) == 0
    assert await redis.keys("*") == []
    assert await store.page("nobody", 0, 10, NOW) == ([], 0)


async def test_the_newest_games_are_kept_and_unranked_ones_lapse(store: HistoryStore, redis: Redis) -> None:
    await claim(redis, "ann", ttl_s=None)
    old = NOW - CASUAL_KEPT_MS - DAY_MS
    await store.record("ann", game("RANKED", old, ranked=True), old)
    await store.record("ann", game("CASUAL", old + 1), old)
    assert await codes(store, now=old) == ["CASUAL", "RANKED"]
    # past the unranked retention: never listed, nor opened, even before a write prunes it
    assert await codes(store) == ["RANKED"]
    assert await store.game("ann", "CASUAL", NOW) is None
    for i in range(6):  # the bound (5 here): the oldest go first, ranked or not
        await store.record("ann", game(f"NEW{i:03}", NOW + i), NOW + i)
    assert await codes(store, now=NOW + 9) == [f"NEW{i:03}" for i in range(5, 0, -1)]
    _, entries, unranked, _ = history_keys("ann")[1:]
    assert await redis.hlen(entries) == 5 and await redis.zcard(unranked) == 5


async def test_the_keys_live_as_long_as_the_name(store: HistoryStore, redis: Redis) -> None:
    await claim(redis, "ann", ttl_s=30 * 86_400)
    await store.record("ann", game("AAAAAA", NOW), NOW)
    ttls = [await redis.pttl(k) for k in history_keys("ann")[1:]]
    # a name without a ranked result: the unranked retention (longer than the name's 30 days)
    assert all(CASUAL_KEPT_MS - 60_000 < t <= CASUAL_KEPT_MS for t in ttls if t != -2)
    assert -2 not in (ttls[0], ttls[1], ttls[3])
    await redis.persist(history_keys("ann")[0])  # the name got a ranked result: kept for good
    await store.record("ann", game("BBBBBB", NOW + 1, ranked=True), NOW + 1)
    assert {await redis.pttl(k) for k in history_keys("ann")[1:] if await redis.exists(k)} == {-1}


async def test_a_name_claimed_again_starts_afresh(store: HistoryStore, redis: Redis) -> None:
    await claim(redis, "ann", created=1)
    await store.record("ann", game("AAAAAA", NOW), NOW)
    await redis.delete(history_keys("ann")[0])  # the claim lapsed...
    await claim(redis, "ann", created=2)  # ... and someone else claimed the name
    assert await store.page("ann", 0, 10, NOW) == ([], 0) and await store.stats("ann") == {}
    assert await store.game("ann", "AAAAAA", NOW) is None
    await store.record("ann", game("BBBBBB", NOW + 1), NOW + 1)
    assert await codes(store) == ["BBBBBB"] and (await store.stats("ann"))["n:race"] == "1"


async def test_the_figures(store: HistoryStore, redis: Redis) -> None:
    await claim(redis, "ann")
    await store.record("ann", game("R1", 1, time_ms=70_000), NOW)
    await store.record("ann", game("R2", 2, place=2, won=True, time_ms=65_000), NOW)  # won, not first
    await store.record("ann", game("R3", 3, place=2, won=False, status="resigned"), NOW)
    await store.record("ann", game("S1", 4, mode="solo", time_ms=1_000, field=("ann",)), NOW)  # no best time
    await store.record("ann", game("A1", 5, mode="arena", arena="X", time_ms=80_000), NOW)
    await store.record("ann", game("A2", 6, mode="arena", arena="X", place=2, won=False), NOW)
    await store.record("ann", game("A3", 7, mode="arena", arena="Y", place=2, won=False), NOW)
    for d in range(DAILY_KEPT + 2):
        await store.record("ann", game(f"D{d}", 10 + d, mode="daily", daily=f"2026-11-{d + 1:02}",
                                       won=d % 2 == 0, field=("ann",)), NOW)
    stats = await store.stats("ann")
    assert stats["races:four-seasons"] == "6" and stats["wins:four-seasons"] == "2"  # R1, A1 first places
    assert stats["best:four-seasons"].split(" ")[:2] == ["61000", "D0"]  # a daily's win is timed too
    assert stats["arenas"] == "2" and stats["arena_wins"] == "1" and stats["n:arena"] == "3"
    assert stats["n:solo"] == "1" and stats["n:daily"] == str(DAILY_KEPT + 2) and stats["daily_won"] == "6"
    import json
    last = json.loads(stats["daily_last"])
    assert len(last) == DAILY_KEPT and last[0]["date"] == f"2026-11-{DAILY_KEPT + 2:02}"
