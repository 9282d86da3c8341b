"""Coalesce the hot path's script calls into pipelines.

Every accepted move costs one EVALSHA. Awaiting each one separately spends
most of the server's CPU in per-command client machinery; queuing them and
sending whatever is pending as one non-transactional pipeline keeps it to one
round trip per batch, and still one round trip per move at low load. The
pipeline runs on a connection of its own (:mod:`.resp`): one batch in flight
at a time, so replies always line up with their callers.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Callable
from typing import Any

from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError

from .resp import RespConnection, array_header, pack_args

MAX_BATCH = 512

# (the command packed for the wire, its caller's future)
Pending = tuple[bytes, "asyncio.Future[Any]"]


class ScriptBatcher:
    def __init__(self, conn: RespConnection, source: str) -> None:
        self._conn = conn
        self._source = source
        self._sha = hashlib.sha1(source.encode()).hexdigest()
        self._pending: list[Pending] = []
        self._flushing = False
        self.round_trips = 0
        self.on_round_trip: Callable[[], None] | None = None
        self._flusher: asyncio.Future[None] | None = None

    async def call(self, keys: list[str], args: list[Any]) -> Any:
        return await self._queue(("EVALSHA", self._sha, len(keys), *keys, *args))

    def script_head(self, keys: list[str], argc: int) -> bytes:
        """The start of a script call on ``keys`` with ``argc`` arguments, packed:
        follow it with the arguments (:func:`.resp.pack_args`) and pass the whole
        to :meth:`call_packed`. A hot caller packs its fixed parts once."""
        return array_header(3 + len(keys) + argc) + pack_args(("EVALSHA", self._sha, len(keys), *keys))

    def call_packed(self, packed: bytes) -> asyncio.Future[Any]:
        """A script call assembled by the caller (see :meth:`script_head`)."""
        return self._enqueue(packed)

    def command(self, *args: Any) -> asyncio.Future[Any]:
        """A plain command in the same pipeline, queued at once (not when a task
        gets round to it): it reaches Redis after every call queued before this
        one and before every call queued after it."""
        return self._queue(args)

    def _queue(self, command: tuple[Any, ...]) -> asyncio.Future[Any]:
        # packed here, so an argument Redis cannot take fails its own caller only
        return self._enqueue(RespConnection.pack(command))

    def _enqueue(self, packed: bytes) -> asyncio.Future[Any]:
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending.append((packed, fut))
        if not self._flushing:
            self._flushing = True
            asyncio.get_running_loop().call_soon(self._start_flush)
        return fut

    def close(self) -> None:
        self._conn.close()

    def _start_flush(self) -> None:
        self._flusher = asyncio.ensure_future(self._flush())

    async def _flush(self) -> None:
        try:
            while self._pending:
                batch, self._pending = self._pending[:MAX_BATCH], self._pending[MAX_BATCH:]
                await self._send(batch)
        finally:
            self._flushing = False

    async def _send(self, batch: list[Pending]) -> None:
        try:
            results = await self._run(batch)
            missing = [i for i, r in enumerate(results) if _is_noscript(r)]
            if missing:
                # Redis lost its script cache (a restart): load it and send again
                # the calls that did not run; the others ran and stay answered.
                await self._conn.execute([("SCRIPT", "LOAD", self._source)])
                again = await self._run([batch[i] for i in missing])
                for i, r in zip(missing, again, strict=True):
                    results[i] = r
        except Exception as exc:  # the store failed: every waiter gets the error
            for _, fut in batch:
                if not fut.done():
                    fut.set_exception(exc)
            return
        for (_, fut), result in zip(batch, results, strict=True):
            if fut.done():
                continue
            if _is_noscript(result):  # lost again at once: as if Redis were away
                fut.set_exception(RedisConnectionError(f"the script cache keeps emptying: {result}"))
            elif isinstance(result, ResponseError):
                fut.set_exception(result)
            else:
                fut.set_result(result)

    async def _run(self, batch: list[Pending]) -> list[Any]:
        self.round_trips += 1
        if self.on_round_trip is not None:
            self.on_round_trip()
        return await self._conn.execute_packed([packed for packed, _ in batch])


def _is_noscript(result: Any) -> bool:
    return isinstance(result, ResponseError) and str(result).startswith("NOSCRIPT")
