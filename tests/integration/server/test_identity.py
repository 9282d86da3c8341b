"""One identity, one seat: a claimed name joining a room where it sits takes its
seat over; players of one name are told apart; a room where one name holds two
seats is never rated. And a lobby seat whose connection is gone for good is freed."""

from __future__ import annotations

import asyncio
import secrets

import redis.asyncio as aioredis

from tests.support.bot import Bot
from tests.support.servers import (
    ServerFactory,
    close_all,
    closed_with,
    room_snapshot,
    seat,
    start_race,
    ws_url,
)


def fresh(name: str) -> str:
    return f"{name}{secrets.token_hex(3)}"  # the session's Redis keeps names across tests


async def claimed(url: str, name: str) -> tuple[Bot, str]:
    bot = Bot(url, name)
    await bot.connect()
    await bot.send({"t": "claim", "name": name})
    return bot, (await bot.expect("claimed"))["key"]


async def test_a_second_connection_of_a_claimed_name_takes_its_seat_over_in_the_lobby(url: str) -> None:
    name = fresh("ann")
    ann, key = await claimed(url, name)
    other = Bot(url, "bob")
    twin = Bot(url, name)
    try:
        await ann.send({"t": "create", "variant": "four-seasons", "players": 3})
        code = (await ann.expect("joined"))["code"]
        await other.connect()
        await other.send({"t": "join", "code": code})
        await other.expect("joined")
        await twin.connect(key=key)
        await twin.send({"t": "join", "code": code})
        joined = await twin.expect("joined")
        assert joined["player"] == 1  # ann's own seat, not a third one
        assert await closed_with(ann) == 1000  # the older connection gave it up
        room = await twin.expect("room")
        assert [p["name"] for p in room["players"]] == [name, "bob"]
    finally:
        await close_all([ann, other, twin])


async def test_a_claimed_name_takes_its_seat_over_in_a_race_and_carries_on(url: str) -> None:
    name = fresh("ann")
    ann, key = await claimed(url, name)
    bob = Bot(url, "bob")
    twin = Bot(url, name)
    try:
        await ann.send({"t": "create", "variant": "four-seasons", "players": 2})
        code = (await ann.expect("joined"))["code"]
        await bob.connect()
        await bob.send({"t": "join", "code": code})
        await bob.expect("joined")
        await start_race([ann, bob])
        await ann.play(3)
        await twin.connect(key=key)
        await twin.send({"t": "join", "code": code})  # a started room: still its own seat
        assert (await twin.expect("joined"))["player"] == 1
        view = await twin.expect("view")
        assert view["v"] == ann.v
    finally:
        await close_all([ann, bob, twin])


async def test_a_guest_with_the_same_name_gets_a_seat_of_its_own_shown_apart(url: str) -> None:
    bots, code = await seat([url, url, url], names=["sam", "Sam", "kim"])
    try:
        room = await bots[2].expect("room")
        while len(room["players"]) < 3:
            room = await bots[2].expect("room")
        assert [p["name"] for p in room["players"]] == ["sam", "Sam #2", "kim"]
        await start_race(bots)
        for bot in bots:
            bot.seq += 1
            await bot.send({"t": "resign", "seq": bot.seq})
        results = await bots[0].expect("results")
        assert sorted(r["name"] for r in results["ranking"]) == ["Sam #2", "kim", "sam"]
    finally:
        await close_all(bots)


async def test_a_room_where_one_name_holds_two_seats_is_not_rated(url: str, rdb: aioredis.Redis) -> None:
    ann_name, bob_name = fresh("ann"), fresh("bob")
    ann, _ = await claimed(url, ann_name)
    bob, _ = await claimed(url, bob_name)
    try:
        await ann.send({"t": "create", "variant": "four-seasons", "players": 2})
        code = (await ann.expect("joined"))["code"]
        await bob.send({"t": "join", "code": code})
        await bob.expect("joined")
        # something went around the join's rule (a bug, an old server, a hand in
        # the store): seat 2 plays as ann too
        await rdb.hset(f"room:{{{code}}}:p:2", mapping={"ident": ann_name, "who": ann_name.casefold()})
        await start_race([ann, bob])
        for bot in (ann, bob):
            bot.seq += 1
            await bot.send({"t": "resign", "seq": bot.seq})
        results = await ann.expect("results")
        assert "ratings" not in results
        assert await rdb.zscore("board:{alltime}:rating", ann_name.casefold()) is None
    finally:
        await close_all([ann, bob])


async def test_a_lobby_seat_gone_past_the_grace_period_goes_to_the_next_player(
        make_server: ServerFactory, rdb: aioredis.Redis) -> None:
    url = ws_url(await make_server(lobby_grace_ms=400))
    bots, code = await seat([url, url])
    ann, bob = bots
    carol = Bot(url, "carol")
    try:
        await bob.close()  # quits without leaving: the room is full meanwhile
        await asyncio.sleep(0.1)
        await carol.connect()
        before = await room_snapshot(rdb, code)
        await carol.send({"t": "join", "code": code})
        assert (await carol.expect("error"))["code"] == "room_full"
        assert await room_snapshot(rdb, code) == before  # a refused join changed nothing
        await asyncio.sleep(0.4)
        await carol.send({"t": "join", "code": code})
        assert (await carol.expect("joined"))["player"] == 2
        await start_race([ann, carol])  # and the room can start
    finally:
        await close_all([ann, bob, carol])
