"""Refusals that used to change something (each reproduced by the fuzzer first)."""

from __future__ import annotations

from typing import Any

import redis.asyncio as aioredis
from websockets.asyncio.client import connect

from tests.support.bot import Bot
from tests.support.servers import (
    ServerFactory,
    close_all,
    player_row,
    race,
    room_snapshot,
    seat,
    txt,
    ws_url,
)


async def everything(rdb: aioredis.Redis) -> dict[str, Any]:
    """The whole store but who is online: a connection's presence is written as it
    signs in and rewritten by a timer (server/rooms/presence.py), never by a refusal."""
    out: dict[str, Any] = {}
    async for key in rdb.scan_iter(count=1000):
        if key.startswith(b"presence:"):
            continue
        kind = txt(await rdb.type(key))
        if kind == "hash":
            out[key.decode()] = await rdb.hgetall(key)
        elif kind == "list":
            out[key.decode()] = await rdb.lrange(key, 0, -1)
        elif kind == "zset":
            out[key.decode()] = await rdb.zrange(key, 0, -1, withscores=True)
        else:
            out[key.decode()] = kind
    return out


async def test_a_join_with_an_unknown_code_keeps_the_player_in_its_lobby(url: str,
                                                                         rdb: aioredis.Redis) -> None:
    bots, code = await seat([url, url])
    before = await room_snapshot(rdb, code)
    await bots[1].send({"t": "join", "code": "ZZZZZZ"})
    answer = await bots[1].expect("error")
    assert answer["code"] == "no_room"
    assert await room_snapshot(rdb, code) == before
    assert (await player_row(rdb, code, 2))["left"] == "0"
    await bots[1].send({"t": "ready"})  # still seated: its ready counts
    await bots[0].send({"t": "ready"})
    await bots[1].expect("view")
    await close_all(bots)


async def test_a_refused_daily_counts_no_attempt_and_stores_nothing(make_server: ServerFactory,
                                                                    rdb: aioredis.Redis) -> None:
    app = await make_server(secret="refusal-test", daily_budget=200, daily_tries=1)
    url = ws_url(app)
    bots, code = await race([url, url])
    claimer = bots[0]
    await claimer.send({"t": "claim", "name": "refuser-one"})
    await claimer.expect("claimed")
    before = await everything(rdb)
    await claimer.send({"t": "daily", "variant": "czarina"})
    answer = await claimer.expect("error")
    assert answer["code"] == "already_in_room"
    assert await everything(rdb) == before
    await close_all(bots)


async def test_a_token_with_unicode_digits_is_a_bad_token(url: str) -> None:
    for token in ("ABCDEF.².x", "ABCDEF.①.x", "ABCDEF.٣.x", "ABCDÉF.1.x", "A.1.x\n"):
        bot = Bot(url, "t")
        bot.ws = await connect(url, compression=None)
        await bot.send({"t": "hello", "proto": 1, "name": "t", "token": token})
        answer = await bot.expect("error")
        assert answer["code"] == "bad_token", (token, answer)
        await bot.send({"t": "hello", "proto": 1, "name": "t"})
        await bot.expect("welcome")  # the connection is still there, and hello still to come
        await bot.close()


async def test_at_the_move_cap_a_player_can_still_resign_and_leave(server: Any, url: str,
                                                                  rdb: aioredis.Redis) -> None:
    server.store.max_moves = 2
    bots, code = await race([url, url])
    bot = bots[0]
    for _ in range(2):
        answer = await bot.move(bot.choose() or "draw")
        assert answer["t"] == "view"
    answer = await bot.move(bot.choose() or "draw")
    assert answer["t"] == "error" and answer["code"] == "race_over"
    bot.seq += 1
    await bot.send({"t": "resign", "seq": bot.seq})
    view = await bot.expect("view", seq=bot.seq)
    assert view["view"]["status"] == "resigned"
    assert (await player_row(rdb, code, 1))["status"] == "resigned"
    await bots[1].send({"t": "leave"})  # the other leaves mid-race: it resigns, results follow
    await bot.expect("results")
    await close_all(bots)


async def test_a_race_starting_while_the_daily_deal_comes_leaves_no_half_done_daily(
        make_server: ServerFactory, rdb: aioredis.Redis) -> None:
    """The fuzzer's find: a player in a countdown asks for the daily; the day's deal
    takes longer than the countdown. The player leaves its room before anything is
    written, so the daily either happens whole or not at all."""
    import asyncio

    app = await make_server(secret="toctou-test", daily_budget=200, daily_tries=1, countdown_ms=200)
    url = ws_url(app)
    bots, code = await seat([url, url])
    slow = app.competition.daily_deal

    async def after_the_start(date: str, variant: str) -> Any:
        await asyncio.sleep(0.5)  # the countdown ends meanwhile
        return await slow(date, variant)

    app.competition.daily_deal = after_the_start  # type: ignore[method-assign]
    for bot in bots:
        await bot.send({"t": "ready"})
    await bots[0].expect("room", phase="countdown")
    await bots[0].send({"t": "daily", "variant": "czarina"})
    joined = await bots[0].expect("joined")
    assert joined["code"] != code  # it went to its daily room, whole
    assert not [m for m in bots[0].inbox if m.get("t") == "error"]
    await close_all(bots)
