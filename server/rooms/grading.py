"""Each race's deal graded by difficulty before the race, off the event loop.

When the server opens a room on a deal it picked, the grade is worked out in
a worker process of its own (:func:`..game.solver.difficulty.grade_deal`,
within the configured node budget), written into the room's meta hash, and
the room's state is published again, so the players see it in the lobby or
the countdown. A room never waits for it: the race starts with or without a
grade, and a grade that comes after the start is still kept for the results.

Bounded: one worker process, at most :data:`MAX_PENDING` grades queued (past
that a room simply goes without one); the worker runs at the lowest CPU
priority, so grading never competes with moves.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from concurrent.futures import ProcessPoolExecutor
from typing import Final

from ..ops.workers import worker_pool
from ..race.rules import room_message
from ..store.rooms import STORE_AWAY, RoomStore
from ..wire.errors import StoreUnavailable
from ..wire.protocol import encode

log = logging.getLogger("patience.grading")

MAX_PENDING: Final = 8  # grades queued or running at once


def _lowest_priority() -> None:
    with contextlib.suppress(OSError):  # not allowed here: grade at the usual priority
        os.nice(19)


def _grade(variant: str, deal: str, budget: int) -> int:
    from ..game.solver.difficulty import grade_deal

    return grade_deal(variant, deal, budget).grade


class DealGrader:
    """Grades rooms' deals in a worker process; see the module text."""

    def __init__(self, store: RoomStore, budget: int) -> None:
        self.store = store
        self.budget = budget  # solver nodes per deal; 0 switches grading off
        self._pool: ProcessPoolExecutor | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    def grade_room(self, code: str, variant: str, deal: str) -> None:
        """Start grading the room's deal, unless grading is off or full."""
        if self.budget <= 0 or len(self._tasks) >= MAX_PENDING:
            return
        task = asyncio.ensure_future(self._run(code, variant, deal))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _run(self, code: str, variant: str, deal: str) -> None:
        if self._pool is None:
            # forked from a small clean process, not from this one: a child of the server
            # holds its sockets, and would keep its players' connections open after a kill
            self._pool = worker_pool(initializer=_lowest_priority)
        loop = asyncio.get_running_loop()
        try:
            # submitted from a thread: the first submit starts the fork server and waits for it
            job = await loop.run_in_executor(None, self._pool.submit, _grade, variant, deal, self.budget)
            grade = await asyncio.wrap_future(job)
            if await self.store.set_grade(code, grade):
                room = await self.store.room(code)
                if room is not None and room.phase in ("lobby", "countdown"):
                    await self.store.publish(code, encode(room_message(room, self.store.clock())))
        except asyncio.CancelledError:
            raise
        except (StoreUnavailable, *STORE_AWAY):
            pass  # the room goes without a grade
        except Exception:
            log.exception("grading a deal failed")

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
