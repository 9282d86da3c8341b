"""The lean Redis connection (server/store/resp.py) and the move-script batcher,
against the session's real Redis."""

from __future__ import annotations

import asyncio
import enum
import secrets
import socket

import pytest
import redis.asyncio as aioredis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError, ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

from server.store import keys
from server.store.batch import ScriptBatcher, pack_args
from server.store.resp import RespConnection
from server.store.rooms import RoomStore

ECHO_KEYS = "return {KEYS[1], ARGV[1]}"


def key() -> str:
    return f"test:resp:{secrets.token_hex(6)}"


async def test_replies_come_back_in_order_and_errors_are_values(rdb: aioredis.Redis) -> None:
    conn = RespConnection.like(rdb)
    k = key()
    try:
        replies = await conn.execute([("SET", k, "1"), ("INCRBY", k, 41), ("HGET", k, "x"),
                                      ("GET", k)])
    finally:
        conn.close()
    assert replies[:2] == [b"OK", 42]
    assert isinstance(replies[2], ResponseError) and "WRONGTYPE" in str(replies[2])
    assert replies[3] == b"42"
    await rdb.delete(k)


async def test_it_talks_to_the_database_the_redis_py_client_uses(redis_url_session: str) -> None:
    url = redis_url_session.rstrip("/")
    other = f"{url}{'&' if '?' in url else '?'}db=3" if url.startswith("unix") else f"{url}/3"
    client = aioredis.Redis.from_url(other)
    conn = RespConnection.like(client)
    k = key()
    try:
        await conn.execute([("SET", k, "db3")])
        assert await client.get(k) == b"db3"
        plain = aioredis.Redis.from_url(redis_url_session)
        assert await plain.get(k) is None  # not in database 0
        await plain.aclose()
    finally:
        conn.close()
        await client.delete(k)
        await client.aclose()


async def test_nothing_listening_is_a_connection_error() -> None:
    conn = RespConnection(path="/nonexistent/redis.sock", timeout=1.0)
    with pytest.raises(RedisConnectionError):
        await conn.execute([("PING",)])


async def test_subscriber_gets_messages_and_skips_confirmations(rdb: aioredis.Redis) -> None:
    sub = RespConnection.like(rdb)
    channel = key()
    try:
        await sub.open()
        await sub.subscribe(channel)
        for _ in range(50):  # the subscription is live once Redis counts it
            if (await rdb.pubsub_numsub(channel))[0][1] == 1:
                break
            await asyncio.sleep(0.01)
        await rdb.publish(channel, b"\x00binary\xff")
        assert await asyncio.wait_for(sub.message(), 2) == (channel.encode(), b"\x00binary\xff")
    finally:
        sub.close()


async def test_the_batcher_answers_each_caller_with_its_own_reply(rdb: aioredis.Redis) -> None:
    batcher = ScriptBatcher(RespConnection.like(rdb), ECHO_KEYS)
    batcher.on_round_trip = None
    try:
        replies = await asyncio.gather(*(batcher.call([f"k{i}"], [i]) for i in range(300)))
        assert replies == [[f"k{i}".encode(), str(i).encode()] for i in range(300)]
        assert batcher.round_trips < 300  # pipelined: many calls share a round trip
    finally:
        batcher.close()


def test_a_batcher_outliving_its_loop_queues_on_the_running_one() -> None:
    """The batcher keeps the running loop (asking for it is a system call, twice
    per move) but never one that no longer runs: each call's future belongs to
    the loop that awaits it."""
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    batcher = ScriptBatcher(RespConnection(host="127.0.0.1", port=port), ECHO_KEYS)

    async def one_call() -> bool:
        fut = batcher.command("PING")
        with pytest.raises((RedisConnectionError, OSError)):
            await fut
        return fut.get_loop() is asyncio.get_running_loop()

    try:
        assert asyncio.run(one_call()) and asyncio.run(one_call())
    finally:
        batcher.close()


async def test_the_batcher_reloads_a_flushed_script_cache(rdb: aioredis.Redis) -> None:
    source = ECHO_KEYS + " -- " + secrets.token_hex(4)  # a script no one loaded yet
    batcher = ScriptBatcher(RespConnection.like(rdb), source)
    try:
        assert await batcher.call(["a"], [1]) == [b"a", b"1"]
        await rdb.script_flush()  # what a Redis restart does to the cache
        assert await batcher.call(["b"], [2]) == [b"b", b"2"]
    finally:
        batcher.close()


async def test_a_script_error_reaches_only_its_caller(rdb: aioredis.Redis) -> None:
    batcher = ScriptBatcher(RespConnection.like(rdb), "if ARGV[1] == 'boom' then error('boom') end "
                                                       "return ARGV[1]")
    try:
        for _ in range(2):  # the first batch opens the connection (a task), the second goes the short way
            results = await asyncio.gather(batcher.call(["x"], ["ok"]), batcher.call(["x"], ["boom"]),
                                           batcher.call(["x"], ["fine"]), return_exceptions=True)
            assert results[0] == b"ok" and results[2] == b"fine"
            assert isinstance(results[1], ResponseError) and not isinstance(results[1], NoScriptError)
    finally:
        batcher.close()


async def test_on_one_server_an_open_connections_batches_need_no_task(rdb: aioredis.Redis) -> None:
    batcher = ScriptBatcher(RespConnection.like(rdb), ECHO_KEYS)
    try:
        assert await batcher.call(["a"], [0]) == [b"a", b"0"]  # opens the connection: a task
        opened = batcher._flusher
        assert opened is not None
        for _ in range(3):  # each round several batches: one in flight, the rest queued
            replies = await asyncio.gather(*(batcher.call([f"k{i}"], [i]) for i in range(50)))
            assert replies == [[f"k{i}".encode(), str(i).encode()] for i in range(50)]
        assert batcher._flusher is opened  # no batch since needed a task of its own
    finally:
        batcher.close()


async def _scripted_redis(replies: list[list[bytes | None]]) -> tuple[asyncio.Server, int, list[int]]:
    """A server answering the k-th PING of its n-th connection with
    ``replies[n][k]`` (+PONG past the script; ``b""``: no answer, None: the
    connection closed); the list counts each connection's PINGs."""
    pings: list[int] = []

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        n = len(pings)
        pings.append(0)
        script = replies[n] if n < len(replies) else []
        while data := await reader.read(1 << 16):
            for _ in range(data.count(b"PING")):
                k = pings[n]
                pings[n] += 1
                reply = script[k] if k < len(script) else b"+PONG\r\n"
                if reply is None:
                    writer.close()
                    return
                writer.write(reply)
    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    return server, server.sockets[0].getsockname()[1], pings


async def test_a_short_way_batch_without_an_answer_times_out() -> None:
    server, port, _ = await _scripted_redis([[b"+PONG\r\n", b""]])  # then silent
    batcher = ScriptBatcher(RespConnection(host="127.0.0.1", port=port, timeout=0.2), ECHO_KEYS)
    try:
        assert await batcher.command("PING") == b"PONG"  # opens the connection
        started = asyncio.get_running_loop().time()
        with pytest.raises(RedisTimeoutError):
            await batcher.command("PING")
        assert asyncio.get_running_loop().time() - started < 2.0
    finally:
        batcher.close()
        server.close()


async def test_a_connection_lost_under_a_short_way_batch_fails_it_and_the_next_reconnects() -> None:
    server, port, accepted = await _scripted_redis([[b"+PONG\r\n", None]])  # then it closes
    batcher = ScriptBatcher(RespConnection(host="127.0.0.1", port=port, timeout=5.0), ECHO_KEYS)
    try:
        assert await batcher.command("PING") == b"PONG"
        with pytest.raises(RedisConnectionError):
            await asyncio.wait_for(batcher.command("PING"), 2.0)
        assert await batcher.command("PING") == b"PONG"  # a new connection
        assert len(accepted) == 2
    finally:
        batcher.close()
        server.close()


async def test_a_connection_closed_while_idle_is_replaced_before_the_next_request(
        rdb: aioredis.Redis) -> None:
    conn = RespConnection.like(rdb)
    try:
        await conn.execute([("CLIENT", "SETNAME", "resp-idle-kill")])
        for c in await rdb.client_list():
            if c.get("name") == "resp-idle-kill":
                await rdb.client_kill_filter(_id=c["id"])
        await asyncio.sleep(0.05)  # the close reaches this side while it is idle
        assert await conn.execute([("PING",)]) == [b"PONG"]  # no failed request first
    finally:
        conn.close()


def test_tls_settings_of_a_rediss_url_are_kept() -> None:
    import ssl

    client = aioredis.Redis.from_url("rediss://user:pw@redis.example:6380/2?ssl_cert_reqs=none")
    conn = RespConnection.like(client)
    assert conn._tls is not None and conn._tls.verify_mode == ssl.CERT_NONE
    assert not conn._tls.check_hostname
    assert (conn._host, conn._port, conn._db, conn._username) == ("redis.example", 6380, 2, "user")
    strict = RespConnection.like(aioredis.Redis.from_url("rediss://redis.example:6380/0"))
    assert strict._tls is not None and strict._tls.verify_mode == ssl.CERT_REQUIRED
    assert RespConnection.like(aioredis.Redis.from_url("redis://localhost:6379/0"))._tls is None


async def test_an_argument_redis_cannot_take_fails_only_its_own_caller(rdb: aioredis.Redis) -> None:
    batcher = ScriptBatcher(RespConnection.like(rdb), ECHO_KEYS)
    try:
        good = asyncio.ensure_future(batcher.call(["a"], [1]))
        with pytest.raises(TypeError):
            await batcher.call(["b"], [object()])
        assert await good == [b"a", b"1"]
    finally:
        batcher.close()


async def test_a_call_assembled_from_packed_parts_is_the_same_call(rdb: aioredis.Redis) -> None:
    batcher = ScriptBatcher(RespConnection.like(rdb), "return {KEYS[1], KEYS[2], ARGV[1], ARGV[2], ARGV[3]}")
    try:
        packed = (batcher.script_head(["k1", "k2"], 3) + pack_args((1, "two")) + pack_args((b"\x00three",)))
        assert packed == RespConnection.pack(("EVALSHA", batcher._sha, 2, "k1", "k2", 1, "two", b"\x00three"))
        assert await batcher.call_packed(packed) == [b"k1", b"k2", b"1", b"two", b"\x00three"]
    finally:
        batcher.close()


def test_the_stores_move_call_is_the_move_script_with_its_arguments() -> None:
    store = RoomStore(aioredis.Redis(), race_ms=60_000, countdown_ms=0)  # nothing is sent
    try:
        for progress in (b"", b"\x81\xa1t\xa8progress"):
            for n, code in ((1, "ABC234"), (2, "ABC234"), (1, "XYZ789"), (1, "ABC234")):
                full = RespConnection.pack((
                    "EVALSHA", store._moves._sha, 3, keys.meta(code), keys.player(code, n), keys.log(code, n),
                    7, 8, 1234, "t1-t2", "in_progress", 12,
                    keys.progress_envelope(n, progress) if progress else b"",
                    keys.channel(code), store.max_moves, store.race_ttl_ms))
                assert store.move_command(code, n, 7, 8, 1234, "t1-t2", "in_progress", 12, progress) == full
    finally:
        store.close()


async def test_a_write_on_a_closed_transport_is_the_store_being_away(rdb: aioredis.Redis) -> None:
    """redis-py's cluster client can write on a connection it closed after a timeout;
    uvloop refuses with a RuntimeError, which must read as store_unavailable (not 1011)."""
    from server.wire.errors import StoreUnavailable

    store = RoomStore(rdb, race_ms=1000, countdown_ms=0)

    async def closed() -> None:
        raise RuntimeError("unable to perform operation on <TCPTransport closed=True>; the handler is closed")

    async def other() -> None:
        raise RuntimeError("something else")

    with pytest.raises(StoreUnavailable):
        await store._guard(closed())
    with pytest.raises(RuntimeError, match="something else"):
        await store._guard(other())
    store.close()


async def test_a_cluster_out_of_redirections_is_the_store_being_away(rdb: aioredis.Redis) -> None:
    """redis-py's cluster client gives up with ClusterError ("TTL exhausted") when a
    slot keeps moving under it: a refusal (store_unavailable), not a traceback."""
    from redis.exceptions import ClusterError

    from server.wire.errors import StoreUnavailable

    store = RoomStore(rdb, race_ms=1000, countdown_ms=0)

    async def exhausted() -> None:
        raise ClusterError("TTL exhausted.")

    with pytest.raises(StoreUnavailable, match="ClusterError"):
        await store._guard(exhausted())
    store.close()
    from server.store.arenas import _guard as arenas_guard  # the arena store's own, without rooms

    with pytest.raises(StoreUnavailable, match="ClusterError"):
        await arenas_guard(exhausted())


async def _fake_redis(delay: float | None) -> tuple[asyncio.Server, int]:
    """A server answering each PING after ``delay`` seconds (None: never)."""

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while data := await reader.read(1 << 16):
            if delay is None:
                continue
            await asyncio.sleep(delay)
            writer.write(b"+PONG\r\n" * data.count(b"PING"))

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    return server, server.sockets[0].getsockname()[1]


async def test_a_request_without_an_answer_times_out() -> None:
    server, port = await _fake_redis(None)
    conn = RespConnection(host="127.0.0.1", port=port, timeout=0.2)
    try:
        started = asyncio.get_running_loop().time()
        with pytest.raises(RedisTimeoutError):
            await conn.execute([("PING",)])
        assert asyncio.get_running_loop().time() - started < 2.0
    finally:
        conn.close()
        server.close()


async def test_requests_answered_in_time_outlast_the_timeout_together() -> None:
    # the watchdog times each request, not the spell of requests: ten answers
    # 0.05 s apart take longer than the 0.2 s timeout and none is cut off
    server, port = await _fake_redis(0.05)
    conn = RespConnection(host="127.0.0.1", port=port, timeout=0.2)
    try:
        for _ in range(10):
            assert await conn.execute([("PING",)]) == [b"PONG"]
    finally:
        conn.close()
        server.close()


async def test_requests_arm_no_timeout_context_each(monkeypatch: pytest.MonkeyPatch) -> None:
    server, port = await _fake_redis(0.0)
    conn = RespConnection(host="127.0.0.1", port=port, timeout=5.0)
    await conn.open()
    armed = []
    real = asyncio.timeout

    def counting(delay: float | None) -> asyncio.Timeout:
        armed.append(delay)
        return real(delay)

    monkeypatch.setattr(asyncio, "timeout", counting)
    try:
        for _ in range(20):
            assert await conn.execute([("PING",)]) == [b"PONG"]
    finally:
        conn.close()
        server.close()
    assert armed == []


@pytest.mark.parametrize("args", [
    ("EVALSHA", "ab" * 20, 3), (0, -1, 7, 2**70, -(2**64)), ("", b"", "é✓", b"\x00\r\n"),
    ("x" * 255, "y" * 256, b"z" * 70_000), (1.5, "a", 0.1, 1e20), ("a", 2, b"c", 3.25),
])
def test_the_compiled_packer_packs_as_hiredis_does(args: tuple[object, ...]) -> None:
    full = RespConnection.pack(args)  # type: ignore[arg-type]
    assert pack_args(args) == full[full.index(b"\r\n") + 2:]  # type: ignore[arg-type]


class _Small(enum.IntEnum):
    ONE = 1


@pytest.mark.parametrize("bad", [None, True, [1], {"a": 1}, _Small.ONE])
def test_the_compiled_packer_refuses_what_hiredis_refuses(bad: object) -> None:
    with pytest.raises(TypeError):
        RespConnection.pack(("a", bad))  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        pack_args(("a", 1, bad))  # type: ignore[arg-type]




async def test_garbage_under_a_short_way_batch_sends_nothing_more_down_that_stream() -> None:
    # the second reply of the first connection is not RESP: its caller fails, and the
    # call queued behind it goes on a new connection, not down the broken one
    server, port, pings = await _scripted_redis([[b"+PONG\r\n", b"!garbage\r\n"]])
    batcher = ScriptBatcher(RespConnection(host="127.0.0.1", port=port, timeout=5.0), ECHO_KEYS)
    try:
        assert await batcher.command("PING") == b"PONG"  # opens the connection
        first = batcher.command("PING")
        await asyncio.sleep(0.001)  # written: the next call waits behind it
        second = batcher.command("PING")
        with pytest.raises(RedisConnectionError):
            await asyncio.wait_for(first, 2.0)
        assert await asyncio.wait_for(second, 2.0) == b"PONG"
        await asyncio.sleep(0.05)
        assert pings == [2, 1]
    finally:
        batcher.close()
        server.close()


async def test_a_reply_the_batcher_cannot_read_fails_its_caller_and_the_next_call_goes_on() -> None:
    # an ASK without an address, from a single server: reading it raises inside the
    # reply's callback; that caller gets the error and the batcher is not left stuck
    server, port, _ = await _scripted_redis([[b"+PONG\r\n", b"-ASK nowhere\r\n"]])
    batcher = ScriptBatcher(RespConnection(host="127.0.0.1", port=port, timeout=5.0), ECHO_KEYS)
    try:
        assert await batcher.command("PING") == b"PONG"
        with pytest.raises(IndexError):
            await asyncio.wait_for(batcher.command("PING"), 2.0)
        assert await asyncio.wait_for(batcher.command("PING"), 2.0) == b"PONG"
    finally:
        batcher.close()
        server.close()
