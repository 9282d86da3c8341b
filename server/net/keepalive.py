"""The websockets transport's keepalive, closing an unresponsive reader with our code.

websockets closes a connection whose pong does not come in time with 1011, the
code our close-code table keeps for server bugs: a client could not tell a crash
from its own dead network. This connection class runs the same ping and pong
cycle but closes with ``CLOSE_UNRESPONSIVE``, as the sans-I/O transport does.

Not compiled: it runs once per ping interval, far from the move path.
"""

from __future__ import annotations

import asyncio

from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed

from ..wire.protocol import CLOSE_UNRESPONSIVE

KEEPALIVE_REASON = "keepalive ping timeout"


class KeepaliveConnection(ServerConnection):
    """A server connection whose unanswered ping closes it with 4000."""

    async def keepalive(self) -> None:
        assert self.ping_interval is not None
        latency = 0.0
        while True:
            # a pong that took a while shortens the next wait, as websockets does
            await asyncio.sleep(max(0.0, self.ping_interval - latency))
            try:
                pong = await self.ping()
            except ConnectionClosed:
                return
            if self.ping_timeout is None:
                continue
            answered = True
            try:
                latency = await asyncio.wait_for(pong, self.ping_timeout)
            except TimeoutError:
                answered = False
            except ConnectionClosed:
                return
            if not answered:
                async with self.send_context():
                    self.protocol.fail(CLOSE_UNRESPONSIVE, KEEPALIVE_REASON)
                return
