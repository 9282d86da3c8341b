"""The read API's door: the per-address budget, the route, and every refusal as HTTP.

A request is counted against its address before anything is looked up (a 404
costs a token too), in an address book of the API's own: reading the boards
never spends the budget a player's moves need, and the other way round. A
refusal (400, 403, 404, 429) has read at most a room's or an arena's row and
has written nothing: no route writes, so no refusal can.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Final

from websockets.http11 import Request, Response

from ..ops import metrics
from ..ops.limits import AddressBook
from ..rooms.arenas import ArenaRunner
from ..rooms.service import RoomService
from ..wire.errors import StoreUnavailable
from ..wire.protocol import ProtocolError
from .http import ApiError, from_protocol, ok, refused
from .routes import PREFIX, Reads, find

log = logging.getLogger("patience.api")

API_PREFIX: Final = PREFIX + "/"
ROOMS: Final = PREFIX + "/rooms/"


def is_api(path: str) -> bool:
    return path == PREFIX or path.startswith(API_PREFIX)


class ReadApi:
    def __init__(self, service: RoomService, arenas: ArenaRunner, budget: AddressBook,
                 players: AddressBook) -> None:
        """``budget``: the API's own per-address buckets; ``players``: the
        websocket's address book, whose join penalty a wrong room code earns."""
        self.service = service
        self.arenas = arenas
        self.budget = budget
        self.players = players

    async def answer(self, address: str, request: Request) -> Response:
        response = await self._answer(address, request)
        metrics.API_ANSWERS.labels(str(response.status_code)).inc()
        return response

    async def _answer(self, address: str, request: Request) -> Response:
        now = self.budget.clock()
        bucket = self.budget.get(address).messages
        if not bucket.take(now):
            return refused(ApiError(429, "rate_limited", "too many requests from this address",
                                    bucket.wait(now)))
        try:
            route, params, query = find(request.path)
            reads = Reads(self.service, self.arenas, lambda: None)
            if route.template.startswith(ROOMS):
                reads.room_miss = self._join_penalty(address)
            return ok(request, await route.handler(reads, params, query))
        except ApiError as exc:
            return refused(exc)
        except ProtocolError as exc:
            return refused(from_protocol(exc.code, exc.message))
        except StoreUnavailable:
            return refused(ApiError(503, "store_unavailable", "the store is unreachable: try again soon",
                                    1.0))

    def _join_penalty(self, address: str) -> Callable[[], object]:
        """Refuses (429) while the address waits out room codes it guessed wrong,
        on either door; else how a wrong code adds to that wait."""
        entry = self.players.get(address)
        wait = entry.join_wait(self.players.clock())
        if wait > 0:
            raise ApiError(429, "join_wait", "wait after asking for room codes that do not exist", wait)
        return lambda: entry.join_failed(self.players.clock())
