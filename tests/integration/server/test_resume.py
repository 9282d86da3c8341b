"""Resume tokens on one server: a dropped connection comes back with its full view."""

from __future__ import annotations

import asyncio

import redis.asyncio as aioredis
from websockets.exceptions import ConnectionClosed

from server.game.records import record_from_dict, verify
from server.ops.clock import now_ms
from tests.support.bot import Bot
from tests.support.servers import (
    ServerFactory,
    close_all,
    closed_with,
    fetch_record,
    move_log,
    play_out,
    player_row,
    race,
    results_of,
    seat,
    ws_url,
)


async def wait_connected(rdb: aioredis.Redis, code: str, n: int, flag: str) -> None:
    for _ in range(200):
        conn = (await player_row(rdb, code, n)).get("conn")
        # "0" when gone; otherwise the id of the connection holding the seat
        if (conn == "0") == (flag == "0"):
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"player {n} of {code} never had conn={flag}")


async def test_resume_after_a_dropped_connection_carries_on(url: str, rdb: aioredis.Redis) -> None:
    bots, code = await race([url, url])
    ann, bob = bots
    again = Bot(url, ann.name, seed=7)
    try:
        await ann.play(8)
        assert ann.view is not None and ann.v == 8
        before_v, before_moves = ann.v, ann.view["legal_moves"]
        assert ann.ws is not None
        ann.ws.transport.abort()  # the network drops: no close frame
        await wait_connected(rdb, code, ann.player, "0")
        await bob.expect("room")  # the others are told (connected: false)

        welcome = await again.connect(token=ann.token)
        assert welcome["resumed"] is True
        joined = await again.expect("joined")
        assert (joined["code"], joined["player"]) == (code, ann.player)
        room = await again.expect("room")
        assert room["phase"] == "racing"
        assert next(p for p in room["players"] if p["player"] == ann.player)["moves"] == before_v
        view = await again.expect("view")
        assert view["v"] == before_v and view["seq"] is None
        assert view["view"]["legal_moves"] == before_moves
        assert [m["t"] for m in again.inbox] == ["welcome", "joined", "room", "view"]
        await wait_connected(rdb, code, ann.player, "1")

        again.seq = ann.seq  # the client's own counter carries on
        played = await play_out(again, 40)
        await play_out(bob, 40)
        results = await results_of(again)
        row = next(r for r in results["ranking"] if r["player"] == ann.player)
        assert again.view is not None
        assert row["moves"] == again.v == before_v + played + (again.view["status"] == "resigned")
        record = await fetch_record(again, ann.player)
        assert verify(record_from_dict(record))["legal"]
        assert record["moves"] == await move_log(rdb, code, ann.player)
    finally:
        await close_all([ann, bob, again])


async def test_resume_in_the_countdown_gets_the_view_at_the_start(make_server: ServerFactory) -> None:
    url = ws_url(await make_server(countdown_ms=700))
    bots, code = await seat([url, url])
    again = Bot(url, "again")
    try:
        for bot in bots:
            await bot.send({"t": "ready"})
        room = await bots[0].expect("room", phase="countdown")
        await bots[0].close()
        await again.connect(token=bots[0].token)
        resumed = await again.expect("room")
        assert resumed["phase"] == "countdown" and resumed["starts_at"] == room["starts_at"]
        assert not any(m["t"] == "view" for m in again.inbox)  # no card before the start
        view = await again.expect("view")
        assert view["v"] == 0
        assert again.inbox[-1]["t"] == "view"
        assert now_ms() >= room["starts_at"]
    finally:
        await close_all([*bots, again])


async def test_resume_after_the_results_gets_the_results(url: str) -> None:
    bots, code = await race([url, url])
    again = Bot(url, "again")
    try:
        await asyncio.gather(*(play_out(b, 3) for b in bots))
        results = await results_of(bots[0])
        await bots[0].close()
        await again.connect(token=bots[0].token)
        got = await again.expect("results")
        assert got == results
        assert again.view is not None and again.v == bots[0].v
    finally:
        await close_all([*bots, again])


async def test_a_newer_connection_takes_over_and_the_old_one_is_closed_1000(url: str,
                                                                            rdb: aioredis.Redis) -> None:
    bots, code = await race([url, url])
    again = Bot(url, "again")
    try:
        await bots[0].play(3)
        await again.connect(token=bots[0].token)
        await again.expect("view")
        assert await closed_with(bots[0]) == 1000
        await asyncio.sleep(0.2)
        assert (await player_row(rdb, code, 1))["conn"] not in ("0", "")
        again.seq = bots[0].seq
        answer = await again.move(again.choose() or "draw")
        assert answer["t"] == "view" and answer["v"] == 4
    finally:
        await close_all([*bots, again])


async def test_the_old_connection_cannot_move_after_a_takeover(url: str) -> None:
    bots, _ = await race([url, url])
    again = Bot(url, "again")
    try:
        await again.connect(token=bots[0].token)
        await again.expect("view")
        await asyncio.sleep(0.1)
        try:
            await bots[0].send({"t": "move", "seq": 1, "move": "draw", "v": 0})
            await bots[0].expect("view", timeout=1)
            raise AssertionError("the replaced connection was still answered")
        except (ConnectionClosed, TimeoutError):
            pass
    finally:
        await close_all([*bots, again])



async def test_a_takeover_of_an_unresponsive_connection_does_not_stall_the_room(url: str) -> None:
    """The typical resume follows a network drop the server has not noticed: the old
    connection will never answer the close, and waiting for it must not hold up others."""
    bots, _ = await race([url, url])
    ann, bob = bots
    again = Bot(url, "again")
    try:
        assert ann.ws is not None
        ann.ws.transport.pause_reading()  # the old connection is dead but not closed
        await again.connect(token=ann.token)
        await again.expect("view")
        await bob.move(bob.choose() or "draw")
        await again.expect("progress", player=2, moves=1, timeout=3)
    finally:
        if ann.ws is not None:
            ann.ws.transport.abort()
        await close_all([*bots, again])


async def test_a_late_disconnect_of_a_replaced_connection_does_not_mark_the_player_gone(
        url: str, rdb: aioredis.Redis) -> None:
    bots, code = await race([url, url])
    ann = bots[0]
    try:
        newer = Bot(url, "ann")
        await newer.connect(token=ann.token)
        await newer.expect("view")
        # the old connection goes away only after the new one took the seat
        await ann.close()
        await asyncio.sleep(0.3)
        assert (await player_row(rdb, code, 1))["conn"] not in ("0", "")
        answer = await newer.move(newer.choose() or "draw")
        assert answer["t"] == "view"
    finally:
        await close_all([*bots, newer])
