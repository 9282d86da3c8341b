"""``ghost``: race a recorded run of the same deal (server/rooms/ghost.py)."""

from __future__ import annotations

from typing import Any

from ..rooms import ghost
from ..rooms.player import Player
from .common import asked_code, join_failed, spend_room


async def on_ghost(player: Player, msg: dict[str, Any]) -> None:
    """A room of one on the deal of a finished game, with that game's player as the ghost."""
    service = player.service
    code = asked_code(player, msg["code"])  # a code guessed costs the address a wait
    source = await service.room(code)
    if source is None:
        raise join_failed(player, code)
    n = ghost.pick_player(source, msg.get("player")) if source.phase == "finished" else 1
    run = await ghost.load(player, source, n)  # every refusal before the first write
    await player.can_leave()
    spend_room(player)  # a room like any other: from the address's budget
    await player.leave_current()
    new = await service.open_room(run.variant, run.deal, 1, True, min_players=1,
                                  **{ghost.META_FIELD: f"{run.code}.{run.n}"})
    await player.join(new)
    player.send(run.describe(new))
    # one player, ready by asking (like a solo game): the countdown starts now
    _, starts_at, ends_at = await service.ready(new, player.n)
    await player.publish_room(new)
    ghost.start(player, new, run, starts_at, ends_at)


HANDLERS = {"ghost": on_ghost}
