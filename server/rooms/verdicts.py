"""Dead-position verdicts that land after their move was answered.

Nearly every position is judged within the move's answer. A search that is
still running when the answer may wait no longer (``RoomService.check``) goes
on in the worker process, and the move is answered ``in_progress``. This
module follows that verdict for the player and ends the game when it says
dead: the stored status, the progress the other players see, the player's own
view (pushed: a ``view`` with ``seq`` null and the same ``v``), and the end of
the race when it was the last game going.

While a verdict is pending the player may go on moving. A move that leaves
the foundations as they were is not searched again: its position lies in the
searched one's region, so a dead verdict covers it too, and the move is
answered at once. A move that raises the foundation count (the searched
position was alive, then) or takes a move back (a solo game's undo) is judged
on its own, and the older verdict no longer concerns the game. When an alive
verdict lands after such covered moves, the player's current position is
judged in turn. At most one verdict is pending per player.

Every write happens under the game's write lock (the move path holds it
too), and the store's script is guarded by the player's version, so a verdict
never lands between a move's check and its store, nor on a game another
connection has moved meanwhile.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Protocol

from ..game import engine
from ..game.state import State
from ..race.rules import encode_progress
from ..wire.errors import StoreUnavailable
from ..wire.protocol import encode
from .progress import ProgressThrottle
from .service import RoomService
from .session import GameSession, PendingVerdict

log = logging.getLogger("patience.verdicts")


class Judged(Protocol):
    """What a verdict needs of a player (server/rooms/player.py): its seat's
    game, and the ways to tell it and everybody."""

    service: RoomService
    code: str | None
    n: int
    game: GameSession
    progress: ProgressThrottle

    def need_room(self) -> str: ...

    def send_view(self, seq: int | None, status: str | None = None,
                  moves: list[engine.Move] | None = None) -> bytes: ...

    def view_now(self) -> dict[str, Any]: ...

    def log_extra(self) -> dict[str, Any]: ...


def covered(game: GameSession, after: State) -> bool:
    """Whether ``after``, reached by an ordinary move from the game's current
    position and in need of a search, may be answered without one: a verdict
    is pending for a position of the same region (no foundation card since)."""
    pending = game.pending
    return pending is not None and engine.foundation_cards(after) == pending.fc


def follow(player: Judged, state: State, v: int, verdict: asyncio.Future[bool | None]) -> None:
    """``state`` (stored as version ``v``) was answered before its verdict:
    apply the verdict when it lands."""
    game = player.game
    game.drop_pending()
    pending = PendingVerdict(state, v, engine.foundation_cards(state), verdict)
    game.pending = pending
    pending.task = asyncio.create_task(_land(player, pending))


async def _land(player: Judged, pending: PendingVerdict) -> None:
    code = player.code
    try:
        while True:
            is_dead = await pending.verdict
            lock = player.game.write_lock
            await lock.acquire()
            try:
                following = await _apply(player, pending, code, is_dead)
            finally:
                lock.release()
            if following is None:
                return
            pending = following
    except asyncio.CancelledError:
        raise
    except StoreUnavailable:
        # the stored game stays in progress; the next resume or move judges it again
        log.warning("a dead-position verdict could not be stored", extra=player.log_extra())
    except Exception:
        log.exception("applying a dead-position verdict failed", extra=player.log_extra())


async def _apply(player: Judged, pending: PendingVerdict, code: str | None,
                 is_dead: bool | None) -> PendingVerdict | None:
    """A verdict that landed, under the game's write lock; the verdict to wait
    for next, if the position judged now needs one."""
    game = player.game
    if game.pending is not pending or player.code != code or game.state is None:
        return None  # superseded, or the player left the game
    game.pending = None
    if is_dead:
        await _end(player, engine.DEAD, pending.v)
        return None
    if is_dead is None:
        return None  # the search outgrew the worker: no verdict, the game goes on
    if game.state is pending.state or not pending.covered:
        return None  # the answer given stands, or later moves judged themselves
    # alive, and moves since relied on it: judge where the player is now
    state = game.state
    status, _, verdict = await player.service.check(state)
    if verdict is None:
        if status != engine.IN_PROGRESS:
            await _end(player, status, game.v)
        return None
    following = PendingVerdict(state, game.v, engine.foundation_cards(state), verdict)
    game.pending = following
    return following


async def _end(player: Judged, status: str, since_v: int) -> None:
    """Store the end of the player's game at its current version and tell everybody."""
    game = player.game
    code, state = player.need_room(), game.state
    assert state is not None
    fc, n, v = engine.foundation_cards(state), player.n, game.v
    progress = encode_progress(n, status, fc, game.total_cards, v)
    player.progress.send_with_move(fc, status)  # a status change always goes out
    try:
        result = await player.service.store.verdict(code, n, v, status, since_v, progress)
    except BaseException:
        player.progress.refused()
        raise
    if result != "ok":
        player.progress.refused()
        return  # moved on elsewhere, or over already: the store's own answer stands
    player.progress.accepted(code, n, fc, status, lambda: progress, True)
    game.status = status
    player.send_view(None)
    # a repeat of the last move's seq now gets the view that says so
    game.last_answer = [encode({"t": "view", "v": v, "seq": game.last_seq,
                                "view": player.view_now()})]
    await player.service.finish_if_done(code)
