"""Quick races paired by skill, through real servers sharing a real Redis: the
queue in Redis, one pairer per variant (its lease), players on two processes,
the rating window, the bot after the wait, and leaving the queue."""

from __future__ import annotations

import asyncio
import secrets
from typing import Any

import redis.asyncio as aioredis

from server.race.matching import bot_level
from server.race.ratings import Skill, field
from server.store.matching import MatchStore, key, parts
from server.store.ratings import user_key
from tests.support.bot import Bot
from tests.support.servers import ServerFactory, close_all, ws_url

TICK = {"arena_tick_ms": 100}


async def queued(bot: Bot, variant: str) -> dict[str, Any]:
    await bot.send({"t": "quick", "variant": variant})
    return await bot.expect("queued")


async def claimed(url: str, rdb: aioredis.Redis, variant: str, ordinal: float) -> Bot:
    """A claimed name whose rating of ``variant`` has this ordinal."""
    name = f"m{secrets.token_hex(4)}"
    bot = Bot(url, name)
    await bot.connect()
    await bot.send({"t": "claim", "name": name})
    await bot.expect("claimed")
    sigma = 2.0
    await rdb.hset(user_key(name), field(variant), Skill(ordinal + 3 * sigma, sigma, 20, "x").to_store())
    return bot


async def test_two_players_on_two_processes_are_paired(make_server: ServerFactory) -> None:
    variant = "les-quatre-coins-pysol"  # no other test races it quick
    apps = [await make_server(**TICK, quick_bot_s=0) for _ in range(2)]
    bots = [Bot(ws_url(app), f"q{i}") for i, app in enumerate(apps)]
    try:
        for bot in bots:
            await bot.connect()
            first = await queued(bot, variant)
            assert first["variant"] == variant and first["bot_after_ms"] is None
        codes = [(await bot.expect("joined", timeout=10))["code"] for bot in bots]
        assert codes[0] == codes[1]
        room = await bots[0].expect("room")
        assert room["private"] is True and room["players_max"] == 2  # nobody else lands in it
    finally:
        await close_all(bots)


async def test_players_are_paired_by_rating(make_server: ServerFactory, rdb: aioredis.Redis) -> None:
    variant = "florentine-pysol"
    app = await make_server(**TICK, quick_bot_s=0, quick_size=2)
    url = ws_url(app)
    top, low, near = [await claimed(url, rdb, variant, r) for r in (20.0, 0.0, 19.5)]
    try:
        for bot in (top, low, near):
            assert (await queued(bot, variant))["rating"] in (20.0, 0.0, 19.5)
        code = (await top.expect("joined"))["code"]
        assert (await near.expect("joined"))["code"] == code
        # 20 points apart: the newcomer's window reaches the others only after (20 - 2) / 0.75 s
        await asyncio.sleep(1.0)
        assert not [m for m in low.inbox if m.get("t") == "joined"]
        assert await rdb.zscore(key(variant, "queue"), _ticket(app, low)) is not None  # still waiting
    finally:
        await close_all([top, low, near])


def _ticket(app, bot: Bot) -> str:
    for waiting in app.matchmaker.local.values():
        for ticket, player in waiting.items():
            if player.name == bot.name:
                return str(ticket)
    raise AssertionError("not waiting here")


async def test_a_player_alone_gets_a_bot_of_his_level(make_server: ServerFactory,
                                                     rdb: aioredis.Redis) -> None:
    variant = "simplicity-pysol"
    app = await make_server(**TICK, quick_bot_s=1, bot_pace_pct=0)
    lone = await claimed(ws_url(app), rdb, variant, 13.0)
    try:
        assert (await queued(lone, variant))["bot_after_ms"] == 1000
        await lone.expect("joined", timeout=10)
        while True:
            room = await lone.expect("room", timeout=10)
            bots = [p["bot"] for p in room["players"] if p.get("bot")]
            if bots:
                break
        assert bots == [bot_level(13.0)] == [4]
    finally:
        await close_all([lone])


async def test_leaving_the_queue_leaves_nothing_behind(make_server: ServerFactory,
                                                      rdb: aioredis.Redis) -> None:
    variant = "czarina-pysol"
    app = await make_server(**TICK, quick_bot_s=0)
    bot = Bot(ws_url(app), "leaver")
    try:
        await bot.connect()
        await queued(bot, variant)
        ticket = _ticket(app, bot)
        assert await rdb.zscore(key(variant, "queue"), ticket) is not None
        await bot.send({"t": "leave"})
        await bot.expect("unqueued")
        assert await rdb.zscore(key(variant, "queue"), ticket) is None
        assert not await rdb.hexists(key(variant, "tickets"), ticket) and not app.matchmaker.local
        # closing the connection while waiting leaves the queue too
        await queued(bot, variant)
        ticket = _ticket(app, bot)
        await close_all([bot])
        for _ in range(50):
            if await rdb.zscore(key(variant, "queue"), ticket) is None:
                break
            await asyncio.sleep(0.1)
        assert await rdb.zscore(key(variant, "queue"), ticket) is None
    finally:
        await close_all([bot])


async def test_only_the_lease_holder_pairs_and_unrenewed_tickets_go(rdb: aioredis.Redis) -> None:
    variant = "corners-pysol"
    store = MatchStore(rdb, lambda c: c)
    await rdb.delete(*parts(variant), key(variant, "lease"))
    assert await store.enqueue(variant, "a", 1.0, 1000) and await store.enqueue(variant, "b", 1.5, 1000)
    assert await store.hold_lease(variant, "p1", 10_000)
    assert not await store.hold_lease(variant, "p2", 10_000)  # one pairer at a time
    assert await store.assign(variant, "p2", ["a", "b"], "ROOM01|0", 1000) == -1  # fenced
    assert await store.assign(variant, "p1", ["a", "zz"], "ROOM01|0", 1000) == 0  # zz is not waiting
    assert [t.id for t in await store.waiting(variant, "p1", 2000)] == ["a", "b"]
    await store.renew(variant, ["a"], 7000)
    # b was not renewed for over 5 s: its process went away
    assert [t.id for t in await store.waiting(variant, "p1", 7500)] == ["a"]
    assert await store.assign(variant, "p1", ["a"], "ROOM01|2", 7500) == 1
    assert await store.take(variant, ["a", "b"]) == {"a": "ROOM01|2"}
    assert await store.take(variant, ["a"]) == {}  # taken once
    await rdb.delete(*parts(variant), key(variant, "lease"))


async def test_a_full_queue_refuses_and_changes_nothing(rdb: aioredis.Redis) -> None:
    variant = "corners-pysol"
    store = MatchStore(rdb, lambda c: c)
    await rdb.delete(*parts(variant), key(variant, "lease"))
    assert await store.enqueue(variant, "a", 1.0, 1000)
    before = {k: await rdb.dump(k) for k in parts(variant)}
    # the script with a cap of one, as QUEUE_MAX would be once reached
    assert await store._enqueue(parts(variant), ["b", "2.0", 2000, 1, 3600]) == 0
    assert {k: await rdb.dump(k) for k in parts(variant)} == before
    assert await store._enqueue(parts(variant), ["a", "1.0", 3000, 1, 3600]) == 1  # one already in: renewed
    assert await rdb.zscore(key(variant, "queue"), "a") == 1000  # still waiting since it came
    await rdb.delete(*parts(variant), key(variant, "lease"))
