"""The pub/sub stream on a Redis Cluster: one subscriber connection per node.

A shard channel can only be read on the node owning its slot, so each room
channel is subscribed on its owner's connection; the classic channels (board
notices, broadcast to every node) on the first primary's. Each connection has
a reader task feeding one queue, so the hub reads a single stream as it does
on one server. Any failure (a node lost, a slot moved, MOVED to a stale
subscription) comes out of :meth:`message` as a connection error: the hub
then reconnects everything and catches up, and :meth:`open` learns the slot
map afresh.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from redis.asyncio.cluster import RedisCluster
from redis.exceptions import ConnectionError as RedisConnectionError

from .resp import RespConnection
from .router import Address, Router, slot_of

Item = tuple[bytes, bytes] | None | BaseException


class ShardedSubscriber:
    def __init__(self, redis: RedisCluster, timeout: float = 5.0) -> None:
        self._router = Router(redis, timeout)
        self._open: dict[Address, RespConnection] = {}
        self._readers: list[asyncio.Task[None]] = []
        self._queue: asyncio.Queue[Item] = asyncio.Queue()

    async def open(self) -> None:
        if self._open:
            return
        await self._router.refresh()
        self._queue = asyncio.Queue()

    async def _conn(self, address: Address) -> RespConnection:
        conn = self._open.get(address)
        if conn is None:
            conn = self._router.connection(address)
            await conn.open()
            self._open[address] = conn
            self._readers.append(asyncio.create_task(self._read(conn), name="hub-shard"))
        return conn

    async def _read(self, conn: RespConnection) -> None:
        try:
            while True:
                await self._queue.put(await conn.message())
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            await self._queue.put(exc)

    async def subscribe(self, *channels: str) -> None:
        """Classic channels, on one node: a classic PUBLISH reaches every node."""
        await (await self._conn(self._router.primaries()[0])).subscribe(*channels)

    async def unsubscribe(self, *channels: str) -> None:
        await (await self._conn(self._router.primaries()[0])).unsubscribe(*channels)

    async def ssubscribe(self, *channels: str) -> None:
        for channel in channels:
            await (await self._conn(self._router.address(slot_of(channel)))).ssubscribe(channel)

    async def sunsubscribe(self, *channels: str) -> None:
        for channel in channels:
            await (await self._conn(self._router.address(slot_of(channel)))).sunsubscribe(channel)

    async def ping(self) -> None:
        for conn in list(self._open.values()):
            await conn.ping()

    async def message(self) -> tuple[bytes, bytes] | None:
        if not self._open:
            raise RedisConnectionError("not connected")
        item = await self._queue.get()
        if isinstance(item, BaseException):
            raise item
        return item

    def _stop(self, drop: Any) -> None:
        for task in self._readers:
            task.cancel()
        self._readers = []
        for conn in self._open.values():
            with contextlib.suppress(Exception):
                drop(conn)
        self._open = {}
        # whatever a reader was waiting on is over: a pending message() ends too
        self._queue.put_nowait(RedisConnectionError("subscriber closed"))

    def close(self) -> None:
        self._stop(RespConnection.close)

    def abort(self) -> None:
        self._stop(RespConnection.abort)
