"""The results of a race a player left before it ended.

A player whose own game is over (won, stuck or resigned) need not watch the
others to the end: ``leave`` takes it back to the lobby, its result stands,
and the race's ``results`` still come to its connection when the race ends.
Until then a :class:`ResultsWaiter` stands in the room's hub membership for it:
a member that passes on the ``results`` message and nothing else (no progress,
no room updates), then goes.

Bounds: at most ``MAX_AWAITED`` races per connection (a new one ends the
oldest wait), and every wait ends with the connection (it is the player's own
task) or with the race, whose clock ends it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, Final

from ..wire.protocol import encode
from .service import RoomService

__all__ = ["MAX_AWAITED", "ResultsWaiter", "await_results"]

MAX_AWAITED: Final = 2  # races per connection whose results are still to come to it


class _Nowhere:
    """The waiter's outbox as the hub sees it: what the hub forwards goes nowhere."""

    def send(self, payload: bytes) -> None:
        pass

    def send_progress(self, player: int, payload: bytes) -> None:
        pass

    def hold_progress(self) -> None:
        pass

    def release_progress(self) -> None:
        pass

    def close(self, code: int, reason: str) -> None:
        pass


class ResultsWaiter:
    """A hub member of one room that hands its ``results`` to ``send``, once."""

    def __init__(self, service: RoomService, code: str, send: Callable[[bytes], None]) -> None:
        self.service = service
        self.code = code
        self.outbox = _Nowhere()
        self.n = 0
        self._send = send
        self._done = asyncio.Event()

    @property
    def done(self) -> bool:
        return self._done.is_set()

    def stop(self) -> None:
        """End the wait without results (a newer wait took its place)."""
        self._done.set()

    def _deliver(self, payload: bytes) -> None:
        if not self._done.is_set():
            self._done.set()
            self._send(payload)

    def on_room_event(self, message: dict[str, Any]) -> None:
        if message.get("t") == "results":
            self._deliver(encode(message))

    async def resync(self) -> None:
        """The stored room: results that came while this member was not listening."""
        room = await self.service.store.room(self.code)
        if room is None:
            self.stop()  # expired: no results will ever come
        elif room.phase == "finished" and room.results:
            self._deliver(room.results)

    async def run(self) -> None:
        hub = self.service.hub
        await hub.add(self.code, self)
        try:
            await self.resync()  # a race that ended before the waiter was listening
            await self._done.wait()
        finally:
            await hub.remove(self.code, self)


def await_results(service: RoomService, connection: str, code: str, send: Callable[[bytes], None],
                  spawn: Callable[[Any], None]) -> None:
    """Wait, as ``connection``'s own task (``spawn``), for room ``code``'s results."""
    waiting = service.awaiting.setdefault(connection, {})
    if code in waiting:
        return
    while len(waiting) >= MAX_AWAITED:
        waiting.pop(next(iter(waiting)))()  # the oldest wait ends
    waiter = ResultsWaiter(service, code, send)
    waiting[code] = waiter.stop

    async def wait() -> None:
        try:
            await waiter.run()
        finally:
            mine = service.awaiting.get(connection)
            if mine is not None and mine.get(code) == waiter.stop:
                del mine[code]
                if not mine:
                    del service.awaiting[connection]

    spawn(wait())
