"""Session.send_bytes: a direct write while the client keeps up, an awaited send
(backpressure) once unsent data piles up."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from websockets.protocol import State

from server.session import SEND_NOW_BYTES, Session


class FakeConnection:
    """Just enough of a websockets connection to see which path a send took."""

    def __init__(self, buffered: int) -> None:
        self.transport = SimpleNamespace(get_write_buffer_size=lambda: buffered)
        self.protocol = SimpleNamespace(state=State.CLOSED)  # a direct write skips it quietly
        self.send_in_progress = None
        self.awaited: list[bytes] = []

    async def send(self, payload: bytes) -> None:
        self.awaited.append(payload)


def session_on(ws: FakeConnection) -> Session:
    async def publish(*_: Any) -> None:
        return None

    server: Any = SimpleNamespace(store=SimpleNamespace(publish_progress=publish))
    return Session(server, ws)  # type: ignore[arg-type]


async def test_a_client_that_keeps_up_gets_a_direct_write() -> None:
    ws = FakeConnection(buffered=0)
    await session_on(ws).send_bytes(b"view")
    assert ws.awaited == []


async def test_a_client_that_falls_behind_makes_the_session_wait() -> None:
    ws = FakeConnection(buffered=SEND_NOW_BYTES)
    await session_on(ws).send_bytes(b"view")
    assert ws.awaited == [b"view"]
