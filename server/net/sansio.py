"""The lean websocket transport: websockets' sans-I/O server protocol driven by
a plain :class:`asyncio.Protocol` (``PATIENCE_TRANSPORT=sansio``).

The library still does everything that is websocket: the handshake, framing,
masking, size limits, pings' answers and the closing handshake
(:class:`websockets.server.ServerProtocol`). What this module drops is the
library's asyncio connection around it: per-frame futures, locks, the receive
queue's assembler and the tasks of each send. Here ``data_received`` feeds the
protocol and appends each message to a bounded deque that the connection's one
reader task empties (the reading of the socket pauses while the deque is full,
as websockets does), and the frames a connection is sent within one loop tick
go out in one ``transport.write``.

A connection exposes what :mod:`server.net.connection` reads (its messages, by
``async for``) and what the outbox writes to (:class:`.sansio_server.SansioSocket`).
"""

from __future__ import annotations

import asyncio
import contextlib
import http
import logging
import os
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any, Protocol, cast

from websockets.exceptions import InvalidState
from websockets.frames import Frame, Opcode
from websockets.http11 import Request, Response
from websockets.protocol import State
from websockets.server import ServerProtocol

from ..wire.protocol import CLOSE_UNRESPONSIVE
from . import frames
from .connection import bound_kernel_buffer

log = logging.getLogger("patience.net")

OPEN_TIMEOUT_S = 10.0  # a handshake not done by then: the connection is cut

Handler = Callable[["SansioConnection"], Awaitable[None]]
ProcessRequest = Callable[["SansioConnection", Request], Awaitable[Response | None]]


class Owner(Protocol):
    """What a connection reads and keeps in its server
    (:class:`.sansio_server.SansioServer`)."""

    loop: asyncio.AbstractEventLoop
    handler: Handler
    process_request: ProcessRequest
    max_size: int
    max_queue: int
    write_limit: int
    ping_interval: float
    ping_timeout: float
    close_timeout: float
    connections: set[SansioConnection]
    handler_tasks: set[asyncio.Task[None]]
    serving: bool


class SansioConnection(asyncio.Protocol):
    """One connection: the protocol's events in, its frames out."""

    def __init__(self, server: Owner) -> None:
        self.server = server
        self.loop = server.loop
        self.protocol = ServerProtocol(max_size=server.max_size)
        self.transport: asyncio.Transport | None = None
        self.request: Request | None = None
        self.remote_address: Any = None
        self._inbox: deque[str | bytes] = deque()
        self._fragments: list[bytes] = []
        self._fragment_text = False
        self._waiter: asyncio.Future[None] | None = None
        self._reading_paused = False
        self._writing_paused = False
        self._drain_waiters: list[asyncio.Future[None]] = []
        self._flush_scheduled = False
        self._unflushed = 0
        self.lost: asyncio.Future[None] = self.loop.create_future()
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self._ping_payload: bytes | None = None
        self._ping_sent = 0.0
        self._pings = 0
        self.handler_task: asyncio.Task[None] | None = None
        # the fast path of incoming frames (see _fast_frames): the tail of an
        # incomplete frame, and whether the path is still taken
        self._partial = b""
        self._fast = True

    # -- asyncio.Protocol ----------------------------------------------------------
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        transport = cast(asyncio.Transport, transport)  # uvloop's is not a subclass
        self.transport = transport
        self.remote_address = transport.get_extra_info("peername")
        transport.set_write_buffer_limits(self.server.write_limit, self.server.write_limit // 4)
        bound_kernel_buffer(transport)
        self.server.connections.add(self)
        self._timer("open", OPEN_TIMEOUT_S, self._open_timed_out)

    def data_received(self, data: bytes) -> None:
        if self._fast and self.protocol._state is State.OPEN:  # see send
            data = self._fast_frames(data)
            if not data:
                if self.protocol.writes:
                    self._flush()
                return
        elif self._partial:  # the fast path's incomplete frame goes first
            data, self._partial = self._partial + data, b""
        self._receive(data)

    def _receive(self, data: bytes) -> None:
        """Bytes through websockets' own parser, and what they made happen."""
        protocol = self.protocol
        protocol.receive_data(data)
        events = protocol.events_received()
        if self.request is not None and protocol.state is State.CONNECTING:
            self._fast = False  # bytes before the handshake's answer: the parser keeps them all
        for event in events:
            if isinstance(event, Frame):
                self._frame(event)
            elif isinstance(event, Request) and self.request is None:
                self.request = event
                if not data.endswith(b"\r\n\r\n"):
                    self._fast = False  # more than the request came: as above
                self.loop.create_task(self._handshake(event), name="ws-handshake")
        if protocol.writes:
            self._flush()  # pongs, a close frame's answer, an error's close frame
        if protocol.close_expected():
            self._close_deadline()

    def _fast_frames(self, data: bytes) -> bytes:
        """Take the common frames off ``data`` without websockets' parser
        (:mod:`.frames`); return the bytes the parser must have (b"": none).

        Any complete frame other than a masked, final, binary one within the
        size limit goes to the parser whole, so the parser always stands at a
        frame boundary; a fragment or a frame that breaks the rules (unmasked,
        over the limit) turns the fast path off for good and the parser gets
        everything from there on, deciding exactly as it would have. An
        incomplete frame waits here (at most ``max_size`` and a header)."""
        if self._partial:
            data, self._partial = self._partial + data, b""
        pos, limit = 0, self.server.max_size
        while self._fast:
            kind, start, end = frames.next_frame(data, pos, limit)
            if kind == frames.WAIT:
                break
            if kind == frames.PARSER:
                self._fast = False
                break
            if kind == frames.BINARY:
                self._deliver(frames.unmasked(data, start, end), False)
            else:
                self._receive(data[pos:end])
                if self.protocol.state is not State.OPEN:
                    self._fast = False
            pos = end
        if not self._fast:
            return data[pos:]
        self._partial = data[pos:]
        return b""

    def eof_received(self) -> bool | None:
        self.protocol.receive_eof()
        self._flush()
        return None  # the transport closes itself

    def connection_lost(self, exc: Exception | None) -> None:
        self.protocol.receive_eof()  # idempotent: the state is CLOSED from here on
        self.server.connections.discard(self)
        for timer in self._timers.values():
            timer.cancel()
        self._timers.clear()
        self._wake()
        for waiter in self._drain_waiters:
            if not waiter.done():
                waiter.set_result(None)
        if not self.lost.done():
            self.lost.set_result(None)

    def pause_writing(self) -> None:
        self._writing_paused = True

    def resume_writing(self) -> None:
        self._writing_paused = False
        for waiter in self._drain_waiters:
            if not waiter.done():
                waiter.set_result(None)

    # -- incoming messages ---------------------------------------------------------
    def _frame(self, frame: Frame) -> None:
        opcode = frame.opcode
        data = frame.data
        if not isinstance(data, bytes):
            data = bytes(data)
        if opcode is Opcode.BINARY or opcode is Opcode.TEXT:
            if frame.fin:
                self._deliver(data, opcode is Opcode.TEXT)
            else:
                self._fragments = [data]
                self._fragment_text = opcode is Opcode.TEXT
        elif opcode is Opcode.CONT:
            # the protocol bounds a fragmented message's total size (max_size)
            self._fragments.append(data)
            if frame.fin:
                data = b"".join(self._fragments)
                self._fragments = []
                self._deliver(data, self._fragment_text)
        elif (opcode is Opcode.PONG and self._ping_payload is not None
              and frame.data == self._ping_payload):
            self._pong()

    def _deliver(self, data: bytes, text: bool) -> None:
        if text:
            try:
                message: str | bytes = data.decode()
            except UnicodeDecodeError:
                self.protocol.fail(1007, "invalid UTF-8 in a text message")
                return
        else:
            message = data
        self._inbox.append(message)
        if len(self._inbox) >= self.server.max_queue and not self._reading_paused:
            self._reading_paused = True
            assert self.transport is not None
            self.transport.pause_reading()
        self._wake()

    def _wake(self) -> None:
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def __aiter__(self) -> SansioConnection:
        return self

    async def __anext__(self) -> str | bytes:
        """The next message; the iteration ends once the connection is closed
        and every message it brought was taken. (A method rather than an async
        generator: mypyc compiles this module, and not async generators.)"""
        inbox = self._inbox
        while not inbox:
            if self.protocol._state is State.CLOSED:
                raise StopAsyncIteration
            self._waiter = self.loop.create_future()
            await self._waiter
            self._waiter = None
        message = inbox.popleft()
        if self._reading_paused and len(inbox) <= self.server.max_queue // 4:
            self._reading_paused = False
            if self.transport is not None and not self.transport.is_closing():
                self.transport.resume_reading()
        return message

    # -- outgoing frames -----------------------------------------------------------
    def send(self, payload: bytes) -> None:
        """Queue a binary frame; it is written at the end of this loop tick,
        with every other frame this connection is sent meanwhile."""
        protocol = self.protocol
        # the protocol's own attribute: its ``state`` property is a Python call,
        # several per move on this path (the protocol reads ``_state`` itself)
        if protocol._state is not State.OPEN:
            return
        # the frame websockets' send_binary would make, without its Frame
        # object: queued in the protocol's own list, in order with its frames
        protocol.writes.append(frames.binary_frame(payload))
        self._unflushed += len(payload)
        if not self._flush_scheduled:
            self._flush_scheduled = True
            self.loop.call_soon(self._flush)

    def _flush(self) -> None:
        self._flush_scheduled = False
        self._unflushed = 0
        transport = self.transport
        protocol = self.protocol
        data, protocol.writes = protocol.writes, []  # data_to_send(), without its Python call
        if not data or transport is None or transport.is_closing():
            return
        if len(data) == 1 and data[0]:
            transport.write(data[0])
            return
        chunk = [d for d in data if d]
        if chunk:
            transport.write(b"".join(chunk))
        if len(chunk) != len(data):  # b"": the protocol ends the TCP connection
            if transport.can_write_eof():
                with contextlib.suppress(Exception):
                    transport.write_eof()
            else:
                transport.close()

    def buffered(self) -> int:
        if self.transport is None:
            return 0
        return self.transport.get_write_buffer_size() + self._unflushed

    async def drain(self) -> None:
        if self._writing_paused and self.protocol.state is not State.CLOSED:
            waiter = self.loop.create_future()
            self._drain_waiters.append(waiter)
            try:
                await waiter
            finally:
                self._drain_waiters.remove(waiter)

    async def close(self, code: int = 1000, reason: str = "") -> None:
        """Start the closing handshake and wait for the connection's end (cut
        off after the server's close timeout)."""
        if self.protocol.state is State.OPEN:
            with contextlib.suppress(InvalidState):
                self.protocol.send_close(code, reason)
            self._flush()
            self._close_deadline()
        elif self.protocol.state is State.CONNECTING:
            self.abort()
        await asyncio.shield(self.lost)

    def abort(self) -> None:
        if self.transport is not None:
            self.transport.abort()

    def respond(self, status: http.HTTPStatus, text: str) -> Response:
        """A plain HTTP answer to the handshake (websockets' own helper)."""
        return self.protocol.reject(status, text)

    # -- handshake, keepalive and timers ------------------------------------------------
    async def _handshake(self, request: Request) -> None:
        try:
            response = await self.server.process_request(self, request)
        except Exception:
            log.exception("process_request failed")
            response = self.protocol.reject(http.HTTPStatus.INTERNAL_SERVER_ERROR,
                                            "Failed to open a WebSocket connection.\n")
        if response is None:
            response = self.protocol.accept(request)
            if not self.server.serving:
                response = self.protocol.reject(http.HTTPStatus.SERVICE_UNAVAILABLE,
                                                "Server is shutting down.\n")
        if self.protocol.state is not State.CONNECTING:
            return  # the connection went away meanwhile
        self.protocol.send_response(response)
        self._flush()
        self._cancel("open")
        if response.status_code != http.HTTPStatus.SWITCHING_PROTOCOLS:
            self._close_deadline()  # a refusal: the client closes, or is cut off
            return
        self._timer("ping", self.server.ping_interval, self._ping)
        task = self.loop.create_task(self._run_handler(), name="ws-handler")
        self.handler_task = task
        self.server.handler_tasks.add(task)
        task.add_done_callback(self.server.handler_tasks.discard)

    async def _run_handler(self) -> None:
        failed = False
        try:
            await self.server.handler(self)
        except Exception:
            log.exception("connection handler failed")
            failed = True
        # the close waits: after the except block, never in it (compiled:
        # docs/design/compiled-code.md)
        if self.protocol.state is State.OPEN:
            if failed:
                await self.close(1011, "internal error")
            else:
                await self.close(1000)

    def _ping(self) -> None:
        if self.protocol.state is not State.OPEN:
            return
        self._pings += 1
        self._ping_payload = os.getpid().to_bytes(4, "big") + self._pings.to_bytes(4, "big")
        self._ping_sent = self.loop.time()
        self.protocol.send_ping(self._ping_payload)
        self._flush()
        self._timer("pong", self.server.ping_timeout, self._ping_timed_out)

    def _pong(self) -> None:
        self._ping_payload = None
        self._cancel("pong")
        latency = self.loop.time() - self._ping_sent
        self._timer("ping", max(0.0, self.server.ping_interval - latency), self._ping)

    def _ping_timed_out(self) -> None:
        if self.protocol.state is State.OPEN:
            self.protocol.fail(CLOSE_UNRESPONSIVE, "keepalive ping timeout")
            self._flush()
            self._close_deadline()

    def _open_timed_out(self) -> None:
        if self.protocol.state is State.CONNECTING:
            self.abort()

    def _close_deadline(self) -> None:
        if "close" not in self._timers:
            self._timer("close", self.server.close_timeout, self.abort)

    def _timer(self, name: str, delay: float, callback: Callable[[], None]) -> None:
        self._cancel(name)
        self._timers[name] = self.loop.call_later(delay, callback)

    def _cancel(self, name: str) -> None:
        timer = self._timers.pop(name, None)
        if timer is not None:
            timer.cancel()
