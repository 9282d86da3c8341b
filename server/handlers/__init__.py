"""The protocol's handlers: one function per client message type.

Each takes the connection's :class:`~server.rooms.player.Player` and the decoded,
validated message (server/wire/protocol.py checked its fields). The dispatch
table below sits next to the protocol's message list: a test holds the two
together. Handlers import the application layer below them; nothing imports
them but the composition root, which hands :func:`dispatch` to the transport.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from ..rooms import ghost as ghost_race
from ..rooms import kept
from ..rooms.play import play
from ..rooms.player import Player
from ..wire.protocol import ProtocolError
from . import (
    analysis,
    arena,
    botaccount,
    bots,
    competition,
    friends,
    ghost,
    history,
    identity,
    lobby,
    race,
    replay,
    report,
    results,
    solo,
    watch,
)

Handler = Callable[[Player, dict[str, Any]], Awaitable[None]]

HANDLERS: dict[str, Handler] = {
    **lobby.HANDLERS, **race.HANDLERS, **results.HANDLERS, **competition.HANDLERS,
    **solo.HANDLERS, **watch.HANDLERS, **replay.HANDLERS, **ghost.HANDLERS, **bots.HANDLERS,
    **arena.HANDLERS, **identity.HANDLERS, **report.HANDLERS, **botaccount.HANDLERS,
    **friends.HANDLERS, **history.HANDLERS, **analysis.HANDLERS,
}


async def dispatch(player: Player, msg: dict[str, Any]) -> None:
    kind = msg["t"]
    if kind == "move" and player.hello:  # the hot path: straight to the move path
        await play(player, msg["seq"], msg["move"], msg["v"])
        return
    if kind == "ping":
        await lobby.on_ping(player, msg)
        return
    if kind == "hello":
        if player.hello:
            raise ProtocolError("hello_first", "hello was already received")
    elif not player.hello:
        raise ProtocolError("hello_first", "the first message must be hello")
    await HANDLERS[kind](player, msg)
    await friends.arrived(player, kind)  # signed in by this message: online, and its notices
    if kind == "hello" and player.code is not None:
        await ghost_race.resume(player)  # a ghost race resumed: its ghost again
        await kept.resume(player)  # ... or of a kept game whose room has expired

