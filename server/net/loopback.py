"""An in-process socket for a connection with no network: each frame written is
handed over at once, decoded, to a callback (a bot's seat reads its frames so)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgpack
from websockets.protocol import State


class LoopbackSocket:
    """The outbox's socket for a seat with no network."""

    def __init__(self, deliver: Callable[[dict[str, Any]], None]) -> None:
        self._deliver = deliver
        self._state = State.OPEN

    @property
    def state(self) -> State:
        return self._state

    def write_now(self, payload: bytes) -> None:
        self._deliver(msgpack.unpackb(payload, raw=False))

    def buffered(self) -> int:
        return 0

    async def drain(self) -> None:
        return None

    async def close(self, code: int, reason: str) -> None:
        self.abort()

    def abort(self) -> None:
        if self._state is not State.CLOSED:
            self._state = State.CLOSED
            self._deliver({"t": "_closed"})
