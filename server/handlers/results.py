"""Handlers once a race has results: a player's record and a rematch."""

from __future__ import annotations

from typing import Any

from ..race.rows import RoomRow
from ..rooms.player import Player
from ..wire.protocol import ProtocolError


async def _finished_room(player: Player, what: str) -> RoomRow:
    """The player's room, once it has results; else ``no_results`` naming ``what``."""
    code = player.code or (player.spectating.code if player.spectating is not None else None)
    if code is None:
        player.need_room()  # refuses: neither seated nor watching
    room = await player.service.room(code or "")
    if room is None or room.phase != "finished":
        raise ProtocolError("no_results", f"{what} once the race has results")
    return room


async def on_record(player: Player, msg: dict[str, Any]) -> None:
    service = player.service
    room = await _finished_room(player, "records are available")
    code = room.code
    if room.daily and service.competition.today() <= room.daily:
        raise ProtocolError("no_results", "a daily game's record is available once the day is over")
    if room.arena and not await service.arena_over(room.arena):
        # its round's other races play the same deal: the record would show it
        raise ProtocolError("no_results", "an arena race's record is available once the arena is over")
    n = msg.get("player", player.n)
    if room.player(n) is None:
        raise ProtocolError("bad_field", f"room {code} has no player {n}")
    moves = await service.moves(code, n)
    record = {"variant": room.variant, "deal": room.deal, "deal_version": "deal_v1",
              "moves": [t for _, t in moves], "ms": [ms for ms, _ in moves]}
    player.send({"t": "record", "player": n, "record": record})


async def on_rematch(player: Player, msg: dict[str, Any]) -> None:
    """Offer or accept a rematch (``accept: false`` declines); it starts once every
    player of the race has accepted, as on lichess."""
    room = await _finished_room(player, "a rematch can be asked for")
    if room.daily:
        raise ProtocolError("no_results", "a daily deal has no rematch: it is played once a day")
    if room.arena:
        raise ProtocolError("no_results", "an arena pairs its races itself: no rematch")
    me = room.player(player.n)
    if me is None or me.left:
        raise ProtocolError("no_results", "only the players of the race can ask for its rematch")
    if room.rematch:
        raise ProtocolError("no_results", f"the rematch was made already: room {room.rematch}")
    await player.service.rematch_vote(room, player.n, msg.get("accept", True))


HANDLERS = {"record": on_record, "rematch": on_rematch}
