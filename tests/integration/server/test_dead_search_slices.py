"""A dead-position search runs in slices of a few milliseconds, with the other
players' work in between, so one player's endgame does not stall the rest."""

from __future__ import annotations

import asyncio
import gc
import time

import pytest

from bench.dead_load import corpus
from server.game import dead, engine
from server.ops.config import Settings
from server.rooms.deadwork import DeadSearchWorker, WorkerUnavailable
from server.rooms.service import LOOP_SLICE_S
from tests.support.servers import ServerFactory
from tests.unit.game.test_dead_search_moves import dead_endgame


def _steps_taken(state: engine.State,
                 slice_s: float = 0.0) -> tuple[int, tuple[str, list[engine.Move]]]:
    """How many times the status generator yields (search slices), and its answer."""
    steps = engine.status_and_moves_steps(state, slice_s)
    taken = 0
    while True:
        try:
            next(steps)
        except StopIteration as done:
            return taken, done.value
        taken += 1


def test_the_sliced_search_yields_and_agrees_with_status() -> None:
    engine.clear_caches()
    state = dead_endgame()
    search = dead.dead_search(state, slice_s=0.0)
    slices = 0
    with pytest.raises(StopIteration) as done:
        while True:
            next(search)
            slices += 1
    assert done.value.value is True and slices > 0
    assert engine.status(state) == engine.DEAD  # the same verdict, now remembered
    assert _steps_taken(state) == (0, (engine.DEAD, []))  # settled: no search again
    engine.clear_caches()


async def test_other_work_runs_while_the_server_searches(make_server: ServerFactory) -> None:
    engine.clear_caches()
    app = await make_server()
    state = dead_endgame()
    assert _steps_taken(state)[0] > 0  # it needs the search
    engine.clear_caches()
    ticks = 0

    async def other_player() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0)

    other = asyncio.create_task(other_player())
    await asyncio.sleep(0)
    before = ticks
    assert await app.status_and_moves(state, slice_s=0.0) == (engine.DEAD, [])
    other.cancel()
    assert ticks - before >= 2  # it ran between the slices, not only after the search
    engine.clear_caches()


async def test_positions_that_need_no_search_are_answered_at_once(make_server: ServerFactory) -> None:
    app = await make_server()
    state = engine.new_game("four-seasons", "24")
    assert _steps_taken(state)[0] == 0
    assert await app.status_and_moves(state) == engine.status_and_moves(state)


async def test_a_search_past_its_loop_budget_is_decided_by_the_worker(make_server: ServerFactory) -> None:
    engine.clear_caches()
    app = await make_server()
    app.service.search_offload_s = 0.0  # every search that yields once goes to the worker
    state = dead_endgame()
    assert await app.status_and_moves(state, slice_s=0.0) == (engine.DEAD, [])
    assert app.service.dead_worker.searches == 1
    # the worker's verdict is remembered here: asking again needs no search at all
    assert _steps_taken(state) == (0, (engine.DEAD, []))
    engine.clear_caches()


async def test_without_the_offload_the_worker_is_never_used(make_server: ServerFactory) -> None:
    engine.clear_caches()
    assert Settings.from_env({"PATIENCE_DEAD_OFFLOAD_MS": "0"}).dead_offload_ms == 0
    app = await make_server(dead_offload_ms=0)
    assert app.service.search_offload_s is None
    state = dead_endgame()
    assert await app.status_and_moves(state, slice_s=0.0) == (engine.DEAD, [])
    assert app.service.dead_worker.searches == 0
    engine.clear_caches()


async def test_a_failed_worker_leaves_the_search_to_the_loop(make_server: ServerFactory,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    engine.clear_caches()
    app = await make_server()
    app.service.search_offload_s = 0.0
    worker = app.service.dead_worker

    def no_process(*args: object, **kwargs: object) -> None:
        raise OSError("cannot start a process")

    monkeypatch.setattr("server.rooms.deadwork.worker_pool", no_process)
    with pytest.raises(WorkerUnavailable):
        await worker.decide(dead_endgame())
    assert await app.status_and_moves(dead_endgame(), slice_s=0.0) == (engine.DEAD, [])
    engine.clear_caches()


def largest_golden_region() -> engine.State:
    game = max(corpus(), key=lambda g: int(g.get("region", 0)))
    state = engine.new_game(game["variant"], game["deal"])
    for text in game["moves"].split():
        state = engine.play(state, text, engine.IN_PROGRESS)
    return state


async def test_a_search_larger_than_the_workers_memory_ends_without_a_verdict() -> None:
    """The worker's memory is capped: a search that outgrows it gives no verdict,
    and the server process, which never runs it, goes on."""
    engine.clear_caches()
    state = largest_golden_region()
    small, ample = DeadSearchWorker(memory_mb=1), DeadSearchWorker()
    try:
        assert await small.decide(state) is None
        assert await ample.decide(state) is True
    finally:
        small.close()
        ample.close()
    assert Settings.from_env({"PATIENCE_DEAD_WORKER_MB": "64"}).dead_worker_mb == 64
    engine.clear_caches()


async def test_no_verdict_leaves_the_game_in_progress(make_server: ServerFactory,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    engine.clear_caches()
    app = await make_server()
    app.service.search_offload_s = 0.0

    async def no_verdict(state: engine.State) -> None:
        return None

    monkeypatch.setattr(app.service.dead_worker, "decide", no_verdict)
    state = dead_endgame()
    status, moves = await app.status_and_moves(state, slice_s=0.0)
    assert status == engine.IN_PROGRESS and moves == engine.rules_of(state).legal_moves(state)
    assert dead.known_verdict(state) is None  # nothing remembered: a later search may decide
    engine.clear_caches()


def test_a_search_past_its_budget_ends_without_a_verdict() -> None:
    from server.rooms.deadwork import decide

    engine.clear_caches()
    state = largest_golden_region()
    assert decide(state, budget_s=0.0) is None  # stopped after its first slice
    assert decide(state) is True
    engine.clear_caches()


async def test_closing_the_worker_stops_a_search_in_progress() -> None:
    engine.clear_caches()
    worker = DeadSearchWorker()
    assert await worker.decide(dead_endgame()) is True  # started
    pool = worker._pool
    assert pool is not None
    pool.submit(time.sleep, 30)  # a long job under way, as a long search would be
    await asyncio.sleep(0.5)
    procs = list(pool._processes.values())
    assert procs and all(p.is_alive() for p in procs)
    worker.close()
    for p in procs:
        p.join(5)
    assert not any(p.is_alive() for p in procs)
    engine.clear_caches()


async def test_a_search_on_the_loop_holds_it_for_a_millisecond_at_most(
        make_server: ServerFactory) -> None:
    """Between two of another task's turns the loop's thread spends about one
    slice (LOOP_SLICE_S) of CPU on a search: measured in the thread's own CPU
    time, so a loaded machine that pauses the process does not count."""
    engine.clear_caches()
    app = await make_server()
    app.service.search_offload_s = None  # the whole search on the loop
    assert app.service.search_slice_s == LOOP_SLICE_S
    state = largest_golden_region()
    status, moves, search = engine.status_before_search(state)
    assert search
    gaps: list[float] = []

    async def other_player() -> None:
        last = time.thread_time()
        while True:
            await asyncio.sleep(0)
            now = time.thread_time()
            gaps.append(now - last)
            last = now

    other = asyncio.create_task(other_player())
    await asyncio.sleep(0)
    gc.disable()  # a collection of the test process's garbage is no slice of the search
    try:
        assert (await app.service.search(state, moves))[0] == engine.DEAD
    finally:
        gc.enable()
        other.cancel()
    assert len(gaps) >= 20  # many slices, another turn after each
    # the 95th percentile: a rare step of the search itself (a large set growing)
    # may hold the loop longer than a slice, and is not what the slice bounds
    gaps.sort()
    assert gaps[len(gaps) * 95 // 100] < 0.002, gaps[-len(gaps) // 20:]
    engine.clear_caches()
