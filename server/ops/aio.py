"""Small asyncio pieces the move path shares: the running loop kept, a write
lock whose free case is an attribute test, and a plain counter; and the stop of
a long-lived task that a single cancel may not end (:func:`stop_task`).

Compiled with the move path (server/ops/corebuild.py, ``SERVER_COMPILED``): each
replaces a call into the standard library's Python code (``asyncio.Lock``'s
coroutines, ``asyncio.get_running_loop``'s system call) or prometheus-client's
locked ``inc`` that ran once or more per move (docs/benchmarks/history/rounds.md, round 4).
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Any

# how often the stops below cancel a task again until it ends (one cancel can be lost)
RECANCEL_S = 0.05


class KeptLoop:
    """The running loop, kept: ``asyncio.get_running_loop()`` makes a ``getpid``
    system call each time (its check against a fork). Asked again when the kept
    one is not running (an object outliving its loop, as in tests)."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None

    def get(self) -> asyncio.AbstractEventLoop:
        loop = self._loop
        if loop is None or not loop.is_running():
            loop = self._loop = asyncio.get_running_loop()
        return loop


class WriteLock:
    """A first-come, first-served lock for one game's writer (server/rooms/play.py,
    server/rooms/verdicts.py). Taking it while free is :meth:`try_acquire`, no
    coroutine; only a writer that has to wait awaits :meth:`acquire`. Released,
    it passes straight to the first waiter still waiting."""

    def __init__(self) -> None:
        self.held = False
        # made on the first wait: an empty deque is about 600 bytes, one per connection
        self._waiters: deque[asyncio.Future[None]] | None = None

    def locked(self) -> bool:
        return self.held

    def try_acquire(self) -> bool:
        """Take the lock if it is free and nobody waits for it; True if taken."""
        if self.held or self._waiters:  # an empty or absent queue: nobody waits
            return False
        self.held = True
        return True

    async def acquire(self) -> None:
        if self.try_acquire():
            return
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        if self._waiters is None:
            self._waiters = deque()
        waiters = self._waiters
        waiters.append(waiter)
        try:
            await waiter
        except asyncio.CancelledError:
            if waiter in waiters:
                waiters.remove(waiter)  # cancelled while waiting
            elif waiter.done() and not waiter.cancelled():
                self.release()  # handed the lock, then cancelled: pass it on
            raise

    def release(self) -> None:
        if not self.held:
            raise RuntimeError("release of a WriteLock that is not held")
        waiters = self._waiters
        while waiters:  # None or empty: nobody to hand it to
            waiter = waiters.popleft()
            if not waiter.done():
                waiter.set_result(None)  # still held: it is the waiter's now
                return
        self.held = False


class Count:
    """A counter bumped on the event loop's thread only: a plain integer, read
    when /metrics is rendered (server/ops/metrics.py)."""

    def __init__(self) -> None:
        self.value = 0

    def inc(self) -> None:
        self.value += 1


async def stop_task(task: asyncio.Future[None], wait_s: float, every_s: float = RECANCEL_S) -> bool:
    """Cancel ``task`` and wait up to ``wait_s`` for it to end, cancelling it
    again every ``every_s``; True if it ended.

    One cancel is not enough for a loop over redis-py calls on Python 3.11:
    redis-py wraps each write in ``asyncio.wait_for`` (its ``socket_timeout``),
    and 3.11's ``wait_for`` returns the write's result instead of raising when
    the cancel arrives after the write finished but before its caller resumed,
    so the cancel is lost and the loop goes on (Python 3.12's ``wait_for`` no
    longer does this). A loop stopped here should also check a flag of its own
    between rounds. The wait itself stays cancellable: a caller's own timeout
    wins (the task is then left cancelled once more, not waited for)."""
    return await stop_tasks([task], wait_s, every_s) == 0


async def stop_tasks(tasks: list[asyncio.Future[Any]], wait_s: float, every_s: float = RECANCEL_S) -> int:
    """:func:`stop_task` for several tasks at once; how many still run after ``wait_s``."""
    return await _cancel_until_done(tasks, wait_s, every_s)


async def stop_others(wait_s: float, every_s: float = RECANCEL_S) -> int:
    """Cancel every task of the running loop but the caller's, again every
    ``every_s``, for at most ``wait_s``; returns how many are still running.

    A process's last step: ``asyncio.run`` (and uvloop's) cancel the tasks left
    once and then wait for them without a bound, so one task whose cancel was
    lost (:func:`stop_task`) would keep a stopped server from exiting."""
    me = asyncio.current_task()
    return await _cancel_until_done([t for t in asyncio.all_tasks() if t is not me], wait_s, every_s)


async def _cancel_until_done(tasks: list[asyncio.Future[Any]], wait_s: float, every_s: float) -> int:
    """Cancel ``tasks`` again every ``every_s`` until they end or ``wait_s``
    has passed; how many still run."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + wait_s
    left = [t for t in tasks if not t.done()]
    while left:
        remaining = deadline - loop.time()
        if remaining <= 0:
            break
        for task in left:
            task.cancel()
        await asyncio.wait(left, timeout=min(remaining, every_s))
        left = [t for t in left if not t.done()]
    return len(left)
