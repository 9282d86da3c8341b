"""A tiny stand-in race server for the client's own tests.

It speaks the wire protocol (binary msgpack frames, docs/reference/protocol.md) with
canned answers: enough to drive the client through hello, a room, a countdown,
moves, a dropped connection and a resume, and through claiming a name (a
claimed name without its key gets ``name_taken``), the daily's info and
boards (``push`` sends a ``board_changed``). The real server's behaviour is
tested against the real server (tests/integration/client/test_e2e_race.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import threading
import time
from collections.abc import Iterator
from typing import Any

import msgpack
from websockets.asyncio.server import Server, ServerConnection, serve

from server.wire.protocol import encode
from tests.support.samples import VIEWS
from tests.support.serverdata import layout, welcome

CODE = "ABC123"


def now_ms() -> int:
    return int(time.time() * 1000)


class FakeServer:
    def __init__(self, *, countdown_ms: int = 150, view: dict[str, Any] | None = None,
                 server_id: str | None = None) -> None:
        self.countdown_ms = countdown_ms
        self.server_id = server_id  # welcome.server_id (None: an older server, or one without a secret)
        self.view = copy.deepcopy(view if view is not None else VIEWS["four-seasons"])
        self.received: list[dict[str, Any]] = []
        self.hellos: list[dict[str, Any]] = []
        self.connections: set[ServerConnection] = set()
        self.tokens: dict[str, int] = {}  # valid tokens -> player
        self.players: dict[int, str] = {}
        self.v = 0
        self.starts_at: int | None = None
        self.server: Server | None = None
        self.port = 0
        self.names = {2: "rival"}
        self.claimed: dict[str, str] = {}  # casefolded name -> key
        self.board_total = 40
        self.daily_info: dict[str, Any] = {
            "t": "daily_info", "date": "2026-11-30", "day": 334, "commitment": "c0ffee" * 10 + "beef",
            "ends_at": now_ms() + 3_600_000, "yesterday": None}

    # -- running --------------------------------------------------------------------
    async def start(self, port: int = 0) -> FakeServer:
        self.server = await serve(self.handler, "127.0.0.1", port, compression=None)
        self.port = next(iter(self.server.sockets)).getsockname()[1]
        return self

    async def stop(self) -> None:
        if self.server is not None:
            self.server.close()
            await self.server.wait_closed()
            self.server = None

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    async def drop(self, code: int | None = None) -> None:
        """Drop every connection: abruptly (None) or with a close code."""
        for ws in list(self.connections):
            if code is None:
                ws.transport.abort()
            else:
                await ws.close(code)

    async def wait_received(self, kind: str, count: int = 1, timeout: float = 5.0) -> dict[str, Any]:  # noqa: ASYNC109 (a wait with a default deadline of its own)
        async with asyncio.timeout(timeout):
            while True:
                found = [m for m in self.received if m.get("t") == kind]
                if len(found) >= count:
                    return found[count - 1]
                await asyncio.sleep(0.01)

    # -- the protocol -----------------------------------------------------------------
    def room(self, phase: str = "lobby") -> dict[str, Any]:
        players = [{"player": n, "name": name, "ready": phase != "lobby", "connected": True,
                    "left": False, "status": "in_progress", "foundation_cards": 0, "moves": 0}
                   for n, name in sorted(self.players.items())]
        return {"t": "room", "code": CODE, "variant": self.view["variant"], "players_max": 2,
                "private": True, "phase": phase, "players": players,
                "starts_at": self.starts_at, "ends_at": self.starts_at + 900_000 if self.starts_at else None,
                "total_cards": self.view["total_cards"], "server_time": now_ms(),
                "layout": layout(self.view["variant"])}

    async def push(self, msg: dict[str, Any]) -> None:
        """Send a message to every connection (``board_changed`` and the like)."""
        for ws in list(self.connections):
            await ws.send(encode(msg))

    def board(self, msg: dict[str, Any]) -> dict[str, Any]:
        offset, limit = msg.get("offset", 0), msg.get("limit", 20)
        count = max(min(limit, self.board_total - offset), 0)
        entries = [{"rank": offset + i + 1, "name": f"p{offset + i + 1}", "value": 100 - offset - i}
                   for i in range(count)]
        return {"t": "board", "kind": msg["kind"], "variant": msg.get("variant"), "offset": offset,
                "total": self.board_total, "entries": entries}

    def view_msg(self, seq: int | None) -> dict[str, Any]:
        return {"t": "view", "v": self.v, "seq": seq, "view": self.view}

    async def handler(self, ws: ServerConnection) -> None:
        self.connections.add(ws)
        me = 0
        try:
            async for frame in ws:
                assert isinstance(frame, bytes), "the client sent a text frame"
                msg = msgpack.unpackb(frame, raw=False)
                self.received.append(msg)
                kind = msg["t"]
                if kind == "hello":
                    self.hellos.append(msg)
                    name = str(msg.get("name", "")).casefold()
                    if name in self.claimed and msg.get("key") != self.claimed[name]:
                        await ws.send(encode({"t": "error", "code": "name_taken", "message":
                                              "the name is claimed: send its key, or pick another"}))
                        continue
                    token = msg.get("token")
                    if token is not None and token not in self.tokens:
                        await ws.send(encode({"t": "error", "code": "bad_token",
                                              "message": "the resume token is unknown or expired"}))
                        continue
                    await ws.send(encode(welcome(now_ms(), resumed=token is not None,
                                                 server_id=self.server_id)))
                    if token is not None:
                        me = self.tokens[token]
                        await ws.send(encode({"t": "joined", "code": CODE, "player": me, "token": token}))
                        racing = self.starts_at is not None and now_ms() >= self.starts_at
                        await ws.send(encode(self.room("racing" if racing else "lobby")))
                        if racing:
                            await ws.send(encode(self.view_msg(None)))
                elif kind in ("quick", "create", "join"):
                    if kind == "join" and msg["code"] != CODE:
                        await ws.send(encode({"t": "error", "code": "no_room",
                                              "message": f"no room has the code {msg['code']!r}"}))
                        continue
                    me = 1 if kind != "join" else 2
                    token = f"{CODE}.{me}.secret{len(self.tokens)}"
                    self.tokens[token] = me
                    self.players[me] = "you"
                    self.players.update({n: v for n, v in self.names.items() if n != me})
                    await ws.send(encode({"t": "joined", "code": CODE, "player": me, "token": token}))
                    await ws.send(encode(self.room()))
                elif kind == "ready":
                    self.starts_at = now_ms() + self.countdown_ms
                    await ws.send(encode(self.room("countdown")))
                    await asyncio.sleep(self.countdown_ms / 1000)
                    await ws.send(encode(self.view_msg(None)))
                    await ws.send(encode({"t": "progress", "player": 2, "foundation_cards": 13,
                                          "total_cards": self.view["total_cards"], "moves": 9,
                                          "status": "in_progress"}))
                elif kind == "move":
                    if msg["move"] in self.view["legal_moves"]:
                        self.v += 1
                        await ws.send(encode(self.view_msg(msg["seq"])))
                    else:
                        await ws.send(encode({"t": "error", "code": "illegal_move", "seq": msg["seq"],
                                              "message": "the waste is empty"}))
                elif kind == "claim":
                    if msg["name"].casefold() in self.claimed:
                        await ws.send(encode({"t": "error", "code": "name_taken",
                                              "message": f"the name {msg['name']!r} is already claimed"}))
                        continue
                    key = f"key-{len(self.claimed)}-{msg['name']}"
                    self.claimed[msg["name"].casefold()] = key
                    await ws.send(encode({"t": "claimed", "name": msg["name"], "key": key}))
                elif kind == "daily_info":
                    await ws.send(encode({**self.daily_info, "variant": msg["variant"]}))
                elif kind == "daily":
                    me = 1
                    self.players = {1: "you"}
                    token = f"{CODE}.1.daily{len(self.tokens)}"
                    self.tokens[token] = 1
                    await ws.send(encode({"t": "joined", "code": CODE, "player": 1, "token": token}))
                    await ws.send(encode({**self.room(), "players_max": 1, "daily": "2026-11-30",
                                          "ranked": True}))
                elif kind == "board":
                    await ws.send(encode(self.board(msg)))
                elif kind == "ping":
                    await ws.send(encode({"t": "pong", "server_time": now_ms()}))
        except Exception:  # a dropped connection ends the handler
            pass
        finally:
            self.connections.discard(ws)


@contextlib.contextmanager
def threaded_fake_server(**kwargs: Any) -> Iterator[FakeServer]:
    """A FakeServer on its own event loop in a thread (for tests that block, like pexpect)."""
    loop = asyncio.new_event_loop()
    ready = threading.Event()
    holder: dict[str, FakeServer] = {}

    def run() -> None:
        asyncio.set_event_loop(loop)
        holder["server"] = loop.run_until_complete(FakeServer(**kwargs).start())
        ready.set()
        loop.run_forever()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    assert ready.wait(5), "the fake server did not start"
    try:
        yield holder["server"]
    finally:
        asyncio.run_coroutine_threadsafe(holder["server"].stop(), loop).result(5)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(5)
        loop.close()
