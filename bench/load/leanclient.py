"""The load generator's websocket client: websockets' sans-I/O client protocol
on a plain :class:`asyncio.Protocol` (``python -m bench.load --client lean``).

The bench measures the server against an echo from the same generator
processes. With the library's asyncio client each message received costs the
generator a future, the receive assembler's bookkeeping and a task switch, and
each reply's time is read only when the player's coroutine gets round to it: on a
generator holding a thousand connections that queue is part of every figure,
and it is longer for the server (whose players decode views and receive their
opponents' progress) than for the echo. Here the library still does everything
that is websocket (handshake, masking, framing, pings' answers, closing), and
``data_received`` stamps each message with the time its bytes were read, so a
round trip ends when the answer reached the generator, not when the generator
was free to look at it. Server and echo are measured with the same client.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import deque
from typing import cast
from urllib.parse import urlsplit

from websockets.client import ClientProtocol
from websockets.exceptions import InvalidHandshake
from websockets.frames import Frame, Opcode
from websockets.http11 import Response
from websockets.protocol import State
from websockets.uri import parse_uri

MAX_SIZE = 2**20


class LeanClient(asyncio.Protocol):
    """One connection; :meth:`recv` returns each whole message in order, and
    :attr:`arrived` the time (``time.perf_counter``) the last one returned was read."""

    def __init__(self, url: str) -> None:
        self.protocol = ClientProtocol(parse_uri(url), max_size=MAX_SIZE)
        self.transport: asyncio.Transport | None = None
        self._inbox: deque[tuple[bytes, float]] = deque()
        self._fragments: list[bytes] = []
        self._waiter: asyncio.Future[None] | None = None
        self._opened: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._lost: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.arrived = 0.0

    # -- asyncio's callbacks ------------------------------------------------------
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)
        self.protocol.send_request(self.protocol.connect())
        self._flush()

    def data_received(self, data: bytes) -> None:
        now = time.perf_counter()
        self.protocol.receive_data(data)
        for event in self.protocol.events_received():
            if isinstance(event, Frame):
                self._frame(event, now)
            elif isinstance(event, Response) and not self._opened.done():
                if self.protocol.handshake_exc is not None:
                    self._opened.set_exception(self.protocol.handshake_exc)
                else:
                    self._opened.set_result(None)
        self._flush()
        self._wake()

    def connection_lost(self, exc: Exception | None) -> None:
        self.protocol.receive_eof()
        if not self._opened.done():
            self._opened.set_exception(InvalidHandshake(f"connection lost in the handshake: {exc}"))
        if not self._lost.done():
            self._lost.set_result(None)
        self._wake()

    # -- the player's side -----------------------------------------------------------
    async def recv(self) -> bytes:
        """The next whole message (``ConnectionClosed`` once none will come)."""
        while not self._inbox:
            if self.protocol.state is State.CLOSED or self._lost.done():
                raise self.protocol.close_exc
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        data, self.arrived = self._inbox.popleft()
        return data

    async def send(self, data: bytes) -> None:
        """Send ``data`` as one binary message (a coroutine, as the library's
        client's: the two are used alike)."""
        if self.protocol.state is not State.OPEN:
            raise self.protocol.close_exc
        self.protocol.send_binary(data)
        self._flush()

    async def close(self) -> None:
        if self.protocol.state is State.OPEN:
            self.protocol.send_close()
            self._flush()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(self._lost), 5)
        if self.transport is not None:
            self.transport.abort()

    # -- inside --------------------------------------------------------------------
    def _frame(self, frame: Frame, now: float) -> None:
        if frame.opcode in (Opcode.BINARY, Opcode.TEXT, Opcode.CONT):
            if frame.fin and not self._fragments:
                self._inbox.append((bytes(frame.data), now))
            else:
                self._fragments.append(bytes(frame.data))
                if frame.fin:
                    self._inbox.append((b"".join(self._fragments), now))
                    self._fragments = []

    def _flush(self) -> None:
        transport = self.transport
        if transport is None:
            return
        for data in self.protocol.data_to_send():
            if data:
                transport.write(data)
            elif transport.can_write_eof():
                transport.write_eof()  # the protocol's end of the closing handshake
        if self.protocol.close_expected() and not transport.is_closing():
            transport.close()

    def _wake(self) -> None:
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)


async def connect(url: str, open_timeout: float = 30) -> LeanClient:
    """A connected, open client for ``ws://host:port/`` (no TLS: the bench is local)."""
    parts = urlsplit(url)
    loop = asyncio.get_running_loop()
    async with asyncio.timeout(open_timeout):
        _, client = await loop.create_connection(lambda: LeanClient(url), parts.hostname or "127.0.0.1",
                                                 parts.port or 80)
        await client._opened
    return client
