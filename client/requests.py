"""The protocol's requests as methods: each builds one client message and
sends it through the session (:class:`~client.connection.ClientSession`)."""

from __future__ import annotations

import time
from typing import Any

from server.wire.protocol import MAX_NAME_CHARS

from .state import RaceState


def now_ms() -> int:
    return int(time.time() * 1000)


class Requests:
    """The verbs of a session; ``send`` is the session's."""

    name: str
    state: RaceState
    _seq: int
    accept_bots: bool = False  # quick races may pair this player with bot accounts (--accept-bots)

    async def send(self, msg: dict[str, Any]) -> bool:
        raise NotImplementedError

    async def quick(self, variant: str) -> bool:
        msg: dict[str, Any] = {"t": "quick", "variant": variant}
        if self.accept_bots:
            msg["accept_bots"] = True
        return await self.send(msg)

    async def create(self, variant: str, players: int = 2, private: bool = True) -> bool:
        return await self.send({"t": "create", "variant": variant, "players": players, "private": private})

    async def join(self, code: str) -> bool:
        return await self.send({"t": "join", "code": code.strip().upper()})

    async def ready(self) -> bool:
        return await self.send({"t": "ready"})

    async def rematch(self, accept: bool = True) -> bool:
        """Offer or accept a rematch (``accept=False`` declines, or withdraws an offer)."""
        return await self.send({"t": "rematch", "accept": accept})

    async def record(self, player: int | None = None) -> bool:
        msg: dict[str, Any] = {"t": "record"}
        if player is not None:
            msg["player"] = player
        return await self.send(msg)

    async def ping(self) -> bool:
        return await self.send({"t": "ping"})

    async def claim(self, name: str | None = None) -> bool:
        """Claim a name (this one by default): ``claimed`` brings its key, which is kept."""
        return await self.send({"t": "claim", "name": (name or self.name)[:MAX_NAME_CHARS],
                                "label": device_label()})

    async def redeem(self, how: str, name: str, code: str) -> bool:
        """``link`` (a link code from a signed-in device) or ``recover`` (a recovery
        code): this connection then plays as ``name``, and ``linked`` brings its key."""
        return await self.send({"t": how, "name": name[:MAX_NAME_CHARS], "code": code.strip()[:32],
                                "label": device_label()})

    async def daily_info(self, variant: str) -> bool:
        return await self.send({"t": "daily_info", "variant": variant})

    async def daily(self, variant: str) -> bool:
        """Start today's deal of ``variant`` (a room of one; ``ready`` starts it)."""
        return await self.send({"t": "daily", "variant": variant})

    def next_seq(self) -> int:
        """Increasing move numbers, also across a restart of the client.

        After a restart the client no longer knows the last number the server
        acknowledged, so numbers follow the race clock (milliseconds since the
        start), which only grows; within a run they also grow by one at least.
        """
        starts = (self.state.room or {}).get("starts_at")
        floor = 0
        if isinstance(starts, int) and not isinstance(starts, bool):
            floor = min(max(self.state.server_now(now_ms()) - starts, 0), 2**31 - 2**20)
        self._seq = max(self._seq + 1, floor)
        return self._seq

    async def move(self, text: str) -> int | None:
        """Send a move (or an action such as ``draw``); returns its seq, None if not sent."""
        seq = self.next_seq()
        sent = await self.send({"t": "move", "seq": seq, "move": text, "v": self.state.v})
        return seq if sent else None

    async def resign(self) -> int | None:
        seq = self.next_seq()
        sent = await self.send({"t": "resign", "seq": seq})
        return seq if sent else None


def device_label() -> str:
    """How this device is listed among the name's devices: the machine's name."""
    import platform

    return f"terminal on {platform.node() or 'this computer'}"[:32]
