"""``replay``: a finished game's position at any move, as its player saw it.

The client steps through a record by asking for the view at each index; the
server replays the record with its engine (server/rooms/replays.py). Allowed only
once the race has results (a daily's, once the day is over): before that a
record would show how an opponent plays the deal still being raced.
"""

from __future__ import annotations

from typing import Any

from ..rooms.player import Player
from ..rooms.replays import replay_message, replayed
from .common import finished_room


async def on_replay(player: Player, msg: dict[str, Any]) -> None:
    service = player.service
    room = await finished_room(player, msg, "a replay is available")
    n = msg.get("player", player.n or 1)
    game = await replayed(service, room, n)
    player.send(replay_message(room, n, game, msg.get("index", 0)))


HANDLERS = {"replay": on_replay}
