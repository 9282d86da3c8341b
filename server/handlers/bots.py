"""Bots in rooms: ``add_bot`` by a private room's creator, and the bot that
fills a quick race nobody else joined (docs/design/bots.md).

A bot is a seat like any other (server/rooms/bots/seat.py): it joins, readies and
moves through this very dispatch table.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from ..rooms.player import Player
from ..rooms.service import RoomService
from ..wire.errors import StoreUnavailable
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


async def fill_quick(service: RoomService, code: str) -> None:
    """After the configured wait, a quick race with nobody to race gets a bot."""
    settings = service.settings
    if settings.quick_bot_s <= 0:
        return
    await asyncio.sleep(settings.quick_bot_s)
    try:
        room = await service.room(code)
        if room is None or room.phase != "lobby":
            return
        seated = [p for p in room.players if not p.left]
        people = [p for p in seated if p.conn and not p.bot]
        if not people or len(seated) >= max(room.min, 2):
            return
        await service.need_bots().add(code, settings.quick_bot_level)
        log.info("quick race filled by a bot", extra={"room": code})
    except (ProtocolError, StoreUnavailable):
        pass  # the room filled, started or went away meanwhile: nothing to do


HANDLERS = {"add_bot": on_add_bot}
