"""How often a player's progress goes out to the other players.

A move that changes what an opponent's progress bar shows in substance (the
foundation count or the status) publishes its progress at once, in the same
store script as the move. A move that only advances the move counter is held
back when the last progress went out less than :data:`PROGRESS_EVERY_S` ago;
the newest held-back one goes out when that interval ends, so counters are
never more than a quarter of a second behind and the last one always arrives.
A fast player no longer costs every opponent a message per move.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Any

from ..ops.aio import KeptLoop

log = logging.getLogger("patience.progress")

PROGRESS_EVERY_S = 0.25

# Queues the publish at once (so nothing queued later can overtake it) and
# returns the future of its outcome.
Publish = Callable[[str, int, bytes], "asyncio.Future[Any]"]
# Makes a move's encoded progress: most held-back ones are superseded before
# they go out, so they are only encoded when they do.
Encode = Callable[[], bytes]


class ProgressThrottle:
    def __init__(self, publish: Publish, clock: Callable[[], float] = time.monotonic) -> None:
        self._publish = publish
        self._clock = clock
        self._shown: tuple[int, str] | None = None
        self._sent_at = float("-inf")
        self._held: tuple[str, int, Encode] | None = None
        self._superseded: tuple[str, int, Encode] | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._loop = KeptLoop()
        self.task: asyncio.Future[Any] | None = None  # the last held-back publish

    def send_with_move(self, fc: int, status: str) -> bool:
        """Whether the next move's progress goes out with it. Call right before
        queuing the move, so nothing held back can overtake it."""
        if (fc, status) != self._shown or self._clock() - self._sent_at >= PROGRESS_EVERY_S:
            self._superseded, self._held = self._held, None
            return True
        return False

    def accepted(self, code: str, n: int, fc: int, status: str, progress: Encode,
                 published: bool) -> None:
        self._superseded = None
        if published:
            self._shown, self._sent_at = (fc, status), self._clock()
            return
        self._held = (code, n, progress)
        self._schedule()

    def refused(self) -> None:
        """The move was not stored: what it superseded still has to go out."""
        if self._superseded is not None and self._held is None:
            self._held = self._superseded
            self._schedule()
        self._superseded = None

    def flush(self) -> None:
        """Send what is held now (the player is leaving: its last count must go)."""
        if self._timer is not None:
            self._timer.cancel()
        self._timer, self._superseded = None, None
        self._fire()

    def _schedule(self) -> None:
        if self._timer is None:
            delay = max(0.0, PROGRESS_EVERY_S - (self._clock() - self._sent_at))
            self._timer = self._loop.get().call_later(delay, self._fire)

    def _fire(self) -> None:
        self._timer = None
        if self._held is None:
            return
        code, n, progress = self._held
        self._held = None
        self._sent_at = self._clock()
        # queued here and now, ahead of any move handled after this callback; its
        # outcome comes to a callback (no task per publish)
        self.task = self._publish(code, n, progress())
        self.task.add_done_callback(_outcome)


def _outcome(sent: asyncio.Future[Any]) -> None:
    if not sent.cancelled() and (exc := sent.exception()) is not None:
        # a resync after the outage sends the counts anyway
        log.debug("held-back progress not published: %s", exc)
