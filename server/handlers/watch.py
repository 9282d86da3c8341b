"""Watching a race: anyone with the room code, without a seat."""

from __future__ import annotations

from typing import Any

from ..rooms.player import Player
from ..rooms.spectator import MAX_SPECTATORS_PER_ROOM, Spectator
from ..wire.protocol import ProtocolError
from .common import asked_code, join_failed


async def on_watch(player: Player, msg: dict[str, Any]) -> None:
    code = asked_code(player, msg["code"])  # a code guessed costs the address a wait
    await player.can_leave()
    service = player.service
    room = await service.room(code)
    if room is None:
        raise join_failed(player, code)
    watching = sum(1 for m in service.hub.members(code) if isinstance(m, Spectator))
    if watching >= MAX_SPECTATORS_PER_ROOM:
        raise ProtocolError("room_full", f"room {code} has as many spectators as it allows")
    await player.leave_current()
    player.send({"t": "watching", "code": code})
    player.spectating = Spectator(service, player.outbox, code)
    await player.spectating.start(room)


HANDLERS = {"watch": on_watch}
