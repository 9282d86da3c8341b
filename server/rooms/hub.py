"""Fan-out: room events reach every local connection of the room through
Redis pub/sub, so the players of one race may sit on different processes.

One subscriber connection per process (per shard on a cluster), one shard
channel per room with local players (SSUBSCRIBE: a room's messages stay on
the shard that owns its keys). Pub/sub loses messages while disconnected, so
after any reconnect, and after the server drops a room's channel on its own
(its slot moved), the hub re-subscribes and asks every local room to catch
up from the store.
A player's progress (one per accepted move, the bulk of the traffic) comes
in an envelope naming the mover, so it is forwarded without being decoded.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Final, Protocol

import msgpack
from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster

from ..store import keys
from ..store.resp import RespConnection
from ..store.shardsub import ShardedSubscriber
from .ports import Outbox

log = logging.getLogger("patience.hub")

# A board changed: payload is the board's name. A classic channel, not a shard
# one: every process wants every notice, and there is one per finished race at
# most, so the cluster-wide broadcast of classic PUBLISH costs next to nothing.
BOARDS_CHANNEL = "boards:changed"
HEARTBEAT_S = 15.0  # a PING after this long without a message; lost after twice as long
# (PATIENCE_HUB_HEARTBEAT_MS; a parameter, not this constant, in the running hub:
# the module is compiled with the move path, where a module constant is fixed)

# A name's notice channel, ``notify:{NAME}`` (server/store/presence.py, the same
# prefix: a unit test holds the two together); a literal here, as this module is compiled.
NOTIFY_PREFIX: Final = "notify:"

# Types a client gets as they are; the others are for the server's sessions.
FORWARD = frozenset({"progress", "room", "results", "rematch_offer"})


def channel_of(code: str) -> str:
    """A member's channel: a name's notices (server/rooms/notices.py) are joined
    by their channel itself (``notify:{NAME}``), a room by its code."""
    return code if code.startswith(NOTIFY_PREFIX) else keys.channel(code)


class Subscriber(Protocol):
    """The pub/sub stream: one connection, or one per node of a cluster."""

    async def open(self) -> None: ...
    async def subscribe(self, *channels: str) -> None: ...
    async def ssubscribe(self, *channels: str) -> None: ...
    async def sunsubscribe(self, *channels: str) -> None: ...
    async def ping(self) -> None: ...
    async def message(self) -> tuple[bytes, bytes] | None: ...
    def close(self) -> None: ...
    def abort(self) -> None: ...


class Member(Protocol):
    # read-only here, so any member whose outbox is a subtype of Outbox conforms
    @property
    def outbox(self) -> Outbox: ...

    @property
    def n(self) -> int:
        """The player's number in the room."""

    # Must not wait for anything: work that has to (a rematch's join) is the
    # member's own task. The hub only ever enqueues.
    def on_room_event(self, message: dict[str, Any]) -> None: ...

    async def resync(self) -> None: ...


class Hub:
    def __init__(self, redis: Redis | RedisCluster, on_resync: Callable[[str], Awaitable[None]],
                 on_board: Callable[[str], Awaitable[None]] | None = None,
                 heartbeat_s: float = HEARTBEAT_S) -> None:
        self._on_board = on_board
        self.heartbeat_s = heartbeat_s
        self._rooms: dict[str, set[Member]] = {}
        self._on_resync = on_resync
        # reads wait as long as it takes: _listen's heartbeat notices a dead link
        self._sub: Subscriber = (ShardedSubscriber(redis, timeout=5.0)
                                 if isinstance(redis, RedisCluster)
                                 else RespConnection.like(redis, timeout=5.0))
        self._task: asyncio.Task[None] | None = None
        self.connected = False
        self._heard = 0.0  # loop time of the last message or PING answer
        self._dispatching = False

    def start(self) -> None:
        self._task = asyncio.create_task(self._supervise(), name="hub")

    async def stop(self) -> None:
        if self._task:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        self._sub.close()

    def members(self, code: str) -> set[Member]:
        return self._rooms.get(code, set())

    async def add(self, code: str, member: Member) -> None:
        room = self._rooms.setdefault(code, set())
        room.add(member)
        if len(room) == 1 and self.connected:
            await self._quietly(self._sub.ssubscribe(channel_of(code)))

    async def remove(self, code: str, member: Member) -> None:
        room = self._rooms.get(code)
        if room is None:
            return
        room.discard(member)
        if not room:
            del self._rooms[code]
            if self.connected:
                await self._quietly(self._sub.sunsubscribe(channel_of(code)))

    async def _quietly(self, request: Awaitable[None]) -> None:
        try:
            await request
        except Exception:  # the supervisor re-syncs subscriptions when it reconnects
            log.debug("subscription change failed: the hub will re-subscribe")

    async def deliver(self, code: str, data: bytes) -> None:
        """Hand one message of a room's channel to the local members."""
        members = self._rooms.get(code)
        if not members:
            return
        if data[:1] == keys.PROGRESS:
            # the mover has its own view already: progress is for the others
            mover = data[1]
            payload = data[2:]
            for m in members:
                if m.n != mover:
                    m.outbox.send_progress(mover, payload)
            return
        if data[:1] != keys.EVENT:
            log.warning("unknown message on a room channel", extra={"room": code})
            return
        payload = data[1:]
        message = msgpack.unpackb(payload, raw=False)
        forward = message.get("t") in FORWARD
        for m in list(members):
            if forward:
                m.outbox.send(payload)
            try:
                m.on_room_event(message)
            except Exception:  # one member's bug must not cost the others their events
                log.exception("a room event failed for one member", extra={"room": code})

    async def _supervise(self) -> None:
        delay = 0.1
        while True:
            lost = False
            try:
                await self._sub.open()
                channels = [channel_of(c) for c in self._rooms]
                # the boards channel also keeps the connection subscribed while no room is local
                await self._sub.subscribe(BOARDS_CHANNEL)
                await self._sub.ssubscribe(*channels)
                resync = not self.connected and bool(channels)
                # connected before the catch-up: add() subscribes rooms that become
                # local from now on; the ones added while subscribing are done here
                self.connected = True
                late = [ch for ch in (channel_of(c) for c in self._rooms) if ch not in channels]
                if late:
                    await self._sub.ssubscribe(*late)
                if resync:
                    for code in list(self._rooms):
                        if channel_of(code) in channels:
                            await self._on_resync(code)
                delay = 0.1
                await self._listen()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                if self.connected:
                    log.warning("pub/sub connection lost: %s", exc)
                self.connected = False
                self._sub.close()
                lost = True
            # the wait after the except block, never in it: compiled, this coroutine
            # would leave the lost connection's exception to every other task while
            # it sleeps (docs/design/compiled-code.md)
            if lost:
                await asyncio.sleep(delay)
                delay = min(delay * 2, 2.0)

    async def _listen(self) -> None:
        """Hand on messages while a watchdog keeps the heartbeat."""
        loop = asyncio.get_running_loop()
        self._heard = loop.time()
        watchdog = asyncio.create_task(self._watch(loop), name="hub-heartbeat")
        try:
            while True:
                item = await self._sub.message()
                self._heard = loop.time()
                if item is not None:
                    # a slow delivery (a member waiting on a slow client) is not silence
                    self._dispatching = True
                    try:
                        await self._dispatch(item[0].decode(), item[1])
                    finally:
                        self._dispatching = False
                    self._heard = loop.time()
        finally:
            watchdog.cancel()

    async def _watch(self, loop: asyncio.AbstractEventLoop) -> None:
        """After a quiet spell ask Redis for a PING answer, and drop the connection
        if none comes: a half-open TCP connection would otherwise go unnoticed,
        and players would stop seeing each other. One timer per quiet spell, not
        one per message (a timeout around every read took a visible share of the server's
        profile with many players; docs/benchmarks.md)."""
        heartbeat = self.heartbeat_s
        while True:
            quiet = loop.time() - self._heard
            if self._dispatching:
                await asyncio.sleep(heartbeat)
                continue
            if quiet < heartbeat:
                await asyncio.sleep(heartbeat - quiet)
                continue
            pinged_at = loop.time()
            try:
                await self._sub.ping()
            except Exception:
                self._sub.abort()
                return
            await asyncio.sleep(heartbeat)
            if self._heard < pinged_at and not self._dispatching:
                log.warning("no answer to a PING on the pub/sub connection")
                self._sub.abort()  # the listener's read ends there, and _supervise reconnects
                return

    async def _dispatch(self, channel: str, data: bytes) -> None:
        if channel == BOARDS_CHANNEL:
            if self._on_board is not None:
                await self._on_board(data.decode())
            return
        if channel.startswith(NOTIFY_PREFIX):
            await self.deliver(channel, data)
            return
        code = channel.split("{", 1)[1].split("}", 1)[0] if "{" in channel else ""
        await self.deliver(code, data)
