"""A race's clock ends with its race (issue 34, item 16).

Each race a process serves has a task that ends the race when its time runs
out. A race that ends before its time (every game over) must take that task
with it, on the process that finished the race and on every other process
that served one of its players, or sleeping tasks pile up with throughput
times race length.
"""

from __future__ import annotations

import asyncio

from server.app import RaceServer
from tests.support.servers import ServerFactory, close_all, play_out, race, results_of, ws_url


def clock_tasks() -> list[asyncio.Task[object]]:
    """The race clocks alive on this loop, found by their coroutine (so the count
    holds whatever registry the service keeps)."""
    return [t for t in asyncio.all_tasks()
            if getattr(t.get_coro(), "__qualname__", "") == "RoomService._clock"]


async def no_clock_left(*apps: RaceServer) -> None:
    """The clocks go when the results are heard: allow the event a moment to arrive."""
    for _ in range(100):
        if not clock_tasks() and all(app.service.running_clocks == 0 for app in apps):
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"{len(clock_tasks())} race clock tasks outlive their race")


async def test_a_race_that_ends_early_takes_its_clock_with_it(server: RaceServer) -> None:
    bots, _ = await race([ws_url(server), ws_url(server)])
    try:
        assert len(clock_tasks()) == 1 and server.service.running_clocks == 1
        for bot in bots:
            await play_out(bot, 5)
        for bot in bots:
            await results_of(bot)
        await no_clock_left(server)
    finally:
        await close_all(bots)


async def test_every_process_of_the_race_drops_its_clock(make_server: ServerFactory) -> None:
    # one player on each process: one of them finishes the race, the other hears the results
    one, two = await make_server(), await make_server()
    bots, _ = await race([ws_url(one), ws_url(two)])
    try:
        assert one.service.running_clocks == 1 and two.service.running_clocks == 1
        for bot in bots:
            await play_out(bot, 5)
        for bot in bots:
            await results_of(bot)
        await no_clock_left(one, two)
    finally:
        await close_all(bots)
