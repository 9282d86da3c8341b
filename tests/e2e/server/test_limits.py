"""Limits per client address, against real servers and a real Redis.

Every bot here comes from 127.0.0.1, so they share one address; a test
that needs several addresses connects as a trusted proxy would and names
the client in ``X-Forwarded-For``. Each test turns on only the limit it is
about (the fixtures lift them all), and checks that a refusal changed
nothing stored.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
import redis.asyncio as aioredis
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from server.ops.limits import Bucket, Limits
from server.wire.protocol import PROTOCOL_VERSION
from tests.support.bot import Bot
from tests.support.servers import ServerFactory, close_all, room_snapshot, ws_url


async def as_client(url: str, forwarded_for: str | None = None, name: str = "bot") -> Bot:
    """A bot whose connection says (in X-Forwarded-For) that it speaks for ``forwarded_for``."""
    bot = Bot(url, name)
    headers = {"X-Forwarded-For": forwarded_for} if forwarded_for else None
    bot.ws = await connect(url, max_size=2**20, compression=None, additional_headers=headers)
    await bot.send({"t": "hello", "proto": PROTOCOL_VERSION, "name": name})
    await bot.expect("welcome")
    return bot


async def refused_at_handshake(url: str, forwarded_for: str | None = None) -> int:
    with pytest.raises(InvalidStatus) as refused:
        await as_client(url, forwarded_for)
    return refused.value.response.status_code


async def error_of(bot: Bot, message: dict[str, Any]) -> dict[str, Any]:
    await bot.send(message)
    return await bot.expect("error")


# -- connections ------------------------------------------------------------------------------
async def test_an_address_holds_only_so_many_connections(make_server: ServerFactory) -> None:
    app = await make_server(connections_per_address=3)
    url = ws_url(app)
    bots = [await as_client(url) for _ in range(3)]
    try:
        assert await refused_at_handshake(url) == 429
        await bots.pop().close()
        for _ in range(100):  # the server counts the close once its handler has ended
            if app.addresses.peek("127.0.0.1").connections < 3:  # type: ignore[union-attr]
                break
            await asyncio.sleep(0.02)
        bots.append(await as_client(url))  # a connection given back is free again
    finally:
        await close_all(bots)


async def test_connections_past_the_cap_in_a_race_are_closed_1008(make_server: ServerFactory) -> None:
    app = await make_server(connections_per_address=2)
    url = ws_url(app)
    # all at once: the handshake check may let more through, the handler never
    results = await asyncio.gather(*(as_client(url) for _ in range(6)), return_exceptions=True)
    bots = [b for b in results if isinstance(b, Bot)]
    try:
        open_ = 0
        for bot in bots:
            await bot.send({"t": "ping"})
            try:
                await bot.expect("pong", timeout=2)
                open_ += 1
            except Exception:
                assert bot.ws is not None and bot.ws.close_code == 1008
        assert open_ <= 2
    finally:
        await close_all(bots)


async def test_x_forwarded_for_counts_only_from_a_trusted_proxy(make_server: ServerFactory) -> None:
    trusting = ws_url(await make_server(connections_per_address=2, trusted_proxies="127.0.0.0/8"))
    untrusting = ws_url(await make_server(connections_per_address=2))
    bots: list[Bot] = []
    try:
        # behind a trusted proxy, each forwarded client has its own budget
        bots += [await as_client(trusting, "203.0.113.5") for _ in range(2)]
        assert await refused_at_handshake(trusting, "203.0.113.5") == 429
        bots.append(await as_client(trusting, "198.51.100.7, 203.0.113.6"))  # the right-most hop
        # an IPv6 client is counted by its /64
        bots.append(await as_client(trusting, "2001:db8:1:2::1"))
        bots.append(await as_client(trusting, "2001:db8:1:2::2"))
        assert await refused_at_handshake(trusting, "2001:db8:1:2:ffff::9") == 429
        # from anyone else the header is ignored: a client could write anything there
        bots += [await as_client(untrusting, f"192.0.2.{i}") for i in (1, 2)]
        assert await refused_at_handshake(untrusting, "192.0.2.3") == 429
    finally:
        await close_all(bots)


# -- messages ---------------------------------------------------------------------------------
async def test_an_address_shares_one_message_budget(make_server: ServerFactory) -> None:
    url = ws_url(await make_server(address_rate_per_2s=40))
    bots = [await as_client(url) for _ in range(3)]  # 3 hellos spent
    try:
        for bot in bots:
            for _ in range(20):
                await bot.send({"t": "ping"})
        answers: list[str] = []
        for bot in bots:
            for _ in range(20):
                msg = await bot.recv()
                answers.append(msg["t"] if msg["t"] == "pong" else msg["code"])
        # 60 pings at once from one address: each connection alone is far under its own
        # limit, together they are over the address's 40 (minus the hellos, plus refill)
        assert 34 <= answers.count("pong") <= 40
        assert answers.count("rate_limited") == 60 - answers.count("pong")
    finally:
        await close_all(bots)


# -- rooms and names --------------------------------------------------------------------------
async def test_rooms_opened_are_capped_per_connection_and_per_address(
        make_server: ServerFactory, rdb: aioredis.Redis) -> None:
    url = ws_url(await make_server(rooms_per_minute=6))  # 2 per connection
    bots = [await as_client(url) for _ in range(4)]
    try:
        first = bots[0]
        for _ in range(2):
            await first.send({"t": "create", "variant": "four-seasons"})
            await first.expect("joined")
        before = await room_snapshot(rdb, first.code)
        refused = await error_of(first, {"t": "create", "variant": "four-seasons"})
        assert refused["code"] == "over_limit" and 0 < refused["retry_ms"] <= 30_000
        assert await room_snapshot(rdb, first.code) == before  # still in its room, as it was
        for bot in bots[1:3]:  # two more connections spend the address's other four
            for private in (True, False):
                await bot.send({"t": "create", "variant": "four-seasons", "private": private})
                await bot.expect("joined")
        assert (await error_of(bots[3], {"t": "create", "variant": "four-seasons"}))["code"] \
            == "over_limit"
        # a quick race may open a room: with none left it is refused before leaving anything
        assert (await error_of(bots[3], {"t": "quick", "variant": "four-seasons"}))["code"] \
            == "over_limit"
    finally:
        await close_all(bots)


async def test_names_claimed_are_capped_per_address(make_server: ServerFactory,
                                                   rdb: aioredis.Redis) -> None:
    url = ws_url(await make_server(claims_per_hour=8))  # a burst of 2
    stamp = f"{time.time_ns() % 10**9}"
    bots = [await as_client(url) for _ in range(3)]
    try:
        for i, bot in enumerate(bots[:2]):
            await bot.send({"t": "claim", "name": f"cap{stamp}{i}"})
            await bot.expect("claimed")
        refused = await error_of(bots[2], {"t": "claim", "name": f"cap{stamp}x"})
        assert refused["code"] == "over_limit" and refused["retry_ms"] > 60_000
        assert await rdb.exists(f"user:{{cap{stamp}x}}") == 0
        # a connection claims one name at most, whatever the address has left
        assert (await error_of(bots[0], {"t": "claim", "name": f"cap{stamp}y"}))["code"] \
            == "name_taken"
    finally:
        await close_all(bots)


# -- guessing room codes ----------------------------------------------------------------------
async def test_each_unknown_code_makes_the_address_wait_twice_as_long(
        make_server: ServerFactory, rdb: aioredis.Redis) -> None:
    url = ws_url(await make_server(join_penalty_ms=200))
    bots = [await as_client(url, name=n) for n in ("host", "guess", "other")]
    host, guesser, other = bots
    try:
        await host.send({"t": "create", "variant": "four-seasons"})
        code = (await host.expect("joined"))["code"]
        await guesser.send({"t": "create", "variant": "four-seasons"})
        await guesser.expect("joined")
        own = await room_snapshot(rdb, guesser.code)
        assert (await error_of(guesser, {"t": "join", "code": "ZZZZZZ"}))["code"] == "no_room"
        # right after: even a good code is not looked at, from any connection of the address
        waiting = await error_of(guesser, {"t": "join", "code": code})
        assert waiting["code"] == "join_wait" and 0 < waiting["retry_ms"] <= 200
        assert (await error_of(other, {"t": "join", "code": code}))["code"] == "join_wait"
        assert await room_snapshot(rdb, guesser.code) == own  # refused: nothing changed
        await asyncio.sleep(0.25)
        assert (await error_of(guesser, {"t": "join", "code": "ZZZZZY"}))["code"] == "no_room"
        second = await error_of(guesser, {"t": "join", "code": code})
        assert second["code"] == "join_wait" and 200 < second["retry_ms"] <= 400
        await asyncio.sleep(second["retry_ms"] / 1000 + 0.05)
        await other.send({"t": "join", "code": code})
        await other.expect("joined", code=code)  # the wait is over: a good code joins
    finally:
        await close_all(bots)


def test_the_wait_grows_to_its_cap_and_is_forgotten_after_a_quiet_spell() -> None:
    from server.ops.limits import JOIN_FAILS_FORGOTTEN_S, JOIN_PENALTY_MAX_S, Address

    address = Address("192.0.2.1", Limits(), 0.0)
    waits = [address.join_failed(t * 100.0) for t in range(10)]
    assert waits[:4] == [0.5, 1.0, 2.0, 4.0]
    assert waits[-1] == JOIN_PENALTY_MAX_S
    assert address.join_wait(900.0) == 60.0 and address.join_wait(960.0) == 0
    assert address.join_failed(900.0 + JOIN_FAILS_FORGOTTEN_S + 1) == 0.5


# -- the table of addresses -------------------------------------------------------------------
def test_the_address_table_is_bounded_and_forgets_idle_addresses() -> None:
    import tracemalloc

    from server.ops.limits import AddressBook

    now = [0.0]
    book = AddressBook(Limits(), clock=lambda: now[0], max_entries=1000, idle_s=3600)
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    for i in range(50_000):  # a flood of distinct addresses
        book.get(f"10.{i >> 16 & 255}.{i >> 8 & 255}.{i & 255}")
    size = tracemalloc.get_traced_memory()[0] - base
    tracemalloc.stop()
    assert len(book) == 1000
    assert size < 1000 * 1024  # about 0.6 KiB an address (docs/operations/reliability.md)
    held = book.get("192.0.2.9")
    held.connections = 1
    now[0] = 3601.0
    book.get("192.0.2.10")  # everything idle for an hour goes, but an address in use
    assert len(book) == 2 and book.peek("192.0.2.9") is held


async def test_the_real_defaults_hold_for_a_process(spawn: Any) -> None:
    """The settings reach a real server process: its address cap is the documented 16."""
    env = {"PATIENCE_CONNECTIONS_PER_ADDRESS": "16"}
    proc = await spawn(**env)
    bots: list[Bot] = []
    try:
        bots = [await as_client(proc.url) for _ in range(16)]
        assert await refused_at_handshake(proc.url) == 429
    finally:
        await close_all(bots)


async def test_watching_an_unknown_code_costs_the_same_wait(make_server: ServerFactory) -> None:
    """``watch`` takes a code too: guessing through it is no cheaper than through ``join``."""
    url = ws_url(await make_server(join_penalty_ms=300))
    bots = [await as_client(url, name=n) for n in ("host", "spy")]
    host, spy = bots
    try:
        await host.send({"t": "create", "variant": "four-seasons"})
        code = (await host.expect("joined"))["code"]
        assert (await error_of(spy, {"t": "watch", "code": "ZZZZZZ"}))["code"] == "no_room"
        assert (await error_of(spy, {"t": "watch", "code": code}))["code"] == "join_wait"
        assert (await error_of(spy, {"t": "join", "code": code}))["code"] == "join_wait"
        await asyncio.sleep(0.35)
        await spy.send({"t": "watch", "code": code})
        await spy.expect("watching", code=code)
    finally:
        await close_all(bots)


def test_a_message_takes_a_token_from_both_buckets_or_from_neither() -> None:
    """The connection's bucket and its address's (``Bucket.take_with``, one call
    per message): a token leaves each only when each has one."""
    conn, address = Bucket(2, 1.0, 0.0), Bucket(3, 1.0, 0.0)
    assert conn.take_with(address, 0.0) and conn.take_with(address, 0.0)
    assert (conn.tokens, address.tokens) == (0, 1)
    assert not conn.take_with(address, 0.0)  # the connection's is empty: the address keeps its
    assert address.tokens == 1
    assert conn.take_with(address, 1.0)  # a second later each has refilled one
    assert (conn.tokens, address.tokens) == (0, 1)
    other = Bucket(5, 1.0, 1.0)
    address.tokens = 0.5
    assert not other.take_with(address, 1.0)  # the address's is empty: the connection keeps its
    assert (other.tokens, address.tokens) == (5, 0.5)
