"""Protocol handlers once a race has results: a player's record and a rematch.

Kept apart from server/session.py (joining and racing) so each stays one
concept; the session dispatches ``record`` and ``rematch`` here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .protocol import ProtocolError, encode

if TYPE_CHECKING:
    from .session import Session


async def on_record(session: Session, msg: dict[str, Any]) -> None:
    code = session.need_room()
    server = session.server
    room = await server.store.room(code)
    if room is None or room.phase != "finished":
        raise ProtocolError("no_results", "records are available once the race has results")
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
    code = session.need_room()
    server = session.server
    room = await server.store.room(code)
    if room is None or room.phase != "finished":
        raise ProtocolError("no_results", "a rematch can be asked for once the race has results")
    if room.daily:
        raise ProtocolError("no_results", "a daily deal has no rematch: it is played once a day")
    new = room.rematch or await server.open_room(
        room.variant, server.new_deal(), room.max, room.private, room.min)
    winner = await server.store.claim_rematch(code, new)
    await server.store.publish(code, encode({"t": "rematch", "code": winner}))


HANDLERS = {"record": on_record, "rematch": on_rematch}
