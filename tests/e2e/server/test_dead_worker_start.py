"""Starting the dead-search worker (server/rooms/deadwork.py) does not hold the event
loop: its first search starts a fork server and a process and waits for them,
which once stalled every player of the process for a few hundred milliseconds."""

from __future__ import annotations

import asyncio
import time

from server.game import engine
from server.rooms.deadwork import DeadSearchWorker


async def test_the_first_search_leaves_the_loop_running_while_the_worker_starts() -> None:
    worker = DeadSearchWorker()
    gaps: list[float] = []

    async def ticker() -> None:
        last = time.perf_counter()
        while True:
            await asyncio.sleep(0.001)
            now = time.perf_counter()
            gaps.append(now - last)
            last = now

    ticking = asyncio.create_task(ticker())
    try:
        await asyncio.sleep(0.05)
        started = time.perf_counter()
        assert await worker.decide(engine.new_game("simplicity", "1021")) is False
        took = time.perf_counter() - started
        # the loop went on ticking: no pause near the start's own length
        # (held by the start itself, the loop paused for about half of it)
        assert max(gaps) < took / 4, (max(gaps), took)
    finally:
        ticking.cancel()
        worker.close()
