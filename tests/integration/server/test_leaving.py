"""Leaving a race that goes on: a player whose own game is over leaves it,
and its results still come to him (server/rooms/awaited.py)."""

from __future__ import annotations

import asyncio

from server.rooms.awaited import MAX_AWAITED
from tests.support.bot import Bot
from tests.support.servers import VARIANT, ServerFactory, close_all, race, start_race, ws_url


async def resign(bot: Bot) -> None:
    bot.seq += 1
    await bot.send({"t": "resign", "seq": bot.seq})
    await bot.expect("view", seq=bot.seq)


async def test_a_player_done_with_a_race_leaves_it_and_its_results_still_come(
        make_server: ServerFactory) -> None:
    app = await make_server(race_seconds=3)
    bots, code = await race([ws_url(app)] * 3)
    try:
        await resign(bots[0])
        await bots[0].send({"t": "leave"})
        await bots[0].send({"t": "ping"})
        await bots[0].expect("pong")  # the leave was handled: the seat is free, the wait on
        assert list(app.service.awaiting) != []
        since = len(bots[0].inbox)
        await bots[1].play(5)  # the race goes on: its progress is not for the one who left
        results = await bots[0].expect("results", timeout=10)
        assert results["code"] == code
        assert next(r for r in results["ranking"] if r["player"] == 1)["status"] == "resigned"
        assert [m["t"] for m in bots[0].inbox[since:]] == ["results"]
        await asyncio.sleep(0.1)
        assert app.service.awaiting == {}  # the wait went with its results
    finally:
        await close_all(bots)


async def test_the_waits_of_a_connection_are_bounded_and_end_with_it(make_server: ServerFactory) -> None:
    app = await make_server(race_seconds=60)
    url = ws_url(app)
    leaver = Bot(url, "leaver", seed=1)
    await leaver.connect()
    others: list[Bot] = []
    try:
        for _ in range(MAX_AWAITED + 1):
            other = Bot(url, "other", seed=2)
            await other.connect()
            others.append(other)
            await leaver.send({"t": "create", "variant": VARIANT, "players": 2})
            code = (await leaver.expect("joined"))["code"]
            await other.send({"t": "join", "code": code})
            await other.expect("joined")
            await start_race([leaver, other])
            await resign(leaver)
            await leaver.send({"t": "leave"})
            await leaver.send({"t": "ping"})
            await leaver.expect("pong")
        waits = list(app.service.awaiting.values())
        assert len(waits) == 1 and len(waits[0]) == MAX_AWAITED
        await leaver.close()
        for _ in range(50):
            if not app.service.awaiting:
                break
            await asyncio.sleep(0.05)
        assert app.service.awaiting == {}
    finally:
        await close_all([leaver, *others])

