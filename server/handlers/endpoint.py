"""A connection's endpoint: its messages go to the handlers as its player.

Compiled with the move path (server/ops/corebuild.py, ``SERVER_COMPILED``): a move
goes from here straight to :func:`~server.rooms.play.play` without an interpreted
frame between the connection's reader and the move path (the handlers'
``dispatch`` takes every other message; it is left interpreted, its table being
built from the handler modules' own). The composition root hands the dispatch
function in, so this module does not import the handlers.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from ..rooms.play import play
from ..rooms.player import Player
from ..wire.errors import StoreUnavailable
from ..wire.protocol import ProtocolError

log = logging.getLogger("patience.server")

Dispatch = Callable[[Player, dict[str, Any]], Awaitable[None]]


class Arenas(Protocol):
    """What an endpoint needs of the arenas (server/rooms/arenas.py)."""

    async def forget(self, player: Player) -> None: ...


class PlayerEndpoint:
    """One connection's player, its messages and its end."""

    def __init__(self, player: Player, arenas: Arenas, dispatch: Dispatch) -> None:
        self.player = player
        self.arenas = arenas
        self.dispatch = dispatch

    async def handle(self, msg: dict[str, Any]) -> None:
        player = self.player
        try:
            if msg["t"] == "move" and player.hello:  # the hot path: straight to the move path
                # opponents' progress coming meanwhile leaves in the answer's write
                outbox = player.outbox
                outbox.hold_progress()
                try:
                    await play(player, msg["seq"], msg["move"], msg["v"])
                finally:
                    outbox.release_progress()
            else:
                await self.dispatch(player, msg)
        except StoreUnavailable as exc:
            # what the store said (a timeout, a failover, a slot moving) tells an
            # operator which of them refused the message
            log.warning("store unavailable: %s", exc, extra=player.log_extra())
            raise ProtocolError("store_unavailable",
                                "the game store is unreachable: nothing was changed") from None

    async def closed(self) -> None:
        with contextlib.suppress(StoreUnavailable):
            await self.player.disconnected()
        with contextlib.suppress(StoreUnavailable):
            await self.arenas.forget(self.player)  # an arena's member is its connection

    def log_extra(self) -> dict[str, Any]:
        return self.player.log_extra()
