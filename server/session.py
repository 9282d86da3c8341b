"""One player's connection: the message handlers of the protocol.

A session holds its player's current game state so a move costs one engine
check and one store script. The store stays the truth: on any doubt (a
version conflict, a resume, a restart) the session rebuilds its state by
replaying the stored move log.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
import secrets
import unicodedata
from typing import TYPE_CHECKING, Any

from websockets.asyncio.server import broadcast

from . import session_competition, session_events, session_results
from .game import engine
from .game.moves import BadMove, GameOver, IllegalMove
from .game.state import State
from .game.variants import UnknownVariant, get_rules
from .game.views import view
from .metrics import MOVES_ACCEPTED, MOVES_REJECTED
from .progress import ProgressThrottle
from .protocol import MAX_NAME_CHARS, PROTOCOL_VERSION, ProtocolError, encode, error
from .race import cards_conserved, phase_at, progress_message, room_message
from .store.rooms import RoomError, RoomRow, StoreUnavailable, now_ms

if TYPE_CHECKING:
    from websockets.asyncio.server import ServerConnection

    from .app import RaceServer

log = logging.getLogger("patience.session")

STORE_RETRY_S = 0.25  # how often background work retries while Redis is unreachable
SEND_NOW_BYTES = 64 * 1024  # unsent data past which sends wait for the client


def clean_name(name: str | None) -> str:
    """Printable characters only: names are drawn on other players' terminals."""
    text = "".join(ch for ch in (name or "") if unicodedata.category(ch)[0] not in ("C", "Z")
                   or ch == " ")
    return " ".join(text.split())[:MAX_NAME_CHARS] or "player"


def token_hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


class Session:
    def __init__(self, server: RaceServer, ws: ServerConnection) -> None:
        self.server = server
        self.ws = ws
        self.id = secrets.token_hex(8)
        self.hello = False
        self.name = "player"
        self.code: str | None = None
        self.n = 0
        self.token = ""
        self.variant = ""
        self.total_cards = 0
        self.deal = ""
        self.starts_at = 0
        self.ends_at = 0
        self.state: State | None = None
        self.status = engine.IN_PROGRESS  # of self.state, once there is one
        self.v = 0
        self.last_seq = -1
        self.last_answer: list[bytes] = []
        self.start_task: asyncio.Task[None] | None = None
        self.closing: asyncio.Task[None] | None = None
        self.identified: str | None = None  # the claimed name this connection proved
        self.progress = ProgressThrottle(server.store.publish_progress)

    # -- plumbing --------------------------------------------------------------
    async def send(self, message: dict[str, Any]) -> None:
        await self.send_bytes(encode(message))

    async def send_bytes(self, payload: bytes) -> None:
        """Write at once while the client keeps up; wait for it (backpressure,
        which also stops reading its messages) once unsent data piles up.
        The direct write skips websockets' per-send lock and context, a good
        part of the cost of a small message."""
        if self.ws.transport.get_write_buffer_size() < SEND_NOW_BYTES:
            broadcast([self.ws], payload)  # does nothing once the connection is closing
        else:
            await self.ws.send(payload)

    def log_extra(self) -> dict[str, Any]:
        return {"room": self.code, "player": self.n, "session": self.id}

    async def handle(self, msg: dict[str, Any]) -> None:
        kind = msg["t"]
        if kind == "ping":
            await self.send({"t": "pong", "server_time": now_ms()})
            return
        if kind == "hello":
            if self.hello:
                raise ProtocolError("hello_first", "hello was already received")
            await self.on_hello(msg)
            return
        if not self.hello:
            raise ProtocolError("hello_first", "the first message must be hello")
        extra = session_competition.HANDLERS.get(kind) or session_results.HANDLERS.get(kind)
        if extra is not None:
            await extra(self, msg)
            return
        handler = getattr(self, f"on_{kind}")
        await handler(msg)

    # -- hello and rooms -------------------------------------------------------
    async def on_hello(self, msg: dict[str, Any]) -> None:
        if msg["proto"] != PROTOCOL_VERSION:
            raise ProtocolError("old_protocol", f"this server speaks protocol {PROTOCOL_VERSION}, "
                                f"the client {msg['proto']}: please upgrade the client")
        self.name = clean_name(msg.get("name"))
        if msg.get("name"):
            await session_competition.check_name(self, self.name, msg.get("key"))
        token = msg.get("token")
        if token:
            code, n, secret = self._parse_token(token)
            stored = await self.server.store.token_hash(code, n)
            if stored is None or not hmac.compare_digest(stored, token_hash(secret)):
                raise ProtocolError("bad_token", "the resume token is unknown or expired")
            self.hello = True
            await self.send({"t": "welcome", "proto": PROTOCOL_VERSION, "server_time": now_ms(),
                             "resumed": True, "identified": self.identified,
                             "server_id": self.server.competition.server_id})
            await self._attach(code, n, token)
            return
        self.hello = True
        await self.send({"t": "welcome", "proto": PROTOCOL_VERSION, "server_time": now_ms(),
                         "resumed": False, "identified": self.identified,
                         "server_id": self.server.competition.server_id})

    @staticmethod
    def _parse_token(token: str) -> tuple[str, int, str]:
        parts = token.split(".")
        if len(parts) != 3 or not parts[1].isdigit() or not parts[0].isalnum():
            raise ProtocolError("bad_token", "the resume token is malformed")
        return parts[0].upper(), int(parts[1]), parts[2]

    async def leave_current(self) -> None:
        if self.code is None:
            return
        room = await self.server.store.room(self.code)
        if room is not None and phase_at(room, now_ms()) in ("countdown", "racing") \
                and self.state is not None and self.status == engine.IN_PROGRESS:
            raise ProtocolError("already_in_room", "finish or resign the current race first")
        if room is not None and room.phase == "lobby":
            await self.server.store.set_player_fields(self.code, self.n, left=1, ready=0, conn=0)
            await self._publish_room(self.code)
        await self.detach()

    async def on_create(self, msg: dict[str, Any]) -> None:
        variant = self._variant(msg["variant"])
        await self.leave_current()
        private = msg.get("private", True)
        code = await self.server.open_room(variant, self.server.new_deal(), msg.get("players", 2),
                                           private)
        await self.join(code)
        if not private:  # an open room is one a quick race may join
            await self.server.store.add_quick(variant, code)

    async def on_join(self, msg: dict[str, Any]) -> None:
        code = msg["code"].strip().upper()
        if not code.isalnum():
            raise ProtocolError("no_room", f"no room has the code {code[:16]!r}")
        await self.leave_current()
        await self.join(code)

    async def on_quick(self, msg: dict[str, Any]) -> None:
        variant = self._variant(msg["variant"])
        await self.leave_current()
        store = self.server.store
        for code in await store.quick_candidates(variant):
            try:
                await self.join(code)
                return
            except ProtocolError:
                await store.remove_quick(variant, code)
        code = await self.server.open_room(variant, self.server.new_deal(),
                                           self.server.settings.quick_size, private=False)
        await store.add_quick(variant, code)
        await self.join(code)

    def _variant(self, name: str) -> str:
        try:
            return get_rules(name).spec.id
        except UnknownVariant as exc:
            raise ProtocolError("unknown_variant", str(exc)) from None

    async def join(self, code: str) -> None:
        secret = secrets.token_urlsafe(18)  # 144 random bits
        try:
            n = await self.server.store.join(code, self.name, token_hash(secret))
        except RoomError as exc:
            raise ProtocolError(exc.code, f"cannot join room {code}: {exc.code.replace('_', ' ')}") \
                from None
        if self.identified is not None:
            await self.server.store.set_player_fields(code, n, ident=self.identified)
        await self._attach(code, n, f"{code}.{n}.{secret}")
        await self._publish_room(code)

    async def _attach(self, code: str, n: int, token: str) -> None:
        room = await self.server.store.room(code)
        if room is None:
            raise ProtocolError("no_room", f"room {code} has expired")
        self.code, self.n, self.token = code, n, token
        self.variant, self.deal = room.variant, room.deal
        self.total_cards = get_rules(room.variant).spec.total_cards
        await self.server.attach(self)
        await self.server.store.set_player_fields(code, n, conn=self.id)
        await self.send({"t": "joined", "code": code, "player": n, "token": token})
        await self.send(room_message(room, now_ms()))
        await self._sync_from_room(room)
        await self.server.store.publish(code, encode(
            {"t": "_takeover", "player": n, "session": self.id}))

    async def detach(self) -> None:
        if self.start_task is not None:
            self.start_task.cancel()
            self.start_task = None
        if self.code is not None:
            await self.server.detach(self)
        self.progress.flush()  # a player leaving still shows its last count
        self.code, self.n, self.state, self.v = None, 0, None, 0
        self.status = engine.IN_PROGRESS
        self.last_seq, self.last_answer = -1, []

    async def _publish_room(self, code: str) -> None:
        room = await self.server.store.room(code)
        if room is not None:
            await self.server.store.publish(code, encode(room_message(room, now_ms())))

    # -- the race --------------------------------------------------------------
    async def on_ready(self, msg: dict[str, Any]) -> None:
        code = self.need_room()
        started, _, _ = await self.server.store.set_ready(code, self.n, True)
        await self._publish_room(code)
        if started:
            log.info("race scheduled", extra=self.log_extra())

    async def on_leave(self, msg: dict[str, Any]) -> None:
        self.need_room()
        if self.state is not None and self.status == engine.IN_PROGRESS:
            await self._play(self.last_seq + 1, "resign", self.v)
        await self.leave_current()

    async def _sync_from_room(self, room: RoomRow) -> None:
        """Bring this session up to the stored room: schedule or send the start,
        rebuild the game from the move log, replay the results."""
        self.starts_at, self.ends_at = room.starts_at, room.ends_at
        if room.phase == "lobby":
            return
        if room.phase == "racing" and now_ms() < room.starts_at:
            self.schedule_start()
            return
        await self._reload()
        if self.state is not None:
            await self._send_view(None)
        self.server.watch_clock(room)
        if room.phase == "finished" and room.results:
            await self.send_bytes(room.results)

    def schedule_start(self) -> None:
        if self.start_task is None or self.start_task.done():
            self.start_task = asyncio.create_task(self._start_at(self.starts_at))

    async def _start_at(self, starts_at: int) -> None:
        await asyncio.sleep(max(0, starts_at - now_ms()) / 1000)
        while True:  # Redis may be away at the start: the view still comes when it is back
            try:
                room = await self.server.store.room(self.code or "")
                if room is None:
                    return
                await self._reload()
                break
            except StoreUnavailable:
                await asyncio.sleep(STORE_RETRY_S)
        await self._send_view(None)
        self.server.watch_clock(room)

    async def _reload(self) -> None:
        """Rebuild the state from the deal and the stored move log."""
        assert self.code is not None
        state = engine.new_game(self.variant, self.deal)
        moves = await self.server.store.moves(self.code, self.n)
        for _, text in moves:
            # every stored move was accepted while its game was going on: each is
            # checked again, but no position needs a dead-game search on the way
            state = engine.play(state, text, engine.IN_PROGRESS)
        self.status, _ = await self.server.status_and_moves(state)
        self.state, self.v = state, len(moves)
        room = await self.server.store.room(self.code)
        if room is not None and (p := room.player(self.n)) is not None:
            self.last_seq = p.seq

    async def _send_view(self, seq: int | None, status: str | None = None,
                         moves: list[engine.Move] | None = None) -> bytes:
        assert self.state is not None
        payload = encode({"t": "view", "v": self.v, "seq": seq,
                          "view": view(self.state, status or self.status, moves)})
        await self.send_bytes(payload)
        return payload

    def need_room(self) -> str:
        if self.code is None:
            raise ProtocolError("not_in_room", "create, join or quick first")
        return self.code

    async def on_move(self, msg: dict[str, Any]) -> None:
        await self._play(msg["seq"], msg["move"], msg["v"])

    async def on_resign(self, msg: dict[str, Any]) -> None:
        await self._play(msg["seq"], "resign", self.v)

    async def _play(self, seq: int, text: str, v: int) -> None:
        code = self.need_room()
        if seq == self.last_seq and self.last_answer:
            for payload in self.last_answer:  # the same seq gets the same answer
                await self.send_bytes(payload)
            return
        if seq == self.last_seq and self.state is not None:
            # Accepted before this connection (the stored seq came with a resume):
            # that move made the current position, so its view is the same answer.
            self.last_answer = [await self._send_view(seq)]
            return
        if seq < self.last_seq:
            raise ProtocolError("stale_seq", f"seq {seq} is older than the last one ({self.last_seq})")
        now = now_ms()
        if self.state is None or now < self.starts_at:
            raise ProtocolError("not_started", "the race has not started yet")
        if now >= self.ends_at:
            await self.server.maybe_finish(code)
            raise ProtocolError("race_over", "the race clock has run out")
        if v != self.v:
            await self.send(error("stale_version", f"the position is at version {self.v}, not {v}", seq))
            await self._send_view(seq)
            return
        try:
            new_state = engine.play(self.state, text, self.status)
        except (BadMove, IllegalMove, GameOver) as exc:
            code_ = {BadMove: "bad_move", IllegalMove: "illegal_move", GameOver: "game_over"}[type(exc)]
            MOVES_REJECTED.labels(code_).inc()
            answer = encode(error(code_, str(exc), seq))
            self.last_seq, self.last_answer = seq, [answer]
            await self.send_bytes(answer)
            return
        if not cards_conserved(self.state, new_state):
            log.error("card conservation failed: game frozen", extra=self.log_extra())
            await self.server.store.set_player_fields(code, self.n, status="frozen")
            raise ProtocolError("internal", "this game failed a consistency check and is frozen")
        status, moves = await self.server.status_and_moves(new_state)
        fc = engine.foundation_cards(new_state)

        n, total = self.n, self.total_cards  # as they are now, whenever it is encoded

        def progress() -> bytes:
            return encode(progress_message(n, status, fc, total, v + 1))

        with_move = self.progress.send_with_move(fc, status)
        try:
            result, stored_v = await self.server.store.move(
                code, self.n, v, seq, now, text, status, fc, progress() if with_move else b"")
        except BaseException:
            self.progress.refused()
            raise
        if result == "ok":
            self.progress.accepted(code, self.n, fc, status, progress, with_move)
            MOVES_ACCEPTED.inc()
            self.state, self.v, self.status = new_state, stored_v, status
            self.last_seq = seq
            self.last_answer = [await self._send_view(seq, status, moves)]
            if status != engine.IN_PROGRESS:
                await self.server.maybe_finish(code)
            return
        self.progress.refused()
        if result in ("dup", "stale"):
            # Another connection of this player, or a lost reply: the store wins.
            await self._reload()
            if result == "stale":
                await self.send(error("stale_version", "the position changed: here is the current one",
                                      seq))
            self.last_seq = max(self.last_seq, seq) if result == "dup" else self.last_seq
            answer = await self._send_view(seq)
            if result == "dup":
                self.last_answer = [answer]
            return
        messages = {"not_started": "the race has not started yet", "race_over": "the race is over",
                    "game_over": "your game has ended", "stale_seq": "that seq is older than the last one",
                    "too_long": "this game has reached the move limit"}
        err = "race_over" if result == "too_long" else result
        raise ProtocolError(err, messages.get(result, result))

    # -- events from the room channel (server/session_events.py) ---------------------
    async def on_room_event(self, message: dict[str, Any]) -> None:
        await session_events.on_room_event(self, message)

    async def resync(self) -> None:
        await session_events.resync(self)
