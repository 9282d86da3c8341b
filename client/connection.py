"""The connection to a race server: hello, resume, reconnect with backoff.

:class:`ClientSession` is the whole client minus the terminal: the app drives it,
and tests drive two of them in-process. It keeps one websocket (binary msgpack
frames, ``server.wire.protocol``'s codec), folds every server message into a
:class:`~client.state.RaceState`, and when the connection drops it reconnects
by itself (exponential backoff with jitter, ``state.conn == "reconnecting"``
meanwhile) and resumes with the room's token. Tokens are kept per server and
name in a :class:`~client.config.TokenStore`.

A claimed name's key (from ``claimed``, or given by the player) is kept in a
:class:`~client.config.KeyStore` under the server's id (``welcome.server_id``)
and sent in every hello for that name. Which id an address leads to is learnt
from its welcome; for an address not seen before, the key is looked up by its
spelling, and a ``name_taken`` answer then makes the session ask the server
its id (a hello without a name, on a connection of its own) and try the key
kept under that id: a key is only ever sent to the server it belongs to. A
hello still refused with ``name_taken`` is :class:`NameTaken`, one sentence
for the player.
The session also watches the board page on screen: a ``board_changed`` push
for it is answered by asking for the page again, once per push.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections import deque
from collections.abc import Callable
from typing import Any, Final

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus, WebSocketException

from server.wire.protocol import MAX_FRAME_BYTES, MAX_NAME_CHARS, PROTOCOL_VERSION, encode

from .competition import board_id
from .config import CommitmentBook, KeyStore, ServerBook, TokenStore, where
from .requests import Requests, device_label, now_ms
from .state import BOARD_PAGE, RaceState, apply, mode
from .wire import (
    NameTaken,
    ServerUnreachable,
    banned_address,
    decode_server,
    describe_failure,
    name_taken_sentence,
)

__all__ = [
    "BOARD_PAGE",
    "ClientSession",
    "NameTaken",
    "ServerUnreachable",
    "decode_server",
    "describe_failure",
]

# Close codes after which reconnecting would be wrong: we were replaced or thrown out.
_FINAL_CLOSES: Final = {1000: "this seat was taken over by a newer connection",
                        1008: "the server closed the connection: too many messages",
                        1009: "the server closed the connection: a message was too large"}


class ClientSession(Requests):
    """One player's connection to one server, with its state.

    ``on_change`` is called (synchronously) after every state change. Commands
    return once the frame is sent; use :meth:`wait_for` to wait for an answer.
    """

    def __init__(
        self,
        url: str,
        name: str = "player",
        *,
        tokens: TokenStore | None = None,
        keys: KeyStore | None = None,
        commitments: CommitmentBook | None = None,
        servers: ServerBook | None = None,
        key: str | None = None,
        device: str | None = None,
        on_change: Callable[[], object] | None = None,
        backoff_initial: float = 0.25,
        backoff_max: float = 8.0,
        open_timeout: float = 5.0,
        resume: bool = True,
        redeem: tuple[str, str] | None = None,
    ) -> None:
        self.url = url
        self.name = name[:MAX_NAME_CHARS] or "player"
        self.device = device  # this install's id (config.install_id), sent in every hello
        # ("link" or "recover", code): said as a guest first, then redeemed for the name
        self.redeem_at_start = redeem
        self.tokens = tokens if tokens is not None else TokenStore.in_memory()
        self.on_change = on_change
        self.backoff_initial = backoff_initial
        self.backoff_max = backoff_max
        self.open_timeout = open_timeout
        self.state = RaceState(server=url, name=self.name)
        self.received: deque[dict[str, Any]] = deque(maxlen=2000)  # the latest messages, for tests
        self.n_received = 0
        self.token: str | None = self.tokens.load(url, self.name) if resume else None
        self.keys = keys if keys is not None else KeyStore.in_memory()
        self.commitments = commitments if commitments is not None else CommitmentBook.in_memory()
        self.servers = servers if servers is not None else ServerBook.in_memory()
        self.server_id: str | None = self.servers.id_of(url)  # as last seen; welcome confirms it
        self.key: str | None = key or self.keys.load(self.where, self.name) or self.keys.load(url, self.name)
        self._key_given = bool(key)  # given by the player: kept once the server has accepted it
        self._asked_id = False  # the server was asked its id after a name_taken
        rating = self.keys.rating(self.where, self.name)
        if rating is not None:
            self.state.ratings_seen[self.name.casefold()] = rating
        self.watching: dict[str, Any] | None = None  # the board request on screen
        self.board_refreshes = 0  # board pages asked for again after a board_changed
        self._tasks: set[asyncio.Task[Any]] = set()
        self._ws: ClientConnection | None = None
        self._runner: asyncio.Task[None] | None = None
        self._closing = False
        self._changed = asyncio.Event()
        self._seq = 0

    @property
    def where(self) -> str:
        """Where this server's keys and commitments are kept: its id, else its address."""
        return where(self.url, self.server_id)

    # -- life cycle ---------------------------------------------------------------
    async def connect(self) -> None:
        """Open the first connection and say hello; raise :class:`ServerUnreachable`."""
        try:
            ws = await self._open()
        except (OSError, TimeoutError, WebSocketException, ValueError) as exc:
            self.state.conn = "closed"
            raise ServerUnreachable(describe_failure(self.url, exc)) from None
        except NameTaken:
            self.state.conn = "closed"
            raise
        except _Refused as exc:
            self.state.conn = "closed"
            raise ServerUnreachable(str(exc)) from None
        self._runner = asyncio.get_running_loop().create_task(self._run(ws))

    async def close(self, *, keep_seat: bool | None = None) -> None:
        """Close the connection. The token is forgotten unless a race is on (or ``keep_seat``)."""
        self._closing = True
        if keep_seat is None:
            keep_seat = mode(self.state) in ("race", "countdown", "room")
        if not keep_seat:
            self.tokens.forget(self.url, self.name)
        else:
            self.tokens.release(self.url, self.name)
        if self._ws is not None:
            with contextlib.suppress(Exception):
                await self._ws.close()
        for task in list(self._tasks):
            task.cancel()
        if self._runner is not None:
            self._runner.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._runner
        self.state.conn = "closed"

    async def _open(self) -> ClientConnection:
        """Connect and greet (resuming with the token when there is one)."""
        while True:
            ws = await connect(self.url, open_timeout=self.open_timeout, compression=None,
                               max_size=4 * MAX_FRAME_BYTES)
            hello: dict[str, Any] = {"t": "hello", "proto": PROTOCOL_VERSION, "name": self.name}
            redeem = self.redeem_at_start  # given up once sent: a failed attempt keeps it
            if redeem is not None:  # a guest's hello: the name is claimed and this device has no key
                hello = {"t": "hello", "proto": PROTOCOL_VERSION}
            if self.token and redeem is None:
                hello["token"] = self.token
            if self.key and redeem is None:
                hello["key"] = self.key
            if self.device:
                hello["device"] = self.device[:64]
            try:
                await ws.send(encode(hello))
                first = decode_server(await asyncio.wait_for(ws.recv(), self.open_timeout))
            except BaseException:
                await ws.close()
                raise
            if first.get("t") == "error" and first.get("code") == "bad_token" and self.token:
                # the room is gone (or the token is not ours any more): start afresh
                self.token = None
                self.tokens.forget(self.url, self.name)
                self.state.leave_room()
                self._handle(first)
                await ws.close()
                continue
            if first.get("t") == "error" and first.get("code") == "name_taken":
                await ws.close()
                if await self._key_by_server_id():
                    continue
                raise NameTaken(name_taken_sentence(self.name, self.url, bool(self.key)))
            if first.get("t") == "error":
                await ws.close()
                reason = first.get("message") or first.get("code")
                raise _Refused(f"The server at {self.url} refused us: {reason}.")
            self._ws = ws
            if first.get("t") == "welcome":
                self._learn_server_id(first.get("server_id"))
            if first.get("t") == "welcome" and self.key and redeem is None:
                self.state.claimed = True  # the server took the name's key
                if self._key_given:
                    self.keys.save(self.where, self.name, self.key)
                    self._key_given = False
            self._handle(first)
            if redeem is not None and first.get("t") == "welcome":
                await ws.send(encode({"t": redeem[0], "name": self.name, "code": redeem[1][:32],
                                      "label": device_label()}))
                self.redeem_at_start = None
            return ws

    def _learn_server_id(self, server_id: Any) -> None:
        """Welcome said which server this is: file what was kept by address under its id."""
        if not isinstance(server_id, str) or not server_id:
            return
        self.server_id = server_id
        self.servers.note(self.url, server_id)
        self.keys.adopt(self.url, server_id)
        self.commitments.adopt(self.url, server_id)

    async def _key_by_server_id(self) -> bool:
        """After ``name_taken`` without a key: ask the server its id, take the key kept for it.

        Only a key kept under the id the server gives is sent, so no key goes to a
        server other than the one that issued it. True when there is a key to try.
        """
        if self.key or self._asked_id or not self.keys.known_ids(self.name):
            return False
        self._asked_id = True
        ws = await connect(self.url, open_timeout=self.open_timeout, compression=None,
                           max_size=4 * MAX_FRAME_BYTES)
        try:  # a hello without a name is a guest's: it cannot be refused for the name
            await ws.send(encode({"t": "hello", "proto": PROTOCOL_VERSION}))
            first = decode_server(await asyncio.wait_for(ws.recv(), self.open_timeout))
        finally:
            await ws.close()
        if first.get("t") != "welcome":
            return False
        self._learn_server_id(first.get("server_id"))
        self.key = self.keys.load(self.where, self.name) if self.server_id else None
        return self.key is not None

    async def _run(self, ws: ClientConnection) -> None:
        while True:
            try:
                async for frame in ws:
                    try:
                        msg = decode_server(frame)
                    except ValueError:
                        continue  # a garbled frame: skip it, the next view corrects us
                    self._handle(msg)
            except ConnectionClosed:
                pass
            self._ws = None
            if self._closing:
                return
            code = ws.close_code
            if code in _FINAL_CLOSES:
                self.state.conn = "closed"
                self.state.tell(_FINAL_CLOSES[code], error=True)
                self._changed_now()
                return
            reconnected = await self._reconnect()
            if reconnected is None:
                return
            ws = reconnected

    async def _reconnect(self) -> ClientConnection | None:
        attempt = 0
        while True:
            attempt += 1
            self.state.conn = "reconnecting"
            self.state.attempt = attempt
            self._changed_now()
            delay = min(self.backoff_max, self.backoff_initial * 2 ** (attempt - 1))
            await asyncio.sleep(delay * random.uniform(0.5, 1.0))
            try:
                return await self._open()
            except NameTaken as exc:  # trying again cannot help
                self.state.conn = "closed"
                self.state.tell(str(exc), error=True)
                self._changed_now()
                return None
            except _Refused as exc:
                self.state.tell(str(exc), error=True)
            except InvalidStatus as exc:
                if banned_address(exc):  # a moderator's ban: trying again cannot help
                    self.state.conn = "closed"
                    self.state.tell(describe_failure(self.url, exc), error=True)
                    self._changed_now()
                    return None
            except (OSError, TimeoutError, WebSocketException, ValueError):
                pass

    # -- incoming -----------------------------------------------------------------
    def _handle(self, msg: dict[str, Any]) -> None:
        self.received.append(msg)
        self.n_received += 1
        apply(self.state, msg, now_ms())
        kind = msg.get("t")
        if kind == "joined" and isinstance(msg.get("token"), str):
            self.token = msg["token"]
            self.tokens.save(self.url, self.name, msg["token"])
        elif kind in ("claimed", "linked", "rotated"):
            self._claimed(msg)
        elif kind == "daily_info":
            self._note_commitments(msg)
        elif kind == "results" and self.key:
            for change in self.state.rating_changes:
                if change.name.casefold() == self.name.casefold():
                    self.keys.save_rating(self.where, self.name, change.value)
        elif kind == "board_changed":
            self._board_changed(msg.get("board"))
        elif kind == "welcome" and self.state.arena_rejoin:
            # a reconnect: the arena's membership ended with the old connection
            arena, self.state.arena_rejoin = self.state.arena_rejoin, ""
            self._spawn(self.send({"t": "arena_join", "id": arena}))
        self._changed_now()

    def _claimed(self, msg: dict[str, Any]) -> None:
        """A key for the name: claimed, linked to this device, or this device's replaced."""
        name, key = msg.get("name"), msg.get("key")
        if not isinstance(name, str) or not name or not isinstance(key, str) or not key:
            return
        self.name = name  # a typed name: this connection now plays under it
        self.key = key
        self.keys.save(self.where, name, key)

    def _note_commitments(self, msg: dict[str, Any]) -> None:
        """Remember today's commitment; look up the one seen for yesterday's reveal."""
        variant, date, commitment = msg.get("variant"), msg.get("date"), msg.get("commitment")
        if not isinstance(variant, str):
            return
        yesterday = msg.get("yesterday")
        if isinstance(yesterday, dict) and isinstance(yesterday.get("date"), str):
            seen = self.commitments.seen(self.where, yesterday["date"], variant)
            if seen is not None:
                self.state.seen_commitments[f"{yesterday['date']}|{variant}"] = seen
        if isinstance(date, str) and isinstance(commitment, str):
            self.commitments.note(self.where, date, variant, commitment)
            first = self.commitments.seen(self.where, date, variant) or commitment
            self.state.seen_commitments[f"{date}|{variant}"] = first

    def _board_changed(self, board: Any) -> None:
        """Ask again for the board on screen, once per push (and only if it is that board)."""
        request = self.watching
        if request is None:
            return
        ours = board_id(request, self.state.board)
        if ours is not None and isinstance(board, str) and board != ours:
            return
        self.board_refreshes += 1
        self._spawn(self.send(dict(request)))

    def _spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _changed_now(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()
        if self.on_change is not None:
            self.on_change()

    async def wait_for(self, predicate: Callable[[RaceState], bool], timeout: float = 10.0) -> RaceState:  # noqa: ASYNC109 (a wait with a default deadline of its own)
        """Wait until ``predicate(state)`` holds; TimeoutError after ``timeout`` seconds."""
        async with asyncio.timeout(timeout):
            while not predicate(self.state):
                await self._changed.wait()
        return self.state

    async def wait_message(self, kind: str, timeout: float = 10.0) -> dict[str, Any]:  # noqa: ASYNC109 (a wait with a default deadline of its own)
        """Wait for the next message of type ``kind`` (after this call)."""
        start = self.n_received

        def since() -> list[dict[str, Any]]:
            fresh = self.n_received - start
            return list(self.received)[-fresh:] if fresh else []

        await self.wait_for(lambda _: any(m.get("t") == kind for m in since()), timeout)
        return next(m for m in since() if m.get("t") == kind)

    # -- outgoing -----------------------------------------------------------------
    @property
    def connected(self) -> bool:
        return self._ws is not None

    async def send(self, msg: dict[str, Any]) -> bool:
        """Send one message; False (and a notice) when the connection is down."""
        ws = self._ws
        if ws is None:
            self.state.tell("not connected: wait for the reconnect", error=True)
            self._changed_now()
            return False
        try:
            await ws.send(encode(msg))
        except ConnectionClosed:
            return False  # the reader notices and reconnects
        return True

    async def board(self, kind: str, variant: str | None = None, *, date: str | None = None,
                    offset: int = 0, limit: int = BOARD_PAGE, watch: bool = True,
                    season: str | None = None, near: bool = False) -> bool:
        """Ask for a board page (or with ``near`` the player's rank and neighbours, of
        ``season`` when given); with ``watch`` it is the board on screen (see ``board_changed``)."""
        msg: dict[str, Any] = {"t": "board", "kind": kind, "offset": max(offset, 0), "limit": limit}
        if variant:
            msg["variant"] = variant
        if date:
            msg["date"] = date
        if season:
            msg["season"] = season
        if near:
            msg["near"] = True
        if watch:
            self.watching = dict(msg)
        return await self.send(msg)

    def unwatch_board(self) -> None:
        """The board is off screen: its pushes are no longer answered."""
        self.watching = None

    async def leave(self) -> bool:
        """Leave the room: the seat and its token are given up."""
        sent = await self.send({"t": "leave"})
        self.token = None
        self.tokens.forget(self.url, self.name)
        self.state.leave_room()
        self._changed_now()
        return sent

class _Refused(Exception):
    """The server answered hello with an error other than bad_token."""
