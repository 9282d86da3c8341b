"""One connection's outbound path: a bounded queue of encoded frames and the
writer that drains it into the socket.

Everything a player is sent — the answer to its own message, an opponent's
progress, a room event, a board notice — is only *enqueued* here; nothing but
this connection's writer ever waits for its socket. So a client that stops
reading fills its own queue, is closed with :data:`CLOSE_SLOW` once a bound
is passed, and resumes with its token; every other player goes on as before.

While the queue is empty and the socket keeps up, a frame is written at once
(no task switch: the common case on the move path costs nothing extra). The
transport puts every frame a connection is sent in one loop tick into one
write (on the sans-I/O transport, the default). An opponent's progress that
comes while the player's own move is being answered waits for that answer and
leaves in its write (a player who moves without pause gets both in one system
call); at any other time it goes at once. None waits on a timer: one that
released what waited for a later frame sent it in bursts the next moves waited
behind.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from typing import Protocol

from websockets.protocol import State

from ..ops.aio import KeptLoop
from ..wire.protocol import CLOSE_SLOW

log = logging.getLogger("patience.outbox")

# The bounds (documented in docs/operations/reliability.md, "Limits").
OUTBOX_MAX_BYTES = 256 * 1024  # encoded frames waiting for the socket
OUTBOX_MAX_FRAMES = 1024
WRITE_HIGH_WATER = 64 * 1024  # unsent bytes in the socket's buffer before the writer waits
STALL_S = 5.0  # a writer that cannot hand the socket anything this long closes the connection
CLOSE_GRACE_S = 2.0  # after a close is asked for, the time the closing handshake may take


class Socket(Protocol):
    """What the outbox needs of a websockets connection (tests pass fakes)."""

    @property
    def state(self) -> State: ...

    def write_now(self, payload: bytes) -> None: ...

    def buffered(self) -> int: ...

    async def drain(self) -> None: ...

    async def close(self, code: int, reason: str) -> None: ...

    def abort(self) -> None: ...


class _Entry:
    """A queued frame; progress entries may be emptied when a newer one comes."""

    __slots__ = ("payload", "player")

    def __init__(self, payload: bytes, player: int = -1) -> None:
        self.payload: bytes | None = payload
        self.player = player  # whose progress this is, or -1


class Outbox:
    def __init__(self, socket: Socket, *, max_bytes: int = OUTBOX_MAX_BYTES,
                 max_frames: int = OUTBOX_MAX_FRAMES, high_water: int = WRITE_HIGH_WATER,
                 stall_s: float = STALL_S, close_grace_s: float = CLOSE_GRACE_S) -> None:
        self._socket = socket
        self._max_bytes = max_bytes
        self._max_frames = max_frames
        self._high_water = high_water
        self._stall_s = stall_s
        self._close_grace_s = close_grace_s
        self._queue: deque[_Entry] = deque()
        self._bytes = 0
        # the queued progress of each opponent: a newer one replaces it (progress
        # is a snapshot, so only the newest matters)
        self._progress: dict[int, _Entry] = {}
        # while the player's own answer is on its way (hold_progress), the newest
        # progress of each opponent waits here to leave with it: only while the
        # queue is empty, so whatever waits here is older than anything queued
        self._holding = False
        self._held: dict[int, bytes] = {}
        self._writer: asyncio.Task[None] | None = None
        self._loop = KeptLoop()
        self.closed_for: str | None = None  # why the outbox gave up, once it has

    # -- enqueueing (never waits) ------------------------------------------------
    def send(self, payload: bytes) -> None:
        if self.closed_for is not None:
            return
        if self._holding:  # the answer, or whatever comes first: the wait is over
            self.release_progress()  # what waited goes ahead of this frame, as it came
            if self.closed_for is not None:
                return
        if not self._queue and self._socket.buffered() < self._high_water:
            if self._socket.state is State.OPEN:
                self._socket.write_now(payload)
            return
        self._push(_Entry(payload))

    def send_progress(self, player: int, payload: bytes) -> None:
        """An opponent's progress. While the connection's own answer is on its
        way it waits for it; otherwise it is written like any frame. Waiting or
        queued, a newer progress of the same player replaces it (progress is a
        snapshot shown on a bar)."""
        if self.closed_for is not None:
            return
        if self._holding and not self._queue:
            self._held[player] = payload
            return
        self._progress_now(player, payload)

    def hold_progress(self) -> None:
        """The player's move is being answered: opponents' progress waits for
        the first frame this connection is sent (its answer, mostly), or for
        :meth:`release_progress` at the end of the move, whichever comes first."""
        self._holding = True

    def release_progress(self) -> None:
        """The move is over: what still waits goes now."""
        self._holding = False
        if self._held:
            self._release()

    def _release(self) -> None:
        held, self._held = self._held, {}
        for player, payload in held.items():
            self._progress_now(player, payload)

    def _progress_now(self, player: int, payload: bytes) -> None:
        if self.closed_for is not None:
            return
        if not self._queue and self._socket.buffered() < self._high_water:
            if self._socket.state is State.OPEN:
                self._socket.write_now(payload)
            return
        old = self._progress.get(player)
        if old is not None and old.payload is not None:
            self._bytes -= len(old.payload)
            old.payload = None
        entry = _Entry(payload, player)
        self._progress[player] = entry
        self._push(entry)

    @property
    def queued_bytes(self) -> int:
        return self._bytes

    @property
    def queued_frames(self) -> int:
        return len(self._queue)

    def _push(self, entry: _Entry) -> None:
        assert entry.payload is not None
        self._queue.append(entry)
        self._bytes += len(entry.payload)
        if self._bytes > self._max_bytes or len(self._queue) > self._max_frames:
            self.give_up(f"the connection fell behind by more than {self._max_bytes // 1024} KiB "
                         f"or {self._max_frames} messages")
            return
        if self._writer is None or self._writer.done():
            self._writer = self._loop.get().create_task(self._drain_queue(),
                                                            name="outbox-writer")

    # -- the writer ----------------------------------------------------------------
    async def _drain_queue(self) -> None:
        while self._queue and self.closed_for is None:
            if self._socket.buffered() >= self._high_water:
                try:
                    async with asyncio.timeout(self._stall_s):
                        await self._socket.drain()
                except TimeoutError:
                    self.give_up(f"the client read nothing for {self._stall_s:g} s")
                    return
                except Exception:  # the connection is gone: its reader winds it up
                    return
                if not self._queue or self.closed_for is not None:
                    return
            # after a drain one frame always goes: the loop never spins in place
            entry = self._queue.popleft()
            payload = entry.payload
            if payload is None:
                continue  # superseded by a newer progress
            self._bytes -= len(payload)
            if entry.player >= 0 and self._progress.get(entry.player) is entry:
                del self._progress[entry.player]
            if self._socket.state is not State.OPEN:
                self._queue.clear()
                self._bytes = 0
                return
            self._socket.write_now(payload)

    # -- closing -------------------------------------------------------------------
    def give_up(self, why: str) -> None:
        """Drop what is queued and close the connection with :data:`CLOSE_SLOW`;
        the client resumes with its token and is sent the current state."""
        if self.closed_for is None:
            log.info("slow client closed: %s", why)
        self.close(CLOSE_SLOW, why)

    def close(self, code: int, reason: str) -> None:
        """Close the connection without waiting for it: nothing more is sent,
        and a client that does not answer the closing handshake is cut off
        after :data:`CLOSE_GRACE_S`."""
        if self.closed_for is not None:
            return
        self.closed_for = reason
        self._forget()
        loop = asyncio.get_running_loop()
        closing = loop.create_task(self._close(code, reason), name="outbox-close")
        # the close frame may never get through a full buffer: end it anyway
        loop.call_later(self._close_grace_s, self._abort_unless_closed, closing)

    async def _close(self, code: int, reason: str) -> None:
        with contextlib.suppress(Exception):
            await self._socket.close(code, reason[:120])

    def _abort_unless_closed(self, closing: asyncio.Task[None]) -> None:
        if not closing.done():
            closing.cancel()
        if self._socket.state is not State.CLOSED:
            self._socket.abort()

    def _forget(self) -> None:
        self._queue.clear()
        self._progress.clear()
        self._bytes = 0
        self._held.clear()

    def stop(self) -> None:
        """The connection ended: forget what is queued."""
        self.closed_for = self.closed_for or "closed"
        self._forget()
        if self._writer is not None:
            self._writer.cancel()
