"""The composition root: the websocket server, its limits, /healthz, shutdown.

Wires the store (Redis), the hub (pub/sub fan-out) and one Session per
connection. Everything a player is told goes through server/protocol.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import http
import logging
import secrets
import signal
import time
from collections.abc import Callable
from typing import Any

from aiolimiter import AsyncLimiter
from redis.asyncio import BlockingConnectionPool, Redis
from websockets.asyncio.server import Server, ServerConnection, broadcast, serve
from websockets.datastructures import Headers
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response
from websockets.protocol import State

from . import metrics
from .competition import Competition
from .config import Settings
from .game import dead, engine
from .hub import BOARDS_CHANNEL, Hub
from .protocol import (
    CLOSE_GOING_AWAY,
    CLOSE_INTERNAL,
    CLOSE_POLICY,
    MAX_FRAME_BYTES,
    ProtocolError,
    decode_client,
    encode,
    error,
)
from .race import all_done, results_message, room_message
from .session import STORE_RETRY_S, Session
from .store.boards import BoardStore
from .store.rooms import RoomRow, RoomStore, StoreUnavailable, now_ms

log = logging.getLogger("patience.server")

MAX_BAD_FRAMES = 20
BOARD_PUSH_S = 2.0
DEAL_LOW, DEAL_HIGH = 10**19, 10**20  # PySolFC's 20-digit range


class RaceServer:
    def __init__(self, settings: Settings, redis_url: str, clock: Callable[[], int] = now_ms) -> None:
        self.settings = settings
        self.clock = clock
        pool = BlockingConnectionPool.from_url(redis_url, max_connections=64, timeout=5,
                                               socket_timeout=5, socket_connect_timeout=2)
        self.redis = Redis(connection_pool=pool)
        self.store = RoomStore(self.redis, race_ms=settings.race_seconds * 1000,
                               countdown_ms=settings.countdown_ms)
        self.boards = BoardStore(self.redis, self.store)
        self.competition = Competition(self.store, self.boards, settings.secret, clock,
                                       settings.daily_budget, settings.daily_tries)
        self.hub = Hub(self.redis, self._resync_room, self._board_changed)
        self._watchers: dict[str, set[Session]] = {}
        self._board_pushed: dict[str, float] = {}
        self.sessions: dict[tuple[str, int], Session] = {}
        self._clocks: dict[str, asyncio.Task[None]] = {}
        self.server: Server | None = None

    async def status_and_moves(self, state: engine.State,
                               slice_s: float = dead.SLICE_S) -> tuple[str, list[engine.Move]]:
        """The engine's answer; a dead-position search runs in slices of
        ``slice_s`` seconds with the other players' work in between, so one
        player's endgame never stalls the rest. (A thread would not do: the
        search holds the GIL, and the event loop then waits for it at every call.)"""
        steps = engine.status_and_moves_steps(state, slice_s)
        while True:
            try:
                next(steps)
            except StopIteration as done:
                return done.value  # type: ignore[no-any-return]
            await asyncio.sleep(0)

    async def open_room(self, variant: str, deal: str, max_players: int, private: bool,
                        min_players: int = 2, **extra: str | int) -> str:
        """A room in its lobby, knowing its deal's starting foundation count."""
        fc0 = engine.foundation_cards(engine.new_game(variant, deal))
        return await self.store.create_room(variant, deal, max_players, private, min_players,
                                            fc0=fc0, **extra)

    @staticmethod
    def new_deal() -> str:
        """A deal number no one can predict: from the OS's CSPRNG."""
        return str(DEAL_LOW + secrets.randbelow(DEAL_HIGH - DEAL_LOW))

    # -- boards ---------------------------------------------------------------------
    def watch_board(self, session: Session, board: str) -> None:
        """Push ``board_changed`` to this session when that board changes."""
        for watchers in self._watchers.values():
            watchers.discard(session)
        self._watchers.setdefault(board, set()).add(session)

    async def _board_changed(self, board: str) -> None:
        # at most one push per board every BOARD_PUSH_S seconds per process
        now = time.monotonic()
        if now - self._board_pushed.get(board, 0.0) < BOARD_PUSH_S:
            return
        self._board_pushed[board] = now
        watchers = [s for s in self._watchers.get(board, ()) if s.ws.state is State.OPEN]
        if watchers:
            broadcast([s.ws for s in watchers], encode({"t": "board_changed", "board": board}))

    # -- sessions and rooms ------------------------------------------------------
    async def attach(self, session: Session) -> None:
        assert session.code is not None
        self.sessions[(session.code, session.n)] = session
        await self.hub.add(session.code, session)

    async def detach(self, session: Session) -> None:
        assert session.code is not None
        key = (session.code, session.n)
        if self.sessions.get(key) is session:
            del self.sessions[key]
        await self.hub.remove(session.code, session)

    async def _resync_room(self, code: str) -> None:
        for member in list(self.hub.members(code)):
            if isinstance(member, Session):
                with contextlib.suppress(Exception):
                    await member.resync()

    def watch_clock(self, room: RoomRow) -> None:
        """End the race when its clock runs out, even if nobody moves."""
        task = self._clocks.get(room.code)
        if room.phase == "finished" or (task is not None and not task.done()):
            return
        self._clocks[room.code] = asyncio.create_task(self._clock(room.code, room.ends_at))

    async def _clock(self, code: str, ends_at: int) -> None:
        await asyncio.sleep(max(0, ends_at - now_ms()) / 1000 + 0.05)
        while True:  # Redis may be away when the clock runs out: the results still come
            try:
                await self.maybe_finish(code)
                break
            except StoreUnavailable:
                await asyncio.sleep(STORE_RETRY_S)
        self._clocks.pop(code, None)

    async def maybe_finish(self, code: str) -> None:
        room = await self.store.room(code)
        if room is None or room.phase != "racing":
            return
        if not all_done(room) and now_ms() < room.ends_at:
            return
        if await self.store.finish(code, len(room.players)):
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

    # -- the websocket side ------------------------------------------------------
    async def health(self, connection: ServerConnection, request: Request) -> Response | None:
        if request.path == "/metrics":
            return Response(200, "OK", Headers([("Content-Type", "text/plain; version=0.0.4")]),
                            metrics.render())
        if request.path != "/healthz":
            return None
        ok = await self.store.ping()
        status = http.HTTPStatus.OK if ok else http.HTTPStatus.SERVICE_UNAVAILABLE
        body = b"ok\n" if ok else b"redis unreachable\n"
        return Response(status.value, status.phrase, Headers([("Content-Type", "text/plain")]), body)

    async def handler(self, ws: ServerConnection) -> None:
        session = Session(self, ws)
        metrics.CONNECTIONS.inc()
        bad = 0
        refused = 0
        last_refused = 0.0
        # a leaky bucket per connection: no threads, no shared state to lock
        limiter = AsyncLimiter(self.settings.rate_per_2s, 2)
        try:
            async for frame in ws:
                if limiter.has_capacity():
                    await limiter.acquire()  # returns at once: there is capacity
                    if refused and time.monotonic() - last_refused > 2.0:
                        refused = 0  # it slowed down: forgive the earlier burst
                else:
                    refused += 1
                    last_refused = time.monotonic()
                    if refused > self.settings.rate_per_2s:
                        await _close_policy(ws, "rate limit exceeded")
                        return
                    await session.send(error("rate_limited", "too many messages: slow down",
                                             _seq_of(frame)))
                    continue
                try:
                    msg = decode_client(frame)
                    await session.handle(msg)
                except ProtocolError as exc:
                    if exc.code in ("bad_frame", "unknown_type", "bad_field"):
                        bad += 1
                        if bad > MAX_BAD_FRAMES:
                            await _close_policy(ws, "too many malformed messages")
                            return
                    await session.send(error(exc.code, exc.message, _seq_of(frame)))
                except StoreUnavailable:
                    log.warning("store unavailable", extra=session.log_extra())
                    await session.send(error("store_unavailable",
                                             "the game store is unreachable: nothing was changed",
                                             _seq_of(frame)))
        except ConnectionClosed:
            pass
        except Exception:
            log.exception("session failed", extra=session.log_extra())
            with contextlib.suppress(Exception):
                await ws.close(CLOSE_INTERNAL, "internal error")
        finally:
            metrics.CONNECTIONS.dec()
            for watchers in self._watchers.values():
                watchers.discard(session)
            await self._disconnected(session)

    async def _disconnected(self, session: Session) -> None:
        code, n = session.code, session.n
        if code is None:
            return
        replaced = self.sessions.get((code, n)) is not session
        await session.detach()
        if replaced:
            return
        with contextlib.suppress(StoreUnavailable):
            if not await self.store.release_conn(code, n, session.id):
                return  # a newer connection holds the seat
            room = await self.store.room(code)
            if room is not None:
                await self.store.publish(code, encode(room_message(room, now_ms())))

    async def start(self) -> Server:
        self.hub.start()
        self.server = await serve(self.handler, self.settings.host, self.settings.port,
                                  process_request=self.health, max_size=MAX_FRAME_BYTES,
                                  max_queue=16, compression=None, ping_interval=20, ping_timeout=20)
        return self.server

    @property
    def port(self) -> int:
        assert self.server is not None
        sock = next(iter(self.server.sockets))
        port: int = sock.getsockname()[1]
        return port

    async def close(self) -> None:
        if self.server is not None:
            # close() tells every client 1001 "going away": they resume elsewhere
            self.server.close()
            await self.server.wait_closed()
        for task in self._clocks.values():
            task.cancel()
        await self.hub.stop()
        self.competition.close()
        self.store.close()
        await self.redis.aclose()


async def _close_policy(ws: ServerConnection, reason: str) -> None:
    """Close with 1008 and read (and drop) what the client still sends meanwhile.

    A flood fills the receive queue, which stops websockets reading the socket;
    without draining it the client's close frame is never read and the
    connection lingers for the whole close timeout (10 s) before it is dropped.
    """
    closing = asyncio.create_task(ws.close(CLOSE_POLICY, reason))
    with contextlib.suppress(ConnectionClosed):
        async for _ in ws:
            pass
    await closing


def _seq_of(frame: Any) -> int | None:
    """The seq of a move that failed, so the client can match the error."""
    try:
        msg = decode_client(frame)
    except ProtocolError:
        return None
    seq = msg.get("seq")
    return seq if isinstance(seq, int) else None


async def run(settings: Settings, redis_url: str) -> None:
    app = RaceServer(settings, redis_url)
    await app.start()
    log.info("serving", extra={"host": settings.host, "port": app.port})
    print(f"patience-server: serving ws://{settings.host}:{app.port}/ (health: /healthz)", flush=True)
    stop = asyncio.get_running_loop().create_future()
    for sig in (signal.SIGTERM, signal.SIGINT):
        asyncio.get_running_loop().add_signal_handler(sig, stop.set_result, None)
    await stop
    log.info("shutting down: clients are told to reconnect")
    await app.close()


__all__ = ["RaceServer", "run", "CLOSE_GOING_AWAY"]
