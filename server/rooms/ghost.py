"""Ghost races: race a recorded run of the same deal.

A ghost race is a room of one (like the daily) on the deal of a finished
game, whose record is the ghost. The ghost's moves are not played again:
its *progress* is, at the times the record says (milliseconds since the
start of its race), as ``progress`` messages exactly like a live opponent's
(player :data:`GHOST_PLAYER`, counts only). The foundation count after each
entry comes from replaying the record with the engine once, up front.

**Bounded and tied to the room.** The ghost is one task per ghost race. It
sleeps at most until the race's end, sends only while its racer is seated in
that room with a game going, and is cancelled when the player leaves the
room or disconnects (``Player.detach``). It never waits on a socket: its
messages go into the player's outbox (``send_progress`` replaces a queued
progress of the same player, as the hub does for a live opponent), so a
slow reader costs the ghost nothing. A racer who resumes the ghost race
after a reconnect gets the ghost back at the point its clock has reached.

**Spoiling nothing.** A ghost is offered only when its record may be shown
(server/rooms/replays.py: the race has results, a daily's day is over) and, for a
private room, only to that room's own players (a seat in it now, or the
claimed name of one of its seats): a private race stays among its players.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass
from typing import Any, Final

from ..game import engine
from ..race.rows import RoomRow
from ..race.rules import progress_message, ranking, shown_names
from ..store import keys
from ..wire.errors import StoreUnavailable
from ..wire.protocol import ProtocolError, encode
from .player import Player
from .replays import Replayed, public_room, replayed, seat_of

log = logging.getLogger("patience.ghost")

GHOST_PLAYER: Final = 2  # the ghost's number in its room of one (the racer is player 1)
META_FIELD: Final = "ghost"  # the room's meta field naming the ghost: "CODE.N"


@dataclass(frozen=True)
class Ghost:
    """A recorded run to race: where it comes from and its timeline."""

    code: str  # the finished room the record is from
    n: int  # its player there
    name: str
    variant: str
    deal: str
    total: int  # the variant's cards
    marks: tuple[tuple[int, int, str], ...]  # (ms since the start, foundation cards, status) per entry

    def describe(self, room_code: str) -> dict[str, Any]:
        """The ``ghost`` message: who the ghost is (its outcome is for the race to show)."""
        return {"t": "ghost", "code": room_code, "player": GHOST_PLAYER, "name": self.name,
                "source": self.code, "source_player": self.n, "moves": len(self.marks)}


def may_race(player: Player, room: RoomRow) -> None:
    """Refuse (``ghost_private``) a private room's ghost to anyone not of that room."""
    if not room.private or room.daily:
        return  # a public race, or a daily after its day: nothing left to keep among players
    if player.code == room.code and room.player(player.n) is not None:
        return
    who = player.identified.casefold() if player.identified else None
    if who is not None and any(p.ident is not None and p.ident.casefold() == who for p in room.players):
        return
    raise ProtocolError("ghost_private", f"room {room.code} was private: its ghosts are for its own players")


def pick_player(room: RoomRow, asked: int | None) -> int:
    """The player asked for, else the race's first place."""
    if asked is not None:
        seat_of(room, asked)
        return asked
    places = ranking(room)
    if not places:
        raise ProtocolError("bad_field", f"room {room.code} has no player to race")
    return int(places[0]["player"])


def timeline(game: Replayed) -> tuple[tuple[int, int, str], ...]:
    """Each entry's time, the foundation cards after it and the status it leaves."""
    out = []
    for i, ms in enumerate(game.ms, start=1):
        status = game.status_at(i)
        # a ghost that ran out of time shows as still playing: its race's clock is not this one's
        out.append((ms, engine.foundation_cards(game.positions[i]),
                    engine.IN_PROGRESS if status == "timed_out" else status))
    return tuple(out)


async def load(player: Player, room: RoomRow, n: int) -> Ghost:
    """The ghost of player ``n`` in ``room``, once showing it spoils nothing."""
    room = await public_room(player.service, room, "a ghost can be raced")
    may_race(player, room)
    game = await replayed(player.service, room, n)
    name = shown_names(room).get(n, f"player {n}")
    total = engine.rules_of(game.positions[0]).spec.total_cards
    return Ghost(room.code, n, name, room.variant, room.deal, total, timeline(game))


async def run(player: Player, code: str, ghost: Ghost, starts_at: int, ends_at: int) -> None:
    """Send the ghost's progress at its times until the race ends for its racer."""
    total = ghost.total
    # where the ghost is now: the start, or (on a resume) the last entry its clock has passed
    now = player.clock()
    done = sum(1 for ms, _, _ in ghost.marks if starts_at + ms <= now)
    if done:
        _, fc, status = ghost.marks[done - 1]
    else:
        fc = engine.foundation_cards(engine.new_game(ghost.variant, ghost.deal))
        status = engine.IN_PROGRESS
    # at the ghost's own times (like any opponent's, held while the racer's move is answered)
    player.outbox.send_progress(GHOST_PLAYER, encode(progress_message(GHOST_PLAYER, status, fc, total,
                                                                      done)))
    for i, (ms, fc, status) in enumerate(ghost.marks[done:], start=done + 1):
        at = starts_at + ms
        if at >= ends_at:
            return
        await asyncio.sleep(max(0, at - player.clock()) / 1000)
        game = player.game
        if player.code != code or (game.state is not None and game.status != engine.IN_PROGRESS):
            return  # left the room, or the racer's game is over: the race is decided
        player.outbox.send_progress(GHOST_PLAYER, encode(progress_message(
            GHOST_PLAYER, status, fc, total, i)))


def start(player: Player, code: str, ghost: Ghost, starts_at: int, ends_at: int) -> None:
    """Run the ghost as the player's room-bound task (``Player.detach`` cancels it)."""
    stop(player)
    player.ghost = asyncio.create_task(_guarded(player, code, ghost, starts_at, ends_at))


def stop(player: Player) -> None:
    if player.ghost is not None:
        player.ghost.cancel()
        player.ghost = None


async def _guarded(player: Player, code: str, ghost: Ghost, starts_at: int, ends_at: int) -> None:
    # bounded whatever happens: never past the race's end (and a little slack)
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(max(0, ends_at - player.clock()) / 1000 + 1):
            try:
                await run(player, code, ghost, starts_at, ends_at)
            except asyncio.CancelledError:
                raise
            except Exception:  # the ghost is a courtesy: its failure must not touch the race
                log.exception("a ghost failed", extra=player.log_extra())


async def resume(player: Player) -> None:
    """After a resume into a ghost race still running: its ghost again, from where its clock is."""
    code = player.code
    if code is None:
        return
    store = player.service.store
    try:
        source = await store.redis.hget(keys.meta(code), META_FIELD)
    except Exception:  # no ghost this time: the race itself goes on
        return
    if not source:
        return
    room = await store.room(code)
    if room is None or room.phase != "racing":
        return
    src_code, _, n = (source.decode() if isinstance(source, bytes) else str(source)).partition(".")
    try:
        src = await store.room(src_code)
        ghost = await load(player, src, int(n)) if src is not None else None
    except (ProtocolError, StoreUnavailable, ValueError):
        return
    if ghost is not None:
        player.send(ghost.describe(code))
        start(player, code, ghost, room.starts_at, room.ends_at)
