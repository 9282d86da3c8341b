"""The lean transport's listening side: a socket whose connections are
:class:`.sansio.SansioConnection` s, and the outbox's view of one of them."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from websockets.http11 import Request, Response
from websockets.protocol import State

from ..ops.aio import stop_tasks
from .sansio import Handler, ProcessRequest, SansioConnection

log = logging.getLogger("patience.net")


class SansioSocket:
    """The outbox's view of a :class:`SansioConnection` (the outbox's ``Socket``)."""

    __slots__ = ("_conn",)

    def __init__(self, conn: SansioConnection) -> None:
        self._conn = conn

    @property
    def state(self) -> State:
        return self._conn.protocol._state  # the property's own attribute: no Python call

    def write_now(self, payload: bytes) -> None:
        self._conn.send(payload)

    def buffered(self) -> int:
        return self._conn.buffered()

    async def drain(self) -> None:
        await self._conn.drain()

    async def close(self, code: int, reason: str) -> None:
        await self._conn.close(code, reason)

    def abort(self) -> None:
        self._conn.abort()


async def _no_check(conn: SansioConnection, request: Request) -> Response | None:
    return None


class SansioServer:
    """A listening socket whose connections are :class:`SansioConnection` s."""

    def __init__(self, handler: Handler, *, process_request: ProcessRequest = _no_check,
                 max_size: int, max_queue: int = 16, write_limit: int = 64 * 1024,
                 ping_interval: float = 20.0, ping_timeout: float = 20.0,
                 close_timeout: float = 5.0) -> None:
        self.handler = handler
        self.process_request = process_request
        self.max_size = max_size
        self.max_queue = max_queue
        self.write_limit = write_limit
        self.ping_interval = ping_interval
        self.ping_timeout = ping_timeout
        self.close_timeout = close_timeout
        self.loop = asyncio.get_running_loop()
        self.connections: set[SansioConnection] = set()
        self.handler_tasks: set[asyncio.Task[None]] = set()
        self.serving = False
        # Any, not asyncio.Server: uvloop's server is not one (its sockets are a
        # list, not typeshed's tuple), and this module is compiled (mypyc checks
        # the declared types of what it reads)
        self._server: Any = None

    async def start(self, host: str, port: int) -> SansioServer:
        self._server = await self.loop.create_server(lambda: SansioConnection(self), host, port)
        self.serving = True
        return self

    @property
    def sockets(self) -> tuple[Any, ...]:
        return tuple(self._server.sockets) if self._server is not None else ()

    def close(self) -> None:
        """Stop listening and tell every client 1001 "going away"."""
        self.serving = False
        if self._server is not None:
            self._server.close()
        for conn in list(self.connections):
            if conn.protocol.state is State.OPEN:
                conn.loop.create_task(conn.close(1001, ""), name="ws-going-away")
            elif conn.protocol.state is State.CONNECTING and conn.request is None:
                conn.abort()

    async def wait_closed(self) -> None:
        lost = [conn.lost for conn in self.connections]
        if lost:
            await asyncio.wait(lost, timeout=self.close_timeout + 1)
        for conn in list(self.connections):
            conn.abort()
        if self.handler_tasks:  # a handler still busy once its connection is gone is cancelled
            _, busy = await asyncio.wait(list(self.handler_tasks), timeout=self.close_timeout)
            # again and again, for a bounded time: one cancel can be lost in a redis-py
            # call on Python 3.11, and an unbounded wait would hold the close for good
            left = await stop_tasks(list(busy), self.close_timeout) if busy else 0
            if left:
                log.warning("%d connection handlers did not end within %g s of their cancel",
                            left, self.close_timeout)
        if self._server is not None:
            await self._server.wait_closed()
