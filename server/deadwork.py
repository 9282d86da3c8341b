"""Large dead-position searches in a worker process.

Nearly every search the dead-position rule needs ends within a few
milliseconds, and runs on the event loop in slices (server/service.py). A few
regions are large: Simplicity's largest measured took 0.66 s of CPU on its own
(docs/benchmarks.md). Sliced on the loop such a search shares one core with
every other player's moves, so under load its verdict would come late. A search
still undecided after its in-loop budget goes to this worker instead: another
process, so another core, and the loop only waits on a future. The worker runs
the same exhaustive search of the same core, so its verdict is as exact; the
loop's process then remembers it like one of its own.

One worker for the whole process: such searches are rare, and a second would
only compete with the first for the machine's cores. Should the worker fail
(it died, or it does not know the variant: one registered after it started),
the caller finishes the search on the loop as before.
"""

from __future__ import annotations

import asyncio
import logging
from concurrent.futures import ProcessPoolExecutor

from .game import engine
from .game.state import State

log = logging.getLogger("patience.deadwork")

# How long a search runs on the loop before it moves here is the setting
# PATIENCE_DEAD_OFFLOAD_MS (default 50 ms, about a dozen 4 ms slices): short
# searches never pay for the hop, long ones stop sharing the loop's core.


def decide(state: State) -> bool:
    """In the worker: whether ``state`` is dead, by the engine's own search."""
    return engine.status(state) == engine.DEAD


class DeadSearchWorker:
    """A lazily started one-process pool for large dead-position searches."""

    def __init__(self) -> None:
        self._pool: ProcessPoolExecutor | None = None
        self.searches = 0  # searches handed to the worker (for tests and metrics)

    async def decide(self, state: State) -> bool | None:
        """The verdict on ``state`` from the worker, or None if the worker failed."""
        loop = asyncio.get_running_loop()
        try:
            if self._pool is None:
                self._pool = ProcessPoolExecutor(max_workers=1)
            self.searches += 1
            return await loop.run_in_executor(self._pool, decide, state)
        except Exception:
            log.exception("the dead-search worker failed: searching on the loop")
            self.close()
            return None

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
