"""The lean transport's fast path for incoming frames (server/net/sansio.py,
``_fast_frames``): a client's masked, final, binary frames are taken without
websockets' parser, whatever way TCP splits or joins them; every other frame
still goes through the parser, which decides exactly as before."""

from __future__ import annotations

import asyncio
import base64
import os
import socket
from collections.abc import AsyncIterator

import pytest

from server.net.sansio import SansioConnection
from server.net.sansio_server import SansioServer
from server.wire.protocol import MAX_FRAME_BYTES


def frame(payload: bytes, opcode: int = 0x2, fin: bool = True, masked: bool = True) -> bytes:
    """A client's frame, built by hand."""
    head = bytes([(0x80 if fin else 0) | opcode])
    n = len(payload)
    mask_bit = 0x80 if masked else 0
    if n < 126:
        head += bytes([mask_bit | n])
    elif n < 65536:
        head += bytes([mask_bit | 126]) + n.to_bytes(2, "big")
    else:
        head += bytes([mask_bit | 127]) + n.to_bytes(8, "big")
    if not masked:
        return head + payload
    mask = os.urandom(4)
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


class Raw:
    """A websocket client on a plain socket: it writes exactly the bytes it is given."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer

    async def write(self, data: bytes) -> None:
        self.writer.write(data)
        await self.writer.drain()

    async def read_frame(self) -> tuple[int, bytes]:
        b0, b1 = await self.reader.readexactly(2)
        n = b1 & 0x7F
        if n == 126:
            n = int.from_bytes(await self.reader.readexactly(2), "big")
        return b0 & 0x0F, await self.reader.readexactly(n)


def request(port: int) -> bytes:
    key = base64.b64encode(os.urandom(16)).decode()
    return (f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
            "Sec-WebSocket-Version: 13\r\n\r\n").encode()


class Collector:
    def __init__(self) -> None:
        self.conn: asyncio.Future[SansioConnection] = asyncio.get_running_loop().create_future()
        self.got: asyncio.Queue[str | bytes] = asyncio.Queue()

    async def __call__(self, conn: SansioConnection) -> None:
        if not self.conn.done():  # the first connection's
            self.conn.set_result(conn)
        async for message in conn:
            self.got.put_nowait(message)


@pytest.fixture
async def served() -> AsyncIterator[tuple[SansioServer, Collector]]:
    collector = Collector()
    server = await SansioServer(collector, max_size=MAX_FRAME_BYTES).start("127.0.0.1", 0)
    yield server, collector
    server.close()
    await server.wait_closed()


async def open_raw(server: SansioServer, early: bytes = b"") -> Raw:
    port = next(iter(server.sockets)).getsockname()[1]
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.get_extra_info("socket").setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    raw = Raw(reader, writer)
    await raw.write(request(port) + early)
    response = await reader.readuntil(b"\r\n\r\n")
    assert response.startswith(b"HTTP/1.1 101")
    return raw


async def received(collector: Collector, n: int) -> list[str | bytes]:
    return [await asyncio.wait_for(collector.got.get(), 5) for _ in range(n)]


async def test_frames_split_or_joined_by_tcp_arrive_whole_and_in_order(
        served: tuple[SansioServer, Collector]) -> None:
    server, collector = served
    raw = await open_raw(server)
    conn = await collector.conn
    small, medium = b"a move", bytes(range(256)) * 8  # 2 KiB: a 16-bit length
    stream = frame(small) + frame(medium) + frame(b"")
    for i in range(len(stream)):  # a byte per read: every cut of a header and a payload
        await raw.write(stream[i:i + 1])
        await asyncio.sleep(0)
    assert await received(collector, 3) == [small, medium, b""]
    await raw.write(frame(b"one") + frame(b"two") + frame(b"three"))  # three in one read
    assert await received(collector, 3) == [b"one", b"two", b"three"]
    assert conn._fast  # all of it on the fast path


async def test_control_and_text_frames_still_go_through_the_parser(
        served: tuple[SansioServer, Collector]) -> None:
    server, collector = served
    raw = await open_raw(server)
    conn = await collector.conn
    await raw.write(frame(b"before") + frame(b"are you there", opcode=0x9) + frame(b"after")
                    + frame(b"text", opcode=0x1))
    assert await received(collector, 3) == [b"before", b"after", "text"]
    assert await raw.read_frame() == (0xA, b"are you there")  # the parser's pong
    assert conn._fast
    # a fragmented message: the parser takes over from there, and joins it
    await raw.write(frame(b"frag", fin=False) + frame(b"ment", opcode=0x0) + frame(b"next"))
    assert await received(collector, 2) == [b"fragment", b"next"]
    assert not conn._fast


async def test_a_frame_that_breaks_the_rules_is_the_parsers_to_refuse(
        served: tuple[SansioServer, Collector]) -> None:
    server, collector = served
    unmasked = await open_raw(server)
    await unmasked.write(frame(b"a move", masked=False))
    opcode, payload = await unmasked.read_frame()
    assert (opcode, int.from_bytes(payload[:2], "big")) == (0x8, 1002)  # protocol error
    too_big = await open_raw(server)
    # only the header of a frame over the limit: refused at once, nothing buffered for it
    await too_big.write(frame(b"x" * (MAX_FRAME_BYTES + 1))[:8])
    opcode, payload = await too_big.read_frame()
    assert (opcode, int.from_bytes(payload[:2], "big")) == (0x8, 1009)


async def test_bytes_before_the_handshake_answer_leave_everything_to_the_parser(
        served: tuple[SansioServer, Collector]) -> None:
    server, collector = served
    await open_raw(server, early=frame(b"early")[:3])
    conn = await collector.conn
    assert not conn._fast


async def test_frames_sent_are_read_back_whole_at_every_length_encoding() -> None:
    from websockets.asyncio.client import connect

    sizes = [0, 125, 126, 65535, 65536, 70000]

    async def sender(conn: SansioConnection) -> None:
        for n in sizes:
            conn.send(bytes([n % 251]) * n)
        async for _ in conn:
            pass

    server = await SansioServer(sender, max_size=MAX_FRAME_BYTES).start("127.0.0.1", 0)
    try:
        port = next(iter(server.sockets)).getsockname()[1]
        async with connect(f"ws://127.0.0.1:{port}/", compression=None, max_size=2**20) as ws:
            got = [await asyncio.wait_for(ws.recv(), 5) for _ in sizes]
        assert got == [bytes([n % 251]) * n for n in sizes]
    finally:
        server.close()
        await server.wait_closed()


@pytest.mark.parametrize("size", [0, 125, 126, 65_535, 65_536])
def test_the_server_frame_is_the_one_websockets_would_write(size: int) -> None:
    from websockets.frames import Frame, Opcode

    from server.net import frames

    payload = bytes(range(256)) * (size // 256) + bytes(size % 256)
    assert frames.binary_frame(payload) == Frame(Opcode.BINARY, payload).serialize(
        mask=False, extensions=[])
