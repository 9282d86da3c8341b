"""A rematch is an offer each player of the race accepts; seats keep the race's order."""

from __future__ import annotations

import asyncio

import pytest
import redis.asyncio as aioredis

from tests.support.bot import Bot
from tests.support.servers import close_all, race, results_of, room_snapshot


async def finish(bots: list[Bot]) -> None:
    for bot in bots:
        bot.seq += 1
        await bot.send({"t": "resign", "seq": bot.seq})
    await asyncio.gather(*(results_of(b) for b in bots))


async def test_one_offer_moves_no_one_until_every_player_accepts(url: str, rdb: aioredis.Redis) -> None:
    bots, code = await race([url, url, url])
    try:
        await finish(bots)
        await bots[2].send({"t": "rematch"})
        offers = await asyncio.gather(*(b.expect("rematch_offer") for b in bots))
        assert all(o["accepted"] == [3] and o["players"] == [1, 2, 3] for o in offers)
        await bots[0].send({"t": "rematch"})
        await bots[1].expect("rematch_offer", accepted=[1, 3])
        with pytest.raises(TimeoutError):
            await bots[1].expect("rematch", timeout=0.3)
        assert b"rematch" not in (await rdb.hgetall(f"room:{{{code}}}:meta"))
        await bots[1].send({"t": "rematch"})  # the last one: now it is made
        notes = await asyncio.gather(*(b.expect("rematch") for b in bots))
        new = notes[0]["code"]
        assert new != code and notes[0]["players"] == [1, 2, 3]
        joined = await asyncio.gather(*(b.expect("joined", code=new) for b in bots))
        assert [j["player"] for j in joined] == [1, 2, 3]  # accepted 3, 1, 2: seated 1, 2, 3
        room = await bots[0].expect("room", code=new)
        assert [p["name"] for p in room["players"]] == [b.name for b in bots]
    finally:
        await close_all(bots)


async def test_a_declined_or_withdrawn_offer_makes_no_room(url: str, rdb: aioredis.Redis) -> None:
    bots, code = await race([url, url])
    try:
        await finish(bots)
        await bots[0].send({"t": "rematch"})
        await bots[1].expect("rematch_offer", accepted=[1])
        await bots[0].send({"t": "rematch", "accept": False})  # withdrawn
        offer = await bots[1].expect("rematch_offer", accept=False)
        assert offer["accepted"] == []
        await bots[1].send({"t": "rematch"})
        await bots[0].expect("rematch_offer", accepted=[2])
        await bots[0].send({"t": "leave"})  # leaving the results declines
        assert (await bots[1].expect("rematch_offer", player=1))["accept"] is False
        with pytest.raises(TimeoutError):
            await bots[1].expect("rematch", timeout=0.3)
        assert b"rematch" not in (await rdb.hgetall(f"room:{{{code}}}:meta"))
    finally:
        await close_all(bots)


async def test_a_refused_rematch_changes_nothing(url: str, rdb: aioredis.Redis) -> None:
    bots, code = await race([url, url])
    try:
        before = await room_snapshot(rdb, code)
        await bots[0].send({"t": "rematch"})  # still racing
        assert (await bots[0].expect("error"))["code"] == "no_results"
        assert await room_snapshot(rdb, code) == before
    finally:
        await close_all(bots)
