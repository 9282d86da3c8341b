"""Redis goes away and comes back: clients get store_unavailable, nothing changes, the
server recovers by itself; /healthz tells the difference. Every test here counts what
is logged at ERROR meanwhile: a lost Redis is met with warnings and refusals, never an
ERROR record (on the compiled build too: docs/design/compiled-code.md)."""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import redis
import redis.asyncio
from websockets.asyncio.client import connect

from server.ops.config import Settings
from server.rooms.hub import BOARDS_CHANNEL
from server.store.embedded import EmbeddedRedis
from tests.support.bot import Bot
from tests.support.errorlogs import no_error_records
from tests.support.redis_server import sigkill
from tests.support.servers import ServerFactory, close_all, race, seat, start_race, txt, ws_url


@pytest.fixture
def own_redis() -> Iterator[EmbeddedRedis]:
    """A Redis of this test's own (AOF on), to stop and restart on the same data dir."""
    with tempfile.TemporaryDirectory(prefix="prr-") as tmp:  # short: the socket lives here
        server = EmbeddedRedis(Path(tmp))  # appendfsync everysec, as the server's own default
        with server:
            yield server


@pytest.fixture(autouse=True)
async def logs_no_error() -> AsyncIterator[None]:
    with no_error_records():
        yield


def stored(url: str, code: str, n: int) -> tuple[str, int]:
    client = redis.Redis.from_url(url)
    try:
        v = client.hget(f"room:{{{code}}}:p:{n}", "v")
        return txt(v), int(client.llen(f"room:{{{code}}}:log:{n}"))
    finally:
        client.close()


async def healthz(port: int) -> int:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
    await writer.drain()
    status = await asyncio.wait_for(reader.readline(), 15)
    writer.close()
    return int(status.split()[1])


async def test_redis_outage_gives_store_unavailable_and_the_server_recovers(
        make_server: ServerFactory, own_redis: EmbeddedRedis) -> None:
    app = await make_server(own_redis.url)
    url = ws_url(app)
    bots, code = await race([url, url])
    ann, bob = bots
    try:
        await ann.move(ann.choose() or "draw")
        await bob.expect("progress", player=1, moves=1)
        before = stored(own_redis.url, code, 1)
        assert before == ("1", 1)

        own_redis.stop()
        text = ann.choose() or "draw"
        answer = await ann.move(text)
        assert answer["t"] == "error" and answer["code"] == "store_unavailable", answer
        assert answer["seq"] == ann.seq
        # a name cannot be checked against the claimed ones: hello is refused, clearly
        newcomer = Bot(url, "late")
        newcomer.ws = await connect(url)
        await newcomer.send({"t": "hello", "proto": 1, "name": "late"})
        assert (await newcomer.expect("error"))["code"] == "store_unavailable"
        await newcomer.close()

        mark = len(bob.inbox)
        own_redis.start()  # same data dir: the AOF brings every acknowledged move back
        assert stored(own_redis.url, code, 1) == before
        for _ in range(100):  # no restart of the race server: it recovers by itself
            answer = await ann.move(text)
            if answer["t"] == "view":
                break
            assert answer["code"] == "store_unavailable", answer
            await asyncio.sleep(0.1)
        assert answer["t"] == "view" and answer["v"] == 2
        assert stored(own_redis.url, code, 1) == ("2", 2)
        # the hub re-subscribed: progress flows between the players again
        await bob.expect("progress", player=1, moves=2, timeout=10)
        assert any(m["t"] == "room" for m in bob.inbox[mark:])  # the hub's catch-up after reconnecting
        await bob.move(bob.choose() or "draw")
        await ann.expect("progress", player=2, moves=1, timeout=10)
    finally:
        await close_all(bots)


async def test_connections_ending_while_the_hub_reconnects_log_no_error(
        make_server: ServerFactory, own_redis: EmbeddedRedis) -> None:
    """While Redis is away the hub waits between its attempts to subscribe again;
    connections that end meanwhile end cleanly. (Compiled, the hub once waited
    inside its except block, and the connection error it held came out of every
    connection ending meanwhile as 'connection handler failed'.)"""
    app = await make_server(own_redis.url)
    url = ws_url(app)
    own_redis.stop()
    for _ in range(100):
        if not app.hub.connected:
            break
        await asyncio.sleep(0.05)
    assert not app.hub.connected
    for i in range(12):  # over several of the hub's waits (0.1 s doubling to 2 s)
        bot = Bot(url, f"brief{i}")
        bot.ws = await connect(url)
        await bot.send({"t": "hello", "proto": 1, "name": f"brief{i}"})
        assert (await bot.expect("error"))["code"] == "store_unavailable"
        await bot.close()
        await asyncio.sleep(0.25)
    own_redis.start()
    for _ in range(100):
        if app.hub.connected:
            break
        await asyncio.sleep(0.1)
    assert app.hub.connected


async def test_healthz_is_200_with_redis_and_503_without(make_server: ServerFactory,
                                                        own_redis: EmbeddedRedis) -> None:
    app = await make_server(own_redis.url)
    assert await healthz(app.port) == 200
    own_redis.stop()
    assert await healthz(app.port) == 503
    own_redis.start()
    for _ in range(50):
        if await healthz(app.port) == 200:
            break
        await asyncio.sleep(0.1)
    assert await healthz(app.port) == 200


async def test_a_subscriber_that_loses_pubsub_catches_up_from_the_store(
        make_server: ServerFactory, own_redis: EmbeddedRedis) -> None:
    app = await make_server(own_redis.url)
    url = ws_url(app)
    bots, code = await race([url, url])
    ann, bob = bots
    try:
        client = redis.asyncio.Redis.from_url(own_redis.url)
        await client.client_kill_filter(_type="pubsub")  # the hub's subscription drops
        await client.aclose()
        mark = len(ann.inbox)
        for _ in range(3):
            await bob.move(bob.choose() or "draw")
        progress = await ann.expect("progress", player=2, moves=3, timeout=10)
        assert progress["status"] == "in_progress"
        # moves published while the hub was away are lost to pub/sub: the catch-up from the
        # store (room, then every opponent's progress) still brings ann up to date
        if not any(m["t"] == "room" for m in ann.inbox[mark:]):
            await ann.expect("room", timeout=10)
        await ann.move(ann.choose() or "draw")
        await bob.expect("progress", player=1, moves=1, timeout=10)
    finally:
        await close_all(bots)


async def test_a_room_opened_while_the_hub_reconnects_still_gets_its_events(
        make_server: ServerFactory, own_redis: EmbeddedRedis) -> None:
    """Rooms that become local during the hub's catch-up must be subscribed too."""
    app = await make_server(own_redis.url)
    url = ws_url(app)
    bots, _ = await seat([url, url])
    resyncing = asyncio.Event()
    original = app.hub._on_resync

    async def slow_resync(code: str) -> None:  # a catch-up of many rooms takes a while
        resyncing.set()
        await asyncio.sleep(0.5)
        await original(code)

    app.hub._on_resync = slow_resync
    others: list[Bot] = []
    try:
        client = redis.asyncio.Redis.from_url(own_redis.url)
        await client.client_kill_filter(_type="pubsub")
        await client.aclose()
        await asyncio.wait_for(resyncing.wait(), 5)
        others, _ = await seat([url, url])  # a new room while the hub catches up
        await asyncio.sleep(0.6)
        await start_race(others)  # the countdown reaches the sessions through pub/sub
        await others[0].move(others[0].choose() or "draw")
        await others[1].expect("progress", player=1, moves=1, timeout=5)
    finally:
        await close_all([*bots, *others])


async def test_an_outage_over_the_start_still_starts_the_race(make_server: ServerFactory,
                                                              own_redis: EmbeddedRedis) -> None:
    url = ws_url(await make_server(own_redis.url, countdown_ms=500))
    bots, _ = await seat([url, url])
    try:
        for bot in bots:
            await bot.send({"t": "ready"})
        await bots[0].expect("room", phase="countdown")
        own_redis.stop()
        await asyncio.sleep(0.9)  # the start passes while Redis is away
        own_redis.start()
        views = await asyncio.gather(*(b.expect("view", timeout=10) for b in bots))
        assert all(v["v"] == 0 for v in views)
        answer = await bots[0].move(bots[0].choose() or "draw")
        assert answer["t"] == "view" and answer["v"] == 1
    finally:
        await close_all(bots)


async def test_an_outage_over_the_end_still_brings_the_results(make_server: ServerFactory,
                                                               own_redis: EmbeddedRedis) -> None:
    url = ws_url(await make_server(own_redis.url, race_seconds=1))
    bots, _ = await race([url, url])
    try:
        own_redis.stop()
        await asyncio.sleep(1.3)  # the clock runs out while Redis is away
        own_redis.start()
        results = await asyncio.gather(*(b.expect("results", timeout=10) for b in bots))
        assert results[0] == results[1]
    finally:
        await close_all(bots)


async def test_sigkill_of_redis_loses_no_acknowledged_move(make_server: ServerFactory,
                                                           own_redis: EmbeddedRedis) -> None:
    """With appendfsync everysec Redis writes the AOF before it replies: a crash of
    redis-server (not of the machine) keeps every move the players were told about."""
    url = ws_url(await make_server(own_redis.url))
    bots, code = await race([url, url])
    ann, bob = bots
    try:
        acked = []
        for _ in range(10):
            text = ann.choose()
            assert text is not None
            answer = await ann.move(text)
            assert answer["t"] == "view"
            acked.append(text)
        sigkill(own_redis)  # at once: no time for an fsync
        own_redis.start()
        assert stored(own_redis.url, code, 1) == (str(len(acked)), len(acked))
        client = redis.Redis.from_url(own_redis.url)
        try:
            log = [txt(r).partition(" ")[2] for r in client.lrange(f"room:{{{code}}}:log:1", 0, -1)]
        finally:
            client.close()
        assert log == acked
        for _ in range(100):  # and the server carries on by itself
            answer = await ann.move(ann.choose() or "draw")
            if answer["t"] == "view":
                break
            await asyncio.sleep(0.1)
        assert answer["t"] == "view" and answer["v"] == len(acked) + 1
    finally:
        await close_all(bots)


async def test_a_pubsub_connection_that_stops_answering_is_replaced(
        make_server: ServerFactory, own_redis: EmbeddedRedis) -> None:
    """A half-open pub/sub connection would never report an error: the hub PINGs
    it after a quiet spell and reconnects (and catches up) when no answer comes."""
    app = await make_server(own_redis.url, hub_heartbeat_ms=200)
    url = ws_url(app)
    bots, _ = await seat([url, url])
    caught_up = asyncio.Event()
    original = app.hub._on_resync

    async def resync(code: str) -> None:
        caught_up.set()
        await original(code)

    app.hub._on_resync = resync
    try:
        client = redis.asyncio.Redis.from_url(own_redis.url)
        await asyncio.sleep(0.3)  # quiet: the hub has PINGed and been answered
        assert app.hub.connected
        await client.execute_command("CLIENT", "PAUSE", "1500", "ALL")  # nobody gets answers
        await asyncio.wait_for(caught_up.wait(), 10)  # lost, reconnected, caught up
        assert app.hub.connected
        await client.aclose()
    finally:
        await close_all(bots)


async def test_an_answered_heartbeat_keeps_the_pubsub_connection(make_server: ServerFactory) -> None:
    """Quiet but healthy: the hub PINGs, Redis answers, nothing is dropped (a timer
    firing a millisecond late must not count a fresh answer as missing), and a
    delivery that takes longer than the heartbeat is not silence either."""
    app = await make_server(hub_heartbeat_ms=100)
    assert app.hub.heartbeat_s == 0.1
    assert Settings.from_env({"PATIENCE_HUB_HEARTBEAT_MS": "2500"}).hub_heartbeat_ms == 2500
    assert Settings.from_env({}).hub_heartbeat_ms == 15_000
    url = ws_url(app)
    bots, _ = await seat([url, url])
    resyncs: list[str] = []
    boards: list[str] = []
    original_resync = app.hub._on_resync

    async def resync(code: str) -> None:
        resyncs.append(code)
        await original_resync(code)

    async def slow_board(board: str) -> None:
        await asyncio.sleep(0.5)  # a delivery that waits five heartbeats
        boards.append(board)

    app.hub._on_resync = resync
    try:
        await asyncio.sleep(1.0)  # ten quiet spells, each PINGed and answered
        assert resyncs == [] and app.hub.connected
        app.hub._on_board = slow_board
        await app.redis.publish(BOARDS_CHANNEL, "daily")
        await asyncio.sleep(0.8)
        assert boards == ["daily"]  # it was delivered, slowly
        assert resyncs == [] and app.hub.connected
    finally:
        await close_all(bots)
