"""Fair-play signals after each ranked result, off the event loop.

:meth:`FairPlay.after_ranked` is called by the one finish path
(server/rooms/competition.py) once a race's or a daily's ranked result is
written; it only starts a background task and returns. The task reads each
ranked player's move log, has a worker process compute the game's signals
(:func:`server.race.fairplay_signals.game_signals`: a replay and a few bounded
solver searches), keeps them with the name's recent games and writes the
name's suspicion score and its explanation (server/store/fairplay.py). No move
waits for any of it: nothing here runs per move, the loop only awaits futures,
and the worker is a process of its own (started from a clean fork server, as
the dead-search worker's, server/rooms/deadwork.py).

Bounded: at most :data:`MAX_PENDING` races wait for the worker; a result past
that is not analysed (a warning says so: under such a load the worker could
never catch up anyway). A job the worker does not finish in
:data:`JOB_TIMEOUT_S` is given up. A store that is away loses that game's
signals, never the race's result.
"""

from __future__ import annotations

import asyncio
import logging
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Final

from ..ops.workers import worker_pool
from ..race.fairplay_score import FLAG_AT, score
from ..race.fairplay_signals import game_signals
from ..store.fairplay import FairPlayStore
from ..store.rooms import RoomStore
from ..wire.errors import StoreUnavailable

log = logging.getLogger("patience.fairplay")

MAX_PENDING: Final = 256  # ranked races waiting for their analysis
JOB_TIMEOUT_S: Final = 120.0


def analyse(variant: str, deal: str, moves: list[tuple[int, str]]) -> dict[str, Any]:
    """In the worker: one game's signals."""
    return game_signals(variant, deal, moves)


class FairPlay:
    def __init__(self, rooms: RoomStore, store: FairPlayStore) -> None:
        self.rooms = rooms
        self.store = store
        self._pool: ProcessPoolExecutor | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self.analysed = 0  # games scored (for tests and metrics)
        self.dropped = 0  # ranked results left unanalysed: the backlog was full

    def after_ranked(self, code: str, variant: str, deal: str, players: dict[int, str]) -> None:
        """Analyse these players' games of room ``code`` (seat number -> claimed
        name) in the background; returns at once."""
        if not players:
            return
        if len(self._tasks) >= MAX_PENDING:
            self.dropped += 1
            log.warning("fair-play backlog full: a ranked result goes unanalysed", extra={"room": code})
            return
        task = asyncio.get_running_loop().create_task(self._run(code, variant, deal, dict(players)))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def idle(self) -> None:
        """Wait for every analysis started so far (tests; a clean shutdown)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    async def _run(self, code: str, variant: str, deal: str, players: dict[int, str]) -> None:
        for n, name in sorted(players.items()):
            try:
                moves = await self.rooms.moves(code, n)
                if not moves:
                    continue
                signals = await self._in_worker(variant, deal, moves)
                if signals is None:
                    continue
                games = await self.store.push(name, signals)
                total, why = score(games)
                await self.store.publish(name, total, total >= FLAG_AT, why)
                self.analysed += 1
            except StoreUnavailable:
                log.warning("fair-play signals not kept: the store is away", extra={"room": code})
            except Exception:  # an analysis must never take anything else down
                log.exception("fair-play analysis failed", extra={"room": code})

    async def _in_worker(self, variant: str, deal: str,
                         moves: list[tuple[int, str]]) -> dict[str, Any] | None:
        loop = asyncio.get_running_loop()
        if self._pool is None:
            # forked from a small clean process, not from this one (its sockets, its loop)
            self._pool = worker_pool()
        try:
            # submitted from a thread: the first submit starts the fork server and waits for it
            job = await loop.run_in_executor(None, self._pool.submit, analyse, variant, deal, moves)
            return await asyncio.wait_for(asyncio.wrap_future(job), JOB_TIMEOUT_S)
        except TimeoutError:
            log.warning("a fair-play analysis took too long: given up")
            self._stop_worker()
        except BrokenProcessPool:
            log.error("the fair-play worker died during an analysis")
            self._stop_worker()
        return None

    def close(self) -> None:
        """Stop the waiting analyses and the worker (a job in progress with it)."""
        for task in list(self._tasks):
            task.cancel()
        self._stop_worker()

    def _stop_worker(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            procs = list((getattr(pool, "_processes", None) or {}).values())
            pool.shutdown(wait=False, cancel_futures=True)
            for proc in procs:
                proc.terminate()
