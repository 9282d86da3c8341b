"""The migration to ratings per variant, run on a copy of a populated store: a
store filled in the old layout (one rating per name) by a Redis of its own, its
data directory copied, and a second Redis started on the copy."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest
from redis.asyncio import Redis

from server.race.ratings import NEW, Skill, field, starting_skill
from server.store.migrate import migrate_ratings
from server.store.ratings import RatingStore, rating_board, user_key
from tests.support.redis_server import fresh_server
from tests.support.servers import txt

# name -> (mu, sigma, races) of the single rating
OLD = {"ann": (31.5, 3.25, 40), "bob": (22.0, 5.5, 7), "cid": (27.0, 4.0, 12), "dee": (26.0, 6.0, 3)}


async def _populate(redis: Redis) -> None:
    """The old layout, as the server before ratings per variant wrote it."""
    for name, (mu, sigma, races) in OLD.items():
        await redis.hset(user_key(name), mapping={"name": name.title(), "key": "h", "mu": mu,
                                                  "sigma": sigma, "races": races, "streak_days": 2})
        await redis.zadd("board:{alltime}:rating", {name: mu - 3 * sigma})
    await redis.hset(user_key("eve"), mapping={"name": "Eve", "key": "h"})  # claimed, never rated
    await redis.zadd("daily:{2026-11-30|czarina}:board", {"ann": 5, "eve": 9})
    await redis.zadd("daily:{2026-12-01|calculation}:board", {"ann": 3})
    await redis.zadd("board:{alltime}:daily-wins:corners", {"bob": 2})
    # a race finished within the day: its room is still kept
    await redis.hset("room:{QWER}:meta", mapping={"variant": "four-seasons", "players": 2})
    await redis.hset("room:{QWER}:p:1", mapping={"name": "Cid", "ident": "Cid", "who": "cid"})
    await redis.hset("room:{QWER}:p:2", mapping={"name": "guest"})


def _copy(source: Path) -> Path:
    target = Path(tempfile.mkdtemp(prefix="prr-copy-"))
    for part in source.iterdir():
        if part.name.endswith((".sock", ".pid", ".conf", ".log")):
            continue
        (shutil.copytree if part.is_dir() else shutil.copy2)(part, target / part.name)
    return target


@pytest.mark.timeout(60)
async def test_the_migration_on_a_copy_of_a_populated_store() -> None:
    with fresh_server() as original:
        client = Redis.from_url(original.url)
        await _populate(client)
        before = {k: await client.dump(k) for k in await client.keys("*")}
        await client.aclose()
        original.stop()  # a clean stop: everything is in the data directory
        copy_dir = _copy(original.data_dir)
    try:
        with fresh_server(copy_dir) as copy:
            redis = Redis.from_url(copy.url)
            assert {k: await redis.dump(k) for k in await redis.keys("*")} == before  # a true copy
            report = await migrate_ratings(redis)
            assert (report.names, report.migrated, report.ratings) == (4, 3, 4)
            assert report.unknown == ["dee"]
            store = RatingStore(redis, lambda c: c)
            ann = await store.skills("ann")
            assert set(ann) == {"czarina", "calculation"}
            assert ann["czarina"] == Skill(31.5, 3.25, 40, "migrated") == ann["calculation"]
            assert set(await store.skills("bob")) == {"corners"}
            assert set(await store.skills("cid")) == {"four-seasons"}
            assert await store.skills("eve") == {}  # no single rating: nothing to carry over
            assert await redis.zscore(rating_board("czarina"), "ann") == 31.5 - 3 * 3.25
            # a variant the name never played starts new
            row = {txt(k): txt(v) for k, v in (await redis.hgetall(user_key("ann"))).items()}
            assert starting_skill(row, "florentine") == NEW
            # dee's variants are unknown: the first variant dee is rated in starts from the single one
            done = await store.rate_race("betsy-ross", "R1", [("dee", 1), ("eve", 2)], 1)
            assert done.before["dee"] == Skill(26.0, 6.0, 3, "migrated") and done.before["eve"] == NEW
            # the old fields and the old board are left as they were
            assert await redis.hget(user_key("ann"), "mu") == b"31.5"
            assert await redis.zcard("board:{alltime}:rating") == 4
            # a second run, after a race moved ann's czarina rating, writes nothing
            await store.rate_race("czarina", "R2", [("bob", 1), ("ann", 2)], 2)
            moved = (await store.skills("ann"))["czarina"]
            again = await migrate_ratings(redis)
            assert again.ratings == 0 and (await store.skills("ann"))["czarina"] == moved
            assert await redis.hget(user_key("bob"), field("czarina")) is not None
            await redis.aclose()
    finally:
        shutil.rmtree(copy_dir, ignore_errors=True)
