"""Coalesce the hot path's script calls into pipelines.

Every accepted move costs one EVALSHA. Awaiting each one separately spends
most of the server's CPU in redis-py's per-command machinery; queuing them and
sending whatever is pending as one non-transactional pipeline keeps it to one
round trip per batch, and still one round trip per move at low load.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from redis.asyncio import Redis
from redis.exceptions import NoScriptError, ResponseError

MAX_BATCH = 512


class ScriptBatcher:
    def __init__(self, redis: Redis, source: str) -> None:
        self._redis = redis
        self._source = source
        self._sha: str | None = None
        self._pending: list[tuple[list[str], list[Any], asyncio.Future[Any]]] = []
        self._flushing = False
        self.round_trips = 0
        self.on_round_trip: Callable[[], None] | None = None

    async def call(self, keys: list[str], args: list[Any]) -> Any:
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending.append((keys, args, fut))
        if not self._flushing:
            self._flushing = True
            asyncio.get_running_loop().call_soon(self._start_flush)
        return await fut

    def _start_flush(self) -> None:
        asyncio.ensure_future(self._flush())

    async def _flush(self) -> None:
        try:
            while self._pending:
                batch, self._pending = self._pending[:MAX_BATCH], self._pending[MAX_BATCH:]
                await self._send(batch)
        finally:
            self._flushing = False

    async def _send(self, batch: list[tuple[list[str], list[Any], asyncio.Future[Any]]]) -> None:
        try:
            try:
                results = await self._run(batch)
            except NoScriptError:
                # Redis lost its script cache (a restart): load and send again.
                # Nothing ran, so a resend applies nothing twice.
                self._sha = None
                results = await self._run(batch)
        except Exception as exc:  # the store failed: every waiter gets the error
            for _, _, fut in batch:
                if not fut.done():
                    fut.set_exception(exc)
            return
        for (_, _, fut), result in zip(batch, results, strict=True):
            if fut.done():
                continue
            if isinstance(result, ResponseError):
                fut.set_exception(result)
            else:
                fut.set_result(result)

    async def _run(self, batch: list[tuple[list[str], list[Any], asyncio.Future[Any]]]) -> list[Any]:
        if self._sha is None:
            self._sha = await self._redis.script_load(self._source)
        pipe = self._redis.pipeline(transaction=False)
        for keys, args, _ in batch:
            pipe.evalsha(self._sha, len(keys), *keys, *args)
        self.round_trips += 1
        if self.on_round_trip is not None:
            self.on_round_trip()
        results: list[Any] = await pipe.execute(raise_on_error=False)
        if any(isinstance(r, NoScriptError) for r in results):
            raise NoScriptError("NOSCRIPT")
        return results
