"""Finished games, replayed on the server: replay views and ghosts' timelines.

Once a race has results its records are public (server/handlers/results.py).
Records hold move texts only, and the client never runs the rules (it has no
game core), so the server replays a record with its engine and answers with
the *view* at a move index: what that player saw after that many entries of
the record. A view shows face-up cards only, never the stock's order, so a
replay tells no more than the player saw at the time.

A record of a finished room never changes, so the positions along it are
kept for the few records being looked at (:data:`CACHE_MAX`): stepping
through a game costs one replay, not one per step.

Who may see a finished game (:func:`public_room`): anyone with the code once
the race has results, except a daily's games, which stay private until the
day is over (others still have to play that deal).
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Final

import msgpack

from ..game import engine
from ..game.records import step
from ..game.state import State
from ..game.views import view
from ..race.rows import PlayerRow, RoomRow
from ..race.rules import results_message
from ..store.arenas import arena_over
from ..wire.protocol import ProtocolError
from .service import RoomService

CACHE_MAX: Final = 32  # records whose positions are kept (a record: up to ~5,000 positions)
YIELD_EVERY: Final = 200  # entries replayed between two yields to the event loop


@dataclass(frozen=True)
class Replayed:
    """One player's record of a finished room, with the position after each entry."""

    moves: tuple[str, ...]
    ms: tuple[int, ...]
    positions: tuple[State, ...]  # positions[i]: after the first i entries
    final_status: str  # the stored status of the player's game (in_progress: timed out)

    def status_at(self, index: int) -> str:
        """The status shown at ``index``: the game's own until its last entry."""
        if index < len(self.moves):
            return engine.IN_PROGRESS
        if self.final_status != engine.IN_PROGRESS:
            return self.final_status
        return "timed_out" if self.moves else engine.IN_PROGRESS


_cache: OrderedDict[tuple[str, int, str, int], Replayed] = OrderedDict()


async def public_room(service: RoomService, room: RoomRow | None, what: str) -> RoomRow:
    """``room`` if its games may be shown to anyone who has its code; else the
    refusal (``no_results``) saying that ``what`` needs results first."""
    if room is None or room.phase != "finished":
        raise ProtocolError("no_results", f"{what} once the race has results")
    if room.daily and service.competition.today() <= room.daily:
        raise ProtocolError("no_results", f"{what} of a daily game once the day is over")
    if room.arena and not await service.store._guard(arena_over(service.redis, room.arena)):
        raise ProtocolError("no_results", f"{what} of an arena race once the arena is over")
    return room


def seat_of(room: RoomRow, n: int) -> PlayerRow:
    p = room.player(n)
    if p is None:
        raise ProtocolError("bad_field", f"room {room.code} has no player {n}")
    return p


async def replayed(service: RoomService, room: RoomRow, n: int) -> Replayed:
    """Player ``n``'s record in ``room`` (finished), replayed; kept for the next ask."""
    p = seat_of(room, n)
    log = await service.store.moves(room.code, n)
    key = (room.code, n, room.deal, len(log))
    hit = _cache.get(key)
    if hit is not None:
        _cache.move_to_end(key)
        return hit
    history = [engine.new_game(room.variant, room.deal)]
    after = [history[0]]
    for i, (_, text) in enumerate(log):
        # every entry was accepted by the move path: no dead-game search on the way
        step(history, text, engine.IN_PROGRESS)
        after.append(history[-1])
        if i % YIELD_EVERY == YIELD_EVERY - 1:
            await asyncio.sleep(0)  # a long record must not stall the other players
    out = Replayed(tuple(t for _, t in log), tuple(ms for ms, _ in log), tuple(after), p.status)
    _cache[key] = out
    while len(_cache) > CACHE_MAX:
        _cache.popitem(last=False)
    return out


def replay_message(room: RoomRow, n: int, game: Replayed, index: int) -> dict[str, Any]:
    """The ``replay`` answer: the view after ``index`` entries (clamped to the record)."""
    index = max(0, min(index, len(game.moves)))
    status = game.status_at(index)
    shown = view(game.positions[index], status if status != "timed_out" else engine.IN_PROGRESS, [])
    shown["status"] = status
    return {"t": "replay", "code": room.code, "player": n, "index": index, "total": len(game.moves),
            "move": game.moves[index - 1] if index else None,
            "ms": game.ms[index - 1] if index else None, "view": shown}


def public_results(room: RoomRow) -> dict[str, Any]:
    """A public room's results (``public_room`` said yes) as they were sent at
    its end, the deal now shown: a daily's day or an arena is over by then."""
    stored = msgpack.unpackb(room.results, raw=False) if room.results else None
    out = stored if isinstance(stored, dict) else results_message(room)
    out.pop("t", None)
    out["deal"] = room.deal
    return out
