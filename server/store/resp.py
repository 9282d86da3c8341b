"""A lean Redis connection for the two hot paths: pipelined move scripts and
the pub/sub stream.

redis-py's asyncio pipeline spends several times more client CPU per command here
(its retry wrapper, pool and Python-side packing and parsing); packing with
``hiredis.pack_command`` and parsing with ``hiredis.Reader`` on a plain asyncio
connection costs a fraction of that (docs/benchmarks.md). Every other Redis call still goes
through redis-py; this class takes its connection settings from the same
redis-py pool, so both always talk to the same server and database.

Failures raise redis-py's own ``ConnectionError``/``TimeoutError``, which the
store already turns into ``StoreUnavailable``; the connection is dropped and
opened again on the next use.

A request that gets no answer within ``timeout`` is ended by a watchdog timer
that aborts the connection, not by an ``asyncio.timeout`` around every request:
under load the batcher sends a pipeline every few hundred microseconds, and a
timeout's context manager and timer per pipeline were a measurable part of the
move path; the watchdog sets one timer per ``timeout`` while requests flow.

The socket is driven by a plain :class:`asyncio.Protocol` (:class:`_Link`): the
bytes that arrive go straight into the hiredis parser and wake the one waiting
reader, without asyncio's stream reader and writer (their Python coroutines,
buffer and futures were a few microseconds per pipeline and per published
message on the hub's connection; docs/benchmarks/history/rounds.md, round 4).

The batcher's pipelines on one server take a shorter way still
(:meth:`RespConnection.send_packed`): the pipeline is written at once and its
replies go to a callback from the very ``data_received`` that completes them,
with no task, coroutine or future per pipeline; every move saves two trips
through the loop's queue on its way to Redis and back (docs/benchmarks/history/rounds.md,
"the store's replies where they arrive").
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
from collections.abc import Callable, Sequence
from typing import Any, cast

import hiredis
from redis.asyncio import Redis
from redis.asyncio.connection import SSLConnection
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

from ..ops.aio import KeptLoop

Command = Sequence[str | bytes | int | float]
# Gets a pipeline's replies in order (an error reply as a ``ResponseError``
# value), or, with an empty list, the error that ended the connection first.
Answered = Callable[[list[Any], BaseException | None], None]


class _Link(asyncio.Protocol):
    """One connection's socket: what arrives goes into ``reader`` (hiredis) and
    wakes the waiting reader; a full write buffer makes writers wait."""

    def __init__(self, reader: hiredis.Reader) -> None:
        self.reader = reader
        self.transport: asyncio.Transport | None = None
        self.closed = False  # the peer closed, or the connection was lost
        self.waiter: asyncio.Future[None] | None = None  # a reader waiting for bytes
        # a pipeline sent by send_packed: told of every arrival (and of the end)
        # in place of a waiting reader
        self.on_data: Callable[[], None] | None = None
        self._paused = False
        self._drained: asyncio.Future[None] | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # uvloop's is not a subclass

    def data_received(self, data: bytes) -> None:
        self.reader.feed(data)
        self.wake()

    def eof_received(self) -> bool:
        self.closed = True
        self.wake()
        return False  # the transport closes itself

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self.wake()
        self._resume()

    def pause_writing(self) -> None:
        self._paused = True

    def resume_writing(self) -> None:
        self._paused = False
        self._resume()

    def wake(self) -> None:
        on_data = self.on_data
        if on_data is not None:
            on_data()
            return
        waiter = self.waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def _resume(self) -> None:
        drained = self._drained
        if drained is not None and not drained.done():
            drained.set_result(None)

    def is_open(self) -> bool:
        return not self.closed and self.transport is not None and not self.transport.is_closing()

    async def drain(self) -> None:
        """Wait while the transport's buffer is over its high-water mark."""
        if self._paused and not self.closed:
            self._drained = asyncio.get_running_loop().create_future()
            await self._drained
            self._drained = None
        if self.closed:
            raise RedisConnectionError("redis closed the connection")

    async def readable(self) -> None:
        """Wait for more bytes (or the end of the connection)."""
        self.waiter = asyncio.get_running_loop().create_future()
        try:
            await self.waiter
        finally:
            self.waiter = None


class RespConnection:
    """One connection; callers keep to one request (or one subscriber) at a time."""

    def __init__(self, *, host: str = "localhost", port: int = 6379, path: str | None = None,
                 db: int = 0, username: str | None = None, password: str | None = None,
                 tls: ssl.SSLContext | None = None, timeout: float = 5.0) -> None:
        self._host, self._port, self._path = host, port, path
        self._db, self._username, self._password = db, username, password
        self._tls = tls
        self.timeout = timeout
        self._link: _Link | None = None
        self._reader = hiredis.Reader(replyError=ResponseError)
        self._leaving: dict[bytes, int] = {}  # shard channels we asked to leave, unconfirmed
        # the request in flight: when it was sent (None: none), and whether the
        # watchdog gave up on it
        self._sent_at: float | None = None
        self._timed_out = False
        self._watchdog: asyncio.TimerHandle | None = None
        self._loop = KeptLoop()
        # the pipeline sent by send_packed: its callback, its reply count, its replies
        self._answered: Answered | None = None
        self._want = 0
        self._got: list[Any] = []

    @classmethod
    def like(cls, redis: Redis, timeout: float = 5.0) -> RespConnection:
        """A connection to the server and database ``redis`` is configured for."""
        pool = redis.connection_pool
        kw = pool.connection_kwargs
        tls = _tls_context(kw) if issubclass(pool.connection_class, SSLConnection) else None
        return cls(host=kw.get("host", "localhost"), port=int(kw.get("port", 6379)),
                   path=kw.get("path"), db=int(kw.get("db", 0) or 0),
                   username=kw.get("username"), password=kw.get("password"),
                   tls=tls, timeout=timeout)

    async def open(self) -> None:
        if self._link is not None:
            if self._link.is_open():
                return
            self.close()  # Redis closed it while idle (a restart, a kill): open a new one
        try:
            async with asyncio.timeout(self.timeout):
                loop = asyncio.get_running_loop()
                self._reader = reader = hiredis.Reader(replyError=ResponseError)
                if self._path:
                    _, self._link = await loop.create_unix_connection(lambda: _Link(reader), self._path)
                else:
                    _, self._link = await loop.create_connection(
                        lambda: _Link(reader), self._host, self._port, ssl=self._tls)
                self._leaving = {}
                hello: list[Command] = []
                if self._password:
                    hello.append(("AUTH", self._username, self._password) if self._username
                                 else ("AUTH", self._password))
                if self._db:
                    hello.append(("SELECT", self._db))
                if hello:
                    self._write(hello)
                    for _ in hello:
                        reply = await self._read()
                        if isinstance(reply, ResponseError):
                            raise RedisConnectionError(f"redis refused the connection: {reply}")
        except TimeoutError:
            self.close()
            raise RedisTimeoutError("timed out connecting to redis") from None
        except OSError as exc:
            self.close()
            raise RedisConnectionError(f"cannot connect to redis: {exc}") from None
        except BaseException:
            self.close()
            raise

    def close(self, error: BaseException | None = None) -> None:
        """Close the connection; a pipeline of :meth:`send_packed`'s in flight
        ends with ``error`` (by default: closed), once the connection is gone,
        so its callback cannot send the next one down this stream."""
        link, self._link = self._link, None
        if link is not None:
            link.on_data = None
            if link.transport is not None:
                with contextlib.suppress(Exception):
                    link.transport.close()
        self._end_pipeline(error or RedisConnectionError("the connection to redis was closed"))

    def abort(self) -> None:
        """Drop the connection at once: no TLS goodbye, which a peer that stopped
        answering would never acknowledge. A pending read ends there."""
        link, self._link = self._link, None
        if link is not None:
            link.closed = True
            link.on_data = None  # a pipeline of send_packed's ends below, with the reason
            link.wake()  # the pending read ends now, not at the loss's callback
            if link.transport is not None:
                link.transport.abort()
        self._end_pipeline(RedisTimeoutError("redis did not answer in time") if self._timed_out
                           else RedisConnectionError("the connection to redis was dropped"))

    @staticmethod
    def pack(command: Command) -> bytes:
        """One command in Redis' wire format (TypeError for an argument it cannot send)."""
        pack: Any = hiredis.pack_command  # its stub wrongly types the argument as a 1-tuple
        return bytes(pack(tuple(command)))

    def _write(self, commands: Sequence[Command]) -> None:
        self._write_packed(b"".join(map(self.pack, commands)))

    def _write_packed(self, data: bytes) -> None:
        link = self._link
        if link is None or link.transport is None or link.closed:
            raise RedisConnectionError("not connected")
        link.transport.write(data)

    async def _read(self) -> Any:
        """The next reply; an error reply comes back as a ``ResponseError`` value."""
        while True:
            reply = self._reader.gets()
            if reply is not False:
                return reply
            link = self._link
            if link is None:
                raise RedisConnectionError("not connected")
            if link.closed:
                raise RedisConnectionError("redis closed the connection")
            await link.readable()

    async def execute(self, commands: Sequence[Command]) -> list[Any]:
        """Send ``commands`` as one pipeline and return their replies in order."""
        return await self.execute_packed([self.pack(c) for c in commands])

    async def execute_packed(self, packed: Sequence[bytes]) -> list[Any]:
        """:meth:`execute` for commands already passed through :meth:`pack`."""
        link = self._link
        if link is None or not link.is_open():
            await self.open()
        loop = self._loop.get()
        self._sent_at, self._timed_out = loop.time(), False
        if self._watchdog is None:
            self._watchdog = loop.call_at(self._sent_at + self.timeout, self._watch, loop)
        try:
            self._write_packed(b"".join(packed))
            link = self._link
            assert link is not None
            await link.drain()
            # the replies already read come off the parser without a coroutine each
            replies, reader = [], self._reader
            for _ in packed:
                reply = reader.gets()
                replies.append(reply if reply is not False else await self._read())
            return replies
        except (OSError, RedisConnectionError) as exc:
            self.close()
            if self._timed_out:  # the watchdog cut the connection
                raise RedisTimeoutError("redis did not answer in time") from None
            raise RedisConnectionError(f"lost the connection to redis: {exc}") from None
        except BaseException:  # cancelled mid-read: the stream is out of step
            self.close()
            raise
        finally:
            self._sent_at = None

    def idle(self) -> bool:
        """Whether :meth:`send_packed` may write now: open, nothing in flight."""
        link = self._link
        return self._sent_at is None and link is not None and link.is_open()

    def send_packed(self, packed: Sequence[bytes], answered: Answered) -> None:
        """Write ``packed`` as one pipeline and return at once (only when
        :meth:`idle`); ``answered`` gets the replies from the callback that
        reads the last of them, or the error that ends the connection first
        (the watchdog's timeout included). No write-buffer wait: a caller sends
        one pipeline at a time, so the buffer holds at most one."""
        link = self._link
        if link is None or not self.idle():
            raise RedisConnectionError("not connected, or a request is in flight")
        loop = self._loop.get()
        self._sent_at, self._timed_out = loop.time(), False
        if self._watchdog is None:
            self._watchdog = loop.call_at(self._sent_at + self.timeout, self._watch, loop)
        self._answered, self._want, self._got = answered, len(packed), []
        link.on_data = self._collect
        try:
            link.transport.write(b"".join(packed))  # type: ignore[union-attr]
        except (OSError, RuntimeError):  # uvloop's transport refuses with RuntimeError
            self.close()  # ends the pipeline: its callback gets the error now

    def _collect(self) -> None:
        """Bytes arrived for the pipeline in flight (or its connection ended)."""
        got, reader = self._got, self._reader
        try:
            while len(got) < self._want:
                reply = reader.gets()
                if reply is False:
                    link = self._link
                    if link is None or link.closed:
                        self.close()  # ends the pipeline with the connection's error
                    return
                got.append(reply)
        except hiredis.ProtocolError as exc:  # garbage on the stream: nothing after it is sure
            self.close(RedisConnectionError(f"lost the connection to redis: {exc}"))
            return
        link = self._link
        if link is not None:
            link.on_data = None
        answered = self._take_pipeline()
        if answered is not None:
            answered(got, None)  # may send the next pipeline at once

    def _end_pipeline(self, exc: BaseException) -> None:
        answered = self._take_pipeline()
        if answered is not None:
            answered([], exc)

    def _take_pipeline(self) -> Answered | None:
        """The callback of the pipeline in flight; none is in flight after."""
        answered = self._answered
        self._answered, self._got, self._sent_at = None, [], None
        return answered

    def _watch(self, loop: asyncio.AbstractEventLoop) -> None:
        """Abort the connection if the request in flight is older than the
        timeout (its replies may still come, so the stream is out of step);
        otherwise look again when the current request's time is up."""
        self._watchdog = None
        sent_at = self._sent_at
        if sent_at is None:
            return  # idle: the next request sets the timer again
        if loop.time() >= sent_at + self.timeout:
            self._timed_out = True
            self.abort()  # the pending read or drain ends at once
        else:
            self._watchdog = loop.call_at(sent_at + self.timeout, self._watch, loop)

    # -- pub/sub ---------------------------------------------------------------------
    # Room channels are shard channels (SSUBSCRIBE): a room's messages stay on the
    # shard that owns its keys. The few cluster-wide notices use classic channels.
    async def subscribe(self, *channels: str) -> None:
        """Classic channels. Confirmations arrive in the stream and :meth:`message` skips them."""
        await self._send_now(("SUBSCRIBE", *channels))

    async def unsubscribe(self, *channels: str) -> None:
        await self._send_now(("UNSUBSCRIBE", *channels))

    async def ssubscribe(self, *channels: str) -> None:
        """Shard channels (all in one slot per call on a cluster: the server refuses
        a cross-slot SSUBSCRIBE, so callers send one per channel)."""
        for channel in channels:
            await self._send_now(("SSUBSCRIBE", channel))

    async def sunsubscribe(self, *channels: str) -> None:
        # remembered, so that the confirmation is not taken for a slot that moved away
        for channel in channels:
            self._leaving[channel.encode()] = self._leaving.get(channel.encode(), 0) + 1
            await self._send_now(("SUNSUBSCRIBE", channel))

    async def _send_now(self, command: Command) -> None:
        try:
            self._write([command])
        except (OSError, RuntimeError) as exc:
            self.close()
            raise RedisConnectionError(f"lost the connection to redis: {exc}") from None

    async def ping(self) -> None:
        """A PING on a subscribed connection: :meth:`message` returns None for its answer."""
        await self._send_now(("PING",))

    async def message(self) -> tuple[bytes, bytes] | None:
        """The next published message as (channel, payload), or None for the answer
        to a :meth:`ping`; waits as long as it takes (cancelling the wait is safe).
        :class:`ShardChannelLost` when the server drops a shard channel we did not
        leave (its slot moved to another node, or was deleted)."""
        try:
            while True:
                reply = await self._read()
                if isinstance(reply, list) and len(reply) == 3 and reply[0] in _MESSAGES:
                    return reply[1], reply[2]
                if isinstance(reply, list) and reply and reply[0] == b"pong":
                    return None
                if isinstance(reply, list) and len(reply) == 3 and reply[0] == b"sunsubscribe":
                    self._left(reply[1])
                    continue
                if isinstance(reply, ResponseError):
                    raise RedisConnectionError(f"redis refused a subscription: {reply}")
        except OSError as exc:
            self.close()
            raise RedisConnectionError(f"lost the connection to redis: {exc}") from None
        except RedisConnectionError:
            self.close()
            raise

    def _left(self, channel: bytes) -> None:
        pending = self._leaving.get(channel, 0)
        if pending > 1:
            self._leaving[channel] = pending - 1
        elif pending == 1:
            del self._leaving[channel]
        else:
            raise ShardChannelLost(channel.decode(errors="replace"))


_MESSAGES = (b"message", b"smessage")


class ShardChannelLost(RedisConnectionError):
    """The server unsubscribed us from a shard channel on its own: the slot moved.
    A connection error to its callers, so they re-subscribe and catch up as after
    any reconnect (messages published meanwhile went to the new owner)."""

    def __init__(self, channel: str) -> None:
        super().__init__(f"redis dropped the subscription to {channel} (slot moved)")
        self.channel = channel


def _tls_context(kw: dict[str, Any]) -> ssl.SSLContext:
    """The TLS settings of a ``rediss://`` URL, as redis-py reads them."""
    context = ssl.create_default_context(cafile=kw.get("ssl_ca_certs"))
    if kw.get("ssl_certfile"):
        context.load_cert_chain(kw["ssl_certfile"], kw.get("ssl_keyfile"))
    reqs = kw.get("ssl_cert_reqs", "required")
    if reqs in ("none", ssl.CERT_NONE):
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    elif reqs in ("optional", ssl.CERT_OPTIONAL):
        context.verify_mode = ssl.CERT_OPTIONAL
    if kw.get("ssl_check_hostname") is False:
        context.check_hostname = False
    return context
