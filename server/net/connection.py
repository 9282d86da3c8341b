"""One websocket connection: its reader (limits, decoding, dispatch) and its
outbox. Knows frames and the codec, not games: what a message means is the
endpoint's business (the composition root supplies one per connection).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import time
from collections.abc import AsyncIterator, Callable
from typing import Any, Protocol

from websockets.asyncio.server import ServerConnection, broadcast
from websockets.exceptions import ConnectionClosed
from websockets.protocol import State

from ..ops import metrics
from ..ops.limits import Address, Bucket
from ..wire.protocol import CLOSE_INTERNAL, CLOSE_POLICY, ProtocolError, decode_client, encode, error
from .outbox import Outbox, Socket

log = logging.getLogger("patience.net")

KERNEL_SEND_BUFFER = 64 * 1024  # SO_SNDBUF of each connection (Linux doubles it)


class Endpoint(Protocol):
    """The application's side of one connection."""

    async def handle(self, msg: dict[str, Any]) -> None: ...

    async def closed(self) -> None: ...

    def log_extra(self) -> dict[str, Any]: ...


EndpointFactory = Callable[[Outbox, Address], Endpoint]


class Messages(Protocol):
    """A connection's incoming messages, as either transport delivers them: the
    iteration ends (or raises ConnectionClosed) when the connection does."""

    def __aiter__(self) -> AsyncIterator[str | bytes]: ...


class WebsocketSocket:
    """The outbox's view of a websockets server connection."""

    __slots__ = ("_ws",)

    def __init__(self, ws: ServerConnection) -> None:
        self._ws = ws

    @property
    def state(self) -> State:
        return self._ws.protocol.state

    def write_now(self, payload: bytes) -> None:
        # a direct write: skips websockets' per-send lock and context, a good
        # part of the cost of a small message; does nothing once closing
        broadcast([self._ws], payload)

    def buffered(self) -> int:
        return self._ws.transport.get_write_buffer_size()

    async def drain(self) -> None:
        await self._ws.drain()

    async def close(self, code: int, reason: str) -> None:
        await self._ws.close(code, reason)

    def abort(self) -> None:
        self._ws.transport.abort()


async def serve_connection(ws: Messages, sock: Socket, make_endpoint: EndpointFactory,
                           rate_per_2s: int, max_bad_frames: int, address: Address,
                           max_connections: int) -> None:
    """Read one connection's messages until it ends; answers go to its outbox,
    which writes to ``sock`` (either transport's).

    ``address`` is the client address's entry: its connections share its
    message budget and count against ``max_connections``."""
    address.connections += 1
    try:
        if address.connections > max_connections:
            # the handshake check let it through in a race with another one
            await sock.close(CLOSE_POLICY, "too many connections from this address")
            return
        await _serve(ws, sock, make_endpoint, rate_per_2s, max_bad_frames, address)
    finally:
        address.connections -= 1


async def _serve(ws: Messages, sock: Socket, make_endpoint: EndpointFactory, rate_per_2s: int,
                 max_bad_frames: int, address: Address) -> None:
    outbox = Outbox(sock)
    endpoint = make_endpoint(outbox, address)
    metrics.CONNECTIONS.inc()
    # This module is compiled: no wait may stand in an except or finally block
    # (a compiled coroutine would leave the exception it handles to every other
    # task meanwhile: docs/design/compiled-code.md). So the clean-up that awaits
    # comes after the try statement, and a cancellation is held until it is done.
    stopped: BaseException | None = None
    try:
        abuse = await _read(ws, outbox, endpoint, rate_per_2s, max_bad_frames, address)
        if abuse is not None:
            await _close_policy(ws, outbox, abuse)
    except ConnectionClosed:
        pass
    except Exception:
        log.exception("connection failed", extra=endpoint.log_extra())
        outbox.close(CLOSE_INTERNAL, "internal error")
    except BaseException as exc:  # cancelled: clean up as a finally would, then go on with it
        stopped = exc
    metrics.CONNECTIONS.dec()
    outbox.stop()
    await endpoint.closed()
    if stopped is not None:
        raise stopped


async def _read(ws: Messages, outbox: Outbox, endpoint: Endpoint, rate_per_2s: int,
                max_bad_frames: int, address: Address) -> str | None:
    """Hand each message to the endpoint until the connection ends (None) or
    has earned a close for abuse (its reason)."""
    bad = 0
    refused = 0
    last_refused = 0.0
    # a token bucket per connection, refilled at rate_per_2s every 2 s: a plain
    # object with no await (an asyncio limiter's acquire cost a coroutine per message)
    now = time.monotonic()
    bucket = Bucket(rate_per_2s, rate_per_2s / 2, now)
    async for frame in ws:
        # the connection's own bucket, then the one its address shares; the
        # connection's token is taken only when both have one
        now = time.monotonic()
        if bucket.take_with(address.messages, now):
            if refused and now - last_refused > 2.0:
                refused = 0  # it slowed down: forgive the earlier burst
        else:
            refused += 1
            last_refused = now
            if refused > rate_per_2s:
                return "rate limit exceeded"
            outbox.send(encode(error("rate_limited", "too many messages: slow down",
                                     _seq_of(frame))))
            continue
        try:
            msg = decode_client(frame)
            await endpoint.handle(msg)
        except ProtocolError as exc:
            if exc.code in ("bad_frame", "unknown_type", "bad_field"):
                bad += 1
                if bad > max_bad_frames:
                    return "too many malformed messages"  # closed by the caller: no wait here
            outbox.send(encode(error(exc.code, exc.message, _seq_of(frame), exc.retry_ms)))
    return None


def bound_kernel_buffer(transport: asyncio.BaseTransport) -> None:
    """Cap the kernel's send buffer of the connection: left to autotuning it
    may grow to megabytes for a client that reads nothing, memory that a slow
    or hostile client holds and a delay before the outbox notices it."""
    sock = transport.get_extra_info("socket")
    if sock is not None:
        with contextlib.suppress(OSError, AttributeError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, KERNEL_SEND_BUFFER)


async def _close_policy(ws: Messages, outbox: Outbox, reason: str) -> None:
    """Close with 1008 and read (and drop) what the client still sends meanwhile.

    A flood fills the receive queue, which stops websockets reading the socket;
    without draining it the client's close frame is never read and the
    connection lingers for the whole close timeout before it is dropped.
    """
    outbox.close(CLOSE_POLICY, reason)
    with contextlib.suppress(ConnectionClosed, TimeoutError):
        async with asyncio.timeout(10):
            async for _ in ws:
                pass


def _seq_of(frame: Any) -> int | None:
    """The seq of a move that failed, so the client can match the error."""
    try:
        msg = decode_client(frame)
    except ProtocolError:
        return None
    seq = msg.get("seq")
    return seq if isinstance(seq, int) else None
