"""Bots in rooms: ``add_bot`` by a private room's creator (docs/design/bots.md).
The bot that races a player nobody was paired with is the quick-race pairing's
(server/rooms/matchmaker.py).

A bot is a seat like any other (server/rooms/bots/seat.py): it joins, readies and
moves through this very dispatch table.
"""

from __future__ import annotations

import logging
from typing import Any

from ..rooms.player import Player
from ..wire.protocol import ProtocolError

log = logging.getLogger("patience.bots")


async def on_add_bot(player: Player, msg: dict[str, Any]) -> None:
    code = player.need_room()
    room = await player.service.room(code)
    if room is None:
        raise ProtocolError("no_room", f"room {code} has expired")
    # the creator holds seat 1 (create joins it first); a daily room is never shared
    if not room.private or room.daily or player.n != 1:
        raise ProtocolError("not_host", "only the creator of a private room may add a bot")
    if room.phase != "lobby":
        raise ProtocolError("room_started", f"cannot add a bot to room {code}: room started")
    if len([p for p in room.players if not p.left]) >= room.max:
        raise ProtocolError("room_full", f"cannot add a bot to room {code}: room full")
    await player.service.need_bots().add(code, msg["level"])


HANDLERS = {"add_bot": on_add_bot}
