"""What a session does with its room's events from pub/sub, and how it
catches up after pub/sub was lost.

Kept apart from server/session.py (the player's own messages): these come
from the room, possibly from another server process.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from .game.variants import get_rules
from .protocol import ProtocolError, error
from .race import all_done, progress_message, room_message
from .store.rooms import now_ms

if TYPE_CHECKING:
    from .session import Session


async def on_room_event(session: Session, message: dict[str, Any]) -> None:
    kind = message.get("t")
    if kind == "_takeover":
        if message.get("player") == session.n and message.get("session") != session.id:
            # The newer connection (maybe on another process) owns the seat now:
            # forget this one so its disconnect does not mark the player gone.
            seat = (session.code or "", session.n)
            if session.code is not None and session.server.sessions.get(seat) is session:
                del session.server.sessions[seat]
            # Not awaited: the old connection is often a dead one that will never
            # answer, and the closing handshake must not hold up the room's events.
            session.closing = asyncio.create_task(
                session.ws.close(1000, "this player connected again elsewhere"))
    elif kind == "room":
        if message.get("phase") in ("countdown", "racing") and message.get("starts_at") \
                and session.state is None:
            session.starts_at = int(message["starts_at"])
            session.ends_at = int(message["ends_at"])
            session.schedule_start()
    elif kind == "rematch":
        await session.send(message)
        new_code = str(message["code"])
        if new_code != session.code:
            await session.detach()
            try:
                await session.join(new_code)
            except ProtocolError as exc:
                await session.send(error(exc.code, exc.message))


async def resync(session: Session) -> None:
    """After pub/sub was lost: re-read the room and tell the client."""
    if session.code is None:
        return
    room = await session.server.store.room(session.code)
    if room is None:
        return
    await session.send(room_message(room, now_ms()))
    if room.phase == "finished" and room.results:
        await session.send_bytes(room.results)
    elif room.phase == "racing" and now_ms() < room.starts_at:
        session.starts_at, session.ends_at = room.starts_at, room.ends_at
        session.schedule_start()
    total = get_rules(room.variant).spec.total_cards
    for p in room.players:
        if p.n != session.n:
            await session.send(progress_message(p.n, p.status, p.fc, total, p.v, p.conn))
    if all_done(room):
        await session.server.maybe_finish(session.code)
