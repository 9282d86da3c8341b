"""The move path's asyncio pieces (server/ops/aio.py): the kept loop, the write
lock and the plain counter; and the stop of a task that may lose a cancel."""

from __future__ import annotations

import asyncio
import threading

import pytest

from server.app import exit_watchdog
from server.ops.aio import Count, KeptLoop, WriteLock, stop_others, stop_task


def test_a_kept_loop_is_asked_again_once_its_loop_has_ended() -> None:
    kept = KeptLoop()

    async def get() -> tuple[asyncio.AbstractEventLoop, asyncio.AbstractEventLoop]:
        return kept.get(), asyncio.get_running_loop()

    first, running = asyncio.run(get())
    assert first is running
    second, running = asyncio.run(get())
    assert second is running and second is not first


async def test_a_free_write_lock_is_taken_without_waiting_and_only_once() -> None:
    lock = WriteLock()
    assert lock.try_acquire() and lock.locked()
    assert not lock.try_acquire()
    lock.release()
    assert not lock.locked()
    await lock.acquire()
    assert lock.locked()
    lock.release()
    with pytest.raises(RuntimeError):
        lock.release()


async def test_the_write_lock_admits_one_writer_at_a_time_in_arrival_order() -> None:
    lock = WriteLock()
    inside: list[int] = []
    order: list[int] = []

    async def writer(i: int) -> None:
        await lock.acquire()
        try:
            inside.append(i)
            assert len(inside) == 1
            order.append(i)
            await asyncio.sleep(0.001)
        finally:
            inside.remove(i)
            lock.release()

    assert lock.try_acquire()
    tasks = [asyncio.create_task(writer(i)) for i in range(5)]
    await asyncio.sleep(0)
    assert not lock.try_acquire()  # held, and others wait: no overtaking
    lock.release()
    await asyncio.gather(*tasks)
    assert order == [0, 1, 2, 3, 4] and not lock.locked()


async def two_waiting_writers() -> tuple[WriteLock, asyncio.Task[None], asyncio.Task[None], list[str]]:
    """A held lock and writers "a" then "b" waiting for it; the names of those that got it."""
    lock = WriteLock()
    assert lock.try_acquire()
    got: list[str] = []

    async def writer(name: str) -> None:
        await lock.acquire()
        got.append(name)
        lock.release()

    a = asyncio.create_task(writer("a"))
    b = asyncio.create_task(writer("b"))
    await asyncio.sleep(0)
    return lock, a, b, got


async def test_a_writer_cancelled_while_waiting_leaves_the_lock_to_the_next() -> None:
    lock, a, b, got = await two_waiting_writers()
    a.cancel()
    await asyncio.sleep(0)
    lock.release()
    await b
    assert got == ["b"] and not lock.locked()


async def test_a_writer_cancelled_after_being_handed_the_lock_passes_it_on() -> None:
    lock, a, b, got = await two_waiting_writers()
    lock.release()  # handed to a, which has not run yet
    a.cancel()  # ... and is cancelled before it does
    await asyncio.gather(a, return_exceptions=True)
    await b
    assert got == ["b"] and not lock.locked()


def test_a_count_counts() -> None:
    count = Count()
    for _ in range(3):
        count.inc()
    assert count.value == 3


def test_a_lock_nobody_waited_for_holds_no_queue() -> None:
    """One lock per connection: an idle one keeps no waiters' queue (an empty
    deque is about 600 bytes; the bench's idle memory per player)."""
    lock = WriteLock()
    assert lock.try_acquire()
    lock.release()
    assert lock._waiters is None


def losing(cancels: int) -> tuple[asyncio.Task[None], list[int]]:
    """A task that loses its first ``cancels`` cancels (as a loop over redis-py
    calls does on Python 3.11) and ends at the next one; [cancels seen, cancels
    it loses], the second for the test to lower."""
    counts = [0, cancels]

    async def loop() -> None:
        while True:
            try:
                await asyncio.sleep(10)
            except asyncio.CancelledError:
                counts[0] += 1
                if counts[0] > counts[1]:
                    raise

    return asyncio.create_task(loop()), counts


async def test_stopping_a_task_cancels_it_again_until_it_ends() -> None:
    task, counts = losing(2)
    await asyncio.sleep(0)
    assert await stop_task(task, 2.0, 0.01)
    assert task.cancelled() and counts[0] == 3


async def test_stopping_a_task_that_never_ends_gives_up_after_its_wait() -> None:
    task, counts = losing(1_000_000)
    await asyncio.sleep(0)
    loop = asyncio.get_running_loop()
    start = loop.time()
    assert not await stop_task(task, 0.1, 0.02)
    assert 0.1 <= loop.time() - start < 1.0 and not task.done() and counts[0] >= 3
    counts[1] = 0  # the next cancel ends it
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    assert task.cancelled()


async def test_the_last_sweep_ends_every_other_task_and_counts_those_it_cannot() -> None:
    # a stopped server's last step (server/app.py): asyncio.run would wait for
    # a task whose cancel was lost without a bound
    quick, quick_counts = losing(2)
    stuck, stuck_counts = losing(1_000_000)
    await asyncio.sleep(0)
    assert await stop_others(0.2, 0.01) == 1
    assert quick.cancelled() and quick_counts[0] == 3
    assert not stuck.done() and stuck_counts[0] >= 3
    stuck_counts[1] = 0
    assert await stop_others(1.0, 0.01) == 0
    assert stuck.cancelled()


def test_the_exit_watchdog_fires_once_its_time_is_up() -> None:
    fired = threading.Event()
    timer = exit_watchdog(0.05, fired.set)
    assert timer.daemon  # it never holds up a process's own exit
    assert fired.wait(5)
