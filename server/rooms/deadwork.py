"""Large dead-position searches in a worker process.

Nearly every search the dead-position rule needs ends within a few
milliseconds, and runs on the event loop in slices (server/rooms/service.py). A few
regions are large: Simplicity's largest takes a good part of a second of CPU alone
(docs/benchmarks.md). Sliced on the loop such a search shares one core with
every other player's moves, so under load its verdict would come late. A search
still undecided after its in-loop budget goes to this worker instead: another
process, so another core, and the loop only waits on a future. The worker runs
the same exhaustive search of the same core, so its verdict is as exact; the
loop's process then remembers it like one of its own.

One worker for the whole process: such searches are rare, and a second would
only compete with the first for the machine's cores. Should the worker not
start at all (no processes on this platform), the caller finishes the search
on the loop as before (:class:`WorkerUnavailable`).

Memory is bounded here. A search keeps one key per position of its region, and
in the games whose foundation cards move (whole-card keys) a region may be far
larger than any measured: the worker's address space is capped at
``memory_mb`` above what it had at its start (``PATIENCE_DEAD_WORKER_MB``). A
search that outgrows it, or runs longer than ``SEARCH_BUDGET_S``, ends in the
worker with no verdict (None): the position stays "in progress", and the
server process, which never runs such a search itself, is unharmed. The same
holds when the worker dies mid-search. Closing the worker stops a search in
progress with it.
"""

from __future__ import annotations

import asyncio
import logging
import resource
import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Final

from ..game import engine
from ..game.state import State
from ..ops.workers import worker_pool

log = logging.getLogger("patience.deadwork")

# How long a search runs on the loop before it moves here is the setting
# PATIENCE_DEAD_OFFLOAD_MS (default 50 ms, about a dozen 4 ms slices): short
# searches never pay for the hop, long ones stop sharing the loop's core.


# A search the worker gives up with no verdict: in the games whose foundation
# cards move, a region can grow past any measured one (a simplicity-pysol search
# once grew by gigabytes for minutes before it was stopped; docs/benchmarks.md), and a search that long
# would hold one of the machine's cores for nothing a player still waits on.
SEARCH_BUDGET_S: Final = 60.0


class WorkerUnavailable(Exception):
    """The worker process could not be started."""


def limit_memory(memory_mb: int) -> None:
    """In the worker, at its start: cap its address space ``memory_mb`` above
    its present size (Linux's /proc; elsewhere no cap)."""
    try:
        with open("/proc/self/statm") as f:
            pages = int(f.read().split()[0])
        now = pages * resource.getpagesize()
        hard = resource.getrlimit(resource.RLIMIT_AS)[1]
        soft = now + memory_mb * 2**20
        resource.setrlimit(resource.RLIMIT_AS, (soft if hard < 0 else min(soft, hard), hard))
    except (OSError, ValueError):
        log.warning("the dead-search worker runs without a memory cap")


def decide(state: State, budget_s: float = SEARCH_BUDGET_S) -> bool | None:
    """In the worker: whether ``state`` is dead, by the engine's own search;
    None when the search outgrew the worker's memory or ran ``budget_s``."""
    steps = engine.status_and_moves_steps(state, 0.05)
    started = time.monotonic()
    try:
        while True:
            try:
                next(steps)
            except StopIteration as done:
                status: str = done.value[0]
                return status == engine.DEAD
            if time.monotonic() - started > budget_s:
                steps.close()
                return None
    except MemoryError:
        steps.close()
        engine.clear_caches()
        return None


class DeadSearchWorker:
    """A lazily started one-process pool for large dead-position searches."""

    def __init__(self, memory_mb: int = 2048) -> None:
        self._pool: ProcessPoolExecutor | None = None
        self.memory_mb = memory_mb
        self.searches = 0  # searches handed to the worker (for tests and metrics)

    async def decide(self, state: State) -> bool | None:
        """The verdict on ``state`` from the worker; None when the search
        outgrew the worker's memory or the worker died meanwhile (the next
        search starts a new one). :class:`WorkerUnavailable` when it cannot start."""
        loop = asyncio.get_running_loop()
        if self._pool is None:
            try:
                # forked from a small clean process, not from this one (its
                # sockets, its loop, its heap: the cap counts from a clean start)
                self._pool = worker_pool(initializer=limit_memory, initargs=(self.memory_mb,))
            except Exception as exc:
                raise WorkerUnavailable(str(exc)) from exc
        self.searches += 1
        try:
            # submitted from a thread: the first submit starts the fork server and
            # the worker and waits for them (it held the event loop for a noticeable pause,
            # every other player's moves with it)
            job = await loop.run_in_executor(None, self._pool.submit, decide, state)
            is_dead: bool | None = await asyncio.wrap_future(job)
        except BrokenProcessPool:
            log.error("the dead-search worker died during a search: no verdict")
            self.close()
            return None
        except (OSError, RuntimeError) as exc:
            self.close()
            raise WorkerUnavailable(str(exc)) from exc
        if is_dead is None:
            log.warning("a dead-position search outgrew the worker's memory: no verdict")
        return is_dead

    def close(self) -> None:
        """Stop the worker now, a search in progress with it."""
        pool, self._pool = self._pool, None
        if pool is not None:
            # shutdown alone would let a running search go on to its end
            procs = list((getattr(pool, "_processes", None) or {}).values())
            pool.shutdown(wait=False, cancel_futures=True)
            for proc in procs:
                proc.terminate()
