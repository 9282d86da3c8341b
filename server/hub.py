"""Fan-out: room events reach every local connection of the room through
Redis pub/sub, so the players of one race may sit on different processes.

One pub/sub connection per process, one channel per room with local
players. Pub/sub loses messages while disconnected, so after any reconnect
the hub re-subscribes and asks every local room to catch up from the store.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

import msgpack
from redis.asyncio import Redis
from websockets.asyncio.server import ServerConnection, broadcast

from .store import keys

log = logging.getLogger("patience.hub")

BOARDS_CHANNEL = "boards:changed"  # a board changed: payload is the board's name

# Types a client gets as they are; the others are for the server's sessions.
FORWARD = frozenset({"progress", "room", "results"})


class Member(Protocol):
    ws: ServerConnection
    n: int  # the player's number in the room

    async def on_room_event(self, message: dict[str, Any]) -> None: ...


class Hub:
    def __init__(self, redis: Redis, on_resync: Callable[[str], Awaitable[None]],
                 on_board: Callable[[str], Awaitable[None]] | None = None) -> None:
        self._redis = redis
        self._on_board = on_board
        self._rooms: dict[str, set[Member]] = {}
        self._on_resync = on_resync
        self._pubsub: Any = None
        self._task: asyncio.Task[None] | None = None
        self.connected = False

    def start(self) -> None:
        self._task = asyncio.create_task(self._supervise(), name="hub")

    async def stop(self) -> None:
        if self._task:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        if self._pubsub is not None:
            await self._pubsub.aclose()

    def members(self, code: str) -> set[Member]:
        return self._rooms.get(code, set())

    async def add(self, code: str, member: Member) -> None:
        room = self._rooms.setdefault(code, set())
        room.add(member)
        if len(room) == 1 and self._pubsub is not None and self.connected:
            await self._pubsub.subscribe(keys.channel(code))

    async def remove(self, code: str, member: Member) -> None:
        room = self._rooms.get(code)
        if room is None:
            return
        room.discard(member)
        if not room:
            del self._rooms[code]
            if self._pubsub is not None and self.connected:
                try:
                    await self._pubsub.unsubscribe(keys.channel(code))
                except Exception:  # the supervisor re-syncs subscriptions on reconnect
                    log.debug("unsubscribe failed", extra={"room": code})

    async def deliver(self, code: str, payload: bytes) -> None:
        """Hand one room event to the local members (used for pub/sub input)."""
        members = self._rooms.get(code)
        if not members:
            return
        message = msgpack.unpackb(payload, raw=False)
        kind = message.get("t")
        if kind == "progress":
            # the mover has its own view already: progress is for the others
            mover = message.get("player")
            broadcast([m.ws for m in members if m.n != mover], payload)
            return
        if kind in FORWARD:
            broadcast([m.ws for m in members], payload)
        for m in list(members):
            await m.on_room_event(message)

    async def _supervise(self) -> None:
        delay = 0.1
        while True:
            try:
                self._pubsub = self._redis.pubsub(ignore_subscribe_messages=True)
                channels = [keys.channel(c) for c in self._rooms]
                # the boards channel also keeps the connection subscribed while no room is local
                await self._pubsub.subscribe(BOARDS_CHANNEL, *channels)
                resync = not self.connected and bool(channels)
                # connected before the catch-up: add() subscribes rooms that become
                # local from now on; the ones added while subscribing are done here
                self.connected = True
                late = [ch for ch in (keys.channel(c) for c in self._rooms) if ch not in channels]
                if late:
                    await self._pubsub.subscribe(*late)
                if resync:
                    for code in list(self._rooms):
                        if keys.channel(code) in channels:
                            await self._on_resync(code)
                delay = 0.1
                async for item in self._pubsub.listen():
                    if item.get("type") != "message":
                        continue
                    channel = item["channel"]
                    channel = channel.decode() if isinstance(channel, bytes) else channel
                    if channel == BOARDS_CHANNEL:
                        if self._on_board is not None:
                            data = item["data"]
                            await self._on_board(data.decode() if isinstance(data, bytes) else data)
                        continue
                    code = channel.split("{", 1)[1].split("}", 1)[0] if "{" in channel else ""
                    await self.deliver(code, item["data"])
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                if self.connected:
                    log.warning("pub/sub connection lost: %s", exc)
                self.connected = False
                if self._pubsub is not None:
                    with contextlib.suppress(Exception):
                        await self._pubsub.aclose()
                await asyncio.sleep(delay)
                delay = min(delay * 2, 2.0)
