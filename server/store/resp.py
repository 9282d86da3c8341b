"""A lean Redis connection for the two hot paths: pipelined move scripts and
the pub/sub stream.

redis-py's asyncio pipeline spends about 60 µs of client CPU per command here
(its retry wrapper, pool and Python-side packing and parsing); packing with
``hiredis.pack_command`` and parsing with ``hiredis.Reader`` on a plain asyncio
stream costs about 9 µs (docs/benchmarks.md). Every other Redis call still goes
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
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
from collections.abc import Sequence
from typing import Any

import hiredis
from redis.asyncio import Redis
from redis.asyncio.connection import SSLConnection
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

READ_CHUNK = 1 << 16
Command = Sequence[str | bytes | int | float]


def pack_args(args: Command) -> bytes:
    """Arguments in Redis' wire format without the array header, for a command
    assembled from parts packed once (see :func:`array_header`)."""
    packed = RespConnection.pack(args)
    return packed[packed.index(b"\r\n") + 2:]


def array_header(n: int) -> bytes:
    return b"*%d\r\n" % n


class RespConnection:
    """One connection; callers keep to one request (or one subscriber) at a time."""

    def __init__(self, *, host: str = "localhost", port: int = 6379, path: str | None = None,
                 db: int = 0, username: str | None = None, password: str | None = None,
                 tls: ssl.SSLContext | None = None, timeout: float = 5.0) -> None:
        self._host, self._port, self._path = host, port, path
        self._db, self._username, self._password = db, username, password
        self._tls = tls
        self.timeout = timeout
        self._stream: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None
        self._reader = hiredis.Reader(replyError=ResponseError)
        self._leaving: dict[bytes, int] = {}  # shard channels we asked to leave, unconfirmed
        # the request in flight: when it was sent (None: none), and whether the
        # watchdog gave up on it
        self._sent_at: float | None = None
        self._timed_out = False
        self._watchdog: asyncio.TimerHandle | None = None

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
        if self._writer is not None:
            assert self._stream is not None
            if not self._stream.at_eof() and not self._writer.is_closing():
                return
            self.close()  # Redis closed it while idle (a restart, a kill): open a new one
        try:
            async with asyncio.timeout(self.timeout):
                if self._path:
                    self._stream, self._writer = await asyncio.open_unix_connection(self._path)
                else:
                    self._stream, self._writer = await asyncio.open_connection(
                        self._host, self._port, ssl=self._tls)
                self._reader = hiredis.Reader(replyError=ResponseError)
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

    def close(self) -> None:
        writer, self._writer, self._stream = self._writer, None, None
        if writer is not None:
            with contextlib.suppress(Exception):
                writer.close()

    def abort(self) -> None:
        """Drop the connection at once: no TLS goodbye, which a peer that stopped
        answering would never acknowledge. A pending read ends there."""
        writer, self._writer, self._stream = self._writer, None, None
        if writer is not None:
            writer.transport.abort()

    @staticmethod
    def pack(command: Command) -> bytes:
        """One command in Redis' wire format (TypeError for an argument it cannot send)."""
        pack: Any = hiredis.pack_command  # its stub wrongly types the argument as a 1-tuple
        return bytes(pack(tuple(command)))

    def _write(self, commands: Sequence[Command]) -> None:
        assert self._writer is not None
        self._writer.write(b"".join(map(self.pack, commands)))

    async def _read(self) -> Any:
        """The next reply; an error reply comes back as a ``ResponseError`` value."""
        while True:
            reply = self._reader.gets()
            if reply is not False:
                return reply
            if self._stream is None:
                raise RedisConnectionError("not connected")
            data = await self._stream.read(READ_CHUNK)
            if not data:
                raise RedisConnectionError("redis closed the connection")
            self._reader.feed(data)

    async def execute(self, commands: Sequence[Command]) -> list[Any]:
        """Send ``commands`` as one pipeline and return their replies in order."""
        return await self.execute_packed([self.pack(c) for c in commands])

    async def execute_packed(self, packed: Sequence[bytes]) -> list[Any]:
        """:meth:`execute` for commands already passed through :meth:`pack`."""
        await self.open()
        loop = asyncio.get_running_loop()
        self._sent_at, self._timed_out = loop.time(), False
        if self._watchdog is None:
            self._watchdog = loop.call_at(self._sent_at + self.timeout, self._watch, loop)
        try:
            assert self._writer is not None
            self._writer.write(b"".join(packed))
            await self._writer.drain()
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
        if self._writer is None:
            raise RedisConnectionError("not connected")
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
