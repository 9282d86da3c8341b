"""Handlers of solo play: start a solo game, undo, hint.

Undo and hints are refused (``solo_only``) anywhere but a solo room, before
anything is read or written but the room itself: a race or the daily is
played without them. A refused message changes nothing stored.
"""

from __future__ import annotations

import logging
from typing import Any

from ..game import engine
from ..game.moves import GameOver, IllegalMove
from ..game.records import UNDO, positions
from ..game.state import State
from ..race.rows import RoomRow
from ..rooms.play import play
from ..rooms.player import Player
from ..rooms.solo import hint, known_line, solo_deal
from ..rooms.teach import why
from ..wire.protocol import ProtocolError, error
from .common import spend_room, variant_id

log = logging.getLogger("patience.solo")

_thinking: set[str] = set()  # players (connection ids) with a hint in the works


async def _solo_room(player: Player, what: str) -> RoomRow:
    room = await player.service.room(player.need_room())
    if room is None or not room.solo:
        raise ProtocolError("solo_only", f"{what} only in solo play (8 in the lobby), never in a race "
                            "or the daily")
    return room


async def on_solo(player: Player, msg: dict[str, Any]) -> None:
    """A solo game of a variant on a chosen (or random) deal; it starts at once."""
    service = player.service
    variant = variant_id(msg["variant"])
    await player.can_leave()  # every refusal before the first write
    deal = await solo_deal(service, msg.get("deal"))
    spend_room(player)  # a room like any other: from the address's budget
    await player.leave_current()
    code = await service.open_room(variant, deal, 1, True, min_players=1, solo=1)
    await player.join(code)
    # one player, ready by asking: the countdown starts now (the ready script
    # schedules the start once every seated player is ready)
    await service.ready(code, player.n)
    await player.publish_room(code)


async def on_undo(player: Player, msg: dict[str, Any]) -> None:
    """Take back the last move still standing: an ``undo`` entry in the log,
    stored by the move path like any move (seq, v, checks, one script)."""
    room = await _solo_room(player, "undo is")
    seq = msg["seq"]
    history: list[State] = []
    if seq != player.game.last_seq and player.game.state is not None:
        # the positions still standing, from the stored log: the one before the
        # current one is what the undo goes back to
        moves = await player.service.moves(room.code, player.n)
        history = positions(engine.new_game(room.variant, room.deal), [t for _, t in moves],
                            engine.IN_PROGRESS)

    def step(state: State, text: str, status: str) -> State:
        if status != engine.IN_PROGRESS:
            raise GameOver(f"the game is {status}: nothing can be undone")
        if len(history) < 2:
            raise IllegalMove("there is no move to undo")
        if history[-1] != state:  # another connection of this player moved meanwhile
            raise IllegalMove("the position changed meanwhile: try again")
        return history[-2]

    await play(player, seq, UNDO, msg["v"], step)


async def on_hint(player: Player, msg: dict[str, Any]) -> None:
    """Ask the solver for a move that keeps the game winnable; the answer
    (a ``hint`` message) comes when it is found, other messages meanwhile."""
    await _solo_room(player, "hints are")
    state, v = player.game.state, player.game.v
    if state is None:
        raise ProtocolError("not_started", "the game has not started yet")
    if player.game.status != engine.IN_PROGRESS:
        raise ProtocolError("game_over", "your game has ended")
    if player.id in _thinking:
        raise ProtocolError("hint_busy", "a hint is already being worked out")
    _thinking.add(player.id)
    player.spawn(_answer_hint(player, state, v))


async def _answer_hint(player: Player, state: State, v: int) -> None:
    try:
        result, move = await hint(state)
        line = known_line(state) if move is not None else None
        player.send({"t": "hint", "v": v, "result": result, "move": move,
                     "why": why(state, line) if line else None})
    except Exception:  # a hint is a courtesy: its failure must not touch the game
        log.exception("hint failed", extra=player.log_extra())
        player.send(error("internal", "no hint this time: the solver failed"))
    finally:
        _thinking.discard(player.id)


HANDLERS = {"solo": on_solo, "undo": on_undo, "hint": on_hint}
