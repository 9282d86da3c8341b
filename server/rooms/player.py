"""One connected player: its seat, its game, and what its room tells it.

A player holds its seat's game (:class:`~server.rooms.session.GameSession`)
so a move costs one engine check and one store script (server/rooms/play.py).
The store stays the truth: on any doubt (a version conflict, a resume, a
restart, lost pub/sub) the player rebuilds that game from the stored room and
move log.

Everything the player is sent goes into its connection's outbox
(server/net/outbox.py): nothing here waits for a socket.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import secrets
import unicodedata
from collections.abc import Callable, Coroutine
from typing import Any

from ..game import engine
from ..game.records import positions
from ..game.variants import get_rules
from ..game.views import view
from ..ops.limits import ConnectionLimits, unlimited
from ..race.rows import RoomRow
from ..race.rules import phase_at, progress_message, room_message
from ..wire.errors import RoomError, StoreUnavailable
from ..wire.protocol import CLOSE_NORMAL, MAX_NAME_CHARS, ProtocolError, encode, error
from .ports import Outbox
from .progress import ProgressThrottle
from .service import STORE_RETRY_S, RoomService
from .session import GameSession
from .spectator import Spectator
from .verdicts import follow

log = logging.getLogger("patience.player")


def clean_name(name: str | None) -> str:
    """Printable characters only: names are drawn on other players' terminals."""
    text = "".join(ch for ch in (name or "") if unicodedata.category(ch)[0] not in ("C", "Z")
                   or ch == " ")
    return " ".join(text.split())[:MAX_NAME_CHARS] or "player"


def token_hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


class Player:
    def __init__(self, service: RoomService, outbox: Outbox,
                 limits: ConnectionLimits | None = None) -> None:
        self.service = service
        self.clock: Callable[[], int] = service.clock  # the service's: one hop from the move path
        self.outbox = outbox
        self.limits = limits if limits is not None else unlimited()  # rooms, claims, joins
        self.id = secrets.token_hex(8)
        self.hello = False
        self.name = "player"
        self.identified: str | None = None  # the claimed name this connection proved
        self.key_id: str | None = None  # the id of the name's device key it proved it with
        self.device: str | None = None  # a hash of the install id its client sent in hello
        self.practised: set[tuple[str, str]] = set()  # (date, variant) dailies started as a guest
        self.code: str | None = None
        self.n = 0
        self.token = ""
        self.game = GameSession()  # the seat's game: what the move path works on
        self.start_task: asyncio.Task[None] | None = None
        self.ghost: asyncio.Task[None] | None = None  # a ghost race's ghost (server/rooms/ghost.py)
        self._tasks: set[asyncio.Task[None]] = set()  # work started by room events
        self.spectating: Spectator | None = None  # the room watched without a seat
        self.progress = ProgressThrottle(service.store.publish_progress)
        self.closed = False  # the connection has ended (an arena forgets the player then)
        self.queued: tuple[str, str] | None = None  # (variant, ticket) while waiting for a quick race

    # -- sending (never waits) ----------------------------------------------------------
    def send(self, message: dict[str, Any]) -> None:
        self.outbox.send(encode(message))

    def send_bytes(self, payload: bytes) -> None:
        self.outbox.send(payload)

    def log_extra(self) -> dict[str, Any]:
        return {"room": self.code, "player": self.n, "session": self.id}

    def need_room(self) -> str:
        if self.code is None:
            raise ProtocolError("not_in_room", "create, join or quick first")
        return self.code

    # -- seats ----------------------------------------------------------------------------
    async def can_leave(self) -> RoomRow | None:
        """The current room, after checking that the player may leave it for
        another: a race the player is still in must be finished or resigned.
        Changes nothing, so a refusal after it leaves everything as it was."""
        if self.code is None:
            return None
        room = await self.service.store.room(self.code)
        if room is not None and phase_at(room, self.clock()) in ("countdown", "racing") \
                and self.game.state is not None and self.game.status == engine.IN_PROGRESS:
            raise ProtocolError("already_in_room", "finish or resign the current race first")
        return room

    async def stop_watching(self) -> None:
        if self.spectating is not None:
            await self.spectating.stop()
            self.spectating = None

    async def leave_current(self) -> None:
        room = await self.can_leave()
        await self.stop_watching()
        await self.stop_waiting()
        if self.code is None:
            return
        code = self.code
        if room is None or room.phase != "lobby":
            await self.detach()
            return
        await self.service.store.set_player_fields(code, self.n, left=1, ready=0, conn=0)
        # out of the room's membership before its update goes out: the leaver
        # is not sent the room it has just left (its client would show it again)
        await self.detach()
        await self.publish_room(code)

    async def stop_waiting(self) -> None:
        """Leave the quick-race queue, if waiting in it."""
        if self.queued is not None and self.service.queue is not None:
            await self.service.queue.cancel(self)

    async def join(self, code: str) -> None:
        secret = secrets.token_urlsafe(18)  # 144 random bits
        who = self.identified.casefold() if self.identified is not None else ""
        try:
            n, _ = await self.service.store.join(code, self.name, token_hash(secret), who)
        except RoomError as exc:
            raise ProtocolError(exc.code, f"cannot join room {code}: {exc.code.replace('_', ' ')}") \
                from None
        if self.identified is not None:
            # a bot account's seat says so: every screen that shows the seat marks it
            bot = await self.service.competition.bot_accounts.is_bot(self.identified)
            await self.service.store.set_player_fields(code, n, ident=self.identified,
                                                       **({"acct": "bot"} if bot else {}))
        await self.attach(code, n, f"{code}.{n}.{secret}")

    async def attach(self, code: str, n: int, token: str) -> None:
        store = self.service.store
        room = await store.room(code)
        if room is None:
            raise ProtocolError("no_room", f"room {code} has expired")
        self.code, self.n, self.token = code, n, token
        self.game.variant, self.game.deal = room.variant, room.deal
        self.game.total_cards = get_rules(room.variant).spec.total_cards
        await self.service.attach(self)
        await store.set_player_fields(code, n, conn=self.id)
        # read again once the seat is ours: the room this player is shown has it connected
        room = await store.room(code) or room
        self.send({"t": "joined", "code": code, "player": n, "token": token})
        self.send(room_message(room, self.clock()))
        await self.sync_from_room(room)
        await store.publish(code, encode({"t": "_takeover", "player": n, "session": self.id}))
        # and every other player learns at once that this one is back (a resume
        # after a restart of either side would otherwise show it gone until the
        # next room change)
        await store.publish(code, encode(room_message(room, self.clock())))

    async def detach(self) -> None:
        """Leave the room's membership: its start and room work end with it."""
        if self.start_task is not None:
            self.start_task.cancel()
            self.start_task = None
        if self.ghost is not None:  # a ghost lives as long as its race's room membership
            self.ghost.cancel()
            self.ghost = None
        if self.code is not None:
            await self.service.detach(self)
        self.progress.flush()  # a player leaving still shows its last count
        self.game.reset()
        self.code, self.n = None, 0

    def holds_seat_in(self, room: RoomRow) -> bool:
        """This connection's claimed name already has a seat in ``room`` (joining
        takes that seat over: one identity, one seat)."""
        who = self.identified.casefold() if self.identified is not None else None
        return who is not None and any(p.ident is not None and p.ident.casefold() == who
                                       and not p.left for p in room.players)

    async def publish_room(self, code: str) -> None:
        room = await self.service.store.room(code)
        if room is not None:
            await self.service.store.publish(code, encode(room_message(room, self.clock())))

    async def disconnected(self) -> None:
        """The connection ended: free the seat unless a newer connection has it."""
        self.closed = True
        for task in list(self._tasks):
            task.cancel()
        self.service.unwatch_boards(self.outbox)
        await self.stop_watching()
        # on a store outage the ticket is no longer renewed: the pairer drops it within seconds
        with contextlib.suppress(StoreUnavailable):
            await self.stop_waiting()
        code, n = self.code, self.n
        if code is None:
            return
        replaced = self.service.seats.get((code, n)) is not self
        await self.detach()
        if replaced:
            return
        store = self.service.store
        try:
            if not await store.release_conn(code, n, self.id):
                return  # a newer connection holds the seat
            room = await store.room(code)
            if room is not None:
                await store.publish(code, encode(room_message(room, self.clock())))
        except StoreUnavailable:
            pass

    # -- the start of a race ------------------------------------------------------------------
    async def sync_from_room(self, room: RoomRow) -> None:
        """Bring this player up to the stored room: schedule or send the start,
        rebuild the game from the move log, replay the results."""
        self.game.starts_at, self.game.ends_at = room.starts_at, room.ends_at
        if room.phase == "lobby":
            return
        if room.phase == "racing" and self.clock() < room.starts_at:
            self.schedule_start()
            return
        await self.reload()
        if self.game.state is not None:
            self.send_view(None)
        self.service.watch_clock(room)
        if room.phase == "finished" and room.results:
            self.send_bytes(room.results)

    def schedule_start(self) -> None:
        """Send the start when the countdown ends (at once if it already has).
        The task belongs to this room membership: detach() cancels it."""
        if self.code is not None and (self.start_task is None or self.start_task.done()):
            self.start_task = asyncio.create_task(self._start_at(self.code, self.game.starts_at))

    async def _start_at(self, code: str, starts_at: int) -> None:
        await asyncio.sleep(max(0, starts_at - self.clock()) / 1000)
        while True:  # Redis may be away at the start: the view still comes when it is back
            try:
                room = await self.service.store.room(code)
                if room is None or self.code != code:
                    return
                if self.game.state is None:
                    await self.reload()
                break
            except StoreUnavailable:
                pass
            # after the except block, never in it (compiled: docs/design/compiled-code.md)
            await asyncio.sleep(STORE_RETRY_S)
        if self.code != code or self.game.state is None:
            return
        self.send_view(None)
        self.service.watch_clock(room)

    async def reload(self) -> None:
        """Rebuild the state from the deal and the stored move log."""
        code = self.need_room()
        moves = await self.service.store.moves(code, self.n)
        # every stored move was accepted while its game was going on: each is
        # checked again, but no position needs a dead-game search on the way
        # (a solo game's log may hold undos: positions() takes them back)
        state = positions(engine.new_game(self.game.variant, self.game.deal), [t for _, t in moves],
                          engine.IN_PROGRESS)[-1]
        status, _, verdict = await self.service.check(state)
        if self.code != code:
            return  # left the room meanwhile
        game = self.game
        game.drop_pending()  # a rebuilt game is judged afresh
        game.status, game.state, game.v = status, state, len(moves)
        if verdict is not None:
            follow(self, state, game.v, verdict)
        room = await self.service.store.room(code)
        if room is not None and (p := room.player(self.n)) is not None:
            self.game.last_seq = p.seq

    def send_view(self, seq: int | None, status: str | None = None,
                  moves: list[engine.Move] | None = None) -> bytes:
        payload = self.game.view_bytes(seq, status, moves)
        self.send_bytes(payload)
        return payload

    def view_now(self) -> dict[str, Any]:
        """What the player sees of its current position."""
        game = self.game
        assert game.state is not None
        return view(game.state, game.status)

    # -- events from the room channel -----------------------------------------------------------
    def on_room_event(self, message: dict[str, Any]) -> None:
        """A room event from pub/sub (maybe from another process). Never waits:
        what needs the store runs as this player's own task."""
        kind = message.get("t")
        if kind == "_takeover":
            if message.get("player") == self.n and message.get("session") != self.id:
                # The newer connection (maybe on another process) owns the seat now:
                # forget this one so its disconnect does not mark the player gone.
                seat = (self.code or "", self.n)
                if self.code is not None and self.service.seats.get(seat) is self:
                    del self.service.seats[seat]
                self.outbox.close(CLOSE_NORMAL, "this player connected again elsewhere")
        elif kind == "room":
            if message.get("phase") in ("countdown", "racing") and message.get("starts_at") \
                    and self.game.state is None:
                self.game.starts_at = int(message["starts_at"])
                self.game.ends_at = int(message["ends_at"])
                self.schedule_start()
        elif kind == "results":
            # the race is over, maybe finished by another process: its clock here goes
            if self.code is not None:
                self.service.race_ended(self.code)
        elif kind == "rematch":
            self.send(message)
            new_code = str(message["code"])
            order = list(message.get("players") or ())
            if new_code != self.code and self.n in order:
                self.spawn(self._follow_rematch(new_code, order.index(self.n) + 1))

    def spawn(self, work: Coroutine[Any, Any, None]) -> None:
        """Run work of this player's in the background; it ends with the connection."""
        task = asyncio.create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def take_reserved(self, code: str, n: int) -> None:
        """Take seat ``n`` kept for this player in room ``code`` (a rematch, an
        arena's pairing): a new token, then the seat as a resume would."""
        await self.detach()
        secret = secrets.token_urlsafe(18)
        await self.service.store.set_player_fields(code, n, tok=token_hash(secret))
        await self.attach(code, n, f"{code}.{n}.{secret}")

    async def _follow_rematch(self, new_code: str, n: int) -> None:
        """Take the seat kept for this player in the rematch's room."""
        try:
            await self.take_reserved(new_code, n)
        except ProtocolError as exc:
            self.send(error(exc.code, exc.message))
        except StoreUnavailable:
            self.send(error("store_unavailable", "the game store is unreachable: join the rematch "
                            f"with its code {new_code}"))

    async def resync(self) -> None:
        """After pub/sub was lost: re-read the room, bring this player to its
        current phase (a start missed meanwhile is made up) and tell the client."""
        code = self.code
        if code is None:
            return
        room = await self.service.store.room(code)
        if room is None or self.code != code:
            return
        self.send(room_message(room, self.clock()))
        if room.phase == "finished" and room.results:
            self.send_bytes(room.results)
        elif room.phase == "racing" and self.game.state is None:
            self.game.starts_at, self.game.ends_at = room.starts_at, room.ends_at
            self.schedule_start()  # at once when the start passed during the outage
        total = get_rules(room.variant).spec.total_cards
        for p in room.players:
            if p.n != self.n:
                self.send(progress_message(p.n, p.status, p.fc, total, p.v, p.conn))
        await self.service.finish_if_done(code, room)  # a finish missed meanwhile
