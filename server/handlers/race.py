"""Handlers of the race itself: moves and resigning."""

from __future__ import annotations

from typing import Any

from ..rooms.play import play
from ..rooms.player import Player


async def on_move(player: Player, msg: dict[str, Any]) -> None:
    await play(player, msg["seq"], msg["move"], msg["v"])


async def on_resign(player: Player, msg: dict[str, Any]) -> None:
    await play(player, msg["seq"], "resign", player.game.v)


HANDLERS = {"move": on_move, "resign": on_resign}
