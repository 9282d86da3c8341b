"""The websocket transport's promises, held by both transports
(``PATIENCE_TRANSPORT=websockets`` and ``sansio``, server/net/sansio.py): the
close codes, the size limit, the flood's close, the keepalive, the handshake's
refusals, a slow client cut off by its outbox, and (the lean transport's own
work) fragmented messages, text frames and its bounded inbound queue.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import urllib.error
import urllib.request
from collections.abc import AsyncIterator
from typing import Any

import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed

from server.app import RaceServer
from server.net.connection import WebsocketSocket
from server.net.outbox import Outbox, Socket
from server.net.sansio import SansioConnection
from server.net.sansio_server import SansioServer, SansioSocket
from server.ops.config import TRANSPORTS, Settings
from server.wire.protocol import CLOSE_UNRESPONSIVE, MAX_FRAME_BYTES, PROTOCOL_VERSION, encode
from tests.support.bot import Bot
from tests.support.servers import FAST_RATE, NO_ADDRESS_LIMITS, ServerFactory, closed_with, ws_url

pytestmark = pytest.mark.parametrize("transport", TRANSPORTS)


async def hello(url: str, name: str = "bot") -> Bot:
    bot = Bot(url, name)
    bot.ws = await connect(url, max_size=2**20, compression=None)
    await bot.send({"t": "hello", "proto": PROTOCOL_VERSION, "name": name})
    await bot.expect("welcome")
    return bot


def http_status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=5) as page:
            status: int = page.status
            return status
    except urllib.error.HTTPError as exc:
        return exc.code


async def test_the_transport_setting_chooses_the_server(make_server: ServerFactory,
                                                        transport: str) -> None:
    app = await make_server(transport=transport)
    assert isinstance(app.server, SansioServer) == (transport == "sansio")
    bot = await hello(ws_url(app))
    await bot.send({"t": "ping"})
    await bot.expect("pong")
    await bot.close()


async def test_a_message_over_8_kib_closes_1009_whole_or_in_fragments(
        make_server: ServerFactory, transport: str) -> None:
    url = ws_url(await make_server(transport=transport))
    whole = await hello(url)
    assert whole.ws is not None
    await whole.ws.send(b"\x80" * (MAX_FRAME_BYTES + 1))
    assert await closed_with(whole) == 1009
    pieces = await hello(url)
    assert pieces.ws is not None
    await pieces.ws.send([b"\x80" * 4096, b"\x80" * 4096, b"\x80" * 4096])
    assert await closed_with(pieces) == 1009


async def test_a_fragmented_message_is_one_message(make_server: ServerFactory,
                                                   transport: str) -> None:
    url = ws_url(await make_server(transport=transport))
    bot = await hello(url)
    assert bot.ws is not None
    frame = encode({"t": "ping"})
    await bot.ws.send([frame[:1], frame[1:3], frame[3:]])
    await bot.expect("pong")
    await bot.ws.send("a text frame")  # a text frame is a bad frame, answered as such
    assert (await bot.expect("error"))["code"] == "bad_frame"
    await bot.close()


async def test_invalid_utf8_in_a_text_frame_closes_1007(make_server: ServerFactory,
                                                       transport: str) -> None:
    bot = await hello(ws_url(await make_server(transport=transport)))
    assert bot.ws is not None
    async with bot.ws.send_context():
        bot.ws.protocol.send_text(b"\xff\xfe")
    assert await closed_with(bot) == 1007


async def test_malformed_messages_and_a_flood_close_1008(make_server: ServerFactory,
                                                        transport: str) -> None:
    url = ws_url(await make_server(transport=transport, rate_per_2s=10))
    garbage = await hello(url)
    assert garbage.ws is not None
    for _ in range(21):
        await garbage.ws.send(b"\xc1")
    assert await closed_with(garbage) == 1008
    flood = await hello(url)
    assert flood.ws is not None
    for _ in range(60):
        await flood.ws.send(encode({"t": "ping"}))
    assert await closed_with(flood) == 1008
    codes = [m.get("code") for m in flood.inbox if m["t"] == "error"]
    assert codes.count("rate_limited") == 10  # the 11th refusal closes it


async def test_closing_the_server_tells_clients_1001(make_server: ServerFactory,
                                                      transport: str) -> None:
    app = await make_server(transport=transport)
    bot = await hello(ws_url(app))
    closing = asyncio.create_task(app.close())
    assert await closed_with(bot) == 1001
    await asyncio.wait_for(closing, 10)


async def test_the_handshake_refusals(make_server: ServerFactory, transport: str) -> None:
    app = await make_server(transport=transport, connections_per_address=1)
    url = ws_url(app)
    http = f"http://127.0.0.1:{app.port}"
    # a plain HTTP request for the websocket: refused by the library's handshake
    # (a plain GET of / is the browser client's page: server/net/webpage.py)
    assert await asyncio.to_thread(http_status, f"{http}/play") == 426
    bot = await hello(url)
    try:
        assert await asyncio.to_thread(http_status, f"{http}/healthz") == 200
        assert await asyncio.to_thread(http_status, f"{http}/metrics") == 200
        # the address holds all it may: refused at the handshake, before a websocket opens
        assert await asyncio.to_thread(http_status, f"{http}/play") == 429
    finally:
        await bot.close()


@contextlib.asynccontextmanager
async def pinging_server(redis_url: str, transport: str) -> AsyncIterator[RaceServer]:
    app = RaceServer(Settings(host="127.0.0.1", port=0, rate_per_2s=FAST_RATE, transport=transport,
                              **NO_ADDRESS_LIMITS), redis_url)
    app.ping_interval_s = 0.2
    app.ping_timeout_s = 0.3
    await app.start()
    try:
        yield app
    finally:
        await asyncio.wait_for(app.close(), 10)


async def test_a_client_that_answers_no_ping_is_closed_4000_on_either_transport(redis_url_session: str,
                                                             transport: str) -> None:
    async with pinging_server(redis_url_session, transport) as app:
        alive = await hello(ws_url(app), "alive")
        silent = await hello(ws_url(app), "silent")
        assert silent.ws is not None
        silent.ws.transport.pause_reading()  # its pongs never come
        await asyncio.sleep(1.2)  # several pings for the one that answers
        silent.ws.transport.resume_reading()
        assert await closed_with(silent) == CLOSE_UNRESPONSIVE == 4000  # not 1011, a server bug
        assert silent.ws.close_reason == "keepalive ping timeout"
        await alive.send({"t": "ping"})
        await alive.expect("pong")  # answered every ping: still open
        await alive.close()


async def test_a_server_that_cannot_listen_ends_every_loop_it_started(redis_url_session: str,
                                                                    transport: str) -> None:
    """A taken port fails the start, and the arena, pairing and hub loops started
    before the bind end with it: one left running kept the process from exiting."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        before = asyncio.all_tasks()
        app = RaceServer(Settings(host="127.0.0.1", port=port, transport=transport,
                                  **NO_ADDRESS_LIMITS), redis_url_session)
        with pytest.raises(OSError):
            await app.start()
    await asyncio.sleep(0)
    left = [t.get_name() for t in asyncio.all_tasks() - before if not t.done()]
    if left:
        await app.close()  # what the start should have done: the test's loop can end
    assert left == []


# -- a slow client, cut off by its outbox on either transport's socket ---------------------------
async def slow_reader(port: int) -> ClientConnection:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.setblocking(False)
    await asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", port))
    ws = await connect(f"ws://127.0.0.1:{port}/", sock=sock, max_queue=1, max_size=2**20,
                       compression=None)
    ws.transport.pause_reading()
    return ws


async def test_a_client_that_reads_nothing_is_cut_off_by_its_outbox(transport: str) -> None:
    outcome: asyncio.Future[tuple[str | None, float]] = asyncio.get_running_loop().create_future()

    async def flood(sock: Socket, until_closed: Any) -> None:
        outbox = Outbox(sock, stall_s=0.5, close_grace_s=0.5)
        started = asyncio.get_running_loop().time()
        for _ in range(2000):  # 4 MB, far past the kernel's buffers and the outbox's bounds
            outbox.send(b"x" * 2048)
            await asyncio.sleep(0)
        await until_closed()
        outcome.set_result((outbox.closed_for, asyncio.get_running_loop().time() - started))

    if transport == "sansio":
        async def lean(conn: SansioConnection) -> None:
            await flood(SansioSocket(conn), lambda: asyncio.shield(conn.lost))

        server: Any = await SansioServer(lean, max_size=MAX_FRAME_BYTES).start("127.0.0.1", 0)
    else:
        async def standard(ws: ServerConnection) -> None:
            await flood(WebsocketSocket(ws), ws.wait_closed)

        server = await serve(standard, "127.0.0.1", 0, compression=None, write_limit=64 * 1024)
    try:
        client = await slow_reader(next(iter(server.sockets)).getsockname()[1])
        why, took = await asyncio.wait_for(outcome, 10)
        assert why is not None and "fell behind" in why
        assert took < 5  # the grace, not the closing handshake's timeout
        client.transport.abort()
    finally:
        server.close()
        await server.wait_closed()


FRAMES = 4000  # 16 MB: more than the kernel's buffers of a loopback connection hold


async def test_a_full_inbound_queue_stops_reading_the_socket(transport: str) -> None:
    if transport != "sansio":
        pytest.skip("websockets' own assembler holds this for its transport")
    opened: asyncio.Future[SansioConnection] = asyncio.get_running_loop().create_future()
    release = asyncio.Event()
    got: list[int] = []

    async def stuck(conn: SansioConnection) -> None:
        opened.set_result(conn)
        await release.wait()  # reads nothing until released
        async for message in conn:
            got.append(len(message))
            if len(got) == FRAMES:
                return

    server = await SansioServer(stuck, max_size=MAX_FRAME_BYTES, max_queue=16).start("127.0.0.1", 0)
    try:
        client = await connect(f"ws://127.0.0.1:{next(iter(server.sockets)).getsockname()[1]}/",
                               compression=None, write_limit=2**20)
        conn = await opened
        sending = asyncio.create_task(_send_many(client, FRAMES, 4096))
        await asyncio.sleep(0.5)
        assert conn._reading_paused
        assert 16 <= len(conn._inbox) < 100  # one read's frames at most past the bound
        assert not sending.done()  # the client is held back by TCP, not by the server's memory
        release.set()
        await asyncio.wait_for(sending, 10)
        await asyncio.wait_for(conn.lost, 10)
        assert got == [4096] * FRAMES
        await client.close()
    finally:
        release.set()
        server.close()
        await server.wait_closed()


async def test_the_close_ends_a_handler_that_loses_a_cancel(transport: str) -> None:
    """A handler busy in a call that swallows one cancel (redis-py's ``wait_for`` on
    Python 3.11, server/ops/aio.py) is cancelled again until it ends: the server's
    close returns, where one cancel and an unbounded wait would hold it for good."""
    if transport != "sansio":
        pytest.skip("websockets' own server closes its handlers itself")
    entered = asyncio.Event()
    cancels: list[int] = []

    async def deaf(conn: SansioConnection) -> None:
        entered.set()
        while True:
            try:
                await asyncio.sleep(60)
            except asyncio.CancelledError:
                cancels.append(1)
                if len(cancels) == 3:
                    raise  # only the third cancel lands

    server = await SansioServer(deaf, max_size=MAX_FRAME_BYTES, close_timeout=0.2).start("127.0.0.1", 0)
    client = await connect(f"ws://127.0.0.1:{next(iter(server.sockets)).getsockname()[1]}/",
                           compression=None)
    await asyncio.wait_for(entered.wait(), 5)
    server.close()
    await asyncio.wait_for(server.wait_closed(), 5)
    assert len(cancels) == 3 and not server.handler_tasks
    await client.close()


async def _send_many(ws: ClientConnection, n: int, size: int) -> None:
    with contextlib.suppress(ConnectionClosed):
        for _ in range(n):
            await ws.send(b"m" * size)
