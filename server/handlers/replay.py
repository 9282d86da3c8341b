"""``replay``: a finished game's position at any move, as its player saw it.

The client steps through a record by asking for the view at each index; the
server replays the record with its engine (server/rooms/replays.py). Allowed only
once the race has results (a daily's, once the day is over): before that a
record would show how an opponent plays the deal still being raced.
"""

from __future__ import annotations

from typing import Any

from ..rooms.player import Player
from ..rooms.replays import public_room, replay_message, replayed
from .common import asked_code, join_failed


async def on_replay(player: Player, msg: dict[str, Any]) -> None:
    service = player.service
    if msg.get("code") is not None:
        # a code typed by the client: the same wait after unknown codes as join and watch
        code = asked_code(player, msg["code"])
        room = await service.room(code)
        if room is None:
            raise join_failed(player, code)
    else:
        current = player.code or (player.spectating.code if player.spectating is not None else None)
        if current is None:
            player.need_room()  # refuses: neither seated nor watching, and no code given
        room = await service.room(current or "")
    room = await public_room(service, room, "a replay is available")
    n = msg.get("player", player.n or 1)
    game = await replayed(service, room, n)
    player.send(replay_message(room, n, game, msg.get("index", 0)))


HANDLERS = {"replay": on_replay}
