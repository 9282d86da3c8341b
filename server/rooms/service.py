"""The application layer: room and race operations shared by every player.

Opening rooms, the race clock, finishing a race (results, boards, ratings),
the dead-position search run in slices, and which local players sit in which
room. Written against the store, the hub and the game core; it knows no
socket, so it is tested without one. Players (server/rooms/player.py) call down
into it; nothing here calls up, except through the small :class:`Seat`
interface the hub also uses.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from typing import Protocol

from redis.asyncio import Redis

from ..game import engine
from ..ops.config import Settings
from ..race.rows import RoomRow
from ..race.rules import cards_conserved, race_over, results_message
from ..store.arenas import arena_over
from ..store.boards import BoardStore
from ..store.rooms import RoomStore
from ..wire.errors import StoreUnavailable
from ..wire.protocol import encode
from .analysisworker import AnalysisWorker
from .competition import Competition
from .deadwork import DeadSearchWorker, WorkerUnavailable
from .grading import DealGrader
from .hub import BOARDS_CHANNEL, Hub
from .moderation import Moderation
from .ports import Bots, Outbox, Queue

log = logging.getLogger("patience.service")

# A dead-position search on the event loop yields after this much time: about the
# most another player's move waits behind one of its slices (the engine's own
# default, dead.SLICE_S, is 4 ms, as long as the whole answer of a loaded
# server's 99th percentile).
LOOP_SLICE_S = 0.001

STORE_RETRY_S = 0.25  # how often background work retries while Redis is unreachable
BOARD_PUSH_S = 2.0
DEAL_LOW, DEAL_HIGH = 10**19, 10**20  # PySolFC's 20-digit range


class Seat(Protocol):
    """A local player in a room, as the service and the hub see it."""

    outbox: Outbox
    n: int
    code: str | None

    def on_room_event(self, message: dict[str, object]) -> None: ...

    async def resync(self) -> None: ...


class RoomService:
    def __init__(self, settings: Settings, redis: Redis, clock: Callable[[], int]) -> None:
        self.settings = settings
        # the one clock of this layer (server ms): handed in by the composition root, so
        # a test's clock decides a race's end, a start and a seat's absence here
        self.clock = clock
        self.redis = redis
        self.store = RoomStore(redis, race_ms=settings.race_seconds * 1000,
                               countdown_ms=settings.countdown_ms,
                               replicas=1 if settings.durability == "replica" else 0,
                               lobby_grace_ms=settings.lobby_grace_ms, clock=clock)
        self.boards = BoardStore(redis, self.store)
        self.competition = Competition(self.store, self.boards, settings.secret, clock,
                                       settings.daily_budget, settings.daily_tries,
                                       season_days=settings.season_days,
                                       par_games=settings.daily_par_games)
        # reports, bans, voids and renames (server/rooms/moderation.py)
        self.moderation = Moderation(redis, self.store._guard, self.competition, self.room, clock)
        self.hub = Hub(redis, self._resync_room, self._board_changed,
                       heartbeat_s=settings.hub_heartbeat_ms / 1000)
        # board -> the outboxes watching it; an entry goes with its last watcher
        self._watchers: dict[str, set[Outbox]] = {}
        self._watching: dict[Outbox, str] = {}
        # connection id -> room -> the end of its wait for that race's results
        # (server/rooms/awaited.py: at most MAX_AWAITED each, gone with the wait)
        self.awaiting: dict[str, dict[str, Callable[[], None]]] = {}
        self._board_pushed: dict[str, float] = {}
        self.seats: dict[tuple[str, int], Seat] = {}
        self._clocks: dict[str, asyncio.Task[None]] = {}
        # how long a dead-position search runs before it yields to the event loop
        self.search_slice_s: float = LOOP_SLICE_S
        # in-loop search time before a search goes to the worker process (None: never)
        self.search_offload_s: float | None = (settings.dead_offload_ms / 1000
                                               if settings.dead_offload_ms else None)
        self.dead_worker = DeadSearchWorker(settings.dead_worker_mb)
        self.analysis = AnalysisWorker(settings.dead_worker_mb)  # post-game analyses, off the loop
        # each race's deal graded by difficulty in a worker process of its own
        self.grader = DealGrader(self.store, settings.grade_budget)
        # the longest a move's answer waits for a search's verdict (then it is pushed)
        self.answer_wait_s: float = settings.dead_answer_ms / 1000
        # the move path's card conservation check (server/rooms/play.py), an attribute so
        # that a test can make it fail: the compiled move path binds module names
        self.conserved: Callable[[engine.State, engine.State], bool] = cards_conserved
        # work of upper layers that ends with the service (the bots' seats)
        self.on_close: list[Callable[[], Awaitable[None]]] = []
        # the bots' roster, handed in by the composition root (it owns the dispatch
        # table every bot's message goes through)
        self.bots: Bots | None = None
        self.queue: Queue | None = None  # the quick-race queue (server/rooms/matchmaker.py)

    def start(self) -> None:
        self.hub.start()
        self.competition.ladder.start()  # closes each season at its turn

    def need_bots(self) -> Bots:
        if self.bots is None:
            raise RuntimeError("this service was built without a bots' roster")
        return self.bots

    async def close(self) -> None:
        for hook in self.on_close:
            with contextlib.suppress(Exception):
                await hook()
        for task in self._clocks.values():
            task.cancel()
        await self.hub.stop()
        await self.competition.ladder.close()
        await self.competition.history.close()
        self.competition.close()
        await self.grader.close()
        self.dead_worker.close()
        self.analysis.close()
        self.store.close()

    # -- the rules, without stalling others ------------------------------------------
    async def status_and_moves(self, state: engine.State,
                               slice_s: float | None = None) -> tuple[str, list[engine.Move]]:
        """The engine's answer, however long its search takes (:meth:`check`,
        then the verdict awaited)."""
        status, moves, verdict = await self.check(state, slice_s)
        if verdict is None:
            return status, moves
        return (engine.DEAD, []) if await verdict else (status, moves)

    async def check(self, state: engine.State, slice_s: float | None = None
                    ) -> tuple[str, list[engine.Move], asyncio.Future[bool | None] | None]:
        """(status, legal moves, verdict still to come) of ``state``.

        A dead-position search runs in slices with the other players' work in
        between, so one player's endgame never stalls the rest. (A thread would
        not do: the search holds the GIL, and the event loop then waits for it
        at every call.) A search still running after ``search_offload_s`` of
        slices moves to a worker process (server/rooms/deadwork.py), so a large region
        does not share the loop's core, and the caller waits for its verdict
        until ``answer_wait_s`` has passed since the start. Past that the answer
        is ``in_progress`` with the verdict as a future (True: dead): the move is
        answered now and the verdict applied when it lands (server/rooms/verdicts.py)."""
        status, moves, search = engine.status_before_search(state)
        if not search:
            return status, moves, None
        return await self.search(state, moves, slice_s)

    async def search(self, state: engine.State, moves: list[engine.Move],
                     slice_s: float | None = None
                     ) -> tuple[str, list[engine.Move], asyncio.Future[bool | None] | None]:
        """:meth:`check` for a position ``engine.status_before_search`` left to
        the dead-position search (``moves``: its legal moves, from that call)."""
        status = engine.IN_PROGRESS
        steps = engine.dead_search_steps(state, moves,
                                         self.search_slice_s if slice_s is None else slice_s)
        started = time.perf_counter()
        while True:
            try:
                next(steps)
            except StopIteration as done:
                return (engine.DEAD, [], None) if done.value else (status, moves, None)
            if self.search_offload_s is not None \
                    and time.perf_counter() - started >= self.search_offload_s:
                steps.close()
                verdict = asyncio.ensure_future(self._worker_verdict(state, moves))
                left = self.answer_wait_s - (time.perf_counter() - started)
                await asyncio.wait({verdict}, timeout=max(0.0, left))
                if not verdict.done():
                    return status, moves, verdict
                return (engine.DEAD, [], None) if verdict.result() else (status, moves, None)
            await asyncio.sleep(0)

    async def _worker_verdict(self, state: engine.State, moves: list[engine.Move]) -> bool | None:
        """The worker's verdict on ``state``, remembered here; None when the
        search outgrew the worker (the position stays in progress: such a search
        never runs in this process). Should no worker start at all, the search
        finishes on the loop in slices."""
        try:
            is_dead = await self.dead_worker.decide(state)
        except WorkerUnavailable:
            log.exception("no dead-search worker: searching on the loop")
            steps = engine.dead_search_steps(state, moves, self.search_slice_s)
            while True:
                try:
                    next(steps)
                except StopIteration as done:
                    return bool(done.value)
                await asyncio.sleep(0)
        if is_dead is not None:
            engine.record_verdict(state, is_dead)
        return is_dead

    # -- rooms -----------------------------------------------------------------------
    async def open_room(self, variant: str, deal: str, max_players: int, private: bool,
                        min_players: int = 2, **extra: str | int) -> str:
        """A room in its lobby, knowing its deal's starting foundation count."""
        fc0 = engine.foundation_cards(engine.new_game(variant, deal))
        code = await self.store.create_room(variant, deal, max_players, private, min_players,
                                            fc0=fc0, **extra)
        if "grade" not in extra:  # (a daily room comes with its deal's grade)
            self.grader.grade_room(code, variant, deal)
        return code

    @staticmethod
    def new_deal() -> str:
        """A deal number no one can predict: from the OS's CSPRNG."""
        return str(DEAL_LOW + secrets.randbelow(DEAL_HIGH - DEAL_LOW))

    async def attach(self, seat: Seat) -> None:
        assert seat.code is not None
        self.seats[(seat.code, seat.n)] = seat
        await self.hub.add(seat.code, seat)
        if self.bots is not None:  # after a restart, the room's bots may have no process left
            self.bots.noticed(seat.code)

    async def detach(self, seat: Seat) -> None:
        assert seat.code is not None
        key = (seat.code, seat.n)
        if self.seats.get(key) is seat:
            del self.seats[key]
        await self.hub.remove(seat.code, seat)

    async def _resync_room(self, code: str) -> None:
        for member in list(self.hub.members(code)):
            with contextlib.suppress(Exception):
                await member.resync()

    # -- what the handlers read and write: they never reach the store themselves ---------
    async def room(self, code: str) -> RoomRow | None:
        return await self.store.room(code)

    async def moves(self, code: str, n: int) -> list[tuple[int, str]]:
        """Player ``n``'s move log: (ms into the race, move text) each."""
        return await self.store.moves(code, n)

    async def seat_token_hash(self, code: str, n: int) -> str | None:
        return await self.store.token_hash(code, n)

    async def ready(self, code: str, n: int) -> tuple[bool, int, int]:
        """Player ``n`` is ready: (whether the race is now scheduled, its start, its end)."""
        return await self.store.set_ready(code, n, True)

    @property
    def lobby_grace_ms(self) -> int:
        return self.store.lobby_grace_ms

    async def quick_candidates(self, variant: str) -> list[str]:
        return await self.store.quick_candidates(variant)

    async def list_quick(self, variant: str, code: str) -> None:
        await self.store.add_quick(variant, code)

    async def unlist_quick(self, variant: str, code: str) -> None:
        await self.store.remove_quick(variant, code)

    async def arena_over(self, arena: str) -> bool:
        """The arena is finished (or gone): its races' deals may be shown."""
        over: bool = await self.store._guard(arena_over(self.redis, arena))
        return over

    # -- the race clock and the results ---------------------------------------------------
    def watch_clock(self, room: RoomRow) -> None:
        """End the race when its clock runs out, even if nobody moves. The
        clock ends with the race (:meth:`race_ended`), not with its time."""
        task = self._clocks.get(room.code)
        if room.phase == "finished" or (task is not None and not task.done()):
            return
        self._clocks[room.code] = asyncio.create_task(self._clock(room.code, room.ends_at),
                                                      name=f"race-clock:{room.code}")

    async def _clock(self, code: str, ends_at: int) -> None:
        try:
            await asyncio.sleep(max(0, ends_at - self.clock()) / 1000 + 0.05)
            while True:  # Redis may be away when the clock runs out: the results still come
                try:
                    await self.finish_if_done(code)
                    break
                except StoreUnavailable:
                    await asyncio.sleep(STORE_RETRY_S)
        finally:
            if self._clocks.get(code) is asyncio.current_task():
                del self._clocks[code]

    def race_ended(self, code: str) -> None:
        """The race of room ``code`` is over (finished here, seen finished in the
        store, or its results heard from another process): its clock has nothing
        left to do, so it goes now rather than sleeping out the race's time, and
        what the store keeps per racing room goes with it."""
        task = self._clocks.pop(code, None)
        if task is not None and task is not asyncio.current_task():
            task.cancel()
        self.store.forget(code)

    @property
    def running_clocks(self) -> int:
        """How many race clocks this process keeps (one per unfinished race it serves)."""
        return len(self._clocks)

    async def finish_if_done(self, code: str, room: RoomRow | None = None) -> bool:
        """End the race of room ``code`` if it is over on this service's clock:
        the one place that decides it (:func:`~server.race.rules.race_over`).
        Whatever may have ended a race comes here: a game's end (a move or a
        verdict), a move after the clock, the race clock, a resync, the arena's
        pairer. ``room``: the room as the caller just read it, if it did. The
        store's FINISH script checks the same again, atomically, so of two
        processes deciding at once one finishes. True if this call finished it."""
        now = self.clock()
        if room is None:
            room = await self.store.room(code)
        if room is not None and room.phase == "finished":
            self.race_ended(code)  # finished by another process (or earlier)
        if room is None or not race_over(room, now):
            return False
        if not await self.store.finish(code, len(room.players), now):
            return False
        self.race_ended(code)
        room = await self.store.room(code)
        assert room is not None
        results = results_message(room)
        identified = {p.n: p.ident for p in room.players if p.ident}
        try:
            results.update(await self.competition.after_race(room, results["ranking"], identified))
        except StoreUnavailable:
            raise
        except Exception:  # boards and ratings must never hold back the results
            log.exception("after-race bookkeeping failed", extra={"room": code})
        changed = results.pop("board_changed", None)
        payload = encode(results)
        await self.store.set_meta_fields(code, results=payload)
        await self.store.publish(code, payload)
        log.info("race finished", extra={"room": code})
        if changed:
            await self.redis.publish(BOARDS_CHANNEL, str(changed))
        try:  # the results are out: the room shrinks to what is read after a race
            await self.store.compact(code)
        except StoreUnavailable:
            # the room stays whole (larger, as correct) until it expires
            log.warning("a finished room could not be compacted", extra={"room": code})
        self.competition.history.record_soon(room, results)  # in the background, from the stored logs
        return True

    # -- rematch ---------------------------------------------------------------------
    async def rematch_vote(self, room: RoomRow, n: int, accept: bool) -> None:
        """Player ``n`` of a finished race accepts (or declines) a rematch; everyone
        is told who accepts. Once every player of the race accepts, the new room is
        made with their seats reserved in the race's order, and they are moved there."""
        code = room.code
        racers = [p for p in room.players if not p.left]
        accepted = await self.store.rematch_vote(code, n, accept)
        await self.store.publish(code, encode({
            "t": "rematch_offer", "code": code, "player": n, "accept": accept,
            "accepted": sorted(accepted), "players": [p.n for p in racers]}))
        if not accept or not {p.n for p in racers} <= accepted:
            return
        new = await self.open_room(room.variant, self.new_deal(), room.max, room.private, room.min)
        if await self.store.claim_rematch(code, new) != new:
            return  # another player's last acceptance made it first
        await self.store.reserve_seats(new, [(p.name, p.ident) for p in racers])
        await self.store.publish(code, encode({"t": "rematch", "code": new,
                                               "players": [p.n for p in racers]}))

    # -- boards ---------------------------------------------------------------------
    def watch_board(self, outbox: Outbox, board: str) -> None:
        """Push ``board_changed`` to this connection when that board changes
        (one board per connection: the newest it asked for)."""
        self.unwatch_boards(outbox)
        self._watchers.setdefault(board, set()).add(outbox)
        self._watching[outbox] = board

    def unwatch_boards(self, outbox: Outbox) -> None:
        board = self._watching.pop(outbox, None)
        if board is None:
            return
        watchers = self._watchers.get(board)
        if watchers is not None:
            watchers.discard(outbox)
            if not watchers:
                del self._watchers[board]
                self._board_pushed.pop(board, None)

    @property
    def watched_boards(self) -> int:
        return len(self._watchers)

    async def _board_changed(self, board: str) -> None:
        # at most one push per board every BOARD_PUSH_S seconds per process
        watchers = self._watchers.get(board)
        if not watchers:
            return
        now = time.monotonic()
        if now - self._board_pushed.get(board, 0.0) < BOARD_PUSH_S:
            return
        self._board_pushed[board] = now
        payload = encode({"t": "board_changed", "board": board})
        for outbox in watchers:
            outbox.send(payload)
