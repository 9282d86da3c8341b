"""Watching a room without a seat: what every player sees of the others.

A spectator gets the room's public messages (``room``, ``progress``,
``results``) through the same hub and outbox as a player, and nothing else:
no view, so no card, while the race runs. Once the race has results its
records are public (server/handlers/results.py).
"""

from __future__ import annotations

from typing import Any

from ..game.variants import get_rules
from ..race.rows import RoomRow
from ..race.rules import progress_message, room_message
from ..wire.protocol import encode
from .ports import Outbox
from .service import RoomService

# Spectators of one room on one process: each costs a send per progress message.
MAX_SPECTATORS_PER_ROOM = 64


class Spectator:
    """A hub member without a seat (player number 0: every player's progress is for it)."""

    def __init__(self, service: RoomService, outbox: Outbox, code: str) -> None:
        self.service = service
        self.outbox = outbox
        self.code: str | None = code
        self.n = 0

    def on_room_event(self, message: dict[str, Any]) -> None:
        """Public messages reach the outbox in the hub; the rest is for players."""

    async def start(self, room: RoomRow) -> None:
        assert self.code is not None
        await self.service.hub.add(self.code, self)
        self.show(room)

    def show(self, room: RoomRow) -> None:
        """The room as it is now: its phase, every player's counts, the results."""
        self.outbox.send(encode(room_message(room, self.service.clock())))
        total = get_rules(room.variant).spec.total_cards
        for p in room.players:
            self.outbox.send(encode(progress_message(p.n, p.status, p.fc, total, p.v, p.conn)))
        if room.phase == "finished" and room.results:
            self.outbox.send(room.results)

    async def resync(self) -> None:
        if self.code is None:
            return
        room = await self.service.store.room(self.code)
        if room is not None:
            self.show(room)

    async def stop(self) -> None:
        if self.code is not None:
            await self.service.hub.remove(self.code, self)
            self.code = None
