"""The composition root: builds the store, the application layer, the
handlers and the websocket server, and wires them. Nothing imports it.

One move stops in six server files from the socket to Redis and back (beside
each, in brackets, what it calls on the way):

1. server/net/connection.py reads the frame and decodes it (server/wire/protocol.py);
2. server/handlers/endpoint.py hands a move straight to the move path (the
   dispatch in server/handlers/__init__.py takes every other message);
3. server/rooms/play.py checks it against the seat's game with the rules core
   (server/game/) and the race's rules (server/race/rules.py);
4. server/rooms/session.py holds that game: its state, version, seq and answers;
5. server/store/rooms.py stores it with one script, pipelined with other
   moves (server/store/batch.py), and back in play.py the session's view is
   encoded (server/wire/viewcodec.py) and sent through the player
   (server/rooms/player.py);
6. server/net/outbox.py queues the answer and writes it to the socket.
"""

from __future__ import annotations

import asyncio
import gc
import http
import logging
import os
import signal
import threading
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any, Protocol

from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.datastructures import Headers
from websockets.http11 import Request, Response

from .api.admin import AdminApi, is_admin
from .api.endpoint import ReadApi, is_api
from .game import engine
from .handlers import dispatch
from .handlers.endpoint import PlayerEndpoint
from .net.connection import Endpoint, WebsocketSocket, bound_kernel_buffer, serve_connection
from .net.keepalive import KeepaliveConnection
from .net.loopback import LoopbackSocket
from .net.outbox import WRITE_HIGH_WATER, Outbox
from .net.sansio import SansioConnection
from .net.sansio_server import SansioServer, SansioSocket
from .net.webpage import WebPage, default_root
from .ops import metrics
from .ops.aio import stop_others
from .ops.clock import now_ms
from .ops.config import Settings
from .ops.corebuild import rules_core
from .ops.limits import (
    Address,
    AddressBook,
    ConnectionLimits,
    Limits,
    NameBook,
    client_address,
    parse_networks,
)
from .ops.loopprobe import LoopProbe
from .rooms.arenas import ArenaRunner
from .rooms.bots.par import bot_pars
from .rooms.bots.seat import BotRoster
from .rooms.friends import Friends
from .rooms.matchmaker import Matchmaker
from .rooms.notices import Notices
from .rooms.player import Player
from .rooms.presence import Departures, Presence
from .rooms.service import RoomService
from .store.client import open_client
from .wire.errors import StoreUnavailable
from .wire.protocol import CLOSE_GOING_AWAY, MAX_FRAME_BYTES

log = logging.getLogger("patience.server")

MAX_QUEUE = 16  # incoming messages buffered per connection before its socket is not read
CLOSE_TIMEOUT_S = 5.0  # a closing handshake the client does not finish: the connection is cut
# The collector's thresholds once the server runs (CPython's default: 700, 10, 10).
# A move allocates dozens of short-lived containers, nearly all freed by their
# reference counts; at 700 the young generation was collected every dozen moves
# or so, promoting whatever was in flight, and the full collections that followed
# walked every cache: a measurable share of the server's CPU in the closed loop
# (docs/benchmarks.md). 50,000 net new containers between young collections is a
# few MB at most of cyclic garbage waiting.
GC_THRESHOLD = (50_000, 20, 10)
# after SIGTERM: the tasks still running once the server has closed get this
# long to end (each cancelled again every 50 ms), and the process is gone within
# SHUTDOWN_MAX_S whatever any task does (an operator's stop never hangs)
SHUTDOWN_TASKS_S = 2.0
SHUTDOWN_MAX_S = 20.0


class Handshake(Protocol):
    """What the handshake checks read of a connection, on either transport."""

    @property
    def remote_address(self) -> Any: ...

    def respond(self, status: http.HTTPStatus, text: str) -> Response: ...


class RaceServer:
    def __init__(self, settings: Settings, redis_url: str, clock: Callable[[], int] = now_ms) -> None:
        self.settings = settings
        self.redis = open_client(redis_url, settings.redis_cluster)
        self.service = RoomService(settings, self.redis, clock)
        self.store = self.service.store
        self.competition = self.service.competition
        self.competition.par = bot_pars  # a daily deal's par: its bots' median results
        self.hub = self.service.hub
        self.arenas = ArenaRunner(self.service)  # pairs, scores and pushes arenas' standings
        # the bots' seats: their messages take the handlers' dispatch, their frames
        # come through an outbox like a person's, handed over in process
        self.bots = BotRoster(self.service, dispatch, self._bot_outbox)
        self.service.bots = self.bots
        self.matchmaker = Matchmaker(self.service)  # quick races paired by skill
        self.service.queue = self.matchmaker
        self.service.on_close.append(self.bots.stop_all)
        # who is online, follows and challenges, and the notices of time (docs/design/friends.md)
        self.presence = Presence(self.service)
        self.friends = Friends(self.presence)  # the handlers find it by the service (friends_for)
        self.notices = Notices(self.presence, self.arenas)
        self.departures = Departures(self.arenas, self.presence, self.friends)
        # per-address budgets, in this process's memory (server/ops/limits.py says why)
        self.addresses = AddressBook(Limits(
            connections=settings.connections_per_address,
            messages_per_2s=settings.address_rate_per_2s,
            rooms_per_min=settings.rooms_per_minute, claims_per_hour=settings.claims_per_hour,
            join_penalty_s=settings.join_penalty_ms / 1000, guesses_per_hour=settings.guesses_per_hour))
        self.names = NameBook()  # code guesses per name (docs/design/identity.md)
        self.trusted_proxies = parse_networks(settings.trusted_proxies)
        # the public read API (server/api/): its own per-address budget, the same address keys
        self.api = ReadApi(self.service, self.arenas, AddressBook(Limits(
            messages_per_2s=settings.api_rate_per_2s)), self.addresses)
        # the admin API (server/api/admin.py): its own token, path and per-address budget
        self.admin = AdminApi(self.service.moderation, settings.admin_token, AddressBook(Limits(
            messages_per_2s=settings.admin_rate_per_2s, guesses_per_hour=30)))
        self.server: Server | SansioServer | None = None
        # keepalive: a ping every PING_INTERVAL_S, closed when no pong within PING_TIMEOUT_S
        self.ping_interval_s = 20.0
        self.ping_timeout_s = 20.0
        self.engine = ""  # "valkey 8.1.8", once started
        # the browser client's files, read once (server/net/webpage.py)
        self.page = WebPage.load(Path(settings.web_root) if settings.web_root else default_root())

    # the application layer's operations that tests and tools reach for
    async def status_and_moves(self, state: engine.State,
                               slice_s: float | None = None) -> tuple[str, list[engine.Move]]:
        return await self.service.status_and_moves(state, slice_s)

    def new_deal(self) -> str:
        return self.service.new_deal()

    @staticmethod
    def _bot_outbox(deliver: Callable[[dict[str, Any]], None]) -> Outbox:
        return Outbox(LoopbackSocket(deliver))

    def _endpoint(self, outbox: Outbox, address: Address) -> Endpoint:
        return PlayerEndpoint(Player(self.service, outbox, ConnectionLimits(address, names=self.names)),
                              self.departures,
                              dispatch)

    def address_of(self, connection: Handshake, request: Request) -> str:
        """The client's address key: the peer's, or the one a trusted proxy forwards."""
        remote = connection.remote_address
        peer = str(remote[0]) if isinstance(remote, tuple) and remote else None
        return client_address(peer, request.headers.get_all("X-Forwarded-For"),
                              self.trusted_proxies)

    async def handler(self, ws: ServerConnection) -> None:
        assert ws.request is not None
        address = self.addresses.get(self.address_of(ws, ws.request))
        bound_kernel_buffer(ws.transport)
        await serve_connection(ws, WebsocketSocket(ws), self._endpoint, self.settings.rate_per_2s,
                               self.settings.max_bad_frames, address,
                               self.settings.connections_per_address)

    def sansio_handler(self, conn: SansioConnection) -> Coroutine[Any, Any, None]:
        """The connection's reader, as the compiled coroutine itself: this method
        is not one more (interpreted) frame under every message's resume."""
        assert conn.request is not None
        address = self.addresses.get(self.address_of(conn, conn.request))
        return serve_connection(conn, SansioSocket(conn), self._endpoint, self.settings.rate_per_2s,
                                self.settings.max_bad_frames, address,
                                self.settings.connections_per_address)

    async def health(self, connection: Handshake, request: Request) -> Response | None:
        if request.path == "/metrics":
            return Response(200, "OK", Headers([("Content-Type", "text/plain; version=0.0.4")]),
                            metrics.render())
        if is_api(request.path.split("?", 1)[0]):
            return await self.api.answer(self.address_of(connection, request), request)
        if is_admin(request.path.split("?", 1)[0]):
            return await self.admin.answer(self.address_of(connection, request), request)
        if request.path != "/healthz":
            return (self.page.answer(request) or self.admit(connection, request)
                    or await self.refuse_banned(connection, request))
        ok = await self.store.ping()
        status = http.HTTPStatus.OK if ok else http.HTTPStatus.SERVICE_UNAVAILABLE
        body = b"ok\n" if ok else b"redis unreachable\n"
        return Response(status.value, status.phrase, Headers([("Content-Type", "text/plain")]), body)

    def admit(self, connection: Handshake, request: Request) -> Response | None:
        """Refuse the handshake of an address that holds all the connections it
        may: cheaper than opening a websocket only to close it."""
        entry = self.addresses.peek(self.address_of(connection, request))
        if entry is not None and entry.connections >= self.settings.connections_per_address:
            return connection.respond(http.HTTPStatus.TOO_MANY_REQUESTS,
                                      "too many connections from this address\n")
        return None

    async def refuse_banned(self, connection: Handshake, request: Request) -> Response | None:
        """Refuse the handshake of a banned address (403, saying why and until
        when: docs/operations/moderation.md). Redis away: the address is let in."""
        try:
            ban = await self.service.moderation.address_ban(self.address_of(connection, request))
        except StoreUnavailable:
            return None
        if ban is None:
            return None
        until = ban.get("until")
        when = "for good" if until is None else f"until {until} (ms since 1970, UTC)"
        return connection.respond(http.HTTPStatus.FORBIDDEN,
                                  f"this address is banned {when}: {ban.get('reason', '')}\n")

    async def start(self) -> Server | SansioServer:
        # before anything is written: an old server would fail only at the first move
        self.engine = await self.store.require_version()
        self.service.start()
        self.arenas.start()
        self.matchmaker.start()
        self.presence.start()
        self.notices.start()
        try:
            return await self._listen()
        except BaseException:
            # a port already taken: the loops started above must end with the server,
            # or the process never exits (one of them may have lost its cancel:
            # server/ops/aio.py), so they are closed as a stopping server closes them
            await self.close()
            raise

    async def _listen(self) -> Server | SansioServer:
        if self.settings.transport == "sansio":
            self.server = await SansioServer(
                self.sansio_handler, process_request=self.health, max_size=MAX_FRAME_BYTES,
                max_queue=MAX_QUEUE, write_limit=WRITE_HIGH_WATER,
                ping_interval=self.ping_interval_s, ping_timeout=self.ping_timeout_s,
                close_timeout=CLOSE_TIMEOUT_S).start(self.settings.host, self.settings.port)
        else:
            self.server = await serve(
                self.handler, self.settings.host, self.settings.port,
                process_request=self.health, max_size=MAX_FRAME_BYTES, max_queue=MAX_QUEUE,
                compression=None, ping_interval=self.ping_interval_s,
                ping_timeout=self.ping_timeout_s, write_limit=WRITE_HIGH_WATER,
                close_timeout=CLOSE_TIMEOUT_S, create_connection=KeepaliveConnection)
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
        await self.arenas.close()
        await self.matchmaker.close()
        await self.notices.close()
        await self.presence.close()
        await self.service.close()
        await self.redis.aclose()


def tune_gc() -> int:
    """Freeze what start-up built (modules, rules tables: never garbage, so no
    collection walks them again) and collect less often; returns the number of
    objects frozen."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLD)
    return gc.get_freeze_count()


async def run(settings: Settings, redis_url: str) -> None:
    app = RaceServer(settings, redis_url)
    await app.start()
    core = rules_core()
    log.info(f"rules core: {core}", extra={"rules_core": core})
    frozen = tune_gc()
    log.info(f"garbage collector: {frozen} start-up objects frozen, thresholds {gc.get_threshold()}",
             extra={"gc_frozen": frozen})
    if settings.loop_probe_ms:
        LoopProbe(settings.loop_probe_ms).start()  # a debug switch: logs every 10 s
    log.info("serving", extra={"host": settings.host, "port": app.port, "redis": app.engine})
    print(f"patience-server: serving ws://{settings.host}:{app.port}/ (health: /healthz)", flush=True)
    stop = asyncio.get_running_loop().create_future()
    for sig in (signal.SIGTERM, signal.SIGINT):
        asyncio.get_running_loop().add_signal_handler(sig, stop.set_result, None)
    await stop
    log.info("shutting down: clients are told to reconnect")
    exit_watchdog(SHUTDOWN_MAX_S, _exit_now)
    await app.close()
    left = await stop_others(SHUTDOWN_TASKS_S)
    if left:
        log.error(f"{left} tasks did not end within {SHUTDOWN_TASKS_S:g} s of the close: exiting")
        _exit_now()


def exit_watchdog(seconds: float, exit_now: Callable[[], None]) -> threading.Timer:
    """Call ``exit_now`` from a thread of its own after ``seconds`` unless the
    process has exited first (a daemon thread: it never holds the exit up)."""
    timer = threading.Timer(seconds, exit_now)
    timer.daemon = True
    timer.start()
    return timer


def _exit_now() -> None:
    log.error("the shutdown did not finish in time: exiting now")
    logging.shutdown()  # flush what the handlers hold
    os._exit(1)


__all__ = ["RaceServer", "run", "CLOSE_GOING_AWAY"]
