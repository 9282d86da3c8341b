"""Post-game analyses, off the event loop: a queued, bounded worker process.

An analysis (server/rooms/analysis.py) runs the solver many times over, up to
:data:`..analysis.GAME_BUDGET` nodes per player's game: seconds of CPU. It runs
in a worker process of its own, started lazily like the dead-position worker
(server/rooms/deadwork.py) and capped the same way (its address space, a set
number of megabytes above its clean start), so the event loop only ever awaits
a future and a runaway search costs the worker, not the server. It is not the
hints' worker: a hint must answer within seconds, and one analysis in front of
it would take all of them.

Bounded everywhere:

* one analysis runs at a time; at most :data:`QUEUE_MAX` wait or run, and an
  ask past that is refused (``analysis_busy``, with a retry time), never queued
  without end;
* two asks for the same finished room share one run;
* a run longer than :data:`TIMEOUT_S` per game (the node budget and the
  analysis' own time per game, :data:`..analysis.GAME_SECONDS`, end it before:
  it is a guard against a probe that runs away) stops the worker, which starts
  again for the next, and the answer says the analysis is undecided;
* finished answers are kept for the next ask (:data:`RESULTS_MAX` rooms, the
  least recently used forgotten first): a finished room never changes, so
  neither does its analysis.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Final

from ..ops.workers import worker_pool
from ..wire.protocol import ProtocolError
from .analysis import A_UNDECIDED, GAME_BUDGET, analyse_room
from .deadwork import limit_memory

log = logging.getLogger("patience.analysis")

QUEUE_MAX: Final = 8  # analyses running or waiting in one server process
TIMEOUT_S: Final = 60.0  # per game: the longest one analysis may run before the worker is stopped
RESULTS_MAX: Final = 256  # finished analyses kept, by room
BUSY_RETRY_MS: Final = 5_000

Games = list[tuple[int, list[str], str]]  # (player, record entries, final status)


def timed_out(variant: str, deal: str, games: Games, budget: int, why: str) -> dict[str, Any]:
    """The answer when the worker could not finish: every game undecided."""
    return {"variant": variant, "deal": deal, "budget": budget, "deal_result": "unknown",
            "nodes": None, "stopped": why,
            "players": [{"player": n, "result": A_UNDECIDED, "moves": None, "nodes": None,
                         "on_line": None, "winnable_through": None, "lost_from": None}
                        for n, _, _ in games]}


class AnalysisWorker:
    """One lazily started worker process, one analysis at a time, a bounded queue."""

    def __init__(self, memory_mb: int = 1024, *, queue_max: int = QUEUE_MAX,
                 timeout_s: float = TIMEOUT_S, budget: int = GAME_BUDGET) -> None:
        self.memory_mb = memory_mb
        self.queue_max = queue_max
        self.timeout_s = timeout_s
        self.budget = budget
        self._pool: ProcessPoolExecutor | None = None
        self._turn = asyncio.Lock()
        self._running: dict[str, asyncio.Task[dict[str, Any]]] = {}  # by room: running or waiting
        self._done: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self.runs = 0  # analyses handed to the worker (tests, metrics)

    def known(self, key: str) -> dict[str, Any] | None:
        hit = self._done.get(key)
        if hit is not None:
            self._done.move_to_end(key)
        return hit

    def remember(self, key: str, answer: dict[str, Any]) -> None:
        """Keep ``answer`` (made elsewhere: another process') as this room's."""
        self._done[key] = answer
        self._done.move_to_end(key)
        while len(self._done) > RESULTS_MAX:
            self._done.popitem(last=False)

    async def analyse(self, key: str, variant: str, deal: str, games: Games) -> dict[str, Any]:
        """The analysis of the finished room ``key`` (its code), from the cache,
        from a run already under way, or from a new run once the worker is free.
        The run is a task of its own: an asker that goes away (its connection
        closed) stops neither the run nor the others waiting on it."""
        hit = self.known(key)
        if hit is not None:
            return hit
        running = self._running.get(key)
        if running is None:
            if len(self._running) >= self.queue_max:
                raise ProtocolError("analysis_busy", "the server is analysing other games: ask again soon",
                                    retry_ms=BUSY_RETRY_MS)
            running = self._running[key] = asyncio.create_task(self._queued(key, variant, deal, games))
        return await asyncio.shield(running)

    async def _queued(self, key: str, variant: str, deal: str, games: Games) -> dict[str, Any]:
        try:
            async with self._turn:
                answer = await self._run(variant, deal, games)
            self.remember(key, answer)
            return answer
        finally:
            del self._running[key]

    async def _run(self, variant: str, deal: str, games: Games) -> dict[str, Any]:
        loop = asyncio.get_running_loop()
        if self._pool is None:
            # forked from a small clean process, as the dead-position worker is
            self._pool = worker_pool(initializer=limit_memory, initargs=(self.memory_mb,))
        self.runs += 1
        try:
            # submitted from a thread: the first submit starts the fork server and waits for it
            job = await loop.run_in_executor(None, self._pool.submit, analyse_room, variant, deal,
                                             games, self.budget)
            answer: dict[str, Any] = await asyncio.wait_for(asyncio.wrap_future(job),
                                                            self.timeout_s * max(1, len(games)))
            return answer
        except TimeoutError:
            log.warning("an analysis ran past %.0f s a game: the worker is stopped", self.timeout_s)
            self._stop_worker()
            return timed_out(variant, deal, games, self.budget, "time")
        except (BrokenProcessPool, MemoryError):
            log.warning("the analysis worker died or ran out of memory: no analysis")
            self._stop_worker()
            return timed_out(variant, deal, games, self.budget, "memory")

    def close(self) -> None:
        """Stop the worker now, an analysis in progress with it, and drop the waiting ones."""
        for task in list(self._running.values()):
            task.cancel()
        self._stop_worker()

    def _stop_worker(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            procs = list((getattr(pool, "_processes", None) or {}).values())
            pool.shutdown(wait=False, cancel_futures=True)
            for proc in procs:
                proc.terminate()
