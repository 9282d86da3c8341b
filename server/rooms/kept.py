"""A kept game (a name's history, server/rooms/history.py) replayed or raced
as a ghost, long after its room expired.

The entry holds that player's record, the deal and the moves with their
times; the engine replays it here as it does a live room's record
(server/rooms/replays.py), and the same rules decide who may see it: a
daily's game once its day is over, an arena's once the arena is, a private
room's ghost only for the name whose game it is.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from typing import Final

from ..game import engine
from ..game.records import step
from ..race.history import GameEntry
from ..race.rows import RoomRow
from ..store import keys
from ..wire.errors import StoreUnavailable
from ..wire.protocol import ProtocolError
from . import ghost
from .ghost import Ghost, timeline
from .player import Player
from .replays import YIELD_EVERY, Replayed, public_room

CACHE_MAX: Final = 16  # kept games whose positions are kept, for stepping through one
KEPT_FIELD: Final = "ghost_of"  # a ghost race's meta field: the name whose kept game the ghost is

_cache: OrderedDict[tuple[str, str, int], Replayed] = OrderedDict()


def room_of(entry: GameEntry) -> RoomRow:
    """The kept game's room as the replay's checks read it."""
    return RoomRow(entry.code, entry.variant, entry.deal, len(entry.field), 1, entry.private, "finished",
                   daily=entry.daily, arena=entry.arena, solo=entry.mode == "solo")


async def find(player: Player, name: str, code: str, what: str) -> tuple[GameEntry, RoomRow]:
    """The kept game ``code`` of ``name`` and its room, once showing it spoils
    nothing; ``no_game`` when the history holds no such game."""
    entry = await player.service.competition.history.game(name, code.strip().upper())
    if entry is None:
        raise ProtocolError("no_game", f"{name[:24]}'s history holds no game {code[:16]!r}")
    return entry, await public_room(player.service, room_of(entry), what)


async def replayed(name: str, entry: GameEntry) -> Replayed:
    """A kept game replayed, the position after each entry (kept for the next ask)."""
    key = (name.casefold(), entry.code, entry.at)
    hit = _cache.get(key)
    if hit is not None:
        _cache.move_to_end(key)
        return hit
    history = [engine.new_game(entry.variant, entry.deal)]
    after = [history[0]]
    for i, (_, text) in enumerate(entry.log):
        step(history, text, engine.IN_PROGRESS)  # every entry was accepted when it was played
        after.append(history[-1])
        if i % YIELD_EVERY == YIELD_EVERY - 1:
            await asyncio.sleep(0)  # a long record must not stall the other players
    status = engine.IN_PROGRESS if entry.status == "timed_out" else entry.status
    out = Replayed(tuple(t for _, t in entry.log), tuple(ms for ms, _ in entry.log), tuple(after), status)
    _cache[key] = out
    while len(_cache) > CACHE_MAX:
        _cache.popitem(last=False)
    return out


async def ghost_of(player: Player, name: str, entry: GameEntry) -> Ghost:
    """The kept game as a ghost to race: a private room's only for its own name."""
    if entry.private and not entry.daily and \
            (player.identified is None or player.identified.casefold() != name.casefold()):
        raise ProtocolError("ghost_private", f"room {entry.code} was private: its ghosts are for its "
                                             "own players")
    game = await replayed(name, entry)
    total = engine.rules_of(game.positions[0]).spec.total_cards
    return Ghost(entry.code, entry.n, entry.name, entry.variant, entry.deal, total, timeline(game))


async def resume(player: Player) -> None:
    """After a resume into a ghost race of a kept game still running, whose
    source room has expired (server/rooms/ghost.py's resume found no room):
    its ghost again, from the history, from where its clock is."""
    code = player.code
    if code is None or player.ghost is not None:
        return
    store = player.service.store
    try:
        raw = await store.redis.hmget(keys.meta(code), ghost.META_FIELD, KEPT_FIELD)
    except Exception:  # no ghost this time: the race itself goes on
        return
    if not raw[0] or not raw[1]:
        return
    source, name = (v.decode() if isinstance(v, bytes) else str(v) for v in raw)
    try:
        room = await store.room(code)
        if room is None or room.phase != "racing":
            return
        entry, _ = await find(player, name, source.partition(".")[0], "a ghost can be raced")
        run = await ghost_of(player, name, entry)
    except (ProtocolError, StoreUnavailable, ValueError):
        return
    player.send(run.describe(code))
    ghost.start(player, code, run, room.starts_at, room.ends_at)
