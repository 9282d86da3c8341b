"""A bot as a seat: a :class:`~server.rooms.player.Player` whose outbox writes into
the bot instead of a network.

Everything the bot knows arrives the way it arrives for a human: the server
encodes a frame for the seat's outbox, the in-process socket (server/net/loopback.py)
hands it to the bot, and the bot decodes it. Everything the bot does goes
through the protocol's handlers (``hello``, ``join``, ``ready``, ``move``,
``resign``), so its moves get the same validation, log and record as a
human's. The seat keeps the frames it received (the last few thousand), so
tests can hold them against what a human in the same seat got.

The bot thinks in slices (a few milliseconds each, with other players'
work in between); a full solve of a known position runs in a worker
process. It paces itself like a person (server/rooms/bots/pace.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import secrets
import time
from collections import deque
from collections.abc import Awaitable, Callable
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from ...ops.workers import worker_pool
from ...store.botleases import LEASE_MS, BotLeases
from ...wire.errors import StoreUnavailable
from ...wire.protocol import PROTOCOL_VERSION, ProtocolError
from ..player import Player
from ..ports import OutboxFactory
from ..service import RoomService
from .keeper import BotKeeper
from .knowledge import Knowledge
from .pace import think_time
from .policy import LEVEL, Decision, Mind, solve_job

log = logging.getLogger("patience.bots")

Dispatch = Callable[[Player, dict[str, Any]], Awaitable[None]]
FRAMES_KEPT = 4096
GIVE_UP_ERRORS = frozenset({"race_over", "game_over", "not_in_room", "no_room"})
NOT_STARTED_WAIT_S = 0.1  # a move the store refuses as before the start is sent again this much later,
NOT_STARTED_TRIES = 50  # at most this many times (5 s, longer than a countdown), then the bot waits

_pool: ProcessPoolExecutor | None = None


def _solver_pool() -> ProcessPoolExecutor:
    # one worker for every bot of the process: a solve is rare (a known stock)
    global _pool
    if _pool is None:
        _pool = worker_pool()
    return _pool


def bot_name(level: int) -> str:
    return f"{LEVEL[level].name.capitalize()} bot"


class BotSeat:
    def __init__(self, roster: BotRoster, level: int, *, pace: float = 1.0,
                 seed: int | None = None) -> None:
        self.roster = roster
        self.service = roster.service
        self.dispatch = roster.dispatch
        self.level = level
        self.pace = pace
        self.rng = random.Random(seed)
        self.frames: deque[dict[str, Any]] = deque(maxlen=FRAMES_KEPT)
        self._inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.player = Player(self.service, roster.make_outbox(self._receive))
        self.mind: Mind | None = None
        self.seq = 0
        self.v = 0
        self.task: asyncio.Task[None] | None = None
        # the seat's lease (server/store/botleases.py): held while this bot plays
        self.lease = secrets.token_hex(12)
        self.leased: tuple[str, int] | None = None  # the seat the lease is for
        self._renewer: asyncio.Task[None] | None = None

    def _receive(self, message: dict[str, Any]) -> None:
        if message.get("t") != "_closed":
            self.frames.append(message)
        self._inbox.put_nowait(message)

    async def _send(self, message: dict[str, Any]) -> None:
        await self.dispatch(self.player, message)

    # -- joining -----------------------------------------------------------------
    async def enter(self, code: str) -> int:
        """Take a seat in room ``code`` (in its lobby) and say ready; the seat
        number. A refusal (room full, started, gone) is raised to the caller."""
        await self._send({"t": "hello", "proto": PROTOCOL_VERSION})
        # the bot's name is its level's, set after hello: it claims no name
        self.player.name = bot_name(self.level)
        await self._send({"t": "join", "code": code})
        self.leased = (code, self.player.n)
        await self.roster.leases.take(code, self.player.n, self.lease)
        await self.service.store.set_player_fields(code, self.player.n, bot=self.level)
        await self.player.publish_room(code)  # everyone sees the seat is a bot
        await self._send({"t": "ready"})
        return self.player.n

    async def resume(self, code: str, n: int, seq: int) -> None:
        """Take up seat ``n`` of room ``code``, whose bot no process drives any
        more (its lease is this seat's already): as a resume, its moves stand."""
        self.player.hello = True
        self.player.name = bot_name(self.level)
        self.seq = max(seq, 0)  # the next move's sequence number follows the stored one
        self.leased = (code, n)
        await self.player.take_reserved(code, n)

    def start(self) -> None:
        self.task = asyncio.create_task(self._run(), name=f"bot-{self.player.code}")
        self._renewer = asyncio.create_task(self._keep_lease(self.player.code or "", self.player.n))

    async def _keep_lease(self, code: str, n: int) -> None:
        """Renew the seat's lease while the bot plays; a lease taken over ends the bot."""
        while True:
            await asyncio.sleep(LEASE_MS / 3000)
            try:
                leases = self.roster.leases
                # lapsed (a long pause) but taken by nobody: still this bot's to drive
                if await leases.renew(code, n, self.lease) or await leases.take(code, n, self.lease):
                    continue
            except StoreUnavailable:
                continue  # the lease may lapse meanwhile: the renewal after says so
            log.warning("bot's seat taken up elsewhere: this one stops", extra=self.player.log_extra())
            if self.task is not None:
                self.task.cancel()
            return

    async def stop(self) -> None:
        if self.task is not None and not self.task.done():
            self.task.cancel()
            with contextlib.suppress(BaseException):
                await self.task

    # -- playing -----------------------------------------------------------------
    async def _run(self) -> None:
        fresh = False
        try:
            while True:
                msg = await self._inbox.get()
                kind = msg.get("t")
                if kind == "_closed" or kind == "results":
                    return
                if kind == "room" and msg.get("phase") == "lobby" and self._alone(msg):
                    await self._send({"t": "leave"})  # nobody left to race
                    return
                if kind == "view":
                    fresh = self._take_view(msg)
                elif kind == "error" and msg.get("seq") == self.seq:
                    fresh = msg.get("code") != "stale_version"  # a stale one brings a view
                if not fresh or not self._inbox.empty():
                    continue  # read everything that came first
                fresh = False
                await self._move()
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("bot stopped", extra=self.player.log_extra())
        finally:
            if self._renewer is not None:
                self._renewer.cancel()
            with contextlib.suppress(Exception):
                await self.player.disconnected()
            if self.leased is not None:  # a leave may have taken the seat's code already
                with contextlib.suppress(Exception):
                    await self.roster.leases.release(*self.leased, self.lease)
            self.roster.seats.discard(self)

    def _alone(self, room: dict[str, Any]) -> bool:
        return not any(p["connected"] and not p.get("bot") and not p["left"]
                       for p in room.get("players", ()))

    def _take_view(self, msg: dict[str, Any]) -> bool:
        view = msg["view"]
        if self.mind is None:
            self.mind = Mind(LEVEL[self.level], Knowledge(view["variant"]), self.rng)
        self.v = msg["v"]
        self.mind.know.observe(view)
        return bool(view["status"] == "in_progress")

    async def _move(self) -> None:
        started = time.monotonic()
        decision = await self._think()
        wait = think_time(self.level, decision, self.rng) * self.pace - (time.monotonic() - started)
        if wait > 0:
            await asyncio.sleep(wait)
        self.seq += 1
        message: dict[str, Any] = {"t": "move", "seq": self.seq, "move": decision.move, "v": self.v}
        if decision.move == "resign":
            message = {"t": "resign", "seq": self.seq}
        early = 0
        while True:
            try:
                await self._send(message)
                return
            except StoreUnavailable:
                await asyncio.sleep(0.5)  # as a client would: the same seq again
            except ProtocolError as exc:
                if exc.code in GIVE_UP_ERRORS:
                    return  # the results (or the close) end the bot
                if exc.code == "not_started":
                    # the stored room is not racing (its start put back, or the room gone):
                    # the same move a little later, then the next view, never an error
                    early += 1
                    if early > NOT_STARTED_TRIES:
                        return
                    await asyncio.sleep(NOT_STARTED_WAIT_S)
                    continue
                raise

    async def _think(self) -> Decision:
        """Run the decision in slices; a solve goes to the worker process."""
        assert self.mind is not None
        gen = self.mind.think()
        answer: list[str] | None = None
        while True:
            try:
                step = gen.send(answer)
            except StopIteration as done:
                return done.value  # type: ignore[no-any-return]
            if step is None:
                answer = None
                await asyncio.sleep(0)
            else:
                loop = asyncio.get_running_loop()
                answer = await loop.run_in_executor(_solver_pool(), solve_job, step)


class BotRoster:
    """The bots playing for one service: stopped with it, and listed for tests.

    The composition root builds it with the dispatch table every bot's message
    goes through and the outbox a bot's seat is sent its frames by."""

    def __init__(self, service: RoomService, dispatch: Dispatch, make_outbox: OutboxFactory) -> None:
        self.service = service
        self.dispatch = dispatch
        self.make_outbox = make_outbox
        self.seats: set[BotSeat] = set()
        self.leases = BotLeases(service.redis, service.store)
        self.keeper = BotKeeper(service, self.leases, self._resume)

    async def stop_all(self) -> None:
        await self.keeper.stop()
        for seat in list(self.seats):
            await seat.stop()

    def noticed(self, code: str) -> None:
        self.keeper.noticed(code)

    async def _resume(self, code: str, n: int, level: int, seq: int, lease: str) -> bool:
        """Seat ``n``'s bot, played from here on (its lease taken already): resumed or not."""
        seat = BotSeat(self, level, pace=self.service.settings.bot_pace_pct / 100)
        seat.lease = lease
        self.seats.add(seat)
        try:
            await seat.resume(code, n, seq)
        except Exception:
            self.seats.discard(seat)
            with contextlib.suppress(Exception):
                await seat.player.disconnected()
            return False
        seat.start()
        return True

    async def add(self, code: str, level: int) -> BotSeat:
        """A bot of ``level`` in room ``code``'s lobby, playing from now on."""
        service = self.service
        seat = BotSeat(self, level, pace=service.settings.bot_pace_pct / 100)
        self.seats.add(seat)
        try:
            await seat.enter(code)
        except BaseException:
            self.seats.discard(seat)
            with contextlib.suppress(Exception):
                await seat.player.disconnected()
            raise
        seat.start()
        return seat
