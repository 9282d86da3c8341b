"""One seat's game as its connection holds it: the position, its version, the
answers already given, the verdict still to come.

The move path (server/rooms/play.py) and the late verdicts
(server/rooms/verdicts.py) work on this object, not on the player: the player
(server/rooms/player.py) owns one for as long as its connection lives, and sends
what the game's state says. The store stays the truth: on any doubt the player
rebuilds this from the stored room and move log (``Player.reload``).

Compiled with the move path (server/ops/corebuild.py): a plain class whose
fields are all declared here.
"""

from __future__ import annotations

import asyncio

from ..game import engine
from ..game.state import State
from ..ops.aio import WriteLock
from ..wire.viewcodec import ViewEncoder

# (a position, its legal moves, proven alive by comes_back): what the last
# accepted move left for the next move's dead-position check
Proof = tuple[State, list[engine.Move], bool]


class PendingVerdict:
    """A verdict still to come for the position stored as version ``v``."""

    def __init__(self, state: State, v: int, fc: int, verdict: asyncio.Future[bool | None]) -> None:
        self.state = state
        self.v = v
        self.fc = fc
        self.verdict = verdict
        self.covered = False  # later moves were answered on the strength of it
        self.task: asyncio.Task[None] | None = None

    def drop(self) -> None:
        """Forget it (the worker's search, if already running, ends on its own
        and is still remembered as a verdict)."""
        self.verdict.cancel()
        if self.task is not None:
            self.task.cancel()


class GameSession:
    """The game of one seat: set by ``Player.attach``/``reload``, moved by the
    move path, ended by a verdict, cleared by ``Player.detach``."""

    def __init__(self) -> None:
        self.variant = ""
        self.deal = ""
        self.total_cards = 0
        self.starts_at = 0
        self.ends_at = 0
        self.state: State | None = None  # None until the race has started for this seat
        self.status: str = engine.IN_PROGRESS  # of self.state, once there is one
        self.v = 0  # the stored version of self.state: its number of moves
        self.last_seq = -1
        self.last_answer: list[bytes] = []  # the answer a repeat of last_seq gets again
        self.views = ViewEncoder()  # the view messages, from the last answer's pieces
        # stale once the state is another object
        self.alive: Proof | None = None
        # a dead-position verdict still to come for this game (server/rooms/verdicts.py)
        self.pending: PendingVerdict | None = None
        # one writer per game: it keeps a late verdict from landing between a
        # move's check and its store; kept across reset(), as a move in hand may hold it
        self.write_lock = WriteLock()

    def drop_pending(self) -> None:
        """The pending verdict, if any, no longer concerns this game."""
        pending = self.pending
        if pending is not None:
            pending.drop()
            self.pending = None

    def reset(self) -> None:
        """The seat is left: no game, no verdict to wait for."""
        self.drop_pending()
        self.state, self.v, self.status, self.alive = None, 0, engine.IN_PROGRESS, None
        self.last_seq, self.last_answer = -1, []

    def view_bytes(self, seq: int | None, status: str | None = None,
                   moves: list[engine.Move] | None = None) -> bytes:
        """The ``view`` message of the current position."""
        assert self.state is not None
        return self.views.encode(self.v, seq, self.state, status or self.status, moves)


__all__ = ["GameSession", "PendingVerdict", "Proof"]
