"""A bot's seat lease (server/store/botleases.py): held while the bot plays, let
go when it ends, and a bot whose lease another process took stops."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import redis.asyncio as aioredis

from server.store.botleases import lease_key
from tests.integration.server.test_bots import room_with_bot, the_bot
from tests.support.servers import ServerFactory, close_all, seat, ws_url


async def until(check: Callable[[], bool], seconds: float) -> bool:
    for _ in range(int(seconds * 20)):
        if check():
            return True
        await asyncio.sleep(0.05)
    return False


async def test_a_bot_holds_its_lease_and_stops_when_another_process_takes_it(
        make_server: ServerFactory, rdb: aioredis.Redis) -> None:
    app = await make_server(race_seconds=60)
    (human,), code = await seat([ws_url(app)], players=2)
    try:
        await human.send({"t": "add_bot", "level": 1})
        await room_with_bot(human)
        bot = the_bot(app)
        held = await rdb.get(lease_key(code, 2))
        assert held == bot.lease.encode() and await rdb.pttl(lease_key(code, 2)) > 0
        await human.send({"t": "ready"})
        await human.expect("view")
        await rdb.set(lease_key(code, 2), "another process", px=60_000)  # taken up elsewhere
        assert await until(lambda: not app.bots.seats, 8)  # at its next renewal the bot stops
        assert (await rdb.get(lease_key(code, 2))) == b"another process"  # and lets the lease be
    finally:
        await close_all([human])


async def test_a_bot_that_ends_lets_its_lease_go(make_server: ServerFactory, rdb: aioredis.Redis) -> None:
    app = await make_server()
    (human,), code = await seat([ws_url(app)], players=2)
    try:
        await human.send({"t": "add_bot", "level": 1})
        await room_with_bot(human)
        await human.send({"t": "leave"})  # the bot, alone, leaves too: it ends
        assert await until(lambda: not app.bots.seats, 5)
        assert await rdb.exists(lease_key(code, 2)) == 0
    finally:
        await close_all([human])
