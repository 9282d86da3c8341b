"""A bot player: speaks the protocol like any client and picks among the
legal moves the server sends (greedy: foundation moves first, else random).

Used by the integration tests and by ``python -m bench.load``.
"""

from __future__ import annotations

import asyncio
import random
from typing import Any

from websockets.asyncio.client import ClientConnection, connect

from server.wire import protocol


def decode(frame: bytes | str) -> dict[str, Any]:
    import msgpack

    data: dict[str, Any] = msgpack.unpackb(frame, raw=False)
    return data


class Bot:
    def __init__(self, url: str, name: str = "bot", seed: int | None = None) -> None:
        self.url = url
        self.name = name
        self.rng = random.Random(seed)
        self.ws: ClientConnection | None = None
        self.inbox: list[dict[str, Any]] = []  # every message received, in order
        self.raw: list[bytes] = []
        self.token = ""
        self.code = ""
        self.player = 0
        self.view: dict[str, Any] | None = None
        self.v = 0
        self.seq = 0
        self.results: dict[str, Any] | None = None

    async def connect(self, token: str | None = None, *, key: str | None = None,
                      device: str | None = None) -> dict[str, Any]:
        self.ws = await connect(self.url, max_size=2**20, compression=None)
        hello: dict[str, Any] = {"t": "hello", "proto": protocol.PROTOCOL_VERSION, "name": self.name}
        for field, value in (("token", token), ("key", key), ("device", device)):
            if value:
                hello[field] = value
        await self.send(hello)
        return await self.expect("welcome")

    async def send(self, message: dict[str, Any]) -> None:
        assert self.ws is not None
        await self.ws.send(protocol.encode(message))

    async def recv(self, timeout: float = 10.0) -> dict[str, Any]:  # noqa: ASYNC109 (a wait with a default deadline of its own)
        assert self.ws is not None
        frame = await asyncio.wait_for(self.ws.recv(), timeout)
        assert isinstance(frame, bytes)
        self.raw.append(frame)
        msg = decode(frame)
        self.inbox.append(msg)
        self._note(msg)
        return msg

    def _note(self, msg: dict[str, Any]) -> None:
        kind = msg.get("t")
        if kind == "joined":
            self.token, self.code, self.player = msg["token"], msg["code"], msg["player"]
        elif kind == "view":
            self.view, self.v = msg["view"], msg["v"]
        elif kind == "results":
            self.results = msg

    async def expect(self, kind: str, timeout: float = 10.0, **match: Any) -> dict[str, Any]:  # noqa: ASYNC109 (a wait with a default deadline of its own)
        """Read until a message of this type (and these field values) arrives."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            msg = await self.recv(max(0.01, deadline - loop.time()))
            if msg.get("t") == kind and all(msg.get(k) == v for k, v in match.items()):
                return msg

    def choose(self) -> str | None:
        assert self.view is not None
        moves: list[str] = self.view["legal_moves"]
        if not moves:
            return None
        to_foundation = [m for m in moves if "-f" in m]
        if to_foundation:
            return self.rng.choice(to_foundation)
        return self.rng.choice(moves)

    async def move(self, text: str, timeout: float = 10.0) -> dict[str, Any]:  # noqa: ASYNC109 (a wait with a default deadline of its own)
        """Send one move and wait for its answer (a view or an error)."""
        self.seq += 1
        await self.send({"t": "move", "seq": self.seq, "move": text, "v": self.v})
        while True:
            msg = await self.recv(timeout)
            if msg.get("t") in ("view", "error") and msg.get("seq") == self.seq:
                if msg["t"] == "error" and msg["code"] == "stale_version":
                    continue  # the view that follows carries the same seq
                return msg

    async def play(self, max_moves: int = 400) -> int:
        """Play until the game ends or max_moves; returns moves accepted."""
        played = 0
        while played < max_moves and self.view and self.view["status"] == "in_progress":
            text = self.choose()
            if text is None:
                break
            answer = await self.move(text)
            if answer["t"] == "view":
                played += 1
            elif answer["code"] in ("race_over", "game_over"):
                break
            elif answer["code"] == "rate_limited":
                await asyncio.sleep(0.5)
        return played

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
