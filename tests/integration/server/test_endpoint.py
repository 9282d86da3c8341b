"""A connection's endpoint (server/handlers/endpoint.py): a move goes straight to the
move path, every other message to the handlers' dispatch; a store that is away
becomes the protocol's ``store_unavailable``."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from server.app import RaceServer
from server.handlers.endpoint import PlayerEndpoint
from server.net.outbox import Outbox
from server.ops.limits import unlimited
from server.rooms.player import Player
from server.wire.errors import StoreUnavailable
from server.wire.protocol import ProtocolError
from tests.unit.net.test_outbox import FakeSocket

MOVE = {"t": "move", "seq": 1, "move": "t1 f1", "v": 0}


def endpoint(server: RaceServer, dispatched: list[str], fail: BaseException | None = None
             ) -> PlayerEndpoint:
    async def dispatch(player: Player, msg: dict[str, Any]) -> None:
        dispatched.append(msg["t"])
        if fail is not None:
            raise fail

    player = Player(server.service, Outbox(FakeSocket()), unlimited())
    return PlayerEndpoint(player, server.arenas, dispatch)


async def test_a_move_after_hello_skips_the_dispatch_and_the_rest_go_through_it(
        server: RaceServer) -> None:
    dispatched: list[str] = []
    ep = endpoint(server, dispatched)
    await ep.handle(dict(MOVE))  # before hello: the dispatch refuses it (hello_first)
    await ep.handle({"t": "ping"})
    assert dispatched == ["move", "ping"]
    ep.player.hello = True
    with pytest.raises(ProtocolError) as refused:
        await ep.handle(dict(MOVE))  # the move path itself: no room yet
    assert refused.value.code == "not_in_room" and dispatched == ["move", "ping"]


async def test_a_store_away_is_answered_store_unavailable(server: RaceServer) -> None:
    ep = endpoint(server, [], StoreUnavailable("connection refused"))
    with pytest.raises(ProtocolError) as refused:
        await ep.handle({"t": "ping"})
    assert refused.value.code == "store_unavailable"


async def test_an_opponents_progress_waits_for_the_moves_answer(server: RaceServer) -> None:
    """Progress that comes while a move is in hand is not written before the
    move's answer, or before the move's end when it fails (the outbox's tests
    show it leaving with the answer)."""
    async def dispatch(player: Player, msg: dict[str, Any]) -> None:
        raise AssertionError("a move after hello never takes the dispatch")

    sock = FakeSocket()
    player = Player(server.service, Outbox(sock), unlimited())
    player.hello = True
    ep = PlayerEndpoint(player, server.arenas, dispatch)
    assert player.game.write_lock.try_acquire()  # a late verdict has the game's writer: the move waits
    move = asyncio.create_task(ep.handle(dict(MOVE)))
    await asyncio.sleep(0)
    player.outbox.send_progress(2, b"p2")
    assert sock.written == []
    player.game.write_lock.release()
    with pytest.raises(ProtocolError) as refused:
        await move
    assert refused.value.code == "not_in_room"
    assert sock.written == [b"p2"]  # the move failed: what waited went anyway
    player.outbox.send_progress(2, b"p2-next")
    assert sock.written == [b"p2", b"p2-next"]  # no move in hand: at once
