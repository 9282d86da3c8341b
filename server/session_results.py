"""Protocol handlers once a race has results: a player's record and a rematch.

Kept apart from server/session.py (joining and racing) so each stays one
concept; the session dispatches ``record`` and ``rematch`` here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .protocol import ProtocolError, encode
from .store.rooms import RoomRow

if TYPE_CHECKING:
    from .session import Session


async def _finished_room(session: Session, what: str) -> RoomRow:
    """The session's room, once it has results; else ``no_results`` naming ``what``."""
    room = await session.server.store.room(session.need_room())
    if room is None or room.phase != "finished":
        raise ProtocolError("no_results", f"{what} once the race has results")
    return room


async def on_record(session: Session, msg: dict[str, Any]) -> None:
    server = session.server
    room = await _finished_room(session, "records are available")
    code = room.code
    if room.daily and server.competition.today() <= room.daily:
        raise ProtocolError("no_results", "a daily game's record is available once the day is over")
    n = msg.get("player", session.n)
    if room.player(n) is None:
        raise ProtocolError("bad_field", f"room {code} has no player {n}")
    moves = await server.store.moves(code, n)
    record = {"variant": room.variant, "deal": room.deal, "deal_version": "deal_v1",
              "moves": [t for _, t in moves], "ms": [ms for ms, _ in moves]}
    await session.send({"t": "record", "player": n, "record": record})


async def on_rematch(session: Session, msg: dict[str, Any]) -> None:
    server = session.server
    room = await _finished_room(session, "a rematch can be asked for")
    code = room.code
    if room.daily:
        raise ProtocolError("no_results", "a daily deal has no rematch: it is played once a day")
    new = room.rematch or await server.open_room(
        room.variant, server.new_deal(), room.max, room.private, room.min)
    winner = await server.store.claim_rematch(code, new)
    await server.store.publish(code, encode({"t": "rematch", "code": winner}))


HANDLERS = {"record": on_record, "rematch": on_rematch}
